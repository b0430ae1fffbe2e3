// The one mapping from config and flags to scans: what ScanSettingsOf takes from each,
// and that a scanner set up by NewScanner and ApplyScanSettings applies all of it
// (the prefix ambiguities the config allows, the store size cap).
#include "exporter/scan_settings.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "tests/test_support.h"

namespace scx {
namespace {

using std::chrono::milliseconds;

TEST(ScanSettingsTest, TheFlagsIntervalWinsOverTheFilesOverTheDefault) {
  Flags flags;
  Config config = DefaultConfig();
  EXPECT_EQ(ScanSettingsOf(flags, config).interval, kDefaultScanInterval);
  config.scan_interval = milliseconds(30000);
  EXPECT_EQ(ScanSettingsOf(flags, config).interval, milliseconds(30000));
  flags.scan_interval = milliseconds(5000);
  EXPECT_EQ(ScanSettingsOf(flags, config).interval, milliseconds(5000));
}

TEST(ScanSettingsTest, TakesEveryScanKeyOfTheConfig) {
  Flags flags;
  flags.store_details = true;
  Config config = DefaultConfig();
  config.discovery.runtime_globs = {"/srv/*"};
  config.max_store_bytes = 1234;
  config.allowed_ambiguity = {{"lib", "lib_core"}};
  const ScanSettings settings = ScanSettingsOf(flags, config);
  EXPECT_EQ(settings.discovery.runtime_globs, std::vector<std::string>{"/srv/*"});
  EXPECT_EQ(settings.discovery.registries, config.discovery.registries);
  EXPECT_EQ(settings.store_options.max_bytes, 1234);
  ASSERT_EQ(settings.allowed_ambiguity.size(), 1u);
  EXPECT_EQ(settings.allowed_ambiguity[0].brain, "lib");
  EXPECT_EQ(settings.allowed_ambiguity[0].slug, "lib_core");
  EXPECT_TRUE(settings.brain_metrics.store_details);
}

class ScanSettingsScannerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::ReplaceFileAtomically(dir_.Join("lib/system_blocks.json"),
                                   testing::StoreJson("sk_lib_core_candidate", {"sb_lib_a"}));
    StaticBrain lib;
    lib.name = "lib";
    lib.project_root = "/home/u/lib";
    lib.runtime_dir = dir_.Join("lib");
    config_ = DefaultConfig();
    config_.discovery.registries.clear();
    config_.discovery.registries_are_default = false;
    config_.discovery.static_brains = {lib};
  }

  testing::TempDir dir_;
  Config config_;
};

TEST_F(ScanSettingsScannerTest, ANewScannerHasTheConfigsAllowedAmbiguitiesAndStoreCap) {
  config_.allowed_ambiguity = {{"lib", "lib_core"}};
  ScanSettings settings = ScanSettingsOf(Flags(), config_);
  ScanResult scan = NewScanner(settings)->Scan(settings.discovery);
  ASSERT_EQ(scan.brains.size(), 1u);
  EXPECT_TRUE(scan.brains[0].provenance().prefix_ambiguous);
  EXPECT_TRUE(scan.brains[0].provenance().ambiguity_allowed);

  config_.max_store_bytes = 10;
  settings = ScanSettingsOf(Flags(), config_);
  scan = NewScanner(settings)->Scan(settings.discovery);
  EXPECT_EQ(scan.brains[0].read_error, StoreError::kTooLarge);
}

TEST_F(ScanSettingsScannerTest, AppliedChangesReachTheScanner) {
  const ScanSettings before = ScanSettingsOf(Flags(), config_);
  std::unique_ptr<Scanner> scanner = NewScanner(before);
  EXPECT_FALSE(scanner->Scan(before.discovery).brains[0].provenance().ambiguity_allowed);

  config_.allowed_ambiguity = {{"lib", "lib_core"}};
  ScanSettings after = ScanSettingsOf(Flags(), config_);
  EXPECT_FALSE(ApplyScanSettings(before, after, scanner.get()));  // same store options
  EXPECT_TRUE(scanner->Scan(after.discovery).brains[0].provenance().ambiguity_allowed);

  const ScanSettings capped = [&] {
    config_.max_store_bytes = 10;
    return ScanSettingsOf(Flags(), config_);
  }();
  EXPECT_TRUE(ApplyScanSettings(after, capped, scanner.get()));
  EXPECT_EQ(scanner->Scan(capped.discovery).brains[0].read_error, StoreError::kTooLarge);
}

}  // namespace
}  // namespace scx
