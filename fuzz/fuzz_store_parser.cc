// libFuzzer target: the store parser (engine/store_reader.h, ParseStore) on any bytes.
// Invariants: it returns, never throws; a good parse has the digest and the count of
// the block ids it read; a failed one says why.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/store_reader.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  scx::StoreContents contents;
  std::string message;
  std::vector<std::string> block_ids;
  const scx::StoreError error = scx::ParseStore(json, &contents, &message, &block_ids);
  if (error == scx::StoreError::kNone) {
    SCX_FUZZ_CHECK(contents.block_count == static_cast<std::int64_t>(block_ids.size()));
    SCX_FUZZ_CHECK(contents.digest ==
                   scx::DigestOf(scx::ServedSkeleton{contents.digest.skeleton_id, block_ids}));
    scx::StoreContents without_ids;
    SCX_FUZZ_CHECK(scx::ParseStore(json, &without_ids, &message) == error);
    SCX_FUZZ_CHECK(without_ids.digest == contents.digest);
  } else {
    SCX_FUZZ_CHECK(error == scx::StoreError::kParse || error == scx::StoreError::kSchema);
    SCX_FUZZ_CHECK(!message.empty());
  }
  return 0;
}
