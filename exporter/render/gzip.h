// gzip (RFC 1952) compression with zlib, for serving pre-compressed scrapes.
#ifndef SCX_EXPORTER_RENDER_GZIP_H_
#define SCX_EXPORTER_RENDER_GZIP_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace scx {

// Compresses `input` into a complete gzip member. Returns false (and leaves
// `output` empty) only when zlib fails, e.g. out of memory.
bool GzipCompress(std::string_view input, std::string* output);

// Compresses text handed over in pieces into one gzip member, so that the whole text
// never has to be in memory. Add the pieces in order, then Finish.
class GzipWriter {
 public:
  GzipWriter();
  ~GzipWriter();
  GzipWriter(const GzipWriter&) = delete;
  GzipWriter& operator=(const GzipWriter&) = delete;

  // False once compression has failed (e.g. out of memory); later calls do nothing.
  bool Add(std::string_view piece);
  // Completes the member and moves it into `output` (its capacity trimmed to its
  // size). False, with `output` empty, when compression failed at any point.
  bool Finish(std::string* output);

 private:
  bool Deflate(std::string_view input, int flush);

  struct Stream;
  std::unique_ptr<Stream> stream_;
  bool ok_ = true;
  std::string output_;
};

// Decompresses one gzip member. Returns false for anything that is not a complete,
// valid gzip stream. Used by tests and tools to check what is served.
bool GzipDecompress(std::string_view input, std::string* output);

// Decompresses one gzip member piece by piece (at most kGzipPieceBytes each), handing
// each piece to `write`, so that the whole output never has to be in memory. Returns
// false when the input is not a complete, valid gzip stream or `write` returns false
// (then it stops at once).
inline constexpr std::size_t kGzipPieceBytes = std::size_t{64} * 1024;
bool GzipDecompressTo(std::string_view input,
                      const std::function<bool(std::string_view piece)>& write);

}  // namespace scx

#endif  // SCX_EXPORTER_RENDER_GZIP_H_
