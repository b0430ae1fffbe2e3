// The HTTP paths the exporter serves, defined once for the service, the landing
// page and the flags.
#ifndef SCX_EXPORTER_RENDER_ENDPOINTS_H_
#define SCX_EXPORTER_RENDER_ENDPOINTS_H_

namespace scx {

inline constexpr char kLandingPagePath[] = "/";
inline constexpr char kDefaultTelemetryPath[] = "/metrics";  // --web.telemetry-path
inline constexpr char kBrainsApiPath[] = "/api/v1/brains";
inline constexpr char kHealthyPath[] = "/-/healthy";
inline constexpr char kReadyPath[] = "/-/ready";
inline constexpr char kReloadPath[] = "/-/reload";

}  // namespace scx

#endif  // SCX_EXPORTER_RENDER_ENDPOINTS_H_
