// UTF-8 decoding shared by the slug rules (which must treat invalid bytes as "other
// characters") and the outputs that must be valid UTF-8 whatever bytes a path holds:
// Prometheus label values, JSON log lines and HTML. Pure.
#ifndef SCX_BASE_UTF8_H_
#define SCX_BASE_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace scx {

// The length of the valid UTF-8 sequence starting at text[pos], or 0 when the bytes
// there are not one (bad lead byte, bad or missing continuation, overlong form,
// surrogate or a code point above U+10FFFF).
std::size_t Utf8SequenceLength(std::string_view text, std::size_t pos);

// Decodes the valid sequence starting at text[pos] into `code_point` and returns its
// length, or returns 0 (leaving `code_point` alone) when there is none.
std::size_t DecodeUtf8At(std::string_view text, std::size_t pos, std::uint32_t* code_point);

// `text` with every byte that does not start a valid sequence replaced by U+FFFD.
// Valid UTF-8 comes back unchanged.
std::string ToValidUtf8(std::string_view text);

// `text` when it is at most `max_bytes` long; otherwise its first bytes, cut before
// `max_bytes` at a character boundary, then the marker "…[N bytes cut]" (N counts
// what was left out). For values read from files that end up in logs and labels.
std::string CapText(std::string_view text, std::size_t max_bytes);

}  // namespace scx

#endif  // SCX_BASE_UTF8_H_
