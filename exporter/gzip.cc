// gzip compression and decompression with zlib.
#include "exporter/gzip.h"

#include <zlib.h>

#include <limits>
#include <vector>

namespace scx {

namespace {

// windowBits for deflateInit2/inflateInit2: the largest window, gzip wrapper.
constexpr int kGzipWindowBits = 16 + MAX_WBITS;
constexpr int kDefaultMemLevel = 8;

}  // namespace

bool GzipCompress(std::string_view input, std::string* output) {
  output->clear();
  if (input.size() > std::numeric_limits<uInt>::max()) return false;
  z_stream stream{};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits, kDefaultMemLevel,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return false;
  }
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  // Piece by piece into the output, which grows with what deflate produces: sized up
  // front for the worst case (deflateBound: more than the input), it would keep that
  // capacity for as long as the compressed copy is served.
  std::vector<char> piece(kGzipPieceBytes);
  int result = Z_OK;
  while (result == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(piece.data());
    stream.avail_out = static_cast<uInt>(piece.size());
    result = deflate(&stream, Z_FINISH);
    output->append(piece.data(), piece.size() - stream.avail_out);
  }
  deflateEnd(&stream);
  if (result != Z_STREAM_END) {
    output->clear();
    return false;
  }
  output->shrink_to_fit();
  return true;
}

bool GzipDecompress(std::string_view input, std::string* output) {
  output->clear();
  const bool ok = GzipDecompressTo(input, [output](std::string_view piece) {
    output->append(piece);
    return true;
  });
  if (!ok) output->clear();
  return ok;
}

bool GzipDecompressTo(std::string_view input,
                      const std::function<bool(std::string_view piece)>& write) {
  if (input.size() > std::numeric_limits<uInt>::max()) return false;
  z_stream stream{};
  if (inflateInit2(&stream, kGzipWindowBits) != Z_OK) return false;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  std::vector<char> buffer(kGzipPieceBytes);
  int result = Z_OK;
  bool written = true;
  while (result == Z_OK && written) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer.data());
    stream.avail_out = static_cast<uInt>(buffer.size());
    result = inflate(&stream, Z_NO_FLUSH);
    const std::size_t produced = buffer.size() - stream.avail_out;
    if (produced > 0 && (result == Z_OK || result == Z_STREAM_END)) {
      written = write(std::string_view(buffer.data(), produced));
    }
    if (result == Z_OK && stream.avail_in == 0 && stream.avail_out != 0) break;  // truncated
  }
  inflateEnd(&stream);
  return written && result == Z_STREAM_END;
}

}  // namespace scx
