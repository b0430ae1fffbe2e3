// The page around the runbook (exporter/render/document_page.h): a title, the style
// its Content-Security-Policy allows, a link back and the document's HTML as given.
#include "exporter/render/document_page.h"

#include <string>

#include <gtest/gtest.h>

namespace scx {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(DocumentPageTest, PageHasTheTitleTheStyleTheBodyAndALinkBack) {
  const std::string page = RenderDocumentPage("Runbook <x>", "<h1 id=\"runbook\">Runbook</h1>\n");
  EXPECT_EQ(page.rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_TRUE(Contains(page, "<meta charset=\"utf-8\">"));
  EXPECT_TRUE(Contains(page, "<title>Runbook &lt;x&gt;</title>"));
  EXPECT_TRUE(Contains(page, "<style>" + DocumentPageStyle() + "</style>"));
  EXPECT_TRUE(Contains(page, "<a href=\"/\">landing page</a>"));
  EXPECT_TRUE(Contains(page, "<main>\n<h1 id=\"runbook\">Runbook</h1>\n</main>"));
}

}  // namespace
}  // namespace scx
