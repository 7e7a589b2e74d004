// Avro container block compression: the Arrow codec for each Avro codec name, block
// decompression (streaming for deflate/zstandard, snappy with its CRC32 trailer) and
// compression. Shared by the reader (avro_reader.cc) and the writer (avro_writer.cc).
#include <algorithm>
#include <unordered_map>

#include "paimon_rowid/codec/avro_internal.h"
#include "paimon_rowid/codec/crc32.h"

namespace paimon_rowid::avro::internal {

Result<std::unique_ptr<arrow::util::Codec>> MakeArrowCodec(const std::string& codec, int level) {
  using arrow::Compression;
  using arrow::util::Codec;
  int arrow_level = level > 0 ? level : arrow::util::kUseDefaultCompressionLevel;
  if (codec == "null") return nullptr;
  if (codec == "deflate") {
    // Avro's deflate is raw RFC 1951 data, without a zlib or gzip wrapper.
    arrow::util::GZipCodecOptions options;
    options.gzip_format = arrow::util::GZipFormat::DEFLATE;
    options.compression_level = arrow_level;
    return Codec::Create(Compression::GZIP, options);
  }
  if (codec == "zstandard") return Codec::Create(Compression::ZSTD, arrow_level);
  if (codec == "snappy") return Codec::Create(Compression::SNAPPY);
  return Status::NotImplemented("Avro codec '", codec, "' is not supported");
}

namespace {

// One decompressor per thread and codec type, reset for each block. A manifest is one small
// block, and creating a zstd stream (its window buffers) cost more than decoding it. Safe
// to share on a thread: a block is decompressed whole within one StreamDecompress call.
Result<arrow::util::Decompressor*> ThreadDecompressor(arrow::util::Codec* codec) {
  thread_local std::unordered_map<int, std::shared_ptr<arrow::util::Decompressor>> cache;
  std::shared_ptr<arrow::util::Decompressor>& slot =
      cache[static_cast<int>(codec->compression_type())];
  if (slot == nullptr) {
    ARROW_ASSIGN_OR_RAISE(slot, codec->MakeDecompressor());
  } else {
    ARROW_RETURN_NOT_OK(slot->Reset());
  }
  return slot.get();
}

}  // namespace

Result<std::shared_ptr<arrow::Buffer>> StreamDecompress(arrow::util::Codec* codec,
                                                        const uint8_t* in, int64_t in_len,
                                                        bool multiple_frames) {
  if (in_len == 0) return std::make_shared<arrow::Buffer>(nullptr, 0);
  ARROW_ASSIGN_OR_RAISE(arrow::util::Decompressor * decompressor, ThreadDecompressor(codec));
  int64_t capacity = std::clamp<int64_t>(in_len * 4, 4096, kMaxBlockBytes);
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::ResizableBuffer> out,
                        arrow::AllocateResizableBuffer(capacity));
  int64_t out_len = 0;
  while (true) {
    if (decompressor->IsFinished()) {
      // Trailing bytes after a deflate stream are ignored; zstd may concatenate frames.
      if (in_len == 0 || !multiple_frames) break;
      ARROW_RETURN_NOT_OK(decompressor->Reset());
    }
    if (out_len == capacity) {
      if (capacity >= kMaxBlockBytes) return Status::Invalid("Avro: block decompresses too large");
      capacity = std::min(capacity * 2, kMaxBlockBytes);
      ARROW_RETURN_NOT_OK(out->Resize(capacity, /*shrink_to_fit=*/false));
    }
    if (in_len == 0) return Status::Invalid("Avro: truncated compressed block");
    ARROW_ASSIGN_OR_RAISE(auto step, decompressor->Decompress(in_len, in, capacity - out_len,
                                                              out->mutable_data() + out_len));
    in += step.bytes_read;
    in_len -= step.bytes_read;
    out_len += step.bytes_written;
    if (step.bytes_read == 0 && step.bytes_written == 0 && out_len < capacity) {
      return Status::Invalid("Avro: corrupt compressed block");
    }
  }
  ARROW_RETURN_NOT_OK(out->Resize(out_len));
  return out;
}

Result<std::shared_ptr<arrow::Buffer>> SnappyDecompress(arrow::util::Codec* codec,
                                                        const uint8_t* in, int64_t in_len) {
  // Avro's snappy block: raw snappy data, then a big-endian CRC32 of the uncompressed bytes.
  if (in_len < 4) return Status::Invalid("Avro: snappy block too short");
  int64_t body_len = in_len - 4;
  uint64_t expected_len = 0;
  int i = 0;
  for (;; ++i) {
    if (i >= body_len || i >= 5) return Status::Invalid("Avro: bad snappy length");
    expected_len |= static_cast<uint64_t>(in[i] & 0x7F) << (7 * i);
    if ((in[i] & 0x80) == 0) break;
  }
  // A snappy element expands at most ~21x (3-byte copy of 64 bytes); larger claims are corrupt.
  if (expected_len > static_cast<uint64_t>(body_len) * 24 + 64 ||
      expected_len > static_cast<uint64_t>(kMaxBlockBytes)) {
    return Status::Invalid("Avro: implausible snappy length ", expected_len);
  }
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::ResizableBuffer> out,
                        arrow::AllocateResizableBuffer(static_cast<int64_t>(expected_len)));
  ARROW_ASSIGN_OR_RAISE(
      int64_t n,
      codec->Decompress(body_len, in, static_cast<int64_t>(expected_len), out->mutable_data()));
  if (static_cast<uint64_t>(n) != expected_len) {
    return Status::Invalid("Avro: snappy length mismatch");
  }
  const uint8_t* crc = in + body_len;
  uint32_t stored = (uint32_t{crc[0]} << 24) | (uint32_t{crc[1]} << 16) | (uint32_t{crc[2]} << 8) |
                    uint32_t{crc[3]};
  if (Crc32(0, out->data(), static_cast<size_t>(n)) != stored) {
    return Status::Invalid("Avro: snappy block checksum mismatch");
  }
  return out;
}

Result<std::string> CompressBlock(const std::string& codec_name, arrow::util::Codec* codec,
                                  const std::string& raw) {
  if (codec == nullptr) return raw;
  const auto* in = reinterpret_cast<const uint8_t*>(raw.data());
  int64_t in_len = static_cast<int64_t>(raw.size());
  std::string out(static_cast<size_t>(codec->MaxCompressedLen(in_len, in)) + 4, '\0');
  ARROW_ASSIGN_OR_RAISE(int64_t n, codec->Compress(in_len, in, static_cast<int64_t>(out.size()),
                                                   reinterpret_cast<uint8_t*>(out.data())));
  out.resize(static_cast<size_t>(n));
  if (codec_name == "snappy") {
    uint32_t crc = Crc32(0, raw.data(), raw.size());
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(crc >> shift));
  }
  return out;
}

}  // namespace paimon_rowid::avro::internal
