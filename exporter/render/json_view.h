// JSON views of a scan: the brain object every list shows (the `--once` report and
// GET /api/v1/brains), and the per-brain views served over HTTP shaped like m1nd's
// Surface A (`skeleton_coherence`) and Surface B (the north "sick" line, only on mismatch).
#ifndef SCX_EXPORTER_RENDER_JSON_VIEW_H_
#define SCX_EXPORTER_RENDER_JSON_VIEW_H_

#include <cstddef>
#include <string>
#include <vector>

#include "engine/scanner.h"
#include "exporter/render/brain_filter.h"

namespace scx {

// String values longer than this (a skeleton id or a path read from a file) are cut
// at a character boundary with a marker (base/utf8.h, CapText), in every view.
inline constexpr std::size_t kMaxJsonStringBytes = 4096;

inline constexpr char kSickAdvice[] =
    "this brain is serving a foreign skeleton; rebind or re-ingest before trusting block "
    "scope";

// The brain object of every view, one schema (docs/api.md): {"brain","project_root",
// "display_name" (only when not empty),"runtime_dir","source","identity_source",
// "m1nd_name","identity_note" (only while the identity is unknown),"carried_over",
// "state","present" (false without a store: Surface A's field),"store" ("present",
// "absent" or "unreadable"),"store_version" and
// "block_count" (with a good read),"skeleton_coherence":{...}|null,"stale",
// "mismatch_since" (while in mismatch),"skeleton_owner","shared_with",
// "shared_with_total","prefix_ambiguous" (when known),"store_error" (while unreadable),
// "north":{"skeleton_coherence":{"status":"sick",...}} (on mismatch)}.
std::string BrainView(const BrainReport& brain);

// {"brains":[BrainView...],"orphaned_folders":[{"runtime_dir","project_root",
// "served_runtime_dir"}]} as printed by --once (pretty, one trailing newline), the
// same bytes as BrainsView. "orphaned_folders" is always there, possibly empty.
std::string OnceReport(const std::vector<BrainReport>& brains,
                       const std::vector<OrphanedFolder>& orphans = {});

// m1nd's honesty line for a brain without a store.
inline constexpr char kNoSkeletonYet[] = "no skeleton yet \u2014 import a seed or run a scan";

// GET /api/v1/brains/{brain}: BrainView plus "scanned_at" (Unix time of the scan that
// read it) and, without a store, m1nd's "honest" line.
std::string BrainDetailView(const BrainReport& brain, double scanned_at);

// GET /api/v1/brains/{brain}/north: Surface B. Always {"brain","map":{"coherence"},
// "honest_gaps":[...]}; on mismatch also the spec's "north" sick object, and m1nd's
// sickness sentence in honest_gaps. "coherence" is "ok", "mismatch" or null.
std::string BrainNorthView(const BrainReport& brain);

// GET /api/v1/brains: OnceReport's text, written on the calling thread alone into a
// string of `reserve` bytes to begin with, e.g. the size of an earlier render of the
// same brains (0: the string grows as it is written).
std::string BrainsView(const std::vector<BrainReport>& brains,
                       const std::vector<OrphanedFolder>& orphans = {}, std::size_t reserve = 0);

// GET /api/v1/brains?state=...&limit=...: BrainsView of the brains `filter` selects
// (SelectBrains), with "omitted" (how many more matched) after "brains" when the
// filter has a limit. The orphaned folders are all listed whatever the filter.
std::string FilteredBrainsView(const std::vector<BrainReport>& brains,
                               const std::vector<OrphanedFolder>& orphans,
                               const BrainFilter& filter);

}  // namespace scx

#endif  // SCX_EXPORTER_RENDER_JSON_VIEW_H_
