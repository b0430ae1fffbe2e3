// gzip compression and decompression with zlib.
#include "exporter/metrics/gzip.h"

#include <zlib.h>

#include <limits>
#include <vector>

namespace scx {

namespace {

// windowBits for deflateInit2/inflateInit2: the largest window, gzip wrapper.
constexpr int kGzipWindowBits = 16 + MAX_WBITS;
constexpr int kDefaultMemLevel = 8;
// The tail that closes an open member is a few kilobytes, compressed at every request:
// raw deflate (no wrapper) with a 4 KiB window and small tables, about 10 KB of zlib
// state instead of 256 KB, at the fastest level (on text this short the default level
// saves a few percent of the bytes for more time than the request has).
constexpr int kTailLevel = Z_BEST_SPEED;
constexpr int kTailWindowBits = -12;
constexpr int kTailMemLevel = 4;

// Appends `value` in the 4 little-endian bytes of a gzip trailer field.
void AppendLittleEndian32(std::uint32_t value, std::string* out) {
  for (int shift = 0; shift < 32; shift += 8) out->push_back(static_cast<char>(value >> shift));
}

// Inflates `input` (a gzip member, or the start of one when `open`), handing the
// output to `write` piece by piece. `stream` is left as inflate left it, for checks.
bool Inflate(std::string_view input, bool open, z_stream* stream,
             const std::function<bool(std::string_view piece)>& write) {
  if (input.size() > std::numeric_limits<uInt>::max()) return false;
  if (inflateInit2(stream, kGzipWindowBits) != Z_OK) return false;
  stream->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream->avail_in = static_cast<uInt>(input.size());
  std::vector<char> buffer(kGzipPieceBytes);
  int result = Z_OK;
  bool written = true;
  while (result == Z_OK && written) {
    stream->next_out = reinterpret_cast<Bytef*>(buffer.data());
    stream->avail_out = static_cast<uInt>(buffer.size());
    result = inflate(stream, Z_NO_FLUSH);
    const std::size_t produced = buffer.size() - stream->avail_out;
    if (produced > 0 && (result == Z_OK || result == Z_STREAM_END)) {
      written = write(std::string_view(buffer.data(), produced));
    }
    // The input ends: a truncated member, or where an open one stops.
    if (result == Z_OK && stream->avail_in == 0 && stream->avail_out != 0) break;
  }
  inflateEnd(stream);
  if (!written) return false;
  return open ? result == Z_OK && stream->avail_in == 0 : result == Z_STREAM_END;
}

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

bool GzipWriter::FinishOpen(OpenGzipMember* output) {
  *output = OpenGzipMember();
  if (ok_) ok_ = Deflate(std::string_view(), Z_SYNC_FLUSH);
  if (!ok_) {
    output_.clear();
    return false;
  }
  output_.shrink_to_fit();
  output->bytes = std::move(output_);
  output_.clear();
  // With the gzip wrapper, zlib keeps the CRC-32 of the input taken in `adler`.
  output->text_crc32 = static_cast<std::uint32_t>(stream_->z.adler);
  output->text_bytes = stream_->z.total_in;
  return true;
}

bool GzipCloseMember(const OpenGzipMember& open, std::string_view tail, std::string* output) {
  output->clear();
  if (tail.size() > std::numeric_limits<uInt>::max()) return false;
  z_stream z{};
  if (deflateInit2(&z, kTailLevel, Z_DEFLATED, kTailWindowBits, kTailMemLevel,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return false;
  }
  std::string deflated(deflateBound(&z, static_cast<uLong>(tail.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(tail.data()));
  z.avail_in = static_cast<uInt>(tail.size());
  z.next_out = reinterpret_cast<Bytef*>(deflated.data());
  z.avail_out = static_cast<uInt>(deflated.size());
  const int result = deflate(&z, Z_FINISH);  // deflateBound's room: done in one call
  deflated.resize(deflated.size() - z.avail_out);
  deflateEnd(&z);
  if (result != Z_STREAM_END) return false;
  const uLong tail_crc =
      crc32(0, reinterpret_cast<const Bytef*>(tail.data()), static_cast<uInt>(tail.size()));
  const uLong crc = crc32_combine(open.text_crc32, tail_crc, static_cast<z_off_t>(tail.size()));
  *output = std::move(deflated);
  AppendLittleEndian32(static_cast<std::uint32_t>(crc), output);
  // ISIZE: the length modulo 2^32 (RFC 1952).
  AppendLittleEndian32(static_cast<std::uint32_t>(open.text_bytes + tail.size()), output);
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
  z_stream stream{};
  return Inflate(input, /*open=*/false, &stream, write);
}

bool GzipDecompressOpenTo(const OpenGzipMember& open,
                          const std::function<bool(std::string_view piece)>& write) {
  z_stream stream{};
  return Inflate(open.bytes, /*open=*/true, &stream, write) &&
         stream.total_out == open.text_bytes && stream.adler == open.text_crc32;
}

}  // namespace scx
