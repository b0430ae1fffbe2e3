// From config and flags to scan settings, and from scan settings to a Scanner.
#include "exporter/scan_settings.h"

namespace scx {

namespace {

bool SameStoreOptions(const StoreReaderOptions& a, const StoreReaderOptions& b) {
  return a.max_bytes == b.max_bytes;
}

}  // namespace

ScanSettings ScanSettingsOf(const Flags& flags, const Config& config) {
  ScanSettings settings;
  settings.discovery = config.discovery;
  settings.discovery.view = flags.discovery_view;
  settings.store_options.max_bytes = config.max_store_bytes;
  settings.allowed_ambiguity = config.allowed_ambiguity;
  settings.interval = flags.scan_interval    ? *flags.scan_interval
                      : config.scan_interval ? *config.scan_interval
                                             : kDefaultScanInterval;
  settings.brain_metrics.store_details = flags.store_details;
  return settings;
}

std::unique_ptr<Scanner> NewScanner(const ScanSettings& settings) {
  // A new scanner is set up for the default settings; the rest is a change of them.
  auto scanner = std::make_unique<Scanner>(ScanSettings().store_options);
  ApplyScanSettings(ScanSettings(), settings, scanner.get());
  return scanner;
}

bool ApplyScanSettings(const ScanSettings& before, const ScanSettings& after, Scanner* scanner) {
  const bool store_options_changed = !SameStoreOptions(before.store_options, after.store_options);
  if (store_options_changed) scanner->SetOptions(after.store_options);
  if (!(before.allowed_ambiguity == after.allowed_ambiguity)) {
    scanner->SetAllowedAmbiguity(after.allowed_ambiguity);
  }
  return store_options_changed;
}

}  // namespace scx
