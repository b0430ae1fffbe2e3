// The HTML page around a document of the tree served as is (docs/runbook.md at
// /runbook, rendered at build time: exporter/runbook_document.h): a title, one inline
// style and a link back to the landing page. Pure.
#ifndef SCX_EXPORTER_RENDER_DOCUMENT_PAGE_H_
#define SCX_EXPORTER_RENDER_DOCUMENT_PAGE_H_

#include <string>
#include <string_view>

namespace scx {

// The one inline <style> of RenderDocumentPage, exactly as it embeds it: its hash is
// what the page's Content-Security-Policy allows (exporter/handlers.cc).
std::string DocumentPageStyle();

// A whole HTML page titled `title` (escaped) with `body_html`, trusted HTML made at
// build time, as its main part.
std::string RenderDocumentPage(std::string_view title, std::string_view body_html);

}  // namespace scx

#endif  // SCX_EXPORTER_RENDER_DOCUMENT_PAGE_H_
