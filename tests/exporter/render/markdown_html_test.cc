// The Markdown renderer of the served runbook (exporter/render/markdown_html.h):
// GitHub's heading anchors, every block and inline form docs/runbook.md uses, that
// every character is escaped (no raw HTML), and that links go out only to sections
// and the web.
#include "exporter/render/markdown_html.h"

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

TEST(MarkdownHtmlTest, HeadingsGetTheirAnchorsAsIdsAndRepeatsANumber) {
  const std::string html = MarkdownToHtml(
      "# Runbook\n\n## `SkeletonCoherenceMismatch` ##\n\n### What it means\n\n"
      "## Other\n\n### What it means\n\n#nospace\n");
  EXPECT_TRUE(Contains(html, "<h1 id=\"runbook\">Runbook</h1>\n"));
  EXPECT_TRUE(Contains(html,
                       "<h2 id=\"skeletoncoherencemismatch\"><code>SkeletonCoherenceMismatch"
                       "</code></h2>\n"));
  EXPECT_TRUE(Contains(html, "<h3 id=\"what-it-means\">What it means</h3>\n"));
  EXPECT_TRUE(Contains(html, "<h3 id=\"what-it-means-1\">What it means</h3>\n"));
  EXPECT_TRUE(Contains(html, "<p>#nospace</p>\n"));
}

TEST(MarkdownHtmlTest, EverythingIsEscapedAndNoRawHtmlPassesThrough) {
  const std::string html = MarkdownToHtml(
      "<script>alert(1)</script> & \"q\" 'a'\n\n`<b>` and <img src=x onerror=y>\n\n"
      "```html\n<script>x</script>\n```\n\n| <i> | b |\n| --- | --- |\n| <u> | & |\n\n"
      "# <h1>\n\nbad \xff byte\n");
  EXPECT_FALSE(Contains(html, "<script"));
  EXPECT_FALSE(Contains(html, "<img"));
  EXPECT_FALSE(Contains(html, "<b>"));
  EXPECT_FALSE(Contains(html, "<i>"));
  EXPECT_FALSE(Contains(html, "<u>"));
  EXPECT_TRUE(Contains(html,
                       "<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; "
                       "&#39;a&#39;</p>"));
  EXPECT_TRUE(Contains(html, "<code>&lt;b&gt;</code> and &lt;img src=x onerror=y&gt;"));
  EXPECT_TRUE(
      Contains(html, "<pre><code class=\"language-html\">&lt;script&gt;x&lt;/script&gt;\n"));
  EXPECT_TRUE(Contains(html, "<th>&lt;i&gt;</th>"));
  EXPECT_TRUE(Contains(html, "<h1 id=\"h1\">&lt;h1&gt;</h1>"));
  EXPECT_TRUE(Contains(html, "bad \xef\xbf\xbd byte"));  // invalid UTF-8 repaired
}

TEST(MarkdownHtmlTest, LinksGoOnlyToSectionsAndTheWeb) {
  const std::string html = MarkdownToHtml(
      "[Stale](#stale-verdicts), [docs](https://example.org/a?b=1&c=\"2\"), "
      "[alerting.md](alerting.md#x), [x](javascript:alert(1)), [y](data:text/html,z), "
      "[not a link] (x), [open](#a");
  EXPECT_TRUE(Contains(html, "<a href=\"#stale-verdicts\">Stale</a>"));
  EXPECT_TRUE(Contains(html, "<a href=\"https://example.org/a?b=1&amp;c=&quot;2&quot;\">docs</a>"));
  EXPECT_TRUE(Contains(html, "<span title=\"alerting.md#x\">alerting.md</span>"));
  EXPECT_TRUE(Contains(html, "<span title=\"javascript:alert(1\">x</span>"));
  EXPECT_TRUE(Contains(html, "<span title=\"data:text/html,z\">y</span>"));
  EXPECT_FALSE(Contains(html, "href=\"javascript"));
  EXPECT_FALSE(Contains(html, "href=\"data"));
  EXPECT_TRUE(Contains(html, "[not a link] (x), [open](#a"));
}

TEST(MarkdownHtmlTest, InlineCodeStrongEmphasisAndEscapes) {
  EXPECT_EQ(MarkdownToHtml("**Severity: critical.** a *b* `c *d*` ``e`f`` \\*g\\* 2 * 3 "
                           "**unclosed ______"),
            "<p><strong>Severity: critical.</strong> a <em>b</em> <code>c *d*</code> "
            "<code>e`f</code> *g* 2 * 3 **unclosed ______</p>\n");
  EXPECT_EQ(MarkdownToHtml("**bold with `code**` inside**"),
            "<p><strong>bold with <code>code**</code> inside</strong></p>\n");
  EXPECT_EQ(MarkdownToHtml("`a\nb` and `unclosed"), "<p><code>a b</code> and `unclosed</p>\n");
}

TEST(MarkdownHtmlTest, ParagraphsJoinTheirLinesAndEndAtBlocks) {
  EXPECT_EQ(MarkdownToHtml("one\ntwo\n\nthree\n# Four\nfive\n- six\n"),
            "<p>one\ntwo</p>\n<p>three</p>\n<h1 id=\"four\">Four</h1>\n<p>five</p>\n"
            "<ul>\n<li><p>six</p>\n</li>\n</ul>\n");
  // An ordered item other than 1 does not interrupt a paragraph (a wrapped "2. ").
  EXPECT_EQ(MarkdownToHtml("in\n2. of them\n"), "<p>in\n2. of them</p>\n");
}

TEST(MarkdownHtmlTest, FencedCodeKeepsItsTextAndIndentation) {
  EXPECT_EQ(MarkdownToHtml("```sh\nPOD=$(kubectl \\\n        get pod)\n\n*x*\n```\nafter\n"),
            "<pre><code class=\"language-sh\">POD=$(kubectl \\\n        get pod)\n\n*x*\n"
            "</code></pre>\n<p>after</p>\n");
  EXPECT_EQ(MarkdownToHtml("~~~~\n```\n~~~~\n"), "<pre><code>```\n</code></pre>\n");
  EXPECT_EQ(MarkdownToHtml("```\nnever closed\n"), "<pre><code>never closed\n</code></pre>\n");
}

TEST(MarkdownHtmlTest, ListsNestByIndentationAndHoldCodeBlocks) {
  const std::string html = MarkdownToHtml(
      "1. **Find** the server:\n\n   ```sh\n   grep -l x \\\n     | xargs\n   ```\n\n"
      "   A project brain\n   lives here.\n2. Ask m1nd\nlazily continued\n"
      "   - nested `a`\n   - nested b\n\n     more of b\n\n3. Last\n\n"
      "- bullets after\n\nText.\n\n3) starts at three\n");
  EXPECT_EQ(html,
            "<ol>\n"
            "<li><p><strong>Find</strong> the server:</p>\n"
            "<pre><code class=\"language-sh\">grep -l x \\\n  | xargs\n</code></pre>\n"
            "<p>A project brain\nlives here.</p>\n</li>\n"
            "<li><p>Ask m1nd\nlazily continued</p>\n"
            "<ul>\n<li><p>nested <code>a</code></p>\n</li>\n"
            "<li><p>nested b</p>\n<p>more of b</p>\n</li>\n</ul>\n</li>\n"
            "<li><p>Last</p>\n</li>\n"
            "</ol>\n"
            "<ul>\n<li><p>bullets after</p>\n</li>\n</ul>\n"
            "<p>Text.</p>\n"
            "<ol start=\"3\">\n<li><p>starts at three</p>\n</li>\n</ol>\n");
}

TEST(MarkdownHtmlTest, PipeTables) {
  EXPECT_EQ(MarkdownToHtml("| reason | meaning |\n| --- | :---: |\n| `io` | a \\| b |\n"
                           "| `parse` |\n| x | y | extra |\nafter\n"),
            "<table>\n<thead>\n<tr><th>reason</th><th>meaning</th></tr>\n</thead>\n<tbody>\n"
            "<tr><td><code>io</code></td><td>a | b</td></tr>\n"
            "<tr><td><code>parse</code></td><td></td></tr>\n"
            "<tr><td>x</td><td>y</td></tr>\n"
            "</tbody>\n</table>\n<p>after</p>\n");
  // Without the delimiter row it is a paragraph.
  EXPECT_EQ(MarkdownToHtml("| a | b |\n"), "<p>| a | b |</p>\n");
}

TEST(MarkdownHtmlTest, PageHasTheTitleTheBodyAndALinkBack) {
  const std::string page = RenderMarkdownPage("Runbook <x>", "# Runbook\n");
  EXPECT_EQ(page.rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_TRUE(Contains(page, "<meta charset=\"utf-8\">"));
  EXPECT_TRUE(Contains(page, "<title>Runbook &lt;x&gt;</title>"));
  EXPECT_TRUE(Contains(page, "<a href=\"/\">landing page</a>"));
  EXPECT_TRUE(Contains(page, "<main>\n<h1 id=\"runbook\">Runbook</h1>\n</main>"));
}

}  // namespace
}  // namespace scx
