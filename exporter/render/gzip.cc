// gzip compression and decompression with zlib.
#include "exporter/render/gzip.h"

#include <zlib.h>

#include <limits>
#include <vector>

namespace scx {

namespace {

// windowBits for deflateInit2/inflateInit2: the largest window, gzip wrapper.
constexpr int kGzipWindowBits = 16 + MAX_WBITS;
constexpr int kDefaultMemLevel = 8;

}  // namespace

struct GzipWriter::Stream {
  z_stream z{};
  bool initialized = false;
  std::vector<char> piece = std::vector<char>(kGzipPieceBytes);
};

GzipWriter::GzipWriter() : stream_(std::make_unique<Stream>()) {
  stream_->initialized =
      deflateInit2(&stream_->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits,
                   kDefaultMemLevel, Z_DEFAULT_STRATEGY) == Z_OK;
  ok_ = stream_->initialized;
}

GzipWriter::~GzipWriter() {
  if (stream_->initialized) deflateEnd(&stream_->z);
}

// The output grows with what deflate makes: sized up front for the worst case
// (deflateBound, more than the input) it would keep that room for as long as the
// compressed copy is served.
bool GzipWriter::Deflate(std::string_view input, int flush) {
  z_stream& z = stream_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  z.avail_in = static_cast<uInt>(input.size());
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(stream_->piece.data());
    z.avail_out = static_cast<uInt>(stream_->piece.size());
    const int result = deflate(&z, flush);
    output_.append(stream_->piece.data(), stream_->piece.size() - z.avail_out);
    if (result == Z_STREAM_END) return true;
    if (result != Z_OK && result != Z_BUF_ERROR) return false;
    // Without Z_FINISH, done once the input is taken and the output had room left.
    if (flush != Z_FINISH && z.avail_in == 0 && z.avail_out != 0) return true;
    if (result == Z_BUF_ERROR && z.avail_out != 0) return false;  // no progress possible
  }
}

bool GzipWriter::Add(std::string_view piece) {
  if (!ok_) return false;
  if (piece.size() > std::numeric_limits<uInt>::max()) ok_ = false;
  if (ok_ && !piece.empty()) ok_ = Deflate(piece, Z_NO_FLUSH);
  return ok_;
}

bool GzipWriter::Finish(std::string* output) {
  output->clear();
  if (ok_) ok_ = Deflate(std::string_view(), Z_FINISH);
  if (!ok_) {
    output_.clear();
    return false;
  }
  output_.shrink_to_fit();
  *output = std::move(output_);
  output_.clear();
  return true;
}

bool GzipCompress(std::string_view input, std::string* output) {
  output->clear();
  if (input.size() > std::numeric_limits<uInt>::max()) return false;
  GzipWriter writer;
  return writer.Add(input) && writer.Finish(output);
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
