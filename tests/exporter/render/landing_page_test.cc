// Tests of the landing page: the banner's three colours, worst-first order, a stale
// mismatch shown red, both slugs and since, last scan time, runbook links, escaping.
#include "exporter/render/landing_page.h"

#include <cctype>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/brain_reports.h"

namespace scx {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

LandingPageInfo Info() { return {"0.1.0", "abc123", "/custom-metrics"}; }

BrainReport Incident() {
  BrainReport report;
  Brain* brain = report.mutable_brain();
  brain->name = "m1nd";
  brain->project_root = "/home/dev/m1nd";
  brain->runtime_dir = "/home/dev/.m1nd/m1nd";
  brain->source = BrainSource::kRegistryOwner;
  brain->identity_source = IdentitySource::kAnyIngestRoot;
  report.state = BrainState::kMismatch;
  Coherence verdict;
  verdict.status = CoherenceStatus::kMismatch;
  verdict.expected_slug = "m1nd";
  verdict.found_slug = "keyvault";
  verdict.reason = "skeleton_id \"sk_keyvault_candidate\" does not carry this brain's slug";
  report.coherence = std::make_shared<const Coherence>(verdict);
  return report;
}

using testing::IdentityUnknown;
using testing::Report;

BrainReport Ok(const std::string& name) {
  BrainReport report = Report(name, BrainState::kOk);
  Coherence verdict;
  verdict.status = CoherenceStatus::kOk;
  verdict.expected_slug = name;
  verdict.found_slug = name;
  report.coherence = std::make_shared<const Coherence>(verdict);
  return report;
}

// Unreadable now; its last good verdict was a mismatch.
BrainReport StaleMismatch(const std::string& name) {
  BrainReport report = Incident();
  report.mutable_brain()->name = name;
  report.state = BrainState::kUnreadable;
  report.verdict_stale = true;
  report.read_error = StoreError::kParse;
  report.read_error_message = "unexpected end at byte 12";
  return report;
}

TEST(LandingPageTest, EscapesHtml) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">Tom & 'Jerry'</a>"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;");
  EXPECT_EQ(HtmlEscape("bad\xff"), "bad\xEF\xBF\xBD");
}

TEST(LandingPageTest, LinksAndVersion) {
  const std::string html = RenderLandingPage(Info(), {}, true, 1764468000);
  EXPECT_TRUE(Contains(html, "<a href=\"/custom-metrics\">"));
  EXPECT_TRUE(Contains(html, "<a href=\"/api/v1/brains\">"));
  EXPECT_TRUE(Contains(html, "<a href=\"/-/healthy\">"));
  EXPECT_TRUE(Contains(html, "<a href=\"/-/ready\">"));
  EXPECT_TRUE(Contains(html, "<a href=\"/runbook\">runbook</a>"));  // the exporter's own
  EXPECT_TRUE(Contains(html, "0.1.0"));
  EXPECT_TRUE(Contains(html, "abc123"));
}

TEST(LandingPageTest, GreyBannerBeforeTheFirstScanAndWhenNothingIsWatched) {
  std::string html = RenderLandingPage(Info(), {}, false);
  EXPECT_TRUE(Contains(
      html,
      "class=\"banner grey\" role=\"status\"><div class=\"headline\">Waiting for the first scan"))
      << html;
  EXPECT_TRUE(Contains(html, "first scan has not completed"));
  EXPECT_FALSE(Contains(html, "id=\"last-scan\""));

  html = RenderLandingPage(Info(), {}, true, 1764468000);
  EXPECT_TRUE(Contains(html,
                       "class=\"banner grey\" role=\"status\"><div class=\"headline\">Nothing "
                       "watched: no brains found"));
  EXPECT_TRUE(Contains(html, RunbookLink(kDefaultRunbookUrl, kRunbookNoBrains)));
  EXPECT_FALSE(Contains(html, "<table"));
}

TEST(LandingPageTest, GreenBannerWhenNoBrainServesAForeignSkeleton) {
  BrainReport unreadable = Report("torn", BrainState::kUnreadable);
  unreadable.read_error = StoreError::kParse;
  const std::string html = RenderLandingPage(
      Info(), {Ok("a"), Ok("b"), Report("notes", BrainState::kAbsent), unreadable}, true);
  EXPECT_TRUE(
      Contains(html, "class=\"banner green\" role=\"status\"><div class=\"headline\">All coherent"))
      << html;
  EXPECT_TRUE(
      Contains(html, "4 brains: 0 mismatch, 1 unreadable, 0 identity_unknown, 1 absent, 2 ok"));
  EXPECT_FALSE(Contains(html, "banner red"));
}

TEST(LandingPageTest, RedBannerNamesEveryMismatchStaleIncluded) {
  const std::string html =
      RenderLandingPage(Info(), {Ok("a"), Incident(), StaleMismatch("vault")}, true);
  EXPECT_TRUE(Contains(html,
                       "class=\"banner red\" role=\"status\"><div class=\"headline\">2 brains "
                       "serve a foreign skeleton: "
                       "<span class=\"name\">m1nd</span>, <span class=\"name\">vault</span>"))
      << html;
  EXPECT_TRUE(
      Contains(html, "3 brains: 2 mismatch, 0 unreadable, 0 identity_unknown, 0 absent, 1 ok"));
  EXPECT_TRUE(Contains(html, RunbookLink(kDefaultRunbookUrl, kRunbookMismatch)));

  const std::string one = RenderLandingPage(Info(), {Ok("a"), Incident()}, true);
  EXPECT_TRUE(Contains(one, ">1 brain serves a foreign skeleton: <span class=\"name\">m1nd</span>"))
      << one;
}

TEST(LandingPageTest, RedBannerNamesTenAndCountsTheRest) {
  std::vector<BrainReport> brains;
  for (int i = 0; i < 12; ++i) {
    BrainReport report = Incident();
    report.mutable_brain()->name = "b" + std::to_string(10 + i);
    brains.push_back(report);
  }
  const std::string html = RenderLandingPage(Info(), brains, true);
  EXPECT_TRUE(Contains(html, "12 brains serve a foreign skeleton: "));
  EXPECT_TRUE(Contains(html, "<span class=\"name\">b19</span> and 2 more</div>")) << html;
  EXPECT_FALSE(Contains(html, "<span class=\"name\">b20</span>"));
}

std::size_t Count(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

// A fleet of 130 ok brains, 3 mismatches and 101 absent ones.
std::vector<BrainReport> BigFleet() {
  std::vector<BrainReport> brains;
  brains.reserve(234);
  for (int i = 0; i < 130; ++i) brains.push_back(Ok("ok" + std::to_string(1000 + i)));
  for (int i = 0; i < 3; ++i) {
    BrainReport incident = Incident();
    incident.mutable_brain()->name = "bad" + std::to_string(i);
    brains.push_back(incident);
  }
  for (int i = 0; i < 101; ++i) {
    brains.push_back(Report("absent" + std::to_string(1000 + i), BrainState::kAbsent));
  }
  return brains;
}

// On a big fleet the table shows at most 100 brains of each state, worst first, and
// says how many more there are, with a link to the page of that state alone.
TEST(LandingPageTest, AtMostAHundredRowsAStateThenNMore) {
  const std::string html = RenderLandingPage(Info(), BigFleet(), true, 1764468000);
  EXPECT_EQ(Count(html, "<tr class=\"ok\""), 100u);
  EXPECT_EQ(Count(html, "<tr class=\"mismatch\""), 3u);
  EXPECT_EQ(Count(html, "<tr class=\"absent\""), 100u);
  EXPECT_TRUE(Contains(html, "data-brain=\"ok1099\""));
  EXPECT_FALSE(Contains(html, "data-brain=\"ok1100\""));
  EXPECT_TRUE(Contains(html,
                       "<p class=\"more\" data-state=\"ok\">30 more ok \u2014 <a "
                       "href=\"/?state=ok&amp;limit=0\">show all</a></p>"))
      << html;
  EXPECT_TRUE(Contains(html,
                       "<p class=\"more\" data-state=\"absent\">1 more absent \u2014 <a "
                       "href=\"/?state=absent&amp;limit=0\">show all</a></p>"));
  EXPECT_FALSE(Contains(html, "data-state=\"mismatch\""));
  EXPECT_FALSE(Contains(html, "id=\"filter\""));
  // The banner and the counts are the whole fleet's.
  EXPECT_TRUE(Contains(html, "234 brains: 3 mismatch"));
  // Up to 100 of a state, no line.
  EXPECT_FALSE(Contains(RenderLandingPage(Info(), {Ok("a"), Incident()}, true), "class=\"more\""));
}

TEST(LandingPageTest, AStateFilterShowsThoseBrainsAndLimitZeroShowsThemAll) {
  BrainFilter filter;
  filter.states = {BrainState::kOk};
  filter.has_limit = true;
  filter.limit = 0;
  std::string html = RenderLandingPage(Info(), BigFleet(), true, 1764468000, {}, filter);
  EXPECT_EQ(Count(html, "<tr class=\"ok\""), 130u);
  EXPECT_EQ(Count(html, "<tr class=\"mismatch\""), 0u);
  EXPECT_EQ(Count(html, "<tr class=\"absent\""), 0u);
  EXPECT_FALSE(Contains(html, "class=\"more\""));
  EXPECT_TRUE(Contains(html, "<p id=\"filter\">Showing state ok, every brain"));
  EXPECT_TRUE(Contains(html, "<a href=\"/\">back to the default page</a>"));
  EXPECT_TRUE(Contains(html, "234 brains: 3 mismatch"));  // banner unchanged

  filter.states = {BrainState::kMismatch, BrainState::kAbsent};
  filter.limit = 2;  // a state
  html = RenderLandingPage(Info(), BigFleet(), true, 1764468000, {}, filter);
  EXPECT_EQ(Count(html, "<tr class=\"mismatch\""), 2u);
  EXPECT_EQ(Count(html, "<tr class=\"absent\""), 2u);
  EXPECT_EQ(Count(html, "<tr class=\"ok\""), 0u);
  EXPECT_TRUE(Contains(html, ">1 more mismatch \u2014 "));
  EXPECT_TRUE(Contains(html, ">99 more absent \u2014 "));
  EXPECT_TRUE(Contains(html, "Showing state mismatch, absent, at most 2 a state"));

  filter.states = {BrainState::kUnreadable};
  html = RenderLandingPage(Info(), BigFleet(), true, 1764468000, {}, filter);
  EXPECT_FALSE(Contains(html, "<table id=\"brains\">"));
  EXPECT_TRUE(Contains(html, "<p id=\"no-match\">No brain matches.</p>"));
}

TEST(LandingPageTest, BrainsAreOrderedWorstFirstThenByName) {
  BrainReport unreadable = Report("c-torn", BrainState::kUnreadable);
  unreadable.read_error = StoreError::kIo;
  BrainReport stale_ok = Ok("b-stale-ok");
  stale_ok.state = BrainState::kUnreadable;
  stale_ok.verdict_stale = true;
  BrainReport incident = Incident();
  incident.mutable_brain()->name = "z-m1nd";
  const std::vector<BrainReport> input = {Ok("a-ok"),
                                          Report("a-empty", BrainState::kAbsent),
                                          unreadable,
                                          incident,
                                          IdentityUnknown("d-hidden"),
                                          stale_ok,
                                          StaleMismatch("y-vault"),
                                          IdentityUnknown("0-hidden"),
                                          Ok("0-first")};
  std::vector<std::string> order;
  for (const BrainReport* report : WorstFirst(input)) order.push_back(report->brain().name);
  EXPECT_EQ(order,
            (std::vector<std::string>{"y-vault", "z-m1nd", "b-stale-ok", "c-torn", "0-hidden",
                                      "d-hidden", "a-empty", "0-first", "a-ok"}));

  // The table follows that order.
  const std::string html = RenderLandingPage(Info(), input, true);
  size_t previous = 0;
  for (const std::string& name : order) {
    const size_t at = html.find("data-brain=\"" + name + "\"");
    ASSERT_NE(at, std::string::npos) << name;
    EXPECT_GT(at, previous) << name;
    previous = at;
  }
}

TEST(LandingPageTest, MismatchRowHasBothSlugsSinceAndRunbook) {
  BrainReport incident = Incident();
  incident.mismatch_since = 1764468000 - (3 * 86400 + 4 * 3600 + 59);
  const std::string html = RenderLandingPage(Info(), {incident}, true, 1764468000);
  EXPECT_TRUE(Contains(
      html,
      "<tr class=\"mismatch\" data-brain=\"m1nd\"><td class=\"brain\">m1nd</td>"
      "<td class=\"state\">mismatch</td><td class=\"slug\">m1nd</td><td "
      "class=\"slug\">keyvault</td>"
      "<td class=\"since\">"
      "<time><span class=\"day\">2025-11-26</span> 21:59:01 UTC</time>, <span class=\"age\" "
      "data-unix=\"1764194341.000\">"
      "3d 4h</span> ago</td><td><a href=\"" +
          RunbookLink(kDefaultRunbookUrl, kRunbookMismatch) +
          "\">mismatch</a></td><td class=\"reason\">skeleton_<wbr>id "
          "&quot;sk_<wbr>keyvault_<wbr>candidate&quot; does not carry this brain&#39;s "
          "slug</td><td class=\"path\">/home/<wbr>dev/<wbr>m1nd</td><td "
          "class=\"path\">/home/<wbr>dev/<wbr>.m1nd/<wbr>m1nd</td><td "
          "class=\"source\">registry_<wbr>owner</td><td "
          "class=\"named-by\">first_<wbr>ingest_<wbr>root</td></tr>"))
      << html;
}

TEST(LandingPageTest, MismatchRowNamesWhoseSkeletonItIs) {
  BrainReport incident = Incident();
  SkeletonProvenance incident_provenance;
  incident_provenance.owner_brain = "keyvault";
  incident.skeleton_provenance = std::make_shared<const SkeletonProvenance>(incident_provenance);
  const std::string html = RenderLandingPage(Info(), {incident}, true, 1764468000);
  EXPECT_TRUE(Contains(
      html,
      "<td class=\"slug\">m1nd</td><td class=\"slug\">keyvault <span class=\"owner\">(keyvault's "
      "skeleton)</span></td>"))
      << html;
}

TEST(LandingPageTest, StaleMismatchIsRedAndMarkedStale) {
  BrainReport stale = StaleMismatch("m1nd");
  const std::string html = RenderLandingPage(Info(), {stale}, true);
  EXPECT_TRUE(Contains(html,
                       "<tr class=\"mismatch stale\" data-brain=\"m1nd\"><td class=\"brain\">m1nd"
                       "</td><td class=\"state\">mismatch <span class=\"badge\">stale</span>"))
      << html;
  // The reason of the last good verdict, then why there is no fresh one.
  EXPECT_TRUE(
      Contains(html,
               "<td class=\"reason\">skeleton_<wbr>id &quot;sk_<wbr>keyvault_<wbr>candidate&quot; "
               "does not carry this brain&#39;s slug (last good read; the store cannot "
               "be read now: parse: unexpected end at byte 12)</td>"))
      << html;
  EXPECT_TRUE(Contains(html, RunbookLink(kDefaultRunbookUrl, kRunbookStaleVerdicts)));
  EXPECT_TRUE(Contains(html, "banner red"));
}

TEST(LandingPageTest, UnreadableRowWithAStaleOkVerdict) {
  BrainReport report = Ok("m1nd");
  report.state = BrainState::kUnreadable;
  report.verdict_stale = true;
  report.read_error = StoreError::kTooLarge;
  const std::string html = RenderLandingPage(Info(), {report}, true);
  EXPECT_TRUE(Contains(html, "<tr class=\"unreadable\" data-brain=\"m1nd\">")) << html;
  EXPECT_TRUE(Contains(html, "<td class=\"state\">unreadable (last verdict: ok, stale)</td>"));
  EXPECT_TRUE(Contains(html, RunbookLink(kDefaultRunbookUrl, kRunbookUnreadable)));
}

TEST(LandingPageTest, IdentityUnknownRowIsNotRedAndSaysWhy) {
  const std::string html =
      RenderLandingPage(Info(), {Ok("a"), IdentityUnknown("medulla")}, true, 1764468000);
  EXPECT_TRUE(Contains(html,
                       "<tr class=\"identity_unknown\" data-brain=\"medulla\"><td "
                       "class=\"brain\">medulla</td><td class=\"state\">identity unknown</td>"
                       "<td class=\"slug\"></td><td class=\"slug\"></td><td></td><td><a href=\"" +
                           RunbookLink(kDefaultRunbookUrl, kRunbookIdentityUnknown) +
                           "\">identity unknown</a></td><td class=\"reason\">ingest root "
                           "/home/<wbr>dev/<wbr>m1nd cannot be "
                           "seen</td><td class=\"path\"></td><td "
                           "class=\"path\">/rt/<wbr>medulla</td><td class=\"source\">static</td>"
                           "<td class=\"named-by\">unknown</td></tr>"))
      << html;
  // Not a mismatch: the banner stays green, and the counts name the state.
  EXPECT_TRUE(Contains(html, "banner green"));
  EXPECT_TRUE(
      Contains(html, "2 brains: 0 mismatch, 0 unreadable, 1 identity_unknown, 0 absent, 1 ok"));
  EXPECT_TRUE(Contains(html, "tr.identity_unknown{"));
}

TEST(LandingPageTest, OrphanedFoldersAreListedUnderTheTable) {
  const std::string none = RenderLandingPage(Info(), {Ok("a")}, true);
  EXPECT_FALSE(Contains(none, "Orphaned"));
  EXPECT_FALSE(Contains(none, "id=\"orphans\""));
  const std::string html = RenderLandingPage(
      Info(), {Ok("a")}, true, 1764468000,
      {{"/rt/project-brains/old<1>", "/home/dev/m1nd", "/rt/project-brains/new"}});
  const size_t heading = html.find("<h2>Orphaned brain folders (not served by m1nd)</h2>");
  ASSERT_NE(heading, std::string::npos) << html;
  EXPECT_GT(heading, html.find("</table>"));
  EXPECT_TRUE(Contains(
      html,
      "<ul id=\"orphans\">\n<li><code>/rt/<wbr>project-<wbr>brains/<wbr>old&lt;1&gt;</code> "
      "(project root <code>/home/<wbr>dev/<wbr>m1nd</code>, served by "
      "<code>/rt/<wbr>project-<wbr>brains/<wbr>new</code>)</li>\n</ul>"))
      << html;
}

TEST(LandingPageTest, OkRowHasNoSlugsSinceOrRunbook) {
  const std::string html = RenderLandingPage(Info(), {Ok("m1nd")}, true);
  EXPECT_TRUE(Contains(
      html,
      "<td class=\"state\">ok</td><td class=\"slug\"></td><td class=\"slug\"></td><td></td>"
      "<td></td><td class=\"reason\"></td>"))
      << html;
}

TEST(LandingPageTest, AbsentAndUnreadableRowsSayWhy) {
  BrainReport torn = Report("torn", BrainState::kUnreadable);
  torn.read_error = StoreError::kTooLarge;
  torn.read_error_message = "larger than 64 MiB";
  const std::string html =
      RenderLandingPage(Info(), {Report("notes", BrainState::kAbsent), torn}, true);
  EXPECT_TRUE(Contains(html, "<td class=\"reason\">no store yet</td>")) << html;
  EXPECT_TRUE(Contains(html, "<td class=\"reason\">too_<wbr>large: larger than 64 MiB</td>"))
      << html;
}

TEST(LandingPageTest, LastScanTimeAndAge) {
  const std::string html = RenderLandingPage(Info(), {Ok("a")}, true, 1764468000.25);
  EXPECT_TRUE(Contains(html,
                       "<p id=\"last-scan\">Last scan: <time><span class=\"day\">2025-11-30</span> "
                       "02:00:00 UTC</time>, "
                       "<span class=\"age\" data-unix=\"1764468000.250\">0s</span> ago</p>"))
      << html;
}

// Values from disk may wrap after a `_`, `-` or `/` inside a word (<wbr>, which copied
// text does not keep), nowhere else; the data-brain attribute keeps the name as is.
TEST(LandingPageTest, ValuesFromDiskWrapAtSeparatorsOnly) {
  const std::string html = RenderLandingPage(Info(), {Ok("a_b-c/d __e- f")}, true);
  EXPECT_TRUE(Contains(html,
                       "data-brain=\"a_b-c/d __e- f\"><td class=\"brain\">"
                       "a_<wbr>b-<wbr>c/<wbr>d __e- f</td>"))
      << html;
}

// A phone gets the page at its own width (the viewport tag), where the table turns into
// a block per brain whose lines are labelled with the column names.
TEST(LandingPageTest, NarrowLayoutLabelsEachCell) {
  const std::string html = RenderLandingPage(Info(), {Ok("a")}, true);
  EXPECT_TRUE(Contains(html,
                       "<meta name=\"viewport\" content=\"width=device-width, "
                       "initial-scale=1\">"));
  EXPECT_TRUE(Contains(html, "@media (max-width:60em){#brains,#brains tbody,"));
  EXPECT_TRUE(Contains(html, "#brains td:nth-child(1)::before{content:\"brain\"}"));
  EXPECT_TRUE(Contains(html, "#brains.narrow td:nth-child(11)::before{content:\"named by\"}"));
  EXPECT_TRUE(Contains(html, "<th>brain</th><th>state</th>"));
}

TEST(LandingPageTest, EverythingFromDiskIsEscaped) {
  BrainReport report = Incident();
  Brain* brain = report.mutable_brain();
  brain->name = "<script>alert(1)</script>";
  brain->project_root = "/tmp/a&b";
  Coherence verdict = *report.coherence;
  verdict.found_slug = "x\"y";
  report.coherence = std::make_shared<const Coherence>(verdict);
  const std::string html = RenderLandingPage(Info(), {report}, true);
  EXPECT_FALSE(Contains(html, "<script>alert"));
  EXPECT_TRUE(Contains(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_TRUE(Contains(html, "data-brain=\"&lt;script&gt;"));
  EXPECT_TRUE(Contains(html, "/tmp/<wbr>a&amp;b"));
  EXPECT_TRUE(Contains(html, "<td class=\"slug\">x&quot;y</td>"));
}

TEST(FormatAgeTest, LargestTwoUnits) {
  EXPECT_EQ(FormatAge(-5), "0s");
  EXPECT_EQ(FormatAge(45.9), "45s");
  EXPECT_EQ(FormatAge(12 * 60 + 5), "12m 5s");
  EXPECT_EQ(FormatAge(4 * 3600 + 12 * 60 + 7), "4h 12m");
  EXPECT_EQ(FormatAge(3 * 86400 + 4 * 3600 + 59 * 60), "3d 4h");
}

TEST(FormatUtcTest, UnixSecondsAsUtc) {
  EXPECT_EQ(FormatUtc(0), "1970-01-01 00:00:00 UTC");
  EXPECT_EQ(FormatUtc(1764468000.9), "2025-11-30 02:00:00 UTC");
}

// GitHub's anchor of a Markdown heading: lowercase, punctuation dropped, spaces to '-'.
std::string HeadingAnchor(const std::string& heading) {
  std::string anchor;
  for (char c : heading) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') {
      anchor += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (c == ' ') {
      anchor += '-';
    }
  }
  return anchor;
}

// Without --web.runbook-url the page links the runbook the exporter serves, by path,
// so that the links work on whatever host and port the page was opened.
TEST(LandingPageTest, RunbookLinksGoToTheServedRunbookByDefault) {
  EXPECT_EQ(std::string(LandingPageInfo().runbook_url), "/runbook");
  std::vector<BrainReport> brains = {Incident(), StaleMismatch("notes")};
  const std::string html = RenderLandingPage(LandingPageInfo(), brains, true, 1764468000);
  EXPECT_TRUE(Contains(html, "<a href=\"/runbook#skeletoncoherencemismatch\">"));
  EXPECT_TRUE(Contains(html, "<a href=\"/runbook#stale-verdicts\">"));
  EXPECT_TRUE(Contains(html, "<a href=\"/runbook\">runbook</a>"));
  EXPECT_FALSE(Contains(html, "runbook.md"));
  EXPECT_TRUE(Contains(RenderLandingPage(LandingPageInfo(), {}, true, 1764468000),
                       "<a href=\"/runbook#skeletoncoherencenobrainswatched\">"));
}

TEST(LandingPageTest, EveryRunbookLinkUsesTheConfiguredRunbook) {
  LandingPageInfo info = Info();
  info.runbook_url = "https://wiki.example.org/scx-runbook";
  std::vector<BrainReport> brains = {Incident(), StaleMismatch("notes")};
  const std::string html = RenderLandingPage(info, brains, true, 1764468000);
  EXPECT_TRUE(Contains(html, "https://wiki.example.org/scx-runbook#skeletoncoherencemismatch"));
  EXPECT_TRUE(Contains(html, "<a href=\"https://wiki.example.org/scx-runbook\">runbook</a>"));
  EXPECT_FALSE(Contains(html, "href=\"/runbook"));
  EXPECT_FALSE(Contains(RenderLandingPage(info, {}, true, 1764468000), "href=\"/runbook"));
}

TEST(RunbookLinkTest, EveryAnchorIsAHeadingOfTheRunbook) {
  std::ifstream runbook(std::string(SCX_SOURCE_DIR) + "/docs/runbook.md");
  ASSERT_TRUE(runbook.good());
  std::set<std::string> anchors;
  for (std::string line; std::getline(runbook, line);) {
    const size_t text = line.find_first_not_of('#');
    if (text > 0 && text != std::string::npos && line[text] == ' ') {
      anchors.insert(HeadingAnchor(line.substr(text + 1)));
    }
  }
  for (const char* anchor : {kRunbookMismatch, kRunbookStaleVerdicts, kRunbookUnreadable,
                             kRunbookNoBrains, kRunbookIdentityUnknown}) {
    EXPECT_EQ(anchors.count(anchor), 1u) << anchor;
  }
}

// The rules link the /runbook a live exporter serves (their address comes from
// Prometheus, docs/alerting.md); the sections they link to are the page's.
TEST(RunbookLinkTest, TheAlertRulesLinkToTheSameSections) {
  std::ifstream rules(std::string(SCX_SOURCE_DIR) + "/alerts/skeleton-coherence.rules.yml");
  std::stringstream text;
  text << rules.rdbuf();
  EXPECT_TRUE(Contains(text.str(), RunbookLink("/runbook", kRunbookMismatch) + "'\n"));
  EXPECT_TRUE(Contains(text.str(), RunbookLink("/runbook", kRunbookIdentityUnknown) + "'\n"));
}

}  // namespace
}  // namespace scx
