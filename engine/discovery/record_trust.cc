// Whose registry record counts (record_trust.h).
#include "engine/discovery/record_trust.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

namespace scx {

bool RecordMaySpeakFor(std::uint32_t record_owner, std::optional<std::uint32_t> dir_owner) {
  return !dir_owner || record_owner == kRootUid || record_owner == *dir_owner;
}

bool HeartbeatIsInFuture(std::uint64_t heartbeat_ms, std::int64_t now_ms) {
  return now_ms < 0 || heartbeat_ms > static_cast<std::uint64_t>(now_ms);
}

std::uint64_t RankedHeartbeat(std::uint64_t heartbeat_ms, std::int64_t now_ms) {
  return HeartbeatIsInFuture(heartbeat_ms, now_ms) ? 0 : heartbeat_ms;
}

ClaimDecision DecideClaims(const std::vector<RecordClaim>& claims, std::int64_t now_ms) {
  ClaimDecision decision;
  std::vector<std::uint64_t> heartbeat(claims.size(), 0);  // as ranked
  for (std::size_t i = 0; i < claims.size(); ++i) {
    const RecordClaim& claim = claims[i];
    if (!RecordMaySpeakFor(claim.record_owner, claim.dir_owner)) {
      decision.conflicts.push_back({i, RegistryConflictReason::kForeignOwner});
      continue;
    }
    heartbeat[i] = RankedHeartbeat(claim.last_heartbeat_ms, now_ms);
    decision.order.push_back(i);
  }
  // By key; read_write first; the freshest (a future heartbeat counts as none); the
  // smallest file name.
  std::stable_sort(decision.order.begin(), decision.order.end(),
                   [&claims, &heartbeat](std::size_t i, std::size_t j) {
                     const RecordClaim& a = claims[i];
                     const RecordClaim& b = claims[j];
                     return std::tie(a.key, a.read_only, heartbeat[j], a.instance_file) <
                            std::tie(b.key, b.read_only, heartbeat[i], b.instance_file);
                   });
  // A future heartbeat is a conflict only where it competes with another record.
  std::vector<ClaimConflict> demoted;
  for (std::size_t n = 0; n < decision.order.size();) {
    std::size_t end = n + 1;
    const std::string& key = claims[decision.order[n]].key;
    while (end < decision.order.size() && claims[decision.order[end]].key == key) ++end;
    if (end - n > 1) {
      for (std::size_t k = n; k < end; ++k) {
        const std::size_t i = decision.order[k];
        if (HeartbeatIsInFuture(claims[i].last_heartbeat_ms, now_ms)) {
          demoted.push_back({i, RegistryConflictReason::kFutureHeartbeat});
        }
      }
    }
    n = end;
  }
  decision.conflicts.insert(decision.conflicts.end(), demoted.begin(), demoted.end());
  std::stable_sort(
      decision.conflicts.begin(), decision.conflicts.end(),
      [](const ClaimConflict& a, const ClaimConflict& b) { return a.claim < b.claim; });
  return decision;
}

}  // namespace scx
