// The page around a document: head, style, a link back, the document's HTML.
#include "exporter/render/document_page.h"

#include "exporter/render/endpoints.h"
#include "exporter/render/landing_page.h"  // HtmlEscape

namespace scx {

namespace {

constexpr char kPageStyle[] =
    "body{font-family:sans-serif;line-height:1.45;max-width:60em;margin:1.5em auto;"
    "padding:0 1em}"
    "pre{background:#f6f8fa;padding:.75em;overflow-x:auto}"
    "code{background:#f6f8fa;padding:0 .2em}pre code{padding:0}"
    "table{border-collapse:collapse}"
    "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}"
    "li>p{margin:.25em 0}";

}  // namespace

std::string DocumentPageStyle() { return kPageStyle; }

std::string RenderDocumentPage(std::string_view title, std::string_view body_html) {
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
      HtmlEscape(title) + "</title>\n<style>" + DocumentPageStyle() +
      "</style>\n</head>\n<body>\n<nav><a href=\"" + kLandingPagePath +
      "\">landing page</a></nav>\n<main>\n";
  page += body_html;
  page += "</main>\n</body>\n</html>\n";
  return page;
}

}  // namespace scx
