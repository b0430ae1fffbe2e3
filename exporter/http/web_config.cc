// The --web.config.file parser.
#include "exporter/http/web_config.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <set>

#include "base/yaml_file.h"

namespace scx {

namespace {

// exporter-toolkit keys that this exporter recognises but does not implement.
const std::set<std::string>& UnsupportedTlsKeys() {
  static const std::set<std::string> keys = {"cert",
                                             "key",
                                             "client_ca",
                                             "client_allowed_sans",
                                             "cipher_suites",
                                             "prefer_server_cipher_suites",
                                             "curve_preferences"};
  return keys;
}

// Carries the file name into error messages.
class Reporter {
 public:
  Reporter(const std::string& file_name, std::string* error)
      : file_name_(file_name), error_(error) {}

  bool Fail(const YAML::Node& node, const std::string& key, const std::string& what) const {
    if (error_ != nullptr) *error_ = YamlError(file_name_, node.Mark(), key, what);
    return false;
  }

 private:
  const std::string& file_name_;
  std::string* error_;
};

bool IsBcryptHash(const std::string& hash) {
  static const char kAlphabet[] =
      "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  if (hash.size() != 60 || hash[0] != '$' || hash[1] != '2' || hash[3] != '$' || hash[6] != '$') {
    return false;
  }
  if (hash[2] != 'a' && hash[2] != 'b' && hash[2] != 'y') return false;
  if (!isdigit(static_cast<unsigned char>(hash[4])) ||
      !isdigit(static_cast<unsigned char>(hash[5]))) {
    return false;
  }
  int cost = (hash[4] - '0') * 10 + (hash[5] - '0');
  if (cost < 4 || cost > 31) return false;
  return hash.find_first_not_of(kAlphabet, 7) == std::string::npos;
}

bool ReadString(const Reporter& reporter, const YAML::Node& node, const std::string& key,
                std::string* out) {
  if (!node.IsScalar()) return reporter.Fail(node, key, "expected a string");
  *out = node.Scalar();
  return true;
}

bool ReadTlsVersion(const Reporter& reporter, const YAML::Node& node, const std::string& key,
                    TlsVersion* out) {
  std::string value;
  if (!ReadString(reporter, node, key, &value)) return false;
  if (value == "TLS12") {
    *out = TlsVersion::kTls12;
  } else if (value == "TLS13") {
    *out = TlsVersion::kTls13;
  } else if (value == "TLS10" || value == "TLS11") {
    return reporter.Fail(node, key, "'" + value + "' is not supported (use TLS12 or TLS13)");
  } else {
    return reporter.Fail(node, key, "unknown TLS version '" + value + "' (use TLS12 or TLS13)");
  }
  return true;
}

bool ReadClientAuth(const Reporter& reporter, const YAML::Node& node, const std::string& key,
                    ClientAuth* out) {
  std::string value;
  if (!ReadString(reporter, node, key, &value)) return false;
  if (value.empty() || value == "NoClientCert") {
    *out = ClientAuth::kNoClientCert;
  } else if (value == "VerifyClientCertIfGiven") {
    *out = ClientAuth::kVerifyClientCertIfGiven;
  } else if (value == "RequireAndVerifyClientCert") {
    *out = ClientAuth::kRequireAndVerifyClientCert;
  } else if (value == "RequestClientCert" || value == "RequireAnyClientCert" ||
             value == "RequireClientCert") {
    return reporter.Fail(node, key,
                         "'" + value +
                             "' is not supported: it accepts certificates nobody verified (use "
                             "RequireAndVerifyClientCert or VerifyClientCertIfGiven with "
                             "client_ca_file)");
  } else {
    return reporter.Fail(node, key,
                         "unknown value '" + value +
                             "' (use NoClientCert, VerifyClientCertIfGiven or "
                             "RequireAndVerifyClientCert)");
  }
  return true;
}

bool ParseTlsKey(const Reporter& reporter, const std::string& name, const YAML::Node& value,
                 const std::string& file_name, WebConfig* config) {
  const std::string key = "tls_server_config." + name;
  std::string text;
  if (name == "cert_file" || name == "key_file" || name == "client_ca_file") {
    if (!ReadString(reporter, value, key, &text)) return false;
    if (name == "cert_file") config->cert_file = ResolveYamlPath(file_name, text);
    if (name == "key_file") config->key_file = ResolveYamlPath(file_name, text);
    if (name == "client_ca_file") config->client_ca_file = ResolveYamlPath(file_name, text);
    return true;
  }
  if (name == "client_auth_type") return ReadClientAuth(reporter, value, key, &config->client_auth);
  if (name == "min_version") return ReadTlsVersion(reporter, value, key, &config->min_version);
  if (name == "max_version") return ReadTlsVersion(reporter, value, key, &config->max_version);
  if (UnsupportedTlsKeys().count(name)) return reporter.Fail(value, key, "not supported");
  return reporter.Fail(value, key, "unknown key");
}

// Client certificates need TLS, and a CA file exactly when they are verified (as
// exporter-toolkit: a CA without a policy is an error).
bool CheckClientAuth(const Reporter& reporter, const YAML::Node& node, const WebConfig& config) {
  const bool verifies = config.client_auth != ClientAuth::kNoClientCert;
  if ((verifies || !config.client_ca_file.empty()) && !config.tls_enabled()) {
    return reporter.Fail(node, "tls_server_config.cert_file",
                         "missing (client certificates need TLS)");
  }
  if (verifies && config.client_ca_file.empty()) {
    return reporter.Fail(node, "tls_server_config.client_ca_file",
                         "missing (client_auth_type verifies client certificates)");
  }
  if (!verifies && !config.client_ca_file.empty()) {
    return reporter.Fail(node, "tls_server_config.client_auth_type",
                         "missing (client_ca_file is set; use RequireAndVerifyClientCert)");
  }
  return true;
}

bool ParseTlsServerConfig(const Reporter& reporter, const YAML::Node& node,
                          const std::string& file_name, WebConfig* config) {
  if (node.IsNull()) return true;
  if (!node.IsMap()) return reporter.Fail(node, "tls_server_config", "expected a mapping");
  for (const auto& entry : node) {
    if (!ParseTlsKey(reporter, entry.first.Scalar(), entry.second, file_name, config)) {
      return false;
    }
  }
  if (config->cert_file.empty() != config->key_file.empty()) {
    const char* missing = config->cert_file.empty() ? "cert_file" : "key_file";
    const char* present = config->cert_file.empty() ? "key_file" : "cert_file";
    return reporter.Fail(node, std::string("tls_server_config.") + missing,
                         std::string("missing (") + present + " is set)");
  }
  if (config->min_version == TlsVersion::kTls13 && config->max_version == TlsVersion::kTls12) {
    return reporter.Fail(node, "tls_server_config.min_version", "is above max_version");
  }
  return CheckClientAuth(reporter, node, *config);
}

bool ParseBasicAuthUsers(const Reporter& reporter, const YAML::Node& node, WebConfig* config) {
  if (node.IsNull()) return true;
  if (!node.IsMap()) return reporter.Fail(node, "basic_auth_users", "expected a mapping");
  for (const auto& entry : node) {
    const std::string user = entry.first.Scalar();
    const std::string key = "basic_auth_users." + user;
    std::string hash;
    if (!ReadString(reporter, entry.second, key, &hash)) return false;
    if (user.empty() || user.find(':') != std::string::npos) {
      return reporter.Fail(entry.first, key, "user names must be non-empty and without ':'");
    }
    if (!IsBcryptHash(hash)) {
      return reporter.Fail(entry.second, key, "expected a bcrypt hash ($2a$, $2b$ or $2y$)");
    }
    config->basic_auth_users[user] = hash;
  }
  return true;
}

bool ParseTopLevel(const Reporter& reporter, const YAML::Node& root, const std::string& file_name,
                   WebConfig* config) {
  if (root.IsNull()) return true;  // An empty file: plain HTTP, no auth.
  if (!root.IsMap()) return reporter.Fail(root, "", "expected a mapping at the top level");
  for (const auto& entry : root) {
    const std::string name = entry.first.Scalar();
    if (name == "tls_server_config") {
      if (!ParseTlsServerConfig(reporter, entry.second, file_name, config)) return false;
    } else if (name == "basic_auth_users") {
      if (!ParseBasicAuthUsers(reporter, entry.second, config)) return false;
    } else if (name == "http_server_config" || name == "rate_limit") {
      return reporter.Fail(entry.first, name, "not supported");
    } else {
      return reporter.Fail(entry.first, name, "unknown key");
    }
  }
  return true;
}

// Reads `root`, the parsed file `file_name`, into `config` (left untouched on error).
bool ReadWebConfig(const YAML::Node& root, const std::string& file_name, WebConfig* config,
                   std::string* error) {
  Reporter reporter(file_name, error);
  WebConfig parsed;
  try {
    if (!ParseTopLevel(reporter, root, file_name, &parsed)) return false;
  } catch (const YAML::Exception& e) {
    *error = YamlError(file_name, e.mark, "", e.msg);
    return false;
  }
  *config = std::move(parsed);
  return true;
}

}  // namespace

bool ParseWebConfig(const std::string& yaml_text, const std::string& file_name, WebConfig* config,
                    std::string* error) {
  YAML::Node root;
  return ParseYamlText(yaml_text, file_name, &root, error) &&
         ReadWebConfig(root, file_name, config, error);
}

bool LoadWebConfig(const std::string& path, WebConfig* config, std::string* error) {
  YAML::Node root;
  return LoadYamlFile(path, YamlFileLimits(), &root, error) &&
         ReadWebConfig(root, path, config, error);
}

}  // namespace scx
