// gzip (RFC 1952) compression with zlib, for serving pre-compressed scrapes: whole
// members, and members left open so that a small text that changes at every request
// can follow a large one compressed once, in the same member. Pure.
#ifndef SCX_EXPORTER_METRICS_GZIP_H_
#define SCX_EXPORTER_METRICS_GZIP_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace scx {

// Compresses `input` into a complete gzip member. Returns false (and leaves
// `output` empty) only when zlib fails, e.g. out of memory.
bool GzipCompress(std::string_view input, std::string* output);

// A gzip member left open so that more text can follow: its header and the deflate
// data of the text so far, ended at a byte boundary without a final block, with that
// text's CRC-32 and length. GzipCloseMember makes the bytes that complete it with more
// text: the two sent one after the other are one gzip member of both texts. One
// member, not two: curl --compressed (7.88) reads the first member of a body and drops
// the rest without a word.
struct OpenGzipMember {
  std::string bytes;
  std::uint32_t text_crc32 = 0;
  std::uint64_t text_bytes = 0;
};

// Compresses text handed over in pieces into one gzip member, so that the whole text
// never has to be in memory. Add the pieces in order, then Finish (a complete member)
// or FinishOpen (a member left open).
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
  // Ends the data written so far at a byte boundary without closing the member (a
  // sync flush) and moves it into `output` with the text's CRC-32 and length. False,
  // with `output` empty, when compression failed at any point.
  bool FinishOpen(OpenGzipMember* output);

 private:
  bool Deflate(std::string_view input, int flush);

  struct Stream;
  std::unique_ptr<Stream> stream_;
  bool ok_ = true;
  std::string output_;
};

// The bytes that complete `open` with `tail`: `tail` deflated on its own, ending with
// the final block, then the member's trailer (the CRC-32 and length of open's text
// followed by `tail`). Compressing `tail` alone costs what its size costs, whatever the
// size of open's text. False, with `output` empty, only when zlib fails.
bool GzipCloseMember(const OpenGzipMember& open, std::string_view tail, std::string* output);

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

// Decompresses the text of an open member the same way. False when its bytes are not
// the start of a valid gzip member that inflates to exactly the text they were made
// from (its length and CRC-32), or when `write` returns false.
bool GzipDecompressOpenTo(const OpenGzipMember& open,
                          const std::function<bool(std::string_view piece)>& write);

}  // namespace scx

#endif  // SCX_EXPORTER_METRICS_GZIP_H_
