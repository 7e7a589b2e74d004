// Deletion vectors (docs/format.md §7; Paimon's tableindex spec): the set of deleted row
// positions of one data file, and the index files that hold them.
//
//   DV bytes      = magic:int32 BE (1581511376)  RoaringBitmap (portable format, 32-bit)
//   index file    = version:uint8 (1)  then per data file, sorted by name:
//                   size:int32 BE  DV bytes (size of them)  crc32:int32 BE (of the DV bytes)
//
// An index manifest entry records, per data file, the offset of its `size` field and the
// size of its DV bytes (`length`), so one DV is read without the rest of the file.
//
// The bitmap is roaring.h's 32-bit codec (all container kinds read, array and bitmap
// containers written); a position beyond 2^31 - 1 is refused. 64-bit bitmaps
// (`deletion-vectors.bitmap64`, LE magic 1681511377) are recognised and refused.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

inline constexpr int32_t kDeletionVectorMagic = 1581511376;
inline constexpr int32_t kDeletionVector64Magic = 1681511377;
inline constexpr uint8_t kDeletionVectorFileVersion = 1;

/// Deleted positions of one data file: sorted, distinct, each in [0, 2^31).
class DeletionVector {
 public:
  DeletionVector() = default;
  /// REQUIRES: `positions` sorted and distinct.
  explicit DeletionVector(std::vector<int64_t> positions) : positions_(std::move(positions)) {}

  const std::vector<int64_t>& positions() const { return positions_; }
  int64_t cardinality() const { return static_cast<int64_t>(positions_.size()); }
  bool empty() const { return positions_.empty(); }
  bool Contains(int64_t position) const;

  /// Adds `positions` (any order, duplicates and already deleted ones fine); returns how
  /// many were new.
  int64_t AddAll(std::vector<int64_t> positions);

  /// magic + Roaring bytes. Invalid for a position outside [0, 2^31).
  Result<std::string> Serialize() const;
  /// Parses magic + Roaring bytes. Invalid for malformed input, NotImplemented for 64-bit.
  static Result<DeletionVector> Deserialize(std::string_view bytes);

  friend bool operator==(const DeletionVector&, const DeletionVector&) = default;

 private:
  std::vector<int64_t> positions_;
};

/// Where one data file's DV lives inside an index file.
struct DeletionVectorRange {
  std::string data_file;
  int64_t offset = 0;  // of the size field
  int64_t length = 0;  // DV bytes, magic included
  std::optional<int64_t> cardinality;

  friend bool operator==(const DeletionVectorRange&, const DeletionVectorRange&) = default;
};

struct EncodedDeletionVectorFile {
  std::string bytes;
  std::vector<DeletionVectorRange> ranges;  // sorted by data file name
};

/// One index file holding `vectors` (keyed by data file name; empty vectors are skipped).
Result<EncodedDeletionVectorFile> EncodeDeletionVectorFile(
    const std::map<std::string, DeletionVector>& vectors);

/// The DV at `range` in an index file: `bytes` starts at range.offset (the size field) and
/// holds at least 8 + range.length bytes. Checks the size and the CRC. `file` names the
/// index file in errors.
Result<DeletionVector> DecodeDeletionVectorAt(std::string_view bytes,
                                              const DeletionVectorRange& range,
                                              const std::string& file);

/// Checks an index file's version byte (Invalid otherwise).
Status CheckDeletionVectorFileVersion(std::string_view head, const std::string& file);

}  // namespace paimon_rowid
