// The --web.config.file parser: one key table per mapping of exporter-toolkit's format
// (base/yaml_keys.h), then the checks that span keys.
#include "exporter/http/web_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "base/strings.h"
#include "base/yaml_file.h"
#include "base/yaml_keys.h"
#include "exporter/http/go_duration.h"

namespace scx {

namespace {

// The keys named again outside their table row (in cross-checks), spelled once.
constexpr char kTlsServerConfig[] = "tls_server_config";
constexpr char kCert[] = "cert";
constexpr char kCertFile[] = "cert_file";
constexpr char kKey[] = "key";
constexpr char kKeyFile[] = "key_file";
constexpr char kClientCa[] = "client_ca";
constexpr char kClientCaFile[] = "client_ca_file";
constexpr char kClientAuthType[] = "client_auth_type";
constexpr char kMinVersion[] = "min_version";
constexpr char kCipherSuites[] = "cipher_suites";
constexpr char kClientAllowedSans[] = "client_allowed_sans";

// Go's crypto/tls names (tls.CipherSuites(), the list exporter-toolkit accepts) and
// OpenSSL's; "" marks a TLS 1.3 suite, which Go does not let a config choose.
struct CipherName {
  const char* go;
  const char* openssl;
};
constexpr CipherName kCipherNames[] = {
    {"TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA"},
    {"TLS_RSA_WITH_AES_256_CBC_SHA", "AES256-SHA"},
    {"TLS_RSA_WITH_AES_128_GCM_SHA256", "AES128-GCM-SHA256"},
    {"TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384"},
    {"TLS_AES_128_GCM_SHA256", ""},
    {"TLS_AES_256_GCM_SHA384", ""},
    {"TLS_CHACHA20_POLY1305_SHA256", ""},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA-AES256-SHA"},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA"},
    {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA-AES256-SHA"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384"},
    {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256"},
    {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384"},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305"},
};

// exporter-toolkit's curve names (tls.CurveID) and OpenSSL's group names.
struct CurveName {
  const char* go;
  const char* openssl;
};
constexpr CurveName kCurveNames[] = {
    {"CurveP256", "P-256"},
    {"CurveP384", "P-384"},
    {"CurveP521", "P-521"},
    {"X25519", "X25519"},
};

// The headers exporter-toolkit lets a config set, with the only values it takes for
// the enumerated ones (case-sensitive, as there).
struct HeaderRule {
  const char* name;
  std::vector<std::string> values;  // empty: any value
};
const std::vector<HeaderRule>& HeaderRules() {
  static const std::vector<HeaderRule> rules = {
      {"Strict-Transport-Security", {}},
      {"X-Content-Type-Options", {"nosniff"}},
      {"X-Frame-Options", {"deny", "sameorigin"}},
      {"X-XSS-Protection", {}},
      {"Content-Security-Policy", {}},
  };
  return rules;
}

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

// A row whose value is read with ReadYamlString, then handed to `use`.
YamlKey StringKey(
    std::string name,
    const std::function<bool(YamlReader* reader, const YAML::Node& value, const std::string& path,
                             const std::string& text)>& use) {
  return {std::move(name),
          [use](YamlReader* reader, const YAML::Node& value, const std::string& path) {
            std::string text;
            return ReadYamlString(reader, value, path, &text) && use(reader, value, path, text);
          }};
}

// A path written in the file, resolved against its directory.
YamlKey PathKey(std::string name, std::string* out) {
  return StringKey(std::move(name), [out](YamlReader* reader, const YAML::Node&, const std::string&,
                                          const std::string& text) {
    *out = ResolveYamlPath(reader->file_name(), text);
    return true;
  });
}

bool ReadTlsVersion(YamlReader* reader, const YAML::Node& value, const std::string& path,
                    const std::string& text, TlsVersion* out) {
  if (text == "TLS12") {
    *out = TlsVersion::kTls12;
  } else if (text == "TLS13") {
    *out = TlsVersion::kTls13;
  } else if (text == "TLS10" || text == "TLS11") {
    return reader->Fail(value, path, "'" + text + "' is not supported (use TLS12 or TLS13)");
  } else {
    return reader->Fail(value, path, "unknown TLS version '" + text + "' (use TLS12 or TLS13)");
  }
  return true;
}

bool ReadClientAuth(YamlReader* reader, const YAML::Node& value, const std::string& path,
                    const std::string& text, ClientAuth* out) {
  if (text.empty() || text == "NoClientCert") {
    *out = ClientAuth::kNoClientCert;
  } else if (text == "VerifyClientCertIfGiven") {
    *out = ClientAuth::kVerifyClientCertIfGiven;
  } else if (text == "RequireAndVerifyClientCert") {
    *out = ClientAuth::kRequireAndVerifyClientCert;
  } else if (text == "RequestClientCert" || text == "RequireAnyClientCert" ||
             text == "RequireClientCert") {
    return reader->Fail(value, path,
                        "'" + text +
                            "' is not supported: it accepts certificates nobody verified (use "
                            "RequireAndVerifyClientCert or VerifyClientCertIfGiven with " +
                            kClientCaFile + ")");
  } else {
    return reader->Fail(value, path,
                        "unknown value '" + text +
                            "' (use NoClientCert, VerifyClientCertIfGiven or "
                            "RequireAndVerifyClientCert)");
  }
  return true;
}

bool ReadCipherSuites(YamlReader* reader, const YAML::Node& value, const std::string& path,
                      WebConfig* config) {
  std::vector<std::string> names;
  if (!ReadYamlStringList(reader, value, path, &names)) return false;
  config->tls12_ciphers.clear();
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string openssl;
    if (!OpenSslCipherName(names[i], &openssl)) {
      return reader->Fail(value[i], YamlItemPath(path, i),
                          "unknown cipher suite '" + names[i] +
                              "' (Go's names from tls.CipherSuites(), e.g. "
                              "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)");
    }
    if (!openssl.empty()) config->tls12_ciphers.push_back(openssl);
  }
  return true;
}

bool ReadCurves(YamlReader* reader, const YAML::Node& value, const std::string& path,
                WebConfig* config) {
  std::vector<std::string> names;
  if (!ReadYamlStringList(reader, value, path, &names)) return false;
  config->groups.clear();
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto* curve = std::find_if(std::begin(kCurveNames), std::end(kCurveNames),
                                     [&](const CurveName& c) { return names[i] == c.go; });
    if (curve == std::end(kCurveNames)) {
      return reader->Fail(
          value[i], YamlItemPath(path, i),
          "unknown curve '" + names[i] + "' (use CurveP256, CurveP384, CurveP521 or X25519)");
    }
    config->groups.emplace_back(curve->openssl);
  }
  return true;
}

bool ReadAllowedSans(YamlReader* reader, const YAML::Node& value, const std::string& path,
                     WebConfig* config) {
  if (!ReadYamlStringList(reader, value, path, &config->client_allowed_sans)) return false;
  for (std::size_t i = 0; i < config->client_allowed_sans.size(); ++i) {
    if (config->client_allowed_sans[i].empty()) {
      return reader->Fail(value[i], YamlItemPath(path, i), "is empty");
    }
  }
  return true;
}

std::vector<YamlKey> TlsKeys(WebConfig* config) {
  return {
      YamlStringKey(kCert, &config->cert_pem),
      YamlStringKey(kKey, &config->key_pem),
      YamlStringKey(kClientCa, &config->client_ca_pem),
      PathKey(kCertFile, &config->cert_file),
      PathKey(kKeyFile, &config->key_file),
      PathKey(kClientCaFile, &config->client_ca_file),
      StringKey(kClientAuthType,
                [config](YamlReader* reader, const YAML::Node& value, const std::string& path,
                         const std::string& text) {
                  return ReadClientAuth(reader, value, path, text, &config->client_auth);
                }),
      StringKey(kMinVersion,
                [config](YamlReader* reader, const YAML::Node& value, const std::string& path,
                         const std::string& text) {
                  return ReadTlsVersion(reader, value, path, text, &config->min_version);
                }),
      StringKey("max_version",
                [config](YamlReader* reader, const YAML::Node& value, const std::string& path,
                         const std::string& text) {
                  return ReadTlsVersion(reader, value, path, text, &config->max_version);
                }),
      {kCipherSuites,
       [config](YamlReader* reader, const YAML::Node& value, const std::string& path) {
         return ReadCipherSuites(reader, value, path, config);
       }},
      YamlBoolKey("prefer_server_cipher_suites", &config->prefer_server_cipher_suites),
      {"curve_preferences",
       [config](YamlReader* reader, const YAML::Node& value, const std::string& path) {
         return ReadCurves(reader, value, path, config);
       }},
      {kClientAllowedSans,
       [config](YamlReader* reader, const YAML::Node& value, const std::string& path) {
         return ReadAllowedSans(reader, value, path, config);
       }},
  };
}

// One of `inline_key` and `file_key`, not both: as exporter-toolkit's docs say.
bool CheckOneSource(YamlReader* reader, const YAML::Node& node, const std::string& inline_key,
                    bool has_inline, const std::string& file_key, bool has_file) {
  if (!has_inline || !has_file) return true;
  return reader->Fail(node, YamlKeyPath(kTlsServerConfig, inline_key),
                      "set " + inline_key + " or " + file_key + ", not both");
}

// Client certificates need TLS, and CAs exactly when they are verified (as
// exporter-toolkit: CAs without a policy are an error); SANs are checked only on a
// certificate that must be sent and verified.
bool CheckClientAuth(YamlReader* reader, const YAML::Node& node, const WebConfig& config) {
  const bool verifies = config.client_auth != ClientAuth::kNoClientCert;
  const std::string tls = kTlsServerConfig;
  if ((verifies || config.has_client_ca()) && !config.tls_enabled()) {
    return reader->Fail(node, YamlKeyPath(tls, kCertFile),
                        "missing (client certificates need TLS)");
  }
  if (verifies && !config.has_client_ca()) {
    return reader->Fail(
        node, YamlKeyPath(tls, kClientCaFile),
        std::string("missing (") + kClientAuthType + " verifies client certificates)");
  }
  if (!verifies && config.has_client_ca()) {
    return reader->Fail(
        node, YamlKeyPath(tls, kClientAuthType),
        std::string("missing (") + kClientCaFile + " is set; use RequireAndVerifyClientCert)");
  }
  if (!config.client_allowed_sans.empty() &&
      config.client_auth != ClientAuth::kRequireAndVerifyClientCert) {
    return reader->Fail(node, YamlKeyPath(tls, kClientAllowedSans),
                        std::string("needs ") + kClientAuthType +
                            ": RequireAndVerifyClientCert (a client that sends no certificate "
                            "has no SAN to check)");
  }
  return true;
}

bool CheckTlsServerConfig(YamlReader* reader, const YAML::Node& node, const WebConfig& config) {
  const std::string tls = kTlsServerConfig;
  if (!CheckOneSource(reader, node, kCert, !config.cert_pem.empty(), kCertFile,
                      !config.cert_file.empty()) ||
      !CheckOneSource(reader, node, kKey, !config.key_pem.empty(), kKeyFile,
                      !config.key_file.empty()) ||
      !CheckOneSource(reader, node, kClientCa, !config.client_ca_pem.empty(), kClientCaFile,
                      !config.client_ca_file.empty())) {
    return false;
  }
  if (config.tls_enabled() != config.has_key()) {
    const char* missing = config.tls_enabled() ? kKeyFile : kCertFile;
    const char* present = config.tls_enabled() ? (config.cert_pem.empty() ? kCertFile : kCert)
                                               : (config.key_pem.empty() ? kKeyFile : kKey);
    return reader->Fail(node, YamlKeyPath(tls, missing),
                        std::string("missing (") + present + " is set)");
  }
  if (config.min_version == TlsVersion::kTls13 && config.max_version == TlsVersion::kTls12) {
    return reader->Fail(node, YamlKeyPath(tls, kMinVersion), "is above max_version");
  }
  if (node[kCipherSuites] && config.tls12_ciphers.empty() &&
      config.min_version == TlsVersion::kTls12) {
    return reader->Fail(node[kCipherSuites], YamlKeyPath(tls, kCipherSuites),
                        "names no TLS 1.2 suite, so no TLS 1.2 client could connect (TLS 1.3 "
                        "suites are not configurable; add a TLS 1.2 suite or set " +
                            std::string(kMinVersion) + ": TLS13)");
  }
  return CheckClientAuth(reader, node, config);
}

bool ReadTlsServerConfig(YamlReader* reader, const YAML::Node& node, const std::string& path,
                         WebConfig* config) {
  return ReadYamlMap(reader, node, path, TlsKeys(config)) &&
         CheckTlsServerConfig(reader, node, *config);
}

bool ReadHeader(YamlReader* reader, const std::string& name, const YAML::Node& value,
                const std::string& path, WebConfig* config) {
  const auto& rules = HeaderRules();
  const auto rule =
      std::find_if(rules.begin(), rules.end(), [&](const HeaderRule& r) { return name == r.name; });
  if (rule == rules.end()) {
    return reader->Fail(value, path,
                        "this header cannot be configured (as in exporter-toolkit, only " +
                            Join(ConfigurableHeaders(), ", ") + ")");
  }
  std::string text;
  if (!ReadYamlString(reader, value, path, &text)) return false;
  if (text.empty()) return true;  // "unset if blank"
  if (!rule->values.empty() &&
      std::find(rule->values.begin(), rule->values.end(), text) == rule->values.end()) {
    return reader->Fail(value, path,
                        "expected " + Join(rule->values, " or ") + ", got \"" + text + "\"");
  }
  const bool control = std::any_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 && c != '\t';
  });
  if (control) return reader->Fail(value, path, "holds a control character (a line break?)");
  config->headers.emplace_back(name, text);
  return true;
}

std::vector<YamlKey> HttpServerKeys(WebConfig* config) {
  return {
      YamlBoolKey("http2", &config->http2),
      {"headers",
       [config](YamlReader* reader, const YAML::Node& value, const std::string& path) {
         return ReadYamlEntries(reader, value, path,
                                [&](const std::string& name, const YAML::Node& header,
                                    const std::string& header_path) {
                                  return ReadHeader(reader, name, header, header_path, config);
                                });
       }},
  };
}

bool ReadBasicAuthUsers(YamlReader* reader, const YAML::Node& node, const std::string& path,
                        WebConfig* config) {
  return ReadYamlEntries(
      reader, node, path,
      [&](const std::string& user, const YAML::Node& value, const std::string& user_path) {
        std::string hash;
        if (!value.IsScalar()) {
          return reader->Fail(value, user_path,
                              std::string("expected a string, got ") + YamlKind(value));
        }
        hash = value.Scalar();
        if (user.empty() || user.find(':') != std::string::npos) {
          return reader->Fail(value, user_path, "user names must be non-empty and without ':'");
        }
        if (!IsBcryptHash(hash)) {
          return reader->Fail(value, user_path, "expected a bcrypt hash ($2a$, $2b$ or $2y$)");
        }
        config->basic_auth_users[user] = hash;
        return true;
      });
}

// `rate_limit.interval`, read as exporter-toolkit reads it (Go's time.ParseDuration).
bool ReadRateLimitInterval(YamlReader* reader, const YAML::Node& value, const std::string& path,
                           const std::string& text, WebConfig* config) {
  std::chrono::nanoseconds interval;
  if (!ParseGoDuration(text, &interval) || interval > kMaxRateLimitInterval) {
    return reader->Fail(value, path,
                        "expected a duration as Go writes it (\"1s\", \"1m30s\", \"0.5s\"; \"0\" "
                        "for no limit; at most 24h), got \"" +
                            text + "\"");
  }
  config->rate_limit_interval = interval;
  return true;
}

bool ReadRateLimitBurst(YamlReader* reader, const YAML::Node& value, const std::string& path,
                        const std::string& text, WebConfig* config) {
  std::uint64_t burst = 0;
  if (!ParseWholeNumber(text, &burst) || burst > static_cast<std::uint64_t>(kMaxRateLimitBurst)) {
    return reader->Fail(value, path,
                        "expected a whole number from 0 to " + std::to_string(kMaxRateLimitBurst) +
                            ", got \"" + text + "\"");
  }
  config->rate_limit_burst = static_cast<int>(burst);
  return true;
}

// exporter-toolkit's `rate_limit: {interval, burst}`. A burst of 0 with an interval
// would refuse every request (golang.org/x/time/rate allows nothing then): refused
// here, so that a typo cannot take the exporter off the air.
bool ReadRateLimit(YamlReader* reader, const YAML::Node& node, const std::string& path,
                   WebConfig* config) {
  const std::vector<YamlKey> keys = {
      StringKey("interval",
                [config](YamlReader* r, const YAML::Node& value, const std::string& key_path,
                         const std::string& text) {
                  return ReadRateLimitInterval(r, value, key_path, text, config);
                }),
      StringKey("burst", [config](YamlReader* r, const YAML::Node& value,
                                  const std::string& key_path, const std::string& text) {
        return ReadRateLimitBurst(r, value, key_path, text, config);
      })};
  if (!ReadYamlMap(reader, node, path, keys)) return false;
  if (config->rate_limited() && config->rate_limit_burst == 0) {
    return reader->Fail(node, path,
                        "burst must be at least 1 when interval is set: a burst of 0 refuses "
                        "every request (set interval: 0, or leave rate_limit out, for no limit)");
  }
  return true;
}

std::vector<YamlKey> TopLevelKeys(WebConfig* config) {
  auto into = [config](bool (*read)(YamlReader*, const YAML::Node&, const std::string&,
                                    WebConfig*)) -> YamlValueReader {
    return [config, read](YamlReader* reader, const YAML::Node& value, const std::string& path) {
      return read(reader, value, path, config);
    };
  };
  return {
      {kTlsServerConfig, into(&ReadTlsServerConfig)},
      {"http_server_config",
       [config](YamlReader* reader, const YAML::Node& value, const std::string& path) {
         return ReadYamlMap(reader, value, path, HttpServerKeys(config));
       }},
      {"basic_auth_users", into(&ReadBasicAuthUsers)},
      {"rate_limit", into(&ReadRateLimit)},
  };
}

// Reads `root`, the parsed file `file_name`, into `config` (left untouched on error).
bool ReadWebConfig(const YAML::Node& root, const std::string& file_name, WebConfig* config,
                   std::string* error) {
  WebConfig parsed;
  YamlReader reader(file_name);
  try {
    ReadYamlMap(&reader, root, "", TopLevelKeys(&parsed));  // an empty file: plain HTTP
  } catch (const YAML::Exception& e) {
    *error = YamlError(file_name, e.mark, "", e.msg);
    return false;
  }
  if (reader.failed()) {
    *error = reader.error();
    return false;
  }
  *config = std::move(parsed);
  return true;
}

}  // namespace

bool OpenSslCipherName(const std::string& go_name, std::string* openssl_name) {
  for (const CipherName& name : kCipherNames) {
    if (go_name == name.go) {
      *openssl_name = name.openssl;
      return true;
    }
  }
  return false;
}

const std::vector<std::string>& ConfigurableHeaders() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list;
    for (const HeaderRule& rule : HeaderRules()) list.emplace_back(rule.name);
    return list;
  }();
  return names;
}

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
