// The HTTP paths the exporter serves, and the runbook it links to, defined once for the
// service, the landing page and the flags.
#ifndef SCX_EXPORTER_RENDER_ENDPOINTS_H_
#define SCX_EXPORTER_RENDER_ENDPOINTS_H_

namespace scx {

inline constexpr char kLandingPagePath[] = "/";
inline constexpr char kDefaultTelemetryPath[] = "/metrics";  // --web.telemetry-path
inline constexpr char kBrainsApiPath[] = "/api/v1/brains";
inline constexpr char kHealthyPath[] = "/-/healthy";
inline constexpr char kReadyPath[] = "/-/ready";
inline constexpr char kReloadPath[] = "/-/reload";
// docs/runbook.md as HTML, from the copy built into the binary.
inline constexpr char kRunbookPath[] = "/runbook";

// Where docs/runbook.md is read (--web.runbook-url): every runbook link of the landing
// page starts with it. By default the exporter's own copy, as a path, so that it works
// on any host and port. The alert rules' runbook_url annotations carry the address
// deploy/kubernetes/generate.py --runbook-url gives them; give both the same one.
inline constexpr const char* kDefaultRunbookUrl = kRunbookPath;

}  // namespace scx

#endif  // SCX_EXPORTER_RENDER_ENDPOINTS_H_
