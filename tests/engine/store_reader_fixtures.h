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

// A store with every field m1nd's newest store types know, at every level, each one
// filled in (the optional ones too): what m1nd can load, so it must read as ok.
inline std::string RichStore() {
  return R"({
  "schema": "m1nd-system-block-store-v0",
  "store_version": 42,
  "candidate_revision": {"tool": "m1nd", "version": "0.9.1", "flags": [true, false, null]},
  "skeleton": {
    "skeleton_id": "sk_keyvault_candidate",
    "version": 4294967295,
    "state": "candidate",
    "ratification": {"method": "", "ratifier": "ana", "ratified_at": "", "commit": "c0ffee"}
  },
  "blocks": [
    {
      "name": "Core",
      "purpose": "the \"core\" of it, caf\u00e9 \ud83d\ude00",
      "block_id": "sb_keyvault_core_1a2b3c4d",
      "kind": "scanned",
      "state": "ratified",
      "boundary_version": 3,
      "contract_version": 2,
      "membership_source": "ratified",
      "membership": [{"path": "src/core.rs", "role": "primary", "optional": true},
                     {"path": "docs/ünïcödé.md", "role": "docs"}],
      "sockets": {"inputs": [{"to": "sb_keyvault_api_5e6f7a8b", "type": "call"}],
                  "outputs": [{"alias": "put", "class": "rpc"}], "external": []},
      "receipt_contract": {"version": 1, "required": [{"type": "test", "stales_on": ["src/"]}],
                           "optional": [{"type": "review"}], "waived": [],
                           "declared_by": "ana", "declared_at": null},
      "receipts": [{"type": "test",
                    "emitter": {"kind": "ci", "id": "run-7"},
                    "scope": {"block_id": "sb_keyvault_core_1a2b3c4d", "boundary_version": 3,
                              "contract_version": 2, "resolution_hash": "ab12"},
                    "evidence": {"command": "cargo test", "cwd": ".", "exit_status": 0,
                                 "started_at": "t0", "ended_at": "t1", "artifact_hash": "ff",
                                 "stdout_excerpt": "ok", "evidence_refs": ["ci/7"]},
                    "validity": {"expires_on": null, "stales_on": []}}],
      "layout": {"x": 10, "y": -20.5, "locked": false,
                 "algorithm_seed": {"anything": [1, {"goes": null}]}, "version": 1},
      "unmapped_residue": ["build.rs"],
      "membership_fingerprint": "9f86d081",
      "resolved_members": ["src/core.rs"],
      "pre_archive_state": "candidate",
      "candidate_meta": {"named_by": "heuristic", "needs_owner_naming": true,
                         "graph_cohesion": 0.5, "edge_sample_size": 12,
                         "directory_support": 1.0, "coverage_ratio": 0.75,
                         "shared_member_count": 0}
    },
    {"block_id": "sb_keyvault_api_5e6f7a8b", "state": "archived", "candidate_meta": null,
     "layout": {"x": null, "y": null, "locked": true, "algorithm_seed": null, "version": 0}},
    {"block_id": "sb_keyvault_store_9c0d1e2f"}
  ],
  "unmapped_policy": {"visible": true, "default_action": "leave_unmapped_until_ratified"},
  "unmapped_files": ["README.md", "LICENSE"],
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
