// The HTML page served on `/`: what this exporter is, links to its endpoints and a
// plain table of every brain from the latest scan. Pure: rendered once per scan.
#ifndef SCX_EXPORTER_LANDING_PAGE_H_
#define SCX_EXPORTER_LANDING_PAGE_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/scanner.h"
#include "exporter/endpoints.h"

namespace scx {

struct LandingPageInfo {
  std::string version;
  std::string revision;
  std::string telemetry_path = kDefaultTelemetryPath;
};

// `text` with &, <, >, " and ' replaced by entities and invalid UTF-8 repaired.
std::string HtmlEscape(std::string_view text);

// The whole page. `scanned` is false before the first scan completes; the table
// then says so instead of listing no brains.
std::string RenderLandingPage(const LandingPageInfo& info, const std::vector<BrainReport>& brains,
                              bool scanned);

}  // namespace scx

#endif  // SCX_EXPORTER_LANDING_PAGE_H_
