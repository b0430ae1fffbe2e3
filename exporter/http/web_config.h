// The --web.config.file: the subset of Prometheus' exporter-toolkit web config
// format this exporter supports (TLS with a certificate and key file, client
// certificates verified against a CA file, a TLS version range, bcrypt basic auth
// users). Strict: anything else is an error naming the file, the line and the key.
#ifndef SCX_EXPORTER_HTTP_WEB_CONFIG_H_
#define SCX_EXPORTER_HTTP_WEB_CONFIG_H_

#include <map>
#include <string>

namespace scx {

enum class TlsVersion { kTls12, kTls13 };

// exporter-toolkit's client_auth_type values this exporter implements. The others
// (RequestClientCert, RequireAnyClientCert) ask for a certificate without verifying
// it and are refused.
enum class ClientAuth {
  kNoClientCert,                // "" or "NoClientCert"
  kVerifyClientCertIfGiven,     // a certificate is optional; if sent, it must verify
  kRequireAndVerifyClientCert,  // mutual TLS: no verified certificate, no handshake
};

struct WebConfig {
  // PEM files, resolved against the directory of the web config file. Both set or
  // both empty; when set, the server speaks only HTTPS.
  std::string cert_file;
  std::string key_file;
  // PEM file of the CAs that sign client certificates; set iff client_auth verifies.
  std::string client_ca_file;
  ClientAuth client_auth = ClientAuth::kNoClientCert;
  TlsVersion min_version = TlsVersion::kTls12;
  TlsVersion max_version = TlsVersion::kTls13;
  // User name -> bcrypt hash ("$2a$", "$2b$" or "$2y$"). Empty: no authentication.
  std::map<std::string, std::string> basic_auth_users;

  bool tls_enabled() const { return !cert_file.empty(); }
};

// Parses YAML text. `file_name` appears in error messages and its directory
// resolves relative cert_file, key_file and client_ca_file paths. Returns false and sets `error`
// ("FILE:LINE: key 'K': what is wrong") on any problem.
bool ParseWebConfig(const std::string& yaml_text, const std::string& file_name, WebConfig* config,
                    std::string* error);

// Reads and parses `path`.
bool LoadWebConfig(const std::string& path, WebConfig* config, std::string* error);

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_WEB_CONFIG_H_
