// libFuzzer target: the --web.config.file parser (exporter/http/web_config.h,
// ParseWebConfig) on any text. Invariants: it returns, never throws; a refusal names
// the file; an accepted config is consistent (a certificate and a key or neither, each
// from one source, client certificates verified only with CAs and TLS, SANs checked
// only on required certificates, headers only from the allowed list, bcrypt hashes
// only).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "exporter/http/web_config.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string file_name = "/etc/scx/web.yml";
  scx::WebConfig config;
  std::string error;
  if (!scx::ParseWebConfig(text, file_name, &config, &error)) {
    SCX_FUZZ_CHECK(error.rfind(file_name + ":", 0) == 0);
    return 0;
  }
  SCX_FUZZ_CHECK(config.tls_enabled() == config.has_key());
  SCX_FUZZ_CHECK(config.cert_file.empty() || config.cert_pem.empty());
  SCX_FUZZ_CHECK(config.key_file.empty() || config.key_pem.empty());
  const bool verifies = config.client_auth != scx::ClientAuth::kNoClientCert;
  SCX_FUZZ_CHECK(verifies == config.has_client_ca());
  SCX_FUZZ_CHECK(!verifies || config.tls_enabled());
  SCX_FUZZ_CHECK(config.client_allowed_sans.empty() ||
                 config.client_auth == scx::ClientAuth::kRequireAndVerifyClientCert);
  for (const auto& [name, value] : config.headers) {
    const auto& allowed = scx::ConfigurableHeaders();
    SCX_FUZZ_CHECK(std::find(allowed.begin(), allowed.end(), name) != allowed.end());
    SCX_FUZZ_CHECK(!value.empty() && value.find_first_of("\r\n") == std::string::npos);
  }
  for (const auto& [user, hash] : config.basic_auth_users) {
    SCX_FUZZ_CHECK(!user.empty() && hash.size() == 60 && hash.rfind("$2", 0) == 0);
  }
  return 0;
}
