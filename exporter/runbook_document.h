// docs/runbook.md as it was when the exporter was built, compiled into the binary
// (cmake/embed_text.cmake writes the definition), so that /runbook serves the runbook
// of this very version without reading a file at run time.
#ifndef SCX_EXPORTER_RUNBOOK_DOCUMENT_H_
#define SCX_EXPORTER_RUNBOOK_DOCUMENT_H_

#include <string_view>

namespace scx {

// The Markdown of docs/runbook.md.
std::string_view RunbookMarkdown();

}  // namespace scx

#endif  // SCX_EXPORTER_RUNBOOK_DOCUMENT_H_
