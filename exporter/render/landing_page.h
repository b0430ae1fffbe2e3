// The HTML page served on `/`, made for an on-call engineer woken at 3 a.m.: a banner
// that says at once whether any brain serves a foreign skeleton (red), none does
// (green) or nothing is watched (grey); the brains worst first; since when each
// mismatch has lasted; when the last scan ran; and links to docs/runbook.md (served at
// /runbook unless --web.runbook-url names another copy). On a big fleet the table
// shows at most 100 brains of each state, and says how many more. Pure: the default
// page is rendered at most once per scan, at its first request, a filtered one
// (`/?state=S&limit=N`) per request (a small script keeps the ages current in the
// browser).
#ifndef SCX_EXPORTER_RENDER_LANDING_PAGE_H_
#define SCX_EXPORTER_RENDER_LANDING_PAGE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/scanner.h"
#include "exporter/render/brain_filter.h"
#include "exporter/render/display_rules.h"  // WorstFirst, the order of the table
#include "exporter/render/endpoints.h"

namespace scx {

// Sections of docs/runbook.md (GitHub heading anchors) the page links to.
inline constexpr char kRunbookMismatch[] = "skeletoncoherencemismatch";
inline constexpr char kRunbookStaleVerdicts[] = "stale-verdicts";
inline constexpr char kRunbookUnreadable[] = "skeletoncoherencestoreunreadable";
inline constexpr char kRunbookNoBrains[] = "skeletoncoherencenobrainswatched";
inline constexpr char kRunbookIdentityUnknown[] = "skeletoncoherenceidentityunknown";

struct LandingPageInfo {
  std::string version;
  std::string revision;
  std::string telemetry_path = kDefaultTelemetryPath;
  std::string runbook_url = kDefaultRunbookUrl;  // --web.runbook-url
};

// `text` with &, <, >, " and ' replaced by entities and invalid UTF-8 repaired.
std::string HtmlEscape(std::string_view text);

// `runbook_url` + "#" + `anchor` (the runbook itself when `anchor` is empty).
std::string RunbookLink(std::string_view runbook_url, std::string_view anchor);

// A duration for people: "45s", "12m 5s", "4h 12m", "3d 4h". Negative counts as 0.
std::string FormatAge(double seconds);

// Unix time as "2026-11-30 02:00:00 UTC".
std::string FormatUtc(double unix_seconds);

// Rows of one state the table shows unless the request says otherwise (`limit`); the
// rest are counted in a line "N more S — show all" under it.
inline constexpr std::size_t kLandingPageRowsPerState = 100;

// The page's one inline <style> and one inline <script>, exactly as it embeds them:
// their hashes are what its Content-Security-Policy allows (exporter/handlers.cc).
std::string LandingPageStyle();
std::string LandingPageScript();

// The whole page. `scanned` is false before the first scan completes (the banner then
// says so); `scan_time` is the Unix time the last scan completed. `orphans` are listed
// under the table (nothing when there are none). The table shows the brains `filter`
// asks for (`/?state=S`), at most `filter.limit` of each state when it has a limit (0:
// all), else kLandingPageRowsPerState; the banner and the counts are the whole fleet's.
std::string RenderLandingPage(const LandingPageInfo& info, const std::vector<BrainReport>& brains,
                              bool scanned, double scan_time = 0,
                              const std::vector<OrphanedFolder>& orphans = {},
                              const BrainFilter& filter = {});

}  // namespace scx

#endif  // SCX_EXPORTER_RENDER_LANDING_PAGE_H_
