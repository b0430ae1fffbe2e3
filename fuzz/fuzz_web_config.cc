// libFuzzer target: the --web.config.file parser (exporter/http/web_config.h,
// ParseWebConfig) on any text. Invariants: it returns, never throws; a refusal names
// the file; an accepted config is consistent (TLS files both set or both empty, client
// certificates verified only with a CA file and TLS, bcrypt hashes only).
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
  SCX_FUZZ_CHECK(config.cert_file.empty() == config.key_file.empty());
  const bool verifies = config.client_auth != scx::ClientAuth::kNoClientCert;
  SCX_FUZZ_CHECK(verifies == !config.client_ca_file.empty());
  SCX_FUZZ_CHECK(!verifies || config.tls_enabled());
  for (const auto& [user, hash] : config.basic_auth_users) {
    SCX_FUZZ_CHECK(!user.empty() && hash.size() == 60 && hash.rfind("$2", 0) == 0);
  }
  return 0;
}
