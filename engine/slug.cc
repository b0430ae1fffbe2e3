// Slug rules: the one sanitizer, basename_of and identity resolution.
#include "engine/slug.h"

#include <cstddef>
#include <cstdint>

#include "base/utf8.h"

namespace scx {

namespace {

// UTF-8 encodings of the only two non-ASCII characters whose Unicode lowercase
// holds ASCII letters: U+0130 (-> "i" U+0307) and U+212A KELVIN SIGN (-> "k").
constexpr std::string_view kCapitalIWithDotAbove = "\xC4\xB0";
constexpr std::string_view kKelvinSign = "\xE2\x84\xAA";

bool IsAsciiAlnum(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

char AsciiLower(unsigned char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : static_cast<char>(c);
}

// Appends one lowercase ASCII letter or digit.
void AppendKept(char c, std::string* out, bool* in_other_run) {
  out->push_back(c);
  *in_other_run = false;
}

// Any run of other characters becomes a single '_'.
void AppendOther(std::string* out, bool* in_other_run) {
  if (!*in_other_run) out->push_back('_');
  *in_other_run = true;
}

// Unicode White_Space code points, as Rust's str::trim uses them.
bool IsUnicodeWhiteSpace(std::uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

// Length of the white space at the start of `text`.
std::size_t LeadingWhiteSpace(std::string_view text) {
  std::size_t pos = 0;
  std::uint32_t cp = 0;
  while (pos < text.size()) {
    std::size_t length = DecodeUtf8At(text, pos, &cp);
    if (length == 0 || !IsUnicodeWhiteSpace(cp)) break;
    pos += length;
  }
  return pos;
}

// Length of the white space at the end of `text`.
std::size_t TrailingWhiteSpace(std::string_view text) {
  std::size_t end = text.size();
  while (end > 0) {
    std::size_t start = end - 1;
    while (start > 0 && end - start < 4 &&
           (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) {
      --start;
    }
    std::uint32_t cp = 0;
    std::size_t length = DecodeUtf8At(text, start, &cp);
    if (length != end - start || !IsUnicodeWhiteSpace(cp)) break;
    end = start;
  }
  return text.size() - end;
}

bool IsSeparator(char c) { return c == '/' || c == '\\'; }

}  // namespace

std::string_view TrimWhiteSpace(std::string_view text) {
  text.remove_prefix(LeadingWhiteSpace(text));
  text.remove_suffix(TrailingWhiteSpace(text));
  return text;
}

std::string SanitizeSlug(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_other_run = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::string_view rest = text.substr(pos);
    auto c = static_cast<unsigned char>(text[pos]);
    if (rest.substr(0, kCapitalIWithDotAbove.size()) == kCapitalIWithDotAbove) {
      AppendKept('i', &out, &in_other_run);
      AppendOther(&out, &in_other_run);  // U+0307 COMBINING DOT ABOVE
      pos += kCapitalIWithDotAbove.size();
    } else if (rest.substr(0, kKelvinSign.size()) == kKelvinSign) {
      AppendKept('k', &out, &in_other_run);
      pos += kKelvinSign.size();
    } else if (IsAsciiAlnum(c)) {
      AppendKept(AsciiLower(c), &out, &in_other_run);
      ++pos;
    } else {
      // Every other byte, ASCII or part of a (valid or invalid) multi-byte sequence,
      // belongs to an "other" character. Neither special sequence can start at a
      // continuation byte, so scanning byte by byte finds exactly the characters a
      // UTF-8 decoder would.
      AppendOther(&out, &in_other_run);
      ++pos;
    }
  }
  std::size_t first = out.find_first_not_of('_');
  if (first == std::string::npos) return "repo";
  std::size_t last = out.find_last_not_of('_');
  return out.substr(first, last - first + 1);
}

std::string BasenameOf(std::string_view root) {
  std::string_view trimmed = TrimWhiteSpace(root);
  std::string_view stripped = trimmed;
  while (!stripped.empty() && IsSeparator(stripped.back())) stripped.remove_suffix(1);
  std::size_t last_separator = stripped.find_last_of("/\\");
  std::string_view base =
      last_separator == std::string_view::npos ? stripped : stripped.substr(last_separator + 1);
  return std::string(base.empty() ? trimmed : base);
}

std::string ResolveIdentity(std::string_view project_root, std::string_view display_name) {
  if (!display_name.empty()) return std::string(display_name);
  return BasenameOf(project_root);
}

}  // namespace scx
