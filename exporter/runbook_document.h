// docs/runbook.md as HTML, rendered when the exporter was built (tools/markdown_fragment.h)
// and compiled into the binary (cmake/embed_text.cmake writes the definition), so that
// /runbook serves the runbook of this very version without reading or parsing a file
// at run time.
#ifndef SCX_EXPORTER_RUNBOOK_DOCUMENT_H_
#define SCX_EXPORTER_RUNBOOK_DOCUMENT_H_

#include <string_view>

namespace scx {

// The HTML fragment of docs/runbook.md: its headings carry GitHub's anchors as ids.
std::string_view RunbookHtml();

}  // namespace scx

#endif  // SCX_EXPORTER_RUNBOOK_DOCUMENT_H_
