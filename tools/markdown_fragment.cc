// cmark-gfm parses (with its table extension) and renders; this file names the
// headings and drops the links that would lead nowhere on the served page.
#include "tools/markdown_fragment.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

#include "base/strings.h"  // StartsWith (inline: nothing of scx_base is linked)

namespace scx {

namespace {

struct ParserDeleter {
  void operator()(cmark_parser* parser) const { cmark_parser_free(parser); }
};
struct NodeDeleter {
  void operator()(cmark_node* node) const { cmark_node_free(node); }
};
struct IterDeleter {
  void operator()(cmark_iter* iter) const { cmark_iter_free(iter); }
};
struct FreeDeleter {
  void operator()(char* text) const { std::free(text); }
};

// The targets a link may keep on the served page.
bool ServedLinkTarget(std::string_view url) {
  return StartsWith(url, "#") || StartsWith(url, "http://") || StartsWith(url, "https://");
}

// The nodes of `root` of `type`, in document order.
std::vector<cmark_node*> NodesOfType(cmark_node* root, cmark_node_type type) {
  std::vector<cmark_node*> nodes;
  std::unique_ptr<cmark_iter, IterDeleter> iter(cmark_iter_new(root));
  for (cmark_event_type event = cmark_iter_next(iter.get()); event != CMARK_EVENT_DONE;
       event = cmark_iter_next(iter.get())) {
    cmark_node* node = cmark_iter_get_node(iter.get());
    if (event == CMARK_EVENT_ENTER && cmark_node_get_type(node) == type) nodes.push_back(node);
  }
  return nodes;
}

// The text of a heading, markup removed: its text and code spans, a break as a space.
std::string PlainText(cmark_node* heading) {
  std::string text;
  std::unique_ptr<cmark_iter, IterDeleter> iter(cmark_iter_new(heading));
  for (cmark_event_type event = cmark_iter_next(iter.get()); event != CMARK_EVENT_DONE;
       event = cmark_iter_next(iter.get())) {
    if (event != CMARK_EVENT_ENTER) continue;
    cmark_node* node = cmark_iter_get_node(iter.get());
    const cmark_node_type type = cmark_node_get_type(node);
    if (type == CMARK_NODE_TEXT || type == CMARK_NODE_CODE) {
      const char* literal = cmark_node_get_literal(node);
      if (literal != nullptr) text += literal;
    } else if (type == CMARK_NODE_SOFTBREAK || type == CMARK_NODE_LINEBREAK) {
      text += ' ';
    }
  }
  return text;
}

// Escapes `text` for an HTML attribute value between double quotes.
std::string AttributeEscape(std::string_view text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      case '\'':
        escaped += "&#39;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

// Puts `literal`, HTML of ours, before `node` (its parent must accept raw inline HTML,
// as every inline container does). False when it cannot.
bool InsertHtmlBefore(cmark_node* node, const std::string& literal) {
  cmark_node* html = cmark_node_new(CMARK_NODE_HTML_INLINE);
  if (html == nullptr) return false;
  if (!cmark_node_set_literal(html, literal.c_str()) || !cmark_node_insert_before(node, html)) {
    cmark_node_free(html);
    return false;
  }
  return true;
}

// Replaces `node` (a link or an image) by its children, in a <span> whose title shows
// its target.
void ReplaceByTitledSpan(cmark_node* node) {
  const char* url = cmark_node_get_url(node);
  InsertHtmlBefore(node, "<span title=\"" + AttributeEscape(url ? url : "") + "\">");
  while (cmark_node* child = cmark_node_first_child(node)) {
    cmark_node_insert_before(node, child);  // moves it out
  }
  InsertHtmlBefore(node, "</span>");
  cmark_node_free(node);  // unlinks it first
}

// Replaces each link whose target the page cannot serve by its text, in a <span> whose
// title shows the target; the page shows no image (the runbook has none), only its
// text the same way.
void UnlinkUnservedTargets(cmark_node* root) {
  for (cmark_node* link : NodesOfType(root, CMARK_NODE_LINK)) {
    const char* url = cmark_node_get_url(link);
    if (url == nullptr || !ServedLinkTarget(url)) ReplaceByTitledSpan(link);
  }
  for (cmark_node* image : NodesOfType(root, CMARK_NODE_IMAGE)) ReplaceByTitledSpan(image);
}

// Shows raw HTML as text: an inline tag becomes text, an HTML block a paragraph of its
// text. cmark-gfm's safe mode would leave it out; the page shows what the doc says.
void ShowRawHtmlAsText(cmark_node* root) {
  for (cmark_node* html : NodesOfType(root, CMARK_NODE_HTML_INLINE)) {
    cmark_node* text = cmark_node_new(CMARK_NODE_TEXT);
    cmark_node_set_literal(text, cmark_node_get_literal(html));
    if (!cmark_node_replace(html, text)) cmark_node_free(text);
    cmark_node_free(html);  // out of the tree either way: never passed through
  }
  for (cmark_node* html : NodesOfType(root, CMARK_NODE_HTML_BLOCK)) {
    std::string literal = cmark_node_get_literal(html) ? cmark_node_get_literal(html) : "";
    while (!literal.empty() && literal.back() == '\n') literal.pop_back();
    cmark_node* paragraph = cmark_node_new(CMARK_NODE_PARAGRAPH);
    cmark_node* text = cmark_node_new(CMARK_NODE_TEXT);
    cmark_node_set_literal(text, literal.c_str());
    cmark_node_append_child(paragraph, text);
    if (!cmark_node_replace(html, paragraph)) cmark_node_free(paragraph);
    cmark_node_free(html);
  }
}

// `html` with the n-th heading tag (<h1> to <h6>, as cmark writes them: no attribute)
// given the n-th of `anchors` as its id. The text of the page is escaped and raw HTML
// shown as text, so every "<hN>" in it is one of the headings, in document order.
std::string WithHeadingIds(const std::string& html, const std::vector<std::string>& anchors) {
  std::string out;
  out.reserve(html.size() + anchors.size() * 32);
  std::size_t next = 0;
  std::size_t at = 0;
  while (next < anchors.size()) {
    const std::size_t tag = html.find("<h", at);
    if (tag == std::string::npos) break;
    const bool heading = tag + 3 < html.size() && html[tag + 2] >= '1' && html[tag + 2] <= '6' &&
                         html[tag + 3] == '>';
    out.append(html, at, tag + 3 - at);
    if (heading) out += " id=\"" + anchors[next++] + "\"";
    at = tag + 3;
  }
  out.append(html, at, std::string::npos);
  return out;
}

}  // namespace

std::string HeadingAnchor(std::string_view text) {
  std::string anchor;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '_' || byte >= 0x80) {
      anchor += static_cast<char>(std::tolower(byte));
    } else if (c == ' ') {
      anchor += '-';
    }
  }
  return anchor;
}

std::string MarkdownFragment(std::string_view markdown) {
  cmark_gfm_core_extensions_ensure_registered();
  std::unique_ptr<cmark_parser, ParserDeleter> parser(cmark_parser_new(CMARK_OPT_VALIDATE_UTF8));
  if (parser == nullptr) return std::string();
  cmark_syntax_extension* table = cmark_find_syntax_extension("table");
  if (table != nullptr) cmark_parser_attach_syntax_extension(parser.get(), table);
  cmark_parser_feed(parser.get(), markdown.data(), markdown.size());
  std::unique_ptr<cmark_node, NodeDeleter> document(cmark_parser_finish(parser.get()));
  if (document == nullptr) return std::string();

  // The document's own raw HTML becomes text first: the only raw HTML left is the
  // spans added here, which is why the render may pass raw HTML through.
  ShowRawHtmlAsText(document.get());
  UnlinkUnservedTargets(document.get());
  std::vector<std::string> anchors;
  std::map<std::string, int> taken;  // anchor -> headings that had it
  for (cmark_node* heading : NodesOfType(document.get(), CMARK_NODE_HEADING)) {
    const std::string anchor = HeadingAnchor(PlainText(heading));
    const int seen = taken[anchor]++;
    anchors.push_back(seen == 0 ? anchor : anchor + "-" + std::to_string(seen));
  }
  std::unique_ptr<char, FreeDeleter> html(cmark_render_html(
      document.get(), CMARK_OPT_UNSAFE, cmark_parser_get_syntax_extensions(parser.get())));
  if (html == nullptr) return std::string();
  return WithHeadingIds(html.get(), anchors);
}

}  // namespace scx
