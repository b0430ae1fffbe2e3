// Whose registry record may speak for a runtime dir, and which of several does. A
// registry is one user's, and m1nd writes a record only for the runtime root its own
// process opened (InstanceHandle::acquire): a record whose file is owned by someone who
// could not have written that runtime dir as m1nd is not m1nd's word about it. Of the
// records that may speak, m1nd's own rule picks the one that names the brain: a
// read_write owner before read_only attachers (an attacher never decides whose brain a
// runtime root is), then the freshest heartbeat (m1nd's discover_serve_owner_base_url);
// a heartbeat in the future is no heartbeat. Every record refused or demoted by these
// rules is a conflict, for a log line and a metric. Pure: the owners (uids) come from
// the walk's stats (walk.cc).
#ifndef SCX_ENGINE_DISCOVERY_RECORD_TRUST_H_
#define SCX_ENGINE_DISCOVERY_RECORD_TRUST_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/vocabulary.h"

namespace scx {

// Why a registry record was refused or demoted.
enum class RegistryConflictReason {
  // Its file's owner is neither the runtime dir's owner nor root: refused.
  kForeignOwner,
  // Its heartbeat is in the future and another record claims the same runtime dir:
  // ranked as if it had none.
  kFutureHeartbeat,
};

inline constexpr Term<RegistryConflictReason> kRegistryConflictReasons[] = {
    {RegistryConflictReason::kForeignOwner, "foreign_owner"},
    {RegistryConflictReason::kFutureHeartbeat, "future_heartbeat"},
};

inline const char* RegistryConflictReasonName(RegistryConflictReason reason) {
  return NameOf(kRegistryConflictReasons, reason);
}

inline constexpr std::uint32_t kRootUid = 0;

// Pure: may a record whose file `record_owner` owns speak for a runtime dir owned by
// `dir_owner`? Yes when they are one user, or the record is root's (root could write
// any runtime dir, and could forge any file anyway). A runtime dir that could not be
// stat'ed (nullopt: missing, out of view) has no owner to compare with: its records
// are not refused (it holds no store to read either).
bool RecordMaySpeakFor(std::uint32_t record_owner, std::optional<std::uint32_t> dir_owner);

// Pure: a heartbeat (ms since the epoch) later than `now_ms`, a clock reading taken
// after the record was read: a clock set ahead, or a lie.
bool HeartbeatIsInFuture(std::uint64_t heartbeat_ms, std::int64_t now_ms);

// Pure: the heartbeat a record is ranked by: 0 for one in the future.
std::uint64_t RankedHeartbeat(std::uint64_t heartbeat_ms, std::int64_t now_ms);

// One record's claim on a runtime dir.
struct RecordClaim {
  std::string key;  // RuntimeKey of the runtime dir it names
  bool read_only = false;
  std::uint64_t last_heartbeat_ms = 0;
  std::string instance_file;  // its file name: the last tie break
  std::uint32_t record_owner = 0;
  std::optional<std::uint32_t> dir_owner;
};

struct ClaimConflict {
  std::size_t claim = 0;  // index in the claims
  RegistryConflictReason reason = RegistryConflictReason::kForeignOwner;
};

struct ClaimDecision {
  // The claims that may speak, grouped by key (ascending), each group in the order in
  // which its records may name the brain: the first names it.
  std::vector<std::size_t> order;
  // In claim order: a refused claim once (kForeignOwner), a demoted one once
  // (kFutureHeartbeat, only when another claim that may speak names its runtime dir).
  std::vector<ClaimConflict> conflicts;
};

// Pure: decides `claims` at `now_ms` (see above).
ClaimDecision DecideClaims(const std::vector<RecordClaim>& claims, std::int64_t now_ms);

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_RECORD_TRUST_H_
