// The runbook's HTML, made at build time (tools/markdown_fragment.h): GitHub's heading
// anchors, the forms docs/runbook.md uses, raw HTML shown as text, never passed
// through, and links that go out only to sections and the web.
#include "tools/markdown_fragment.h"

#include <string>

#include <gtest/gtest.h>

namespace scx {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(HeadingAnchorTest, LowercaseSpacesToDashesPunctuationDropped) {
  EXPECT_EQ(HeadingAnchor("SkeletonCoherenceMismatch"), "skeletoncoherencemismatch");
  EXPECT_EQ(HeadingAnchor("Stale verdicts"), "stale-verdicts");
  EXPECT_EQ(HeadingAnchor("What the exporter does to a brain: nothing"),
            "what-the-exporter-does-to-a-brain-nothing");
  EXPECT_EQ(HeadingAnchor("Set the job regex and runbook_url"),
            "set-the-job-regex-and-runbook_url");
  EXPECT_EQ(HeadingAnchor("1. The alerts (v2.0)!"), "1-the-alerts-v20");
  EXPECT_EQ(HeadingAnchor("a - b"), "a---b");
  EXPECT_EQ(HeadingAnchor("über <b>"), "über-b");  // non-ASCII kept
}

TEST(MarkdownFragmentTest, HeadingsGetTheirAnchorsAsIdsAndRepeatsANumber) {
  const std::string html = MarkdownFragment(
      "# Runbook\n\n## `SkeletonCoherenceMismatch` ##\n\n### What it means\n\n"
      "## Other\n\n### What it *means*\n\nSetext\n---\n\n#nospace\n");
  EXPECT_TRUE(Contains(html, "<h1 id=\"runbook\">Runbook</h1>\n"));
  EXPECT_TRUE(Contains(html,
                       "<h2 id=\"skeletoncoherencemismatch\"><code>SkeletonCoherenceMismatch"
                       "</code></h2>\n"));
  EXPECT_TRUE(Contains(html, "<h3 id=\"what-it-means\">What it means</h3>\n"));
  EXPECT_TRUE(Contains(html, "<h3 id=\"what-it-means-1\">What it <em>means</em></h3>\n"));
  EXPECT_TRUE(Contains(html, "<h2 id=\"setext\">Setext</h2>\n"));
  EXPECT_TRUE(Contains(html, "<p>#nospace</p>\n"));
}

TEST(MarkdownFragmentTest, EverythingIsEscapedAndNoRawHtmlPassesThrough) {
  const std::string html = MarkdownFragment(
      "<script>alert(1)</script> & \"q\"\n\n`<b>` and <img src=x onerror=y>\n\n"
      "```html\n<script>x</script>\n```\n\n| <i> | b |\n| --- | --- |\n| <u> | & |\n\n"
      "# <h1>\n\nbad \xff byte\n");
  EXPECT_FALSE(Contains(html, "<script"));
  EXPECT_FALSE(Contains(html, "<img"));
  EXPECT_FALSE(Contains(html, "<b>"));
  EXPECT_FALSE(Contains(html, "<i>"));
  EXPECT_FALSE(Contains(html, "<u>"));
  EXPECT_FALSE(Contains(html, "<h1>"));
  EXPECT_TRUE(Contains(html, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;"));
  EXPECT_TRUE(Contains(html, "<code>&lt;b&gt;</code> and &lt;img src=x onerror=y&gt;"));
  EXPECT_TRUE(
      Contains(html, "<pre><code class=\"language-html\">&lt;script&gt;x&lt;/script&gt;\n"));
  EXPECT_TRUE(Contains(html, "<th>&lt;i&gt;</th>"));
  EXPECT_TRUE(Contains(html, "<h1 id=\"h1\">&lt;h1&gt;</h1>"));
  EXPECT_TRUE(Contains(html, "bad \xef\xbf\xbd byte"));  // invalid UTF-8 repaired
}

TEST(MarkdownFragmentTest, LinksGoOnlyToSectionsAndTheWeb) {
  const std::string html = MarkdownFragment(
      "[Stale](#stale-verdicts), [docs](https://example.org/a?b=1&c=\"2\"), "
      "[alerting.md](alerting.md#x), [x](javascript:alert(1)), [y](data:text/html,z), "
      "[**z**](\"q\"), [not a link] (x), [open](#a");
  EXPECT_TRUE(Contains(html, "<a href=\"#stale-verdicts\">Stale</a>"));
  EXPECT_TRUE(Contains(html, "<a href=\"https://example.org/a?b=1&amp;c=%222%22\">docs</a>"));
  EXPECT_TRUE(Contains(html, "<span title=\"alerting.md#x\">alerting.md</span>"));
  EXPECT_TRUE(Contains(html, "<span title=\"javascript:alert(1)\">x</span>"));
  EXPECT_TRUE(Contains(html, "<span title=\"data:text/html,z\">y</span>"));
  EXPECT_TRUE(Contains(html, "<span title=\"&quot;q&quot;\"><strong>z</strong></span>"));
  EXPECT_FALSE(Contains(html, "href=\"javascript"));
  EXPECT_FALSE(Contains(html, "href=\"data"));
  EXPECT_TRUE(Contains(html, "[not a link] (x), [open](#a"));
  // In a table cell too; an image shows its text the same way.
  const std::string table = MarkdownFragment(
      "| a | b |\n| --- | --- |\n| see [security.md](security.md#x) | [ok](#y) |\n\n"
      "![alt <text>](javascript:x) <javascript:alert(1)>\n");
  EXPECT_TRUE(Contains(table, "<td>see <span title=\"security.md#x\">security.md</span></td>"));
  EXPECT_TRUE(Contains(table, "<td><a href=\"#y\">ok</a></td>"));
  EXPECT_TRUE(Contains(table, "<span title=\"javascript:x\">alt &lt;text&gt;</span>"));
  EXPECT_TRUE(Contains(table, "<span title=\"javascript:alert(1)\">javascript:alert(1)</span>"));
  EXPECT_FALSE(Contains(table, "<img"));
}

TEST(MarkdownFragmentTest, TheFormsTheRunbookUses) {
  EXPECT_EQ(MarkdownFragment("**Severity: critical.** a *b* `c *d*` \\*g\\*\n"),
            "<p><strong>Severity: critical.</strong> a <em>b</em> <code>c *d*</code> *g*</p>\n");
  EXPECT_EQ(MarkdownFragment("```sh\nPOD=$(kubectl \\\n        get pod)\n```\n"),
            "<pre><code class=\"language-sh\">POD=$(kubectl \\\n        get pod)\n"
            "</code></pre>\n");
  EXPECT_EQ(MarkdownFragment("1. one\n   - nested\n2. two\n"),
            "<ol>\n<li>one\n<ul>\n<li>nested</li>\n</ul>\n</li>\n<li>two</li>\n</ol>\n");
  EXPECT_EQ(MarkdownFragment("| reason | meaning |\n| --- | --- |\n| `io` | a \\| b |\n"),
            "<table>\n<thead>\n<tr>\n<th>reason</th>\n<th>meaning</th>\n</tr>\n</thead>\n"
            "<tbody>\n<tr>\n<td><code>io</code></td>\n<td>a | b</td>\n</tr>\n</tbody>\n"
            "</table>\n");
}

}  // namespace
}  // namespace scx
