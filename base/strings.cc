// Joining a list of strings.
#include "base/strings.h"

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

}  // namespace scx
