// Tests of the landing page: links, a row per brain, mismatch details, escaping.
#include "exporter/landing_page.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace scx {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

LandingPageInfo Info() { return {"0.1.0", "abc123", "/custom-metrics"}; }

BrainReport Incident() {
  BrainReport report;
  report.brain.name = "m1nd";
  report.brain.project_root = "/home/dev/m1nd";
  report.brain.runtime_dir = "/home/dev/.m1nd/m1nd";
  report.brain.source = BrainSource::kRegistryOwner;
  report.state = BrainState::kMismatch;
  Coherence verdict;
  verdict.status = CoherenceStatus::kMismatch;
  verdict.expected_slug = "m1nd";
  verdict.found_slug = "keyvault";
  report.coherence = verdict;
  return report;
}

TEST(LandingPageTest, EscapesHtml) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">Tom & 'Jerry'</a>"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;");
  EXPECT_EQ(HtmlEscape("bad\xff"), "bad\xEF\xBF\xBD");
}

TEST(LandingPageTest, LinksAndVersion) {
  const std::string html = RenderLandingPage(Info(), {}, true);
  EXPECT_TRUE(Contains(html, "<a href=\"/custom-metrics\">"));
  EXPECT_TRUE(Contains(html, "<a href=\"/api/v1/brains\">"));
  EXPECT_TRUE(Contains(html, "<a href=\"/-/healthy\">"));
  EXPECT_TRUE(Contains(html, "<a href=\"/-/ready\">"));
  EXPECT_TRUE(Contains(html, "0.1.0"));
  EXPECT_TRUE(Contains(html, "abc123"));
  EXPECT_TRUE(Contains(html, "No brains found."));
}

TEST(LandingPageTest, BeforeTheFirstScan) {
  const std::string html = RenderLandingPage(Info(), {}, false);
  EXPECT_TRUE(Contains(html, "first scan has not completed"));
}

TEST(LandingPageTest, MismatchRowNamesBothSlugs) {
  const std::string html = RenderLandingPage(Info(), {Incident()}, true);
  EXPECT_TRUE(Contains(html,
                       "<tr class=\"mismatch\"><td>m1nd</td><td>/home/dev/m1nd</td>"
                       "<td>/home/dev/.m1nd/m1nd</td><td>registry_owner</td><td>mismatch</td>"
                       "<td>expected m1nd, found keyvault</td><td></td></tr>"))
      << html;
}

TEST(LandingPageTest, UnreadableRowShowsReasonAndStaleVerdict) {
  BrainReport report = Incident();
  report.state = BrainState::kUnreadable;
  report.verdict_stale = true;
  report.read_error = StoreError::kParse;
  report.read_error_message = "unexpected end at byte 12";
  const std::string html = RenderLandingPage(Info(), {report}, true);
  EXPECT_TRUE(Contains(html, "<td>unreadable (last verdict: mismatch, stale)</td>")) << html;
  EXPECT_TRUE(Contains(html, "<td>expected m1nd, found keyvault</td>"));
  EXPECT_TRUE(Contains(html, "<td>parse: unexpected end at byte 12</td>"));
}

TEST(LandingPageTest, EverythingFromDiskIsEscaped) {
  BrainReport report = Incident();
  report.brain.name = "<script>alert(1)</script>";
  report.brain.project_root = "/tmp/a&b";
  report.coherence->found_slug = "x\"y";
  const std::string html = RenderLandingPage(Info(), {report}, true);
  EXPECT_FALSE(Contains(html, "<script>"));
  EXPECT_TRUE(Contains(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_TRUE(Contains(html, "/tmp/a&amp;b"));
  EXPECT_TRUE(Contains(html, "found x&quot;y"));
}

TEST(LandingPageTest, OkRowHasNoSlugColumn) {
  BrainReport report = Incident();
  report.state = BrainState::kOk;
  report.coherence->status = CoherenceStatus::kOk;
  report.coherence->found_slug = "m1nd";
  const std::string html = RenderLandingPage(Info(), {report}, true);
  EXPECT_TRUE(Contains(html, "<td>ok</td><td></td><td></td></tr>")) << html;
}

}  // namespace
}  // namespace scx
