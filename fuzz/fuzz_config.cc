// libFuzzer target: the --config.file parser (exporter/config.h, ParseConfig) on any
// text. Invariants: it returns, never throws; a refusal names the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "exporter/config.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string file_name = "/etc/scx/config.yml";
  scx::Config config;
  std::string error;
  if (!scx::ParseConfig(text, file_name, &config, &error)) {
    SCX_FUZZ_CHECK(error.rfind(file_name + ":", 0) == 0);
  } else {
    SCX_FUZZ_CHECK(config.max_store_bytes > 0);
  }
  return 0;
}
