// Small string helpers the whole tree shares: prefix and suffix tests, joining a list,
// reading a whole number. Pure.
#ifndef SCX_BASE_STRINGS_H_
#define SCX_BASE_STRINGS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace scx {

// Inline: the store reader tests a prefix on every block id it reads.
inline bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && text.substr(0, prefix.size()) == prefix;
}

inline bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The folder part of a path: "/a/b" and "/a/b/" -> "/a", "/a" -> "/", "/" -> "/";
// "" for a path with no '/' at all.
std::string ParentFolder(std::string_view path);

// `items` with `separator` between each two: "" for none, the item itself for one.
std::string Join(const std::vector<std::string>& items, std::string_view separator);

// `text` read as a whole number: decimal digits only, all of `text` (no sign, no
// space, not empty), at most 2^64 - 1. False, `*value` untouched, otherwise.
bool ParseWholeNumber(std::string_view text, std::uint64_t* value);

}  // namespace scx

#endif  // SCX_BASE_STRINGS_H_
