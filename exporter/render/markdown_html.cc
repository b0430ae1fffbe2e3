// Markdown to HTML: a block pass over the lines (headings, fences, tables, lists,
// paragraphs; list items recursively), then an inline pass over each block's text.
#include "exporter/render/markdown_html.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

#include "base/strings.h"
#include "exporter/render/endpoints.h"
#include "exporter/render/landing_page.h"  // HtmlEscape

namespace scx {

namespace {

using Lines = std::vector<std::string_view>;
constexpr size_t kNone = std::string_view::npos;

constexpr char kPageStyle[] =
    "body{font-family:sans-serif;line-height:1.45;max-width:60em;margin:1.5em auto;"
    "padding:0 1em}"
    "pre{background:#f6f8fa;padding:.75em;overflow-x:auto}"
    "code{background:#f6f8fa;padding:0 .2em}pre code{padding:0}"
    "table{border-collapse:collapse}"
    "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}"
    "li>p{margin:.25em 0}";

// --- Lines -----------------------------------------------------------------------------

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

bool IsBlank(std::string_view line) { return line.find_first_not_of(" \t") == kNone; }

size_t Indent(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[n] == ' ') ++n;
  return n;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

size_t RunLength(std::string_view text, size_t pos, char c) {
  size_t end = pos;
  while (end < text.size() && text[end] == c) ++end;
  return end - pos;
}

// The index of the first line at or after `i` that is not blank (lines.size() if none).
size_t SkipBlank(const Lines& lines, size_t i) {
  while (i < lines.size() && IsBlank(lines[i])) ++i;
  return i;
}

Lines SplitLines(std::string_view text) {
  Lines lines;
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return lines;
}

// --- Inline ----------------------------------------------------------------------------

// The HTML of one block's text as it is built: literal text is kept until markup
// follows, then escaped as a whole (so that UTF-8 sequences stay whole). In plain mode
// (a heading's anchor) markup is dropped and nothing is escaped.
class InlineOut {
 public:
  explicit InlineOut(bool plain) : plain_(plain) {}
  void Literal(std::string_view text) { pending_ += text; }
  void Markup(std::string_view html) {
    Flush();
    if (!plain_) out_ += html;
  }
  std::string Take() {
    Flush();
    return std::move(out_);
  }

 private:
  void Flush() {
    out_ += plain_ ? pending_ : HtmlEscape(pending_);
    pending_.clear();
  }

  const bool plain_;
  std::string out_;
  std::string pending_;
};

void AppendInline(std::string_view text, InlineOut* out);

bool IsAsciiPunctuation(char c) {
  return c > 0x20 && c < 0x7f && !std::isalnum(static_cast<unsigned char>(c));
}

// Where the code span opened by the `ticks` backticks at `pos` closes, or kNone.
size_t CodeSpanClose(std::string_view text, size_t pos, size_t ticks) {
  for (size_t i = text.find('`', pos + ticks); i != kNone; i = text.find('`', i)) {
    const size_t run = RunLength(text, i, '`');
    if (run == ticks) return i;
    i += run;
  }
  return kNone;
}

// Where `delimiter` next occurs at or after `from`, outside code spans and escapes.
size_t FindOutsideCode(std::string_view text, size_t from, std::string_view delimiter) {
  size_t i = from;
  while (i < text.size()) {
    if (text[i] == '\\') {
      i += 2;
    } else if (text[i] == '`') {
      const size_t ticks = RunLength(text, i, '`');
      const size_t close = CodeSpanClose(text, i, ticks);
      i = (close == kNone ? i : close) + ticks;
    } else if (text.compare(i, delimiter.size(), delimiter) == 0) {
      return i;
    } else {
      ++i;
    }
  }
  return kNone;
}

// Where the `width` stars (1 or 2) opened just before `from` close: a run of exactly
// that many, after text that does not end in a space. kNone when they do not.
size_t StarsClose(std::string_view text, size_t from, size_t width) {
  for (size_t i = FindOutsideCode(text, from, "*"); i != kNone;) {
    const size_t run = RunLength(text, i, '*');
    if (run == width && i > from && !IsSpace(text[i - 1])) return i;
    i = FindOutsideCode(text, i + run, "*");
  }
  return kNone;
}

// Each Try* renders the construct that opens at text[pos] and returns the position
// after it, or returns `pos` when none opens there.

size_t TryEscape(std::string_view text, size_t pos, InlineOut* out) {
  if (pos + 1 >= text.size() || !IsAsciiPunctuation(text[pos + 1])) return pos;
  out->Literal(text.substr(pos + 1, 1));
  return pos + 2;
}

// A code span; an unclosed run of backticks is literal text.
size_t TryCodeSpan(std::string_view text, size_t pos, InlineOut* out) {
  const size_t ticks = RunLength(text, pos, '`');
  const size_t close = CodeSpanClose(text, pos, ticks);
  if (close == kNone) {
    out->Literal(text.substr(pos, ticks));
    return pos + ticks;
  }
  std::string code(text.substr(pos + ticks, close - pos - ticks));
  std::replace(code.begin(), code.end(), '\n', ' ');
  if (code.size() >= 2 && code.front() == ' ' && code.back() == ' ' && !IsBlank(code)) {
    code = code.substr(1, code.size() - 2);
  }
  out->Markup("<code>");
  out->Literal(code);
  out->Markup("</code>");
  return close + ticks;
}

// **strong** (width 2) or *emphasis* (width 1).
size_t TryStars(std::string_view text, size_t pos, size_t width, InlineOut* out) {
  const size_t start = pos + width;
  if (RunLength(text, pos, '*') != width || start >= text.size() || IsSpace(text[start])) {
    return pos;
  }
  const size_t close = StarsClose(text, start, width);
  if (close == kNone) return pos;
  const char* tag = width == 2 ? "strong" : "em";
  out->Markup(std::string("<") + tag + ">");
  AppendInline(text.substr(start, close - start), out);
  out->Markup(std::string("</") + tag + ">");
  return close + width;
}

// Targets a link may go to from the served page: its own sections and the web.
bool IsSafeTarget(std::string_view target) {
  return StartsWith(target, "#") || StartsWith(target, "http://") || StartsWith(target, "https://");
}

// [label](target). Another target keeps the label, with the target as its title.
size_t TryLink(std::string_view text, size_t pos, InlineOut* out) {
  const size_t label_end = FindOutsideCode(text, pos + 1, "]");
  if (label_end == kNone || label_end + 1 >= text.size() || text[label_end + 1] != '(') {
    return pos;
  }
  const size_t target_end = text.find(')', label_end + 2);
  if (target_end == kNone) return pos;
  const std::string_view target = Trim(text.substr(label_end + 2, target_end - label_end - 2));
  if (target.empty() || target.find_first_of(" \t\n") != kNone) return pos;
  const std::string escaped = HtmlEscape(target);
  const bool safe = IsSafeTarget(target);
  out->Markup(safe ? "<a href=\"" + escaped + "\">" : "<span title=\"" + escaped + "\">");
  AppendInline(text.substr(pos + 1, label_end - pos - 1), out);
  out->Markup(safe ? "</a>" : "</span>");
  return target_end + 1;
}

size_t TryInline(std::string_view text, size_t pos, InlineOut* out) {
  switch (text[pos]) {
    case '\\':
      return TryEscape(text, pos, out);
    case '`':
      return TryCodeSpan(text, pos, out);
    case '*': {
      const size_t next = TryStars(text, pos, 2, out);
      return next != pos ? next : TryStars(text, pos, 1, out);
    }
    case '[':
      return TryLink(text, pos, out);
    default:
      return pos;
  }
}

void AppendInline(std::string_view text, InlineOut* out) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t next = TryInline(text, pos, out);
    if (next == pos) {
      out->Literal(text.substr(pos, 1));
      next = pos + 1;
    }
    pos = next;
  }
}

std::string InlineHtml(std::string_view text) {
  InlineOut out(/*plain=*/false);
  AppendInline(text, &out);
  return out.Take();
}

std::string InlinePlainText(std::string_view text) {
  InlineOut out(/*plain=*/true);
  AppendInline(text, &out);
  return out.Take();
}

// --- Block starts ----------------------------------------------------------------------

// "## Title ##" -> level 2, "Title".
bool HeadingStart(std::string_view line, int* level, std::string_view* text) {
  const size_t indent = Indent(line);
  const size_t hashes = RunLength(line, indent, '#');
  if (indent > 3 || hashes == 0 || hashes > 6) return false;
  const size_t after = indent + hashes;
  if (after < line.size() && !IsSpace(line[after])) return false;
  std::string_view rest = Trim(line.substr(after));
  const size_t closing = rest.find_last_not_of('#');
  if (closing == kNone) {
    rest = {};
  } else if (closing + 1 < rest.size() && IsSpace(rest[closing])) {
    rest = Trim(rest.substr(0, closing));
  }
  *level = static_cast<int>(hashes);
  *text = rest;
  return true;
}

// An opening fence: 3 or more backticks or tildes; `fence` is that run, `info` the
// word after it (the language).
bool FenceStart(std::string_view line, std::string_view* fence, std::string_view* info) {
  const size_t indent = Indent(line);
  if (indent > 3 || indent >= line.size() || (line[indent] != '`' && line[indent] != '~')) {
    return false;
  }
  const size_t run = RunLength(line, indent, line[indent]);
  const std::string_view rest = Trim(line.substr(indent + run));
  if (run < 3 || (line[indent] == '`' && rest.find('`') != kNone)) return false;
  *fence = line.substr(indent, run);
  *info = rest.substr(0, std::min(rest.find_first_of(" \t"), rest.size()));
  return true;
}

bool FenceEnd(std::string_view line, std::string_view fence) {
  const size_t indent = Indent(line);
  return indent <= 3 && indent < line.size() && line[indent] == fence.front() &&
         RunLength(line, indent, fence.front()) >= fence.size() &&
         IsBlank(line.substr(indent + RunLength(line, indent, fence.front())));
}

struct ListMarker {
  bool ordered = false;
  int number = 1;
  size_t content = 0;  // the column the item's text starts at
};

// "- item", "* item", "+ item", "1. item", "1) item".
bool ListMarkerAt(std::string_view line, ListMarker* marker) {
  const size_t indent = Indent(line);
  if (indent > 3 || indent >= line.size()) return false;
  size_t end = indent;
  while (end < line.size() && end - indent < 9 &&
         std::isdigit(static_cast<unsigned char>(line[end])))
    ++end;
  const bool ordered = end > indent;
  if (ordered && (end >= line.size() || (line[end] != '.' && line[end] != ')'))) return false;
  if (!ordered && line[end] != '-' && line[end] != '*' && line[end] != '+') return false;
  ++end;  // the '.', ')' or bullet
  const size_t spaces = RunLength(line, end, ' ');
  const bool empty = IsBlank(line.substr(end));
  if (spaces == 0 && !empty) return false;
  marker->ordered = ordered;
  marker->number = ordered ? std::stoi(std::string(line.substr(indent, end - 1 - indent))) : 1;
  marker->content = end + (empty || spaces > 4 ? 1 : spaces);
  return true;
}

// "| --- | :---: |": the row under a table's header.
bool DelimiterRow(std::string_view line) {
  const std::string_view row = Trim(line);
  return row.find('|') != kNone && row.find('-') != kNone &&
         row.find_first_not_of("|-: \t") == kNone;
}

bool TableStart(const Lines& lines, size_t i) {
  return i + 1 < lines.size() && lines[i].find('|') != kNone && DelimiterRow(lines[i + 1]);
}

// Whether line i ends the paragraph above it and starts a block of its own.
bool InterruptsParagraph(const Lines& lines, size_t i) {
  int level = 0;
  std::string_view text;
  std::string_view fence;
  std::string_view info;
  ListMarker marker;
  if (HeadingStart(lines[i], &level, &text) || FenceStart(lines[i], &fence, &info) ||
      TableStart(lines, i)) {
    return true;
  }
  return ListMarkerAt(lines[i], &marker) && (!marker.ordered || marker.number == 1) &&
         !IsBlank(lines[i].substr(std::min(marker.content, lines[i].size())));
}

// The cells of a table row; "\|" is a '|' inside a cell.
std::vector<std::string> SplitRow(std::string_view line) {
  std::string_view row = Trim(line);
  if (StartsWith(row, "|")) row.remove_prefix(1);
  if (EndsWith(row, "|") && !EndsWith(row, "\\|")) row.remove_suffix(1);
  std::vector<std::string> cells(1);
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cells.back() += '|';
      ++i;
    } else if (row[i] == '|') {
      cells.emplace_back();
    } else {
      cells.back() += row[i];
    }
  }
  return cells;
}

// Follows the fences of a list item's lines, so that a line of a code block is never
// taken for the lazy continuation of a paragraph.
class FenceTracker {
 public:
  void See(std::string_view line) {
    std::string_view info;
    if (open_.empty()) {
      FenceStart(line, &open_, &info);
    } else if (FenceEnd(line, open_)) {
      open_ = {};
    }
  }
  bool open() const { return !open_.empty(); }

 private:
  std::string_view open_;
};

// --- Blocks ----------------------------------------------------------------------------

class BlockRenderer {
 public:
  std::string Render(const Lines& lines) {
    std::string out;
    size_t i = 0;
    while (i < lines.size()) {
      if (IsBlank(lines[i])) {
        ++i;
        continue;
      }
      size_t next = Heading(lines, i, &out);
      if (next == i) next = Fence(lines, i, &out);
      if (next == i) next = Table(lines, i, &out);
      if (next == i) next = List(lines, i, &out);
      if (next == i) next = Paragraph(lines, i, &out);
      i = next;
    }
    return out;
  }

 private:
  // Each renders the block that starts at lines[i] onto `out` and returns the index
  // after it, or returns `i` when no such block starts there.

  size_t Heading(const Lines& lines, size_t i, std::string* out) {
    int level = 0;
    std::string_view text;
    if (!HeadingStart(lines[i], &level, &text)) return i;
    const std::string tag = "h" + std::to_string(level);
    *out += "<" + tag + " id=\"" + HtmlEscape(UniqueAnchor(HeadingAnchor(InlinePlainText(text)))) +
            "\">" + InlineHtml(text) + "</" + tag + ">\n";
    return i + 1;
  }

  static size_t Fence(const Lines& lines, size_t i, std::string* out) {
    std::string_view fence;
    std::string_view info;
    if (!FenceStart(lines[i], &fence, &info)) return i;
    const size_t indent = Indent(lines[i]);
    std::string code;
    size_t j = i + 1;
    for (; j < lines.size() && !FenceEnd(lines[j], fence); ++j) {
      code.append(lines[j].substr(std::min(indent, Indent(lines[j])))).append("\n");
    }
    *out += info.empty() ? std::string("<pre><code>")
                         : "<pre><code class=\"language-" + HtmlEscape(info) + "\">";
    *out += HtmlEscape(code) + "</code></pre>\n";
    return std::min(j + 1, lines.size());
  }

  static size_t Table(const Lines& lines, size_t i, std::string* out) {
    if (!TableStart(lines, i)) return i;
    const std::vector<std::string> header = SplitRow(lines[i]);
    *out += "<table>\n<thead>\n" + Row(header, header.size(), "th") + "</thead>\n<tbody>\n";
    size_t j = i + 2;
    for (; j < lines.size() && !IsBlank(lines[j]) && lines[j].find('|') != kNone; ++j) {
      *out += Row(SplitRow(lines[j]), header.size(), "td");
    }
    *out += "</tbody>\n</table>\n";
    return j;
  }

  // <tr> of `columns` cells: missing ones empty, extra ones dropped.
  static std::string Row(const std::vector<std::string>& cells, size_t columns, const char* tag) {
    std::string html = "<tr>";
    for (size_t c = 0; c < columns; ++c) {
      html += std::string("<") + tag + ">" + (c < cells.size() ? InlineHtml(Trim(cells[c])) : "") +
              "</" + tag + ">";
    }
    return html + "</tr>\n";
  }

  size_t List(const Lines& lines, size_t i, std::string* out) {
    ListMarker first;
    if (!ListMarkerAt(lines[i], &first)) return i;
    std::string items;
    ListMarker marker = first;
    size_t j = i;
    while (true) {
      Lines item;
      j = ListItem(lines, j, marker, &item);
      items += "<li>" + Render(item) + "</li>\n";
      const size_t k = SkipBlank(lines, j);
      if (k >= lines.size() || !ListMarkerAt(lines[k], &marker) ||
          marker.ordered != first.ordered) {
        break;
      }
      j = k;
    }
    const std::string tag = first.ordered ? "ol" : "ul";
    const std::string start =
        first.ordered && first.number != 1 ? " start=\"" + std::to_string(first.number) + "\"" : "";
    *out += "<" + tag + start + ">\n" + items + "</" + tag + ">\n";
    return j;
  }

  // The lines of the item whose marker is on lines[i], without its indentation, into
  // `item`; returns the index after them. An item holds the lines indented to its
  // text (and blank lines before such lines), and the unindented lines that continue
  // its last paragraph.
  static size_t ListItem(const Lines& lines, size_t i, const ListMarker& marker, Lines* item) {
    FenceTracker fences;
    item->push_back(lines[i].substr(std::min(marker.content, lines[i].size())));
    fences.See(item->back());
    size_t j = i + 1;
    while (j < lines.size()) {
      const std::string_view line = lines[j];
      if (IsBlank(line)) {
        const size_t k = SkipBlank(lines, j);
        if (k >= lines.size() || Indent(lines[k]) < marker.content) break;
        item->insert(item->end(), k - j, std::string_view());
        j = k;
        continue;
      }
      ListMarker other;
      if (Indent(line) >= marker.content) {
        item->push_back(line.substr(marker.content));
      } else if (fences.open() || InterruptsParagraph(lines, j) || ListMarkerAt(line, &other)) {
        break;
      } else {
        item->push_back(Trim(line));  // a lazy continuation line
      }
      fences.See(item->back());
      ++j;
    }
    return j;
  }

  static size_t Paragraph(const Lines& lines, size_t i, std::string* out) {
    std::string text;
    size_t j = i;
    for (; j < lines.size() && !IsBlank(lines[j]) && (j == i || !InterruptsParagraph(lines, j));
         ++j) {
      if (j > i) text += '\n';
      text += Trim(lines[j]);
    }
    *out += "<p>" + InlineHtml(text) + "</p>\n";
    return j;
  }

  // `anchor`, or `anchor`-N for its N-th repeat.
  std::string UniqueAnchor(const std::string& anchor) {
    const int seen = anchors_[anchor]++;
    return seen == 0 ? anchor : anchor + "-" + std::to_string(seen);
  }

  std::map<std::string, int> anchors_;  // anchor -> headings that had it
};

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

std::string MarkdownToHtml(std::string_view markdown) {
  BlockRenderer renderer;
  return renderer.Render(SplitLines(markdown));
}

std::string MarkdownPageStyle() { return kPageStyle; }

std::string RenderMarkdownPage(std::string_view title, std::string_view markdown) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         HtmlEscape(title) + "</title>\n<style>" + MarkdownPageStyle() +
         "</style>\n</head>\n<body>\n<nav><a href=\"" + kLandingPagePath +
         "\">landing page</a></nav>\n<main>\n" + MarkdownToHtml(markdown) +
         "</main>\n</body>\n</html>\n";
}

}  // namespace scx
