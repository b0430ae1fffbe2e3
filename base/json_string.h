// JSON string escaping, shared by the JSON log lines and the HTTP error bodies, which
// write their few fields by hand. Pure.
#ifndef SCX_BASE_JSON_STRING_H_
#define SCX_BASE_JSON_STRING_H_

#include <string>
#include <string_view>

namespace scx {

// `text` as the inside of a JSON string (without the surrounding quotes): '"', '\'
// and control characters escaped, invalid UTF-8 replaced by U+FFFD.
std::string EscapeJsonString(std::string_view text);

// Appends control character `c` escaped as JSON (and logfmt) write it: "\n", "\r",
// "\t", else "\u00XX".
void AppendControlEscape(unsigned char c, std::string* out);

}  // namespace scx

#endif  // SCX_BASE_JSON_STRING_H_
