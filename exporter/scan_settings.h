// What the config file and the flags decide about scanning, worked out in one place
// for the service (at start and on each reload) and --once alike, and the one place
// that hands those settings to a Scanner: a setting added to the config reaches both
// paths or neither.
//
// Thread-safety: functions without shared state; a Scanner is its caller's.
#ifndef SCX_EXPORTER_SCAN_SETTINGS_H_
#define SCX_EXPORTER_SCAN_SETTINGS_H_

#include <chrono>
#include <memory>
#include <vector>

#include "engine/discovery/discovery.h"
#include "engine/scanner.h"
#include "engine/store_reader.h"
#include "exporter/config.h"
#include "exporter/flags.h"
#include "exporter/metrics/metrics_renderer.h"

namespace scx {

inline constexpr std::chrono::milliseconds kDefaultScanInterval{15000};

// What the config and the flags decide about scanning; replaced as a whole on reload.
struct ScanSettings {
  DiscoveryConfig discovery;
  StoreReaderOptions store_options;
  std::vector<AllowedAmbiguity> allowed_ambiguity;  // the config's prefix_ambiguity_allowed
  std::chrono::milliseconds interval = kDefaultScanInterval;
  BrainMetricsOptions brain_metrics;  // the optional per-brain series (flags)
};

// The settings `flags` and `config` make: --scan.interval wins over the file's
// scan_interval, which wins over kDefaultScanInterval.
ScanSettings ScanSettingsOf(const Flags& flags, const Config& config);

// A new scanner set up for `settings`.
std::unique_ptr<Scanner> NewScanner(const ScanSettings& settings);

// Tells `scanner`, set up for `before`, what differs in `after` (and only that: new
// store options make its next scan read every store again). Returns true when the
// store options changed.
bool ApplyScanSettings(const ScanSettings& before, const ScanSettings& after, Scanner* scanner);

}  // namespace scx

#endif  // SCX_EXPORTER_SCAN_SETTINGS_H_
