// Internal to the Avro container code (avro_reader.cc, avro_writer.cc, avro_block.cc): the
// container's framing constants and the block compression codecs, which avro_block.cc
// defines. Not part of the public API.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "arrow/buffer.h"
#include "arrow/util/compression.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid::avro::internal {

// Avro stores floats little-endian; we copy them with memcpy.
static_assert(std::endian::native == std::endian::little, "little-endian host required");

constexpr char kMagic[4] = {'O', 'b', 'j', 1};
constexpr int kSyncSize = 16;
// Upper bound for one decompressed block; it turns a decompression bomb into an error instead
// of an allocation failure. Blocks are usually ~64 KB, but a block holds at least one whole
// record and a manifest entry can be huge: with full value stats (pypaimon's `full` mode,
// Java's for non-Parquet files, ours before truncate(16)) a 140 MB string is stored twice,
// and Java's manifest writer allows records up to the largest byte[] it can buffer. So the
// cap is Java's own limit: a block larger than INT32_MAX bytes no Java writer can produce
// and no Java reader can read.
constexpr int64_t kMaxBlockBytes = std::numeric_limits<int32_t>::max();

// The Arrow codec for an Avro codec name ("null", "deflate", "zstandard", "snappy"); nullptr
// for "null". `level` <= 0 means the codec's default.
Result<std::unique_ptr<arrow::util::Codec>> MakeArrowCodec(const std::string& codec, int level);

// Streams through a compressed block. Java writes zstd frames without a content size, so the
// output size is only known at the end; the buffer grows up to kMaxBlockBytes. `codec` comes
// from MakeArrowCodec: the calling thread's decompressor for its codec type is reused.
Result<std::shared_ptr<arrow::Buffer>> StreamDecompress(arrow::util::Codec* codec,
                                                        const uint8_t* in, int64_t in_len,
                                                        bool multiple_frames);

// Avro's snappy block: raw snappy data, then a big-endian CRC32 of the uncompressed bytes.
Result<std::shared_ptr<arrow::Buffer>> SnappyDecompress(arrow::util::Codec* codec,
                                                        const uint8_t* in, int64_t in_len);

// One block's payload as written: `raw` compressed with `codec` (as is when nullptr), plus
// the CRC32 trailer for snappy.
Result<std::string> CompressBlock(const std::string& codec_name, arrow::util::Codec* codec,
                                  const std::string& raw);

}  // namespace paimon_rowid::avro::internal
