// Flags and durations.
#include "exporter/flags.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "exporter/duration.h"
#include "tests/test_support.h"

namespace scx {
namespace {

TEST(DurationTest, ParsesPrometheusStyle) {
  std::chrono::milliseconds d;
  ASSERT_TRUE(ParseDuration("15s", &d));
  EXPECT_EQ(d.count(), 15000);
  ASSERT_TRUE(ParseDuration("500ms", &d));
  EXPECT_EQ(d.count(), 500);
  ASSERT_TRUE(ParseDuration("1m30s", &d));
  EXPECT_EQ(d.count(), 90000);
  ASSERT_TRUE(ParseDuration("2h", &d));
  EXPECT_EQ(d.count(), 7200000);
  ASSERT_TRUE(ParseDuration("1d", &d));
  EXPECT_EQ(d.count(), 86400000);
  ASSERT_TRUE(ParseDuration("1m5ms", &d));
  EXPECT_EQ(d.count(), 60005);
}

// What promtool 2.42 takes as a rule's `for:` (model.ParseDuration): y (365 days) and
// w, and several units combined, largest first.
TEST(DurationTest, TakesWeeksYearsAndCombinationsAsPrometheusDoes) {
  std::chrono::milliseconds d;
  ASSERT_TRUE(ParseDuration("1w", &d));
  EXPECT_EQ(d, std::chrono::hours(7 * 24));
  ASSERT_TRUE(ParseDuration("1y", &d));
  EXPECT_EQ(d, std::chrono::hours(365 * 24));
  ASSERT_TRUE(ParseDuration("1h30m", &d));
  EXPECT_EQ(d, std::chrono::minutes(90));
  ASSERT_TRUE(ParseDuration("1y2w3d4h5m6s7ms", &d));
  EXPECT_EQ(d, std::chrono::hours((365 + 14 + 3) * 24 + 4) + std::chrono::minutes(5) +
                   std::chrono::seconds(6) + std::chrono::milliseconds(7));
  ASSERT_TRUE(ParseDuration("292y", &d));  // about the most a time.Duration holds
  EXPECT_EQ(d, std::chrono::hours(292 * 365 * 24));
}

// What promtool 2.42 refuses ("not a valid duration string"): fractions, units out of
// order or repeated. Zero is refused here though Prometheus takes "0": no duration of
// this exporter may be zero.
TEST(DurationTest, RefusesWhatPrometheusRefuses) {
  std::chrono::milliseconds d;
  for (const char* bad :
       {"", "15", "s", "0", "0s", "-1s", "1.5h", "1.5s", ".5s", "15 s", "15sec", "30m1h", "1h1h",
        "1ms1s", "1s1m", "1Y", "1mo", "293y", "99999999999999999999s"}) {
    EXPECT_FALSE(ParseDuration(bad, &d)) << bad;
  }
  EXPECT_NE(DurationSyntax().find("1h30m, not 1.5h"), std::string::npos);
}

TEST(DurationTest, FormatsShortest) {
  EXPECT_EQ(FormatDuration(std::chrono::milliseconds(15000)), "15s");
  EXPECT_EQ(FormatDuration(std::chrono::milliseconds(90000)), "1m30s");
  EXPECT_EQ(FormatDuration(std::chrono::milliseconds(250)), "250ms");
  EXPECT_EQ(FormatDuration(std::chrono::hours(24 * 373)), "1y1w1d");
}

Flags MustParse(const std::vector<std::string>& args) {
  Flags flags;
  std::string error;
  EXPECT_TRUE(ParseFlags(args, &flags, &error)) << error;
  return flags;
}

std::string ErrorOf(const std::vector<std::string>& args) {
  Flags flags;
  std::string error;
  EXPECT_FALSE(ParseFlags(args, &flags, &error));
  return error;
}

TEST(FlagsTest, Defaults) {
  Flags flags = MustParse({});
  EXPECT_EQ(flags.listen_addresses, std::vector<std::string>{":9864"});
  EXPECT_EQ(flags.max_requests, 40);
  EXPECT_EQ(flags.write_timeout, std::chrono::milliseconds(10000));
  EXPECT_EQ(flags.max_connections_per_address, 64);
  EXPECT_EQ(flags.telemetry_path, "/metrics");
  EXPECT_EQ(flags.config_file, "");
  EXPECT_FALSE(flags.scan_interval.has_value());
  EXPECT_EQ(flags.log_level, LogLevel::kInfo);
  EXPECT_EQ(flags.log_format, LogFormat::kLogfmt);
  EXPECT_FALSE(flags.once);
  EXPECT_FALSE(flags.disable_exporter_metrics);
  EXPECT_FALSE(flags.store_details);
}

TEST(FlagsTest, ListenAddressIsRepeatableAndReplacesTheDefault) {
  EXPECT_EQ(MustParse({"--web.listen-address=127.0.0.1:1", "--web.listen-address", "[::1]:2",
                       "--web.listen-address=:3"})
                .listen_addresses,
            (std::vector<std::string>{"127.0.0.1:1", "[::1]:2", ":3"}));
}

// The syntax of a listen address is a usage error at parse time; whether it can be
// bound (a name resolved, a port free) is only known when the server starts.
TEST(FlagsTest, ListenAddressSyntaxIsCheckedWhenParsed) {
  for (const char* good : {":9864", "0.0.0.0:9864", "127.0.0.1:0", "[::1]:9864", "[::]:1",
                           "localhost:9864", "metrics-1.example.org:65535"}) {
    EXPECT_EQ(MustParse({std::string("--web.listen-address=") + good}).listen_addresses,
              std::vector<std::string>{good});
  }
  EXPECT_EQ(ErrorOf({"--web.listen-address=nonsense"}),
            "--web.listen-address: invalid listen address 'nonsense': expected [host]:port");
  EXPECT_EQ(ErrorOf({"--web.listen-address=127.0.0.1:99999"}),
            "--web.listen-address: invalid listen address '127.0.0.1:99999': the port must be "
            "a number from 0 to 65535");
  for (const char* bad : {"256.1.1.1:9864", "1.2.3:9864", "[zz]:9864", "[::1:9864", "::1:9864",
                          "a b:9864", "-x:9864", "x..y:9864", "host.:9864"}) {
    EXPECT_NE(ErrorOf({std::string("--web.listen-address=") + bad})
                  .find(std::string("invalid listen address '") + bad +
                        "': the host must be empty, an IPv4 address, an IPv6 address in "
                        "brackets or a host name"),
              std::string::npos)
        << bad;
  }
}

TEST(FlagsTest, MaxRequests) {
  EXPECT_EQ(MustParse({"--web.max-requests=0"}).max_requests, 0);
  EXPECT_EQ(MustParse({"--web.max-requests", "7"}).max_requests, 7);
  EXPECT_EQ(MustParse({"--web.max-requests=1000"}).max_requests, 1000);
  for (const char* bad : {"-1", "1001", "x", "", "4.5", "10 "}) {
    Flags flags;
    std::string error;
    EXPECT_FALSE(ParseFlags({std::string("--web.max-requests=") + bad}, &flags, &error)) << bad;
    EXPECT_NE(error.find("--web.max-requests must be a whole number from 0"), std::string::npos)
        << error;
  }
  EXPECT_NE(UsageText().find("--web.max-requests=N"), std::string::npos);
  EXPECT_NE(UsageText().find("1000: each holds an HTTP worker thread"), std::string::npos);
}

TEST(FlagsTest, WriteTimeout) {
  EXPECT_EQ(MustParse({"--web.write-timeout=30s"}).write_timeout, std::chrono::seconds(30));
  EXPECT_EQ(MustParse({"--web.write-timeout", "1500ms"}).write_timeout,
            std::chrono::milliseconds(1500));
  for (const char* bad : {"0s", "10", "x", ""}) {
    Flags flags;
    std::string error;
    EXPECT_FALSE(ParseFlags({std::string("--web.write-timeout=") + bad}, &flags, &error)) << bad;
    EXPECT_NE(error.find("--web.write-timeout must be a positive duration"), std::string::npos)
        << error;
  }
  EXPECT_NE(UsageText().find("--web.write-timeout=DURATION"), std::string::npos);
  EXPECT_NE(UsageText().find("(default 10s)"), std::string::npos);
}

TEST(FlagsTest, MaxConnectionsPerAddress) {
  EXPECT_EQ(MustParse({"--web.max-connections-per-address=0"}).max_connections_per_address, 0);
  EXPECT_EQ(MustParse({"--web.max-connections-per-address", "8"}).max_connections_per_address, 8);
  for (const char* bad : {"-1", "65536", "x", ""}) {
    Flags flags;
    std::string error;
    EXPECT_FALSE(
        ParseFlags({std::string("--web.max-connections-per-address=") + bad}, &flags, &error))
        << bad;
    EXPECT_NE(error.find("--web.max-connections-per-address must be a whole number from 0"),
              std::string::npos)
        << error;
  }
  EXPECT_NE(UsageText().find("--web.max-connections-per-address=N"), std::string::npos);
}

TEST(FlagsTest, DisableExporterMetrics) {
  EXPECT_TRUE(MustParse({"--web.disable-exporter-metrics"}).disable_exporter_metrics);
  EXPECT_FALSE(MustParse({"--web.disable-exporter-metrics=false"}).disable_exporter_metrics);
  EXPECT_NE(UsageText().find("--web.disable-exporter-metrics"), std::string::npos);
}

TEST(FlagsTest, StoreDetails) {
  EXPECT_TRUE(MustParse({"--metrics.store-details"}).store_details);
  EXPECT_FALSE(MustParse({"--metrics.store-details=false"}).store_details);
  EXPECT_EQ(ErrorOf({"--metrics.store-details=yes"}),
            "--metrics.store-details takes no value (or =true / =false)");
  EXPECT_NE(UsageText().find("--metrics.store-details"), std::string::npos);
}

TEST(FlagsTest, DiscoveryView) {
  EXPECT_EQ(DiscoveryView::kAuto, MustParse({}).discovery_view);
  EXPECT_EQ(DiscoveryView::kHost, MustParse({"--discovery.view=host"}).discovery_view);
  EXPECT_EQ(DiscoveryView::kSandbox, MustParse({"--discovery.view", "sandbox"}).discovery_view);
  EXPECT_EQ(DiscoveryView::kAuto,
            MustParse({"--discovery.view=host", "--discovery.view=auto"}).discovery_view);
  EXPECT_EQ(ErrorOf({"--discovery.view=hidden"}),
            "--discovery.view must be auto, host or sandbox; got \"hidden\"");
  EXPECT_EQ(ErrorOf({"--discovery.view"}), "flag --discovery.view needs a value");
  EXPECT_NE(UsageText().find("--discovery.view=VIEW"), std::string::npos);
}

TEST(FlagsTest, EnableLifecycle) {
  EXPECT_TRUE(MustParse({"--web.enable-lifecycle"}).enable_lifecycle);
  EXPECT_FALSE(MustParse({"--web.enable-lifecycle=false"}).enable_lifecycle);
  EXPECT_NE(UsageText().find("--web.enable-lifecycle"), std::string::npos);
}

// Kingpin's negation, as Prometheus' exporters take it, for every boolean flag.
TEST(FlagsTest, EveryBooleanTakesItsNoForm) {
  EXPECT_TRUE(MustParse({}).scan_watch);
  EXPECT_FALSE(MustParse({"--no-scan.watch"}).scan_watch);
  EXPECT_TRUE(MustParse({"--no-scan.watch", "--scan.watch"}).scan_watch);  // the last wins
  EXPECT_FALSE(MustParse({"--web.enable-lifecycle", "--no-web.enable-lifecycle"}).enable_lifecycle);
  EXPECT_FALSE(MustParse({"--metrics.store-details", "--no-metrics.store-details"}).store_details);
  EXPECT_FALSE(MustParse({"--web.disable-exporter-metrics", "--no-web.disable-exporter-metrics"})
                   .disable_exporter_metrics);
  EXPECT_FALSE(MustParse({"--config.check", "--no-config.check"}).config_check);
  EXPECT_FALSE(MustParse({"--once", "--no-once"}).once);
  EXPECT_FALSE(MustParse({"--no-help"}).help);
  EXPECT_FALSE(MustParse({"--no-version"}).version);
  EXPECT_NE(UsageText().find("--no-FLAG"), std::string::npos);
  EXPECT_NE(UsageText().find("--no-scan.watch"), std::string::npos);
}

TEST(FlagsTest, NoFormTakesNoValueAndOnlyBooleans) {
  EXPECT_EQ(ErrorOf({"--no-scan.watch=true"}), "--no-scan.watch takes no value");
  EXPECT_EQ(ErrorOf({"--no-scan.watch=false"}), "--no-scan.watch takes no value");
  EXPECT_EQ(ErrorOf({"--no-config.file"}), "unknown flag --no-config.file (see --help)");
  EXPECT_EQ(ErrorOf({"--no-scan.interval=1s"}), "unknown flag --no-scan.interval (see --help)");
  EXPECT_EQ(ErrorOf({"--no-no-scan.watch"}), "unknown flag --no-no-scan.watch (see --help)");
  EXPECT_EQ(ErrorOf({"--no-"}), "unknown flag --no- (see --help)");
}

// docs/configuration.md says how a boolean is unset, with the README.
TEST(FlagsTest, DocsSayTheNoForm) {
  const std::string configuration =
      testing::ReadFile(std::string(SCX_SOURCE_DIR) + "/docs/configuration.md");
  EXPECT_NE(configuration.find("`--no-scan.watch`"), std::string::npos);
  EXPECT_NE(configuration.find("`--no-web.enable-lifecycle`"), std::string::npos);
  const std::string readme = testing::ReadFile(std::string(SCX_SOURCE_DIR) + "/README.md");
  EXPECT_NE(readme.find("`--no-scan.watch`"), std::string::npos);
}

TEST(FlagsTest, EqualsAndSpaceForms) {
  Flags flags = MustParse({"--config.file=/etc/c.yml", "--web.listen-address", "127.0.0.1:1",
                           "--web.telemetry-path=/m", "--scan.interval=1m", "--log.level=debug",
                           "--log.format", "json", "--web.config.file=w.yml", "--once"});
  EXPECT_EQ(flags.config_file, "/etc/c.yml");
  EXPECT_EQ(flags.listen_addresses, std::vector<std::string>{"127.0.0.1:1"});
  EXPECT_EQ(flags.telemetry_path, "/m");
  EXPECT_EQ(flags.scan_interval, std::chrono::milliseconds(60000));
  EXPECT_EQ(flags.log_level, LogLevel::kDebug);
  EXPECT_EQ(flags.log_format, LogFormat::kJson);
  EXPECT_EQ(flags.web_config_file, "w.yml");
  EXPECT_TRUE(flags.once);
}

TEST(FlagsTest, HelpAndVersion) {
  EXPECT_TRUE(MustParse({"--help"}).help);
  EXPECT_TRUE(MustParse({"-h"}).help);
  EXPECT_TRUE(MustParse({"--version"}).version);
  EXPECT_NE(UsageText().find("--config.file"), std::string::npos);
  EXPECT_NE(UsageText().find(":9864"), std::string::npos);
}

TEST(FlagsTest, Errors) {
  EXPECT_EQ(ErrorOf({"--nope"}), "unknown flag --nope (see --help)");
  EXPECT_EQ(ErrorOf({"stray"}), "unexpected argument \"stray\" (see --help)");
  EXPECT_EQ(ErrorOf({"--config.file"}), "flag --config.file needs a value");
  EXPECT_NE(ErrorOf({"--log.level=loud"}).find("debug, info, warn, error"), std::string::npos);
  EXPECT_NE(ErrorOf({"--log.format=xml"}).find("logfmt or json"), std::string::npos);
  EXPECT_NE(ErrorOf({"--scan.interval=fast"}).find("15s"), std::string::npos);
  EXPECT_EQ(ErrorOf({"--scan.interval=1.5h"}),
            "--scan.interval must be a duration like 15s, 1m30s or 1w (whole numbers of y, w, "
            "d, h, m, s, ms, the largest first: 1h30m, not 1.5h); got \"1.5h\"");
  EXPECT_NE(ErrorOf({"--web.telemetry-path=metrics"}).find("must start with '/'"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"--web.telemetry-path=/-/healthy"}).find("must start"), std::string::npos);
  EXPECT_NE(ErrorOf({"--once=maybe"}).find("takes no value"), std::string::npos);
}

// A scan costs CPU: 1ms was a third of a core for 4 brains. 100ms and more are taken
// (the tests use 100ms and 200ms), as are weeks and years.
TEST(FlagsTest, ScanIntervalHasAFloorOf100ms) {
  EXPECT_EQ(MustParse({"--scan.interval=100ms"}).scan_interval, std::chrono::milliseconds(100));
  EXPECT_EQ(MustParse({"--scan.interval=1h30m"}).scan_interval, std::chrono::minutes(90));
  EXPECT_EQ(MustParse({"--scan.interval=1w"}).scan_interval, std::chrono::hours(7 * 24));
  EXPECT_EQ(MustParse({"--scan.interval=1y"}).scan_interval, std::chrono::hours(365 * 24));
  EXPECT_EQ(ErrorOf({"--scan.interval=1ms"}),
            "--scan.interval must be at least 100ms (each scan costs CPU); got \"1ms\"");
  EXPECT_NE(ErrorOf({"--scan.interval=99ms"}).find("at least 100ms"), std::string::npos);
  EXPECT_NE(UsageText().find("at least 100ms"), std::string::npos);
}

TEST(FlagsTest, ConfigCheck) {
  EXPECT_FALSE(MustParse({}).config_check);
  EXPECT_TRUE(MustParse({"--config.check"}).config_check);
  EXPECT_FALSE(MustParse({"--config.check=false"}).config_check);
  EXPECT_NE(UsageText().find("--config.check"), std::string::npos);
}

TEST(FlagsTest, RunbookUrlIsAnAbsoluteHttpUrlWithoutFragment) {
  Flags flags;
  EXPECT_EQ(flags.runbook_url, "/runbook");  // the exporter's own copy
  EXPECT_EQ(flags.runbook_url, kRunbookPath);
  std::string error;
  ASSERT_TRUE(
      ParseFlags({"--web.runbook-url=https://wiki.example.org/oncall/scx.md"}, &flags, &error))
      << error;
  EXPECT_EQ(flags.runbook_url, "https://wiki.example.org/oncall/scx.md");
  for (const char* bad :
       {"--web.runbook-url=wiki/runbook.md", "--web.runbook-url=javascript:alert(1)",
        "--web.runbook-url=https://x/runbook.md#top", "--web.runbook-url=https://x/a\"b",
        "--web.runbook-url=https://x/a b", "--web.runbook-url=https://x/\x01"}) {
    EXPECT_NE(ErrorOf({bad}).find("--web.runbook-url must be an http:// or https:// URL"),
              std::string::npos)
        << bad;
  }
}

// --help, docs/configuration.md and the README's flag table give the same default.
TEST(FlagsTest, RunbookUrlDefaultIsTheSameInHelpAndDocs) {
  EXPECT_NE(UsageText().find("--web.runbook-url=URL"), std::string::npos);
  EXPECT_NE(UsageText().find("(default \"/runbook\""), std::string::npos);
  for (const char* doc : {"/docs/configuration.md", "/README.md"}) {
    const std::string text = testing::ReadFile(std::string(SCX_SOURCE_DIR) + doc);
    EXPECT_NE(text.find("| `--web.runbook-url` | `" + std::string(kDefaultRunbookUrl) + "` |"),
              std::string::npos)
        << doc;
  }
}

}  // namespace
}  // namespace scx
