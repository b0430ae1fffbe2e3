// JSON string escaping.
#include "base/json_string.h"

#include <cstdio>

#include "base/utf8.h"

namespace scx {

void AppendControlEscape(unsigned char c, std::string* out) {
  switch (c) {
    case '\n':
      *out += "\\n";
      return;
    case '\r':
      *out += "\\r";
      return;
    case '\t':
      *out += "\\t";
      return;
    default: {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      *out += buffer;
    }
  }
}

std::string EscapeJsonString(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : ToValidUtf8(text)) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < ' ') {
      AppendControlEscape(c, &out);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace scx
