// The --web.config.file, in Prometheus' exporter-toolkit web config format: TLS (a
// certificate and key from files or inline, a version range, Go's cipher suite and
// curve names, client certificates verified against CAs and optionally their SANs),
// extra response headers from exporter-toolkit's short list, bcrypt basic auth users
// and exporter-toolkit's `rate_limit`. Strict: an unknown key, or a key of the format
// this exporter cannot honour (client_auth_type values that verify nothing), is an
// error naming the file, the line, the key and why.
#ifndef SCX_EXPORTER_HTTP_WEB_CONFIG_H_
#define SCX_EXPORTER_HTTP_WEB_CONFIG_H_

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace scx {

enum class TlsVersion { kTls12, kTls13 };

// The largest `rate_limit` taken: bounds, so that the bucket's arithmetic (burst
// intervals in nanoseconds) cannot overflow. A token a day is no rate, and more
// requests than this at once are no burst.
inline constexpr int kMaxRateLimitBurst = 10000;
inline constexpr std::chrono::hours kMaxRateLimitInterval{24};

// exporter-toolkit's client_auth_type values this exporter implements. The others
// (RequestClientCert, RequireAnyClientCert) ask for a certificate without verifying
// it and are refused.
enum class ClientAuth {
  kNoClientCert,                // "" or "NoClientCert"
  kVerifyClientCertIfGiven,     // a certificate is optional; if sent, it must verify
  kRequireAndVerifyClientCert,  // mutual TLS: no verified certificate, no handshake
};

struct WebConfig {
  // The certificate (then its chain) and the key: each from a PEM file, resolved
  // against the directory of the web config file, or inline (`cert`, `key`), never
  // both. A certificate and a key, or neither; with them the server speaks only HTTPS.
  std::string cert_file;
  std::string key_file;
  std::string cert_pem;  // inline `cert`
  std::string key_pem;   // inline `key`
  // The CAs that sign client certificates: a PEM file or inline (`client_ca`); set iff
  // client_auth verifies.
  std::string client_ca_file;
  std::string client_ca_pem;
  ClientAuth client_auth = ClientAuth::kNoClientCert;
  TlsVersion min_version = TlsVersion::kTls12;
  TlsVersion max_version = TlsVersion::kTls13;
  // `cipher_suites`, as OpenSSL names for TLS 1.2 (Go's TLS 1.3 names are accepted and,
  // as Go does, ignored: TLS 1.3 keeps OpenSSL's suites). Empty: OpenSSL's defaults.
  std::vector<std::string> tls12_ciphers;
  bool prefer_server_cipher_suites = true;  // exporter-toolkit's default
  // `curve_preferences` as OpenSSL group names, in order. Empty: OpenSSL's defaults.
  std::vector<std::string> groups;
  // A verified client certificate must carry one of these as a DNS name, IP address,
  // e-mail address or URI in its subjectAltName. Empty: any verified certificate.
  std::vector<std::string> client_allowed_sans;
  // `http_server_config.http2`: accepted, never served (see docs/configuration.md).
  bool http2 = true;
  // `http_server_config.headers` with a value, added to every response, in file order.
  std::vector<std::pair<std::string, std::string>> headers;
  // User name -> bcrypt hash ("$2a$", "$2b$" or "$2y$"). Empty: no authentication.
  std::map<std::string, std::string> basic_auth_users;
  // `rate_limit`, exporter-toolkit's token bucket for every request (rate_limiter.h):
  // `burst` requests at once, then one every `interval`. A zero interval (the
  // default): no limit. A positive interval needs a burst of at least 1.
  std::chrono::nanoseconds rate_limit_interval{0};
  int rate_limit_burst = 0;

  bool rate_limited() const { return rate_limit_interval.count() > 0; }

  bool tls_enabled() const { return !cert_file.empty() || !cert_pem.empty(); }
  bool has_key() const { return !key_file.empty() || !key_pem.empty(); }
  bool has_client_ca() const { return !client_ca_file.empty() || !client_ca_pem.empty(); }
};

// Go's name of a cipher suite of tls.CipherSuites() (the ones exporter-toolkit takes)
// as OpenSSL names it: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256" is
// "ECDHE-RSA-AES128-GCM-SHA256". "" for a TLS 1.3 suite (ignored, as Go ignores it);
// false for a name Go does not list there.
bool OpenSslCipherName(const std::string& go_name, std::string* openssl_name);

// The headers `http_server_config.headers` may set, as exporter-toolkit allows them.
const std::vector<std::string>& ConfigurableHeaders();

// Parses YAML text. `file_name` appears in error messages and its directory
// resolves relative cert_file, key_file and client_ca_file paths. Returns false and sets `error`
// ("FILE:LINE: key 'K': what is wrong") on any problem.
bool ParseWebConfig(const std::string& yaml_text, const std::string& file_name, WebConfig* config,
                    std::string* error);

// Reads and parses `path`.
bool LoadWebConfig(const std::string& path, WebConfig* config, std::string* error);

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_WEB_CONFIG_H_
