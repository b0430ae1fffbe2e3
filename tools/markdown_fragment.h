// Markdown to an HTML fragment, at build time: docs/runbook.md becomes the body of the
// page served at /runbook (exporter/runbook_document.h), so the exporter carries no
// Markdown parser. cmark-gfm (CommonMark with GitHub's tables) parses and renders. On
// top of it, as GitHub shows the docs: every heading gets GitHub's anchor as its id;
// raw HTML is shown as text, never passed through; links go out only to "#fragment",
// http:// and https:// targets, and any other target (another doc of the tree,
// javascript:, ...) keeps its text without a link, the target as its title. Pure.
#ifndef SCX_TOOLS_MARKDOWN_FRAGMENT_H_
#define SCX_TOOLS_MARKDOWN_FRAGMENT_H_

#include <string>
#include <string_view>

namespace scx {

// GitHub's anchor of a heading whose text (markup removed) is `text`: lowercase,
// spaces to '-', punctuation other than '-' and '_' dropped, non-ASCII kept.
// "SkeletonCoherenceMismatch" -> "skeletoncoherencemismatch",
// "What it means: nothing" -> "what-it-means-nothing".
std::string HeadingAnchor(std::string_view text);

// The HTML of `markdown` (a fragment: no <html> or <body>). A heading whose anchor is
// already taken gets "-1", "-2", ... appended, as on GitHub. Empty when cmark-gfm
// cannot allocate.
std::string MarkdownFragment(std::string_view markdown);

}  // namespace scx

#endif  // SCX_TOOLS_MARKDOWN_FRAGMENT_H_
