// libFuzzer target: the store parser (engine/store_reader.h, ParseStore) on any bytes.
// Invariants: it returns, never throws; a good parse has the schema it checks for; a
// failed one says why.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/store_reader.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  scx::StoreContents contents;
  std::string message;
  const scx::StoreError error = scx::ParseStore(json, &contents, &message);
  if (error == scx::StoreError::kNone) {
    SCX_FUZZ_CHECK(contents.schema == scx::kStoreSchema);
  } else {
    SCX_FUZZ_CHECK(error == scx::StoreError::kParse || error == scx::StoreError::kSchema);
    SCX_FUZZ_CHECK(!message.empty());
  }
  return 0;
}
