// Makes arbitrary bytes (paths on Linux can hold any) safe for outputs that must be
// valid UTF-8: Prometheus label values, JSON log lines and HTML. Pure.
#ifndef SCX_EXPORTER_UTF8_H_
#define SCX_EXPORTER_UTF8_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace scx {

// The length of the valid UTF-8 sequence starting at text[pos], or 0 when the bytes
// there are not one (bad lead byte, bad or missing continuation, overlong form,
// surrogate or a code point above U+10FFFF).
std::size_t Utf8SequenceLength(std::string_view text, std::size_t pos);

// `text` with every byte that does not start a valid sequence replaced by U+FFFD.
// Valid UTF-8 comes back unchanged.
std::string ToValidUtf8(std::string_view text);

}  // namespace scx

#endif  // SCX_EXPORTER_UTF8_H_
