// The helpers the tests of the store reader share (the store_reader_*_test.cc files
// of this folder): bounded reads, checked parses, digests and a rich store.
#ifndef SCX_TESTS_ENGINE_STORE_READER_FIXTURES_H_
#define SCX_TESTS_ENGINE_STORE_READER_FIXTURES_H_

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/store_reader.h"
#include "tests/test_support.h"

namespace scx::testing {

// ReadStore, failing fast on a hang (two seconds).
inline StoreReadResult ReadBounded(const std::string& path,
                                   const StoreReaderOptions& options = {}) {
  return testing::CallWithin(std::chrono::seconds(2), "ReadStore(" + path + ")",
                             [&] { return ReadStore(path, options); });
}

// ParseStore; when `block_ids` is given, also checks that the digest and the block
// count are those of the block ids it returns.
inline StoreError Parse(const std::string& json, StoreContents* contents = nullptr,
                        std::string* message = nullptr,
                        std::vector<std::string>* block_ids = nullptr) {
  StoreContents local_contents;
  std::string local_message;
  if (contents == nullptr) contents = &local_contents;
  const StoreError error =
      ParseStore(json, contents, message ? message : &local_message, block_ids);
  if (error == StoreError::kNone && block_ids != nullptr) {
    EXPECT_EQ(static_cast<std::int64_t>(block_ids->size()), contents->block_count);
    EXPECT_EQ(DigestOf(ServedSkeleton{contents->digest.skeleton_id, *block_ids}), contents->digest);
  }
  return error;
}

// The digest of a store serving `skeleton_id` and `block_ids`.
inline SkeletonDigest Digest(const std::string& skeleton_id,
                             const std::vector<std::string>& block_ids) {
  return DigestOf(ServedSkeleton{skeleton_id, block_ids});
}

// A store in m1nd's shape with a little of everything: the optional top-level fields
// of m1nd's newest store, and inside the skeleton and the blocks fields m1nd may add.
inline std::string RichStore() {
  return R"({
  "schema": "m1nd-system-block-store-v0",
  "store_version": 42,
  "candidate_revision": {"tool": "m1nd", "version": "0.9.1", "flags": [true, false, null]},
  "skeleton": {
    "skeleton_id": "sk_keyvault_candidate",
    "version": 1,
    "state": "candidate",
    "ratification": {"method": "", "ratifier": null, "ratified_at": "", "commit": ""},
    "future_field": [1, -2.5e3, {"nested": ["\u00e9\n\"\\", "caf\u00e9 \ud83d\ude00"]}]
  },
  "blocks": [
    {
      "name": "Core",
      "purpose": "the \"core\" of it",
      "block_id": "sb_keyvault_core_1a2b3c4d",
      "membership": [{"path": "src/core.rs", "role": "primary", "weight": 0.75}],
      "sockets": {"inputs": [], "outputs": [{"name": "put", "schema": {}}], "external": []},
      "receipt_contract": {"required": ["a", "b"], "optional": null},
      "layout": {"x": 10, "y": -20, "w": 1e2, "h": 0}
    },
    {"block_id": "sb_keyvault_api_5e6f7a8b", "unknown": {"deep": [[[[[]]]]]}},
    {"block_id": "sb_keyvault_store_9c0d1e2f"}
  ],
  "unmapped_policy": {"mode": "report"},
  "unmapped_files": ["README.md", "LICENSE", "docs/ünïcödé.md"],
  "unmapped_total": 3,
  "curating_by": "agent-7",
  "curating_until": "2026-11-30T12:00:00Z"
}
)";
}

class ReadStoreTest : public ::testing::Test {
 protected:
  std::string StorePath() const { return dir_.Join(kStoreFileName); }
  TempDir dir_;
};

}  // namespace scx::testing

#endif  // SCX_TESTS_ENGINE_STORE_READER_FIXTURES_H_
