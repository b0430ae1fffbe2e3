// Joining a list of strings, the folder of a path, whole numbers.
#include "base/strings.h"

#include <charconv>
#include <system_error>

namespace scx {

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) text += separator;
    text += items[i];
  }
  return text;
}

std::string ParentFolder(std::string_view path) {
  std::string_view::size_type end = path.size();
  while (end > 1 && path[end - 1] == '/') --end;
  const std::string_view::size_type slash =
      end == 0 ? std::string_view::npos : path.rfind('/', end - 1);
  if (slash == std::string_view::npos) return std::string();
  return slash == 0 ? std::string("/") : std::string(path.substr(0, slash));
}

bool ParseWholeNumber(std::string_view text, std::uint64_t* value) {
  // from_chars of an unsigned type takes no sign; a digit must come first.
  if (text.empty() || text.front() < '0' || text.front() > '9') return false;
  std::uint64_t parsed = 0;
  const char* end = text.data() + text.size();
  const std::from_chars_result result = std::from_chars(text.data(), end, parsed);
  if (result.ec != std::errc() || result.ptr != end) return false;
  *value = parsed;
  return true;
}

}  // namespace scx
