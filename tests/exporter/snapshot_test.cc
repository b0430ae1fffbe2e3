// Tests of the served snapshot: the per-brain metrics kept only gzip-compressed (a
// member left open) and given back whole or piece by piece, the JSON view and landing
// page rendered once at first use (the gzip underneath: tests/exporter/metrics/gzip_test).
#include "exporter/snapshot.h"

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "exporter/metrics/gzip.h"
#include "exporter/metrics/metrics_renderer.h"
#include "exporter/render/json_view.h"
#include "tests/brain_reports.h"

namespace scx {
namespace {

using testing::ScanOf;

class SnapshotTest : public ::testing::Test {
 protected:
  SnapshotTest()
      : null_(std::fopen("/dev/null", "w")), logger_(LogLevel::kError, LogFormat::kLogfmt, null_) {}
  ~SnapshotTest() override { std::fclose(null_); }

  std::shared_ptr<const Snapshot> Render(std::shared_ptr<const ScanResult> scan) {
    text_ = RenderMetrics(*scan, nullptr);
    return RenderSnapshot(std::move(scan), {}, 3, 1767225600.5, LandingPageInfo(), &logger_);
  }

  std::FILE* null_;
  Logger logger_;
  std::string text_;  // what RenderMetrics gave for the last Render
};

TEST_F(SnapshotTest, MetricsAreKeptCompressedAndComeBackWhole) {
  auto snapshot = Render(ScanOf(2000));
  ASSERT_GT(text_.size(), 4 * kGzipPieceBytes);
  EXPECT_EQ(snapshot->scan_number(), 3u);
  EXPECT_EQ(snapshot->scanned_at(), 1767225600.5);
  EXPECT_EQ(snapshot->metrics_size(), text_.size());
  const OpenGzipMember& member = snapshot->metrics_gzip();
  EXPECT_LT(member.bytes.size(), text_.size() / 5);
  // The compressed copy keeps no worst-case room (deflateBound is more than the text).
  EXPECT_LE(member.bytes.capacity(), member.bytes.size() + 64);
  EXPECT_EQ(member.text_bytes, text_.size());
  // Closed with nothing more, it is the one gzip member of the text.
  std::string closing;
  ASSERT_TRUE(GzipCloseMember(member, "", &closing));
  std::string unzipped;
  ASSERT_TRUE(GzipDecompress(member.bytes + closing, &unzipped));
  EXPECT_EQ(unzipped, text_);
  EXPECT_EQ(snapshot->MetricsText(), text_);
}

TEST_F(SnapshotTest, MetricsTextIsWrittenInBoundedPiecesAndStopsWhenAsked) {
  auto snapshot = Render(ScanOf(2000));
  std::string joined;
  int pieces = 0;
  EXPECT_TRUE(snapshot->WriteMetricsText(ExpositionFormat::kText, [&](std::string_view piece) {
    EXPECT_LE(piece.size(), kGzipPieceBytes);
    EXPECT_FALSE(piece.empty());
    joined.append(piece);
    ++pieces;
    return true;
  }));
  EXPECT_EQ(joined, text_);
  EXPECT_GT(pieces, 4);
  // A writer that gives up (the client went away) stops it after that piece.
  int calls = 0;
  EXPECT_FALSE(snapshot->WriteMetricsText(ExpositionFormat::kText,
                                          [&](std::string_view) { return ++calls < 2; }));
  EXPECT_EQ(calls, 2);
}

TEST_F(SnapshotTest, ViewsAreRenderedOnceAtFirstUseAndMatchTheRenderers) {
  auto scan = ScanOf(50);
  auto snapshot = Render(scan);
  EXPECT_EQ(&snapshot->brains(), &scan->brains);  // shared, not copied
  // Many readers at once get the one rendering.
  std::vector<std::thread> readers;
  std::atomic<const std::string*> first{nullptr};
  std::atomic<int> different{0};
  for (int i = 0; i < 8; ++i) {
    readers.emplace_back([&] {
      const std::string* json = &snapshot->brains_json();
      const std::string* expected = nullptr;
      if (!first.compare_exchange_strong(expected, json) && expected != json) ++different;
    });
  }
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(different.load(), 0);
  EXPECT_EQ(snapshot->brains_json(), BrainsView(scan->brains));
  EXPECT_EQ(snapshot->landing_page(),
            RenderLandingPage(LandingPageInfo(), scan->brains, /*scanned=*/true, 1767225600.5));
}

// The gzip copies of the JSON view and the landing page are made once, from the very
// text served plain.
TEST_F(SnapshotTest, ViewsAreCompressedOnceFromTheirText) {
  auto snapshot = Render(ScanOf(200));
  for (const auto& [text, zipped] :
       {std::pair(&Snapshot::brains_json, &Snapshot::brains_json_gzip),
        std::pair(&Snapshot::landing_page, &Snapshot::landing_page_gzip)}) {
    const std::string& first = ((*snapshot).*zipped)();
    EXPECT_EQ(&((*snapshot).*zipped)(), &first);
    std::string unzipped;
    ASSERT_TRUE(GzipDecompress(first, &unzipped));
    EXPECT_EQ(unzipped, ((*snapshot).*text)());
    EXPECT_LT(first.size(), unzipped.size() / 4);
  }
}

// A snapshot tells its JSON view's size once rendered, for the next to start from
// (ScanLoop::Publish); whatever size it is given, too small or too large, it serves
// the same view.
TEST_F(SnapshotTest, AJsonSizeFromAnotherSnapshotChangesNothingServed) {
  auto scan = ScanOf(300);
  auto first = Render(scan);
  const std::size_t size = first->brains_json().size();
  EXPECT_EQ(first->brains_json_size(), size);
  for (const std::size_t given : {std::size_t{1}, size, 4 * size}) {
    auto next = RenderSnapshot(scan, {}, 4, 1767225601.5, LandingPageInfo(), &logger_,
                               {ExpositionFormat::kText}, given);
    EXPECT_EQ(next->brains_json(), first->brains_json()) << given;
    EXPECT_EQ(next->brains_json_size(), size) << given;
  }
}

// Each format is rendered at its first use unless asked for at once, and the formats
// the scrapes asked for (metrics()) are told apart from those rendered for tests.
TEST_F(SnapshotTest, EachFormatIsRenderedOnceAndTheAskedOnesAreKnown) {
  auto scan = ScanOf(40);
  auto snapshot = Render(scan);
  EXPECT_TRUE(snapshot->FormatsAsked().empty());
  const std::string openmetrics = RenderMetrics(*scan, nullptr, {}, ExpositionFormat::kOpenMetrics);
  EXPECT_NE(openmetrics, text_);
  EXPECT_EQ(snapshot->MetricsText(ExpositionFormat::kOpenMetrics), openmetrics);
  EXPECT_EQ(snapshot->MetricsText(), text_);
  EXPECT_TRUE(snapshot->FormatsAsked().empty());
  const RenderedMetrics& asked = snapshot->metrics(ExpositionFormat::kOpenMetrics);
  EXPECT_EQ(&asked, &snapshot->metrics(ExpositionFormat::kOpenMetrics));  // kept, not redone
  EXPECT_EQ(asked.size, openmetrics.size());
  EXPECT_EQ(snapshot->FormatsAsked(), ExpositionFormats{ExpositionFormat::kOpenMetrics});
  snapshot->metrics(ExpositionFormat::kText);
  EXPECT_EQ(snapshot->FormatsAsked(),
            (ExpositionFormats{ExpositionFormat::kText, ExpositionFormat::kOpenMetrics}));
}

TEST_F(SnapshotTest, InitialSnapshotHasNoMetricsAndSaysSo) {
  auto snapshot = InitialSnapshot(LandingPageInfo(), &logger_);
  EXPECT_EQ(snapshot->scan_number(), 0u);
  EXPECT_EQ(snapshot->metrics_size(), 0u);
  EXPECT_EQ(snapshot->MetricsText(), "");
  EXPECT_TRUE(snapshot->brains().empty());
  EXPECT_NE(snapshot->landing_page().find("first scan has not completed"), std::string::npos);
}

}  // namespace
}  // namespace scx
