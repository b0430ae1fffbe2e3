// gzip (RFC 1952) compression with zlib, for serving pre-compressed scrapes.
#ifndef SCX_EXPORTER_GZIP_H_
#define SCX_EXPORTER_GZIP_H_

#include <string>
#include <string_view>

namespace scx {

// Compresses `input` into a complete gzip member. Returns false (and leaves
// `output` empty) only when zlib fails, e.g. out of memory.
bool GzipCompress(std::string_view input, std::string* output);

// Decompresses one gzip member. Returns false for anything that is not a complete,
// valid gzip stream. Used by tests and tools to check what is served.
bool GzipDecompress(std::string_view input, std::string* output);

}  // namespace scx

#endif  // SCX_EXPORTER_GZIP_H_
