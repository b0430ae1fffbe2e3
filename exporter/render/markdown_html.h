// A small, safe Markdown-to-HTML renderer for the exporter's own docs (docs/runbook.md,
// served at /runbook): the subset they use, as GitHub shows it. Blocks: ATX headings
// (with GitHub's anchors as ids), paragraphs, bullet and ordered lists (nested by
// indentation), fenced code blocks and pipe tables. Inline: code spans, **strong**,
// *emphasis*, [links](target) and backslash escapes. Every character of the text is
// HTML-escaped: raw HTML is shown, never passed through. Links go out only to
// "#fragment", http:// and https:// targets; any other target (another doc of the
// tree, javascript:, ...) keeps its text without a link. Pure.
#ifndef SCX_EXPORTER_RENDER_MARKDOWN_HTML_H_
#define SCX_EXPORTER_RENDER_MARKDOWN_HTML_H_

#include <string>
#include <string_view>

namespace scx {

// GitHub's anchor of a heading whose text (markup removed) is `text`: lowercase,
// spaces to '-', punctuation other than '-' and '_' dropped, non-ASCII kept.
// "SkeletonCoherenceMismatch" -> "skeletoncoherencemismatch",
// "What it means: nothing" -> "what-it-means-nothing".
std::string HeadingAnchor(std::string_view text);

// The HTML of `markdown` (a fragment: no <html> or <body>). A heading whose anchor is
// already taken gets "-1", "-2", ... appended, as on GitHub.
std::string MarkdownToHtml(std::string_view markdown);

// The one inline <style> of RenderMarkdownPage, exactly as it embeds it: its hash is
// what the page's Content-Security-Policy allows (exporter/handlers.cc).
std::string MarkdownPageStyle();

// A whole HTML page titled `title` (escaped) with `markdown` rendered as its body and
// a link back to the landing page.
std::string RenderMarkdownPage(std::string_view title, std::string_view markdown);

}  // namespace scx

#endif  // SCX_EXPORTER_RENDER_MARKDOWN_HTML_H_
