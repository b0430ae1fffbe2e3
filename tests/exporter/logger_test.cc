// Tests of the logger: logfmt quoting, JSON lines, timestamps, level filtering.
#include "exporter/logger.h"

#include <stdio.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace scx {
namespace {

// Captures what a Logger writes through an in-memory FILE*.
class CapturedOutput {
 public:
  CapturedOutput() : file_(open_memstream(&buffer_, &size_)) {}
  ~CapturedOutput() {
    std::fclose(file_);
    free(buffer_);
  }
  std::FILE* file() { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(buffer_, size_);
  }

 private:
  char* buffer_ = nullptr;
  size_t size_ = 0;
  std::FILE* file_;
};

TEST(LoggerTest, LogfmtValuesAreBareWhenSafe) {
  EXPECT_EQ(QuoteLogfmtValue("m1nd"), "m1nd");
  EXPECT_EQ(QuoteLogfmtValue("/home/dev/.m1nd/x"), "/home/dev/.m1nd/x");
  EXPECT_EQ(QuoteLogfmtValue("0.25"), "0.25");
}

TEST(LoggerTest, LogfmtValuesAreQuotedWhenNeeded) {
  EXPECT_EQ(QuoteLogfmtValue(""), "\"\"");
  EXPECT_EQ(QuoteLogfmtValue("brain state changed"), "\"brain state changed\"");
  EXPECT_EQ(QuoteLogfmtValue("a=b"), "\"a=b\"");
  EXPECT_EQ(QuoteLogfmtValue("say \"hi\""), "\"say \\\"hi\\\"\"");
  EXPECT_EQ(QuoteLogfmtValue("back\\slash"), "\"back\\\\slash\"");
  EXPECT_EQ(QuoteLogfmtValue("two\nlines"), "\"two\\nlines\"");
  EXPECT_EQ(QuoteLogfmtValue("tab\there"), "\"tab\\there\"");
  EXPECT_EQ(QuoteLogfmtValue(std::string("nul\0x", 5)), "\"nul\\u0000x\"");
}

TEST(LoggerTest, LogfmtLineLayout) {
  const std::string line = FormatLogLine(
      LogFormat::kLogfmt, "2026-01-01T00:00:00.000Z", LogLevel::kWarn, "brain state changed",
      {{"brain", "m1nd"}, {"from", "ok"}, {"to", "mismatch"}, {"path", "/a b"}});
  EXPECT_EQ(line,
            "ts=2026-01-01T00:00:00.000Z level=warn msg=\"brain state changed\" brain=m1nd "
            "from=ok to=mismatch path=\"/a b\"\n");
}

TEST(LoggerTest, JsonLineParsesBack) {
  const std::string line =
      FormatLogLine(LogFormat::kJson, "2026-01-01T00:00:00.000Z", LogLevel::kError, "it \"broke\"",
                    {{"err", "line1\nline2"}, {"path", "C:\\x"}});
  ASSERT_EQ(line.back(), '\n');
  const nlohmann::json parsed = nlohmann::json::parse(line);
  EXPECT_EQ(parsed["ts"], "2026-01-01T00:00:00.000Z");
  EXPECT_EQ(parsed["level"], "error");
  EXPECT_EQ(parsed["msg"], "it \"broke\"");
  EXPECT_EQ(parsed["err"], "line1\nline2");
  EXPECT_EQ(parsed["path"], "C:\\x");
}

// In JSON a count is a number and a flag a boolean, by the type the call site gives,
// never by the text: a brain named "42" stays a string.
TEST(LoggerTest, JsonValuesAreTypedByTheirCallSite) {
  const std::size_t brains = 4;
  const std::int64_t mismatches = -1;
  const std::string line =
      FormatLogLine(LogFormat::kJson, "2026-01-01T00:00:00.000Z", LogLevel::kInfo, "scan completed",
                    {{"brain", "42"},
                     {"brains", brains},
                     {"mismatches", mismatches},
                     {"duration_seconds", 0.000137},
                     {"transient", true},
                     {"stale", false},
                     {"path", std::string("true")}});
  EXPECT_EQ(line,
            "{\"ts\":\"2026-01-01T00:00:00.000Z\",\"level\":\"info\",\"msg\":\"scan completed\","
            "\"brain\":\"42\",\"brains\":4,\"mismatches\":-1,\"duration_seconds\":0.000137,"
            "\"transient\":true,\"stale\":false,\"path\":\"true\"}\n");
  const nlohmann::json parsed = nlohmann::json::parse(line);
  EXPECT_TRUE(parsed["brain"].is_string());
  EXPECT_EQ(parsed["brains"], 4);
  EXPECT_TRUE(parsed["brains"].is_number_integer());
  EXPECT_DOUBLE_EQ(parsed["duration_seconds"].get<double>(), 0.000137);
  EXPECT_EQ(parsed["transient"], true);
  EXPECT_TRUE(parsed["path"].is_string());
}

// logfmt writes the same values as text, a number in its shortest form.
TEST(LoggerTest, LogfmtWritesTypedValuesAsText) {
  EXPECT_EQ(FormatLogLine(LogFormat::kLogfmt, "t", LogLevel::kInfo, "m",
                          {{"brains", 4}, {"duration_seconds", 0.25}, {"transient", true}}),
            "ts=t level=info msg=m brains=4 duration_seconds=0.25 transient=true\n");
}

TEST(LogValueTest, KindsAndTexts) {
  EXPECT_EQ(LogValue("4").kind(), LogValue::Kind::kText);
  EXPECT_EQ(LogValue(std::string("4")).kind(), LogValue::Kind::kText);
  EXPECT_EQ(LogValue(std::string_view("4")).kind(), LogValue::Kind::kText);
  EXPECT_EQ(LogValue(4).kind(), LogValue::Kind::kNumber);
  EXPECT_EQ(LogValue(std::uint64_t{18446744073709551615u}).text(), "18446744073709551615");
  EXPECT_EQ(LogValue(-7L).text(), "-7");
  EXPECT_EQ(LogValue(1e-7).text(), "1e-07");
  EXPECT_EQ(LogValue(0.1).text(), "0.1");
  EXPECT_EQ(LogValue(100.0).text(), "100");
  EXPECT_EQ(LogValue(false).kind(), LogValue::Kind::kBool);
  EXPECT_EQ(LogValue(false).text(), "false");
  // No JSON number for these: text, as Prometheus spells them.
  EXPECT_EQ(LogValue(std::nan("")).kind(), LogValue::Kind::kText);
  EXPECT_EQ(LogValue(std::nan("")).text(), "NaN");
  EXPECT_EQ(LogValue(-HUGE_VAL).text(), "-Inf");
  const std::string json = FormatLogLine(LogFormat::kJson, "t", LogLevel::kInfo, "m",
                                         {{"x", std::numeric_limits<double>::infinity()}});
  EXPECT_EQ(nlohmann::json::parse(json)["x"], "+Inf");
}

TEST(LoggerTest, HugeFieldValuesAreCapped) {
  const std::string skeleton_id = "sk_" + std::string(10 << 20, 'k') + "_candidate";
  for (LogFormat format : {LogFormat::kLogfmt, LogFormat::kJson}) {
    const std::string line =
        FormatLogLine(format, "2025-01-31T12:00:00.000Z", LogLevel::kWarn, "brain discovered",
                      {{"brain", "m1nd"}, {"found_skeleton", skeleton_id}});
    EXPECT_LT(line.size(), kMaxLogValueBytes + 200);
    EXPECT_NE(line.find("sk_kkkk"), std::string::npos);
    EXPECT_NE(line.find("\xE2\x80\xA6[" + std::to_string(skeleton_id.size() - kMaxLogValueBytes) +
                        " bytes cut]"),
              std::string::npos);
    EXPECT_NE(line.find("m1nd"), std::string::npos);
  }
}

TEST(LoggerTest, TimestampIsRfc3339UtcWithMilliseconds) {
  const auto time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1767225600123));
  EXPECT_EQ(FormatLogTimestamp(time), "2026-01-01T00:00:00.123Z");
  EXPECT_EQ(FormatLogTimestamp(std::chrono::system_clock::time_point()),
            "1970-01-01T00:00:00.000Z");
}

TEST(LoggerTest, LevelsBelowTheConfiguredOneAreDropped) {
  CapturedOutput output;
  Logger logger(LogLevel::kWarn, LogFormat::kLogfmt, output.file());
  logger.Debug("d");
  logger.Info("i");
  logger.Warn("w");
  logger.Error("e");
  const std::string text = output.text();
  EXPECT_EQ(text.find("msg=d"), std::string::npos);
  EXPECT_EQ(text.find("msg=i"), std::string::npos);
  EXPECT_NE(text.find("level=warn msg=w"), std::string::npos);
  EXPECT_NE(text.find("level=error msg=e"), std::string::npos);
  EXPECT_FALSE(logger.Enabled(LogLevel::kInfo));
  EXPECT_TRUE(logger.Enabled(LogLevel::kError));
}

TEST(LoggerTest, DebugLevelShowsEverything) {
  CapturedOutput output;
  Logger logger(LogLevel::kDebug, LogFormat::kJson, output.file());
  logger.Debug("d", {{"k", "v"}});
  logger.Info("i");
  const std::string text = output.text();
  EXPECT_NE(text.find("\"level\":\"debug\",\"msg\":\"d\",\"k\":\"v\"}"), std::string::npos);
  EXPECT_NE(text.find("\"level\":\"info\""), std::string::npos);
}

TEST(LoggerTest, LinesStayWholeAcrossThreads) {
  CapturedOutput output;
  Logger logger(LogLevel::kInfo, LogFormat::kLogfmt, output.file());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&logger, t] {
      for (int i = 0; i < 200; ++i) logger.Info("tick", {{"thread", std::to_string(t)}});
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::string text = output.text();
  size_t lines = 0;
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string line = text.substr(start, end - start);
    EXPECT_EQ(line.rfind("ts=", 0), 0u) << line;
    EXPECT_NE(line.find(" level=info msg=tick thread="), std::string::npos) << line;
    ++lines;
  }
  EXPECT_EQ(lines, 800u);
}

}  // namespace
}  // namespace scx
