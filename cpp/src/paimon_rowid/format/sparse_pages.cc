#include "paimon_rowid/format/sparse_pages.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "arrow/array/builder_binary.h"
#include "arrow/buffer.h"
#include "arrow/builder.h"
#include "arrow/type.h"
#include "arrow/util/bit_util.h"
#include "arrow/util/bitmap_ops.h"
#include "paimon_rowid/format/sparse_byte_array.h"

namespace paimon_rowid::format_internal {
namespace {

uint32_t LoadLE32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;  // Parquet is little-endian, like every target we build for
}

// Reads the RLE / bit-packed hybrid encoding (Parquet's "RLE" encoding) of values
// `bit_width` bits wide, at ascending positions: each run's header is read once, a value of
// a bit-packed run is extracted where it lies, a run-length run costs nothing per value.
class HybridRuns {
 public:
  HybridRuns(const uint8_t* data, int64_t size, int bit_width)
      : p_(data), end_(data + size), bit_width_(bit_width) {}

  // The value at `pos` (>= the previous call's); false when the runs end before it or a
  // header is malformed.
  bool Get(int64_t pos, uint32_t* value) {
    if (bit_width_ == 0) {  // a single-entry dictionary: every index is 0
      *value = 0;
      return true;
    }
    while (pos >= run_end_) {
      if (!NextRun()) return false;
    }
    *value = literal_ ? Unpack(pos - run_begin_) : repeated_;
    return true;
  }

  // Decodes `n` one-bit values (definition levels of max level 1) into `bits` (LSB first,
  // like Arrow's bitmaps) from bit 0. Returns false when the runs end early or a run-length
  // value is not 0 or 1. Sets *all_set when every value is 1.
  bool DecodeBits(int64_t n, uint8_t* bits, bool* all_set) {
    *all_set = true;
    int64_t pos = 0;
    while (pos < n) {
      if (!NextRun()) return false;
      const int64_t count = std::min(run_end_ - run_begin_, n - pos);
      if (literal_) {
        arrow::internal::CopyBitmap(literal_data_, 0, count, bits, pos);
        if (*all_set && arrow::internal::CountSetBits(literal_data_, 0, count) != count) {
          *all_set = false;
        }
      } else {
        if (repeated_ > 1) return false;
        arrow::bit_util::SetBitsTo(bits, pos, count, repeated_ == 1);
        if (repeated_ == 0) *all_set = false;
      }
      pos += count;
    }
    return true;
  }

 private:
  bool ReadVarint(uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (p_ >= end_) return false;
      const uint8_t b = *p_++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *out = v;
        return true;
      }
    }
    return false;
  }

  bool NextRun() {
    run_begin_ = run_end_;
    uint64_t header;
    if (!ReadVarint(&header)) return false;
    const int64_t available = end_ - p_;
    if (header & 1) {
      // Bit-packed: (header >> 1) groups of 8 values, bit_width bytes per group. Writers
      // may end the last run early; count only the values its bytes hold.
      const int64_t groups = static_cast<int64_t>(header >> 1);
      const int64_t bytes = std::min<int64_t>(groups * bit_width_, available);
      literal_ = true;
      literal_data_ = p_;
      literal_bytes_ = bytes;
      run_end_ = run_begin_ + std::min<int64_t>(groups * 8, bytes * 8 / bit_width_);
      p_ += bytes;
    } else {
      const int value_bytes = (bit_width_ + 7) / 8;
      if (available < value_bytes) return false;
      uint32_t v = 0;
      std::memcpy(&v, p_, static_cast<size_t>(value_bytes));
      p_ += value_bytes;
      literal_ = false;
      repeated_ = v;
      run_end_ = run_begin_ + static_cast<int64_t>(header >> 1);
    }
    return true;
  }

  uint32_t Unpack(int64_t k) const {
    const int64_t bit = k * bit_width_;
    const int64_t byte = bit >> 3;
    uint64_t word = 0;
    std::memcpy(&word, literal_data_ + byte,
                static_cast<size_t>(std::min<int64_t>(8, literal_bytes_ - byte)));
    const uint64_t mask = bit_width_ == 32 ? 0xffffffffULL : ((1ULL << bit_width_) - 1);
    return static_cast<uint32_t>((word >> (bit & 7)) & mask);
  }

  const uint8_t* p_;
  const uint8_t* end_;
  int bit_width_;
  int64_t run_begin_ = 0;
  int64_t run_end_ = 0;
  bool literal_ = false;
  const uint8_t* literal_data_ = nullptr;
  int64_t literal_bytes_ = 0;
  uint32_t repeated_ = 0;
};

// A chunk's dictionary: its PLAIN-encoded values, with the start of every BYTE_ARRAY value.
// Read in place when the dictionary page came from a reader of its own (`page` keeps its
// buffer); copied into the read's pool when it came from the data pages' reader, whose one
// decompression buffer the next page overwrites.
struct Dictionary {
  bool present = false;
  const uint8_t* data = nullptr;
  std::shared_ptr<parquet::Page> page;  // in place
  std::unique_ptr<arrow::Buffer> copy;  // copied
  int64_t count = 0;
  std::vector<uint32_t> starts;  // BYTE_ARRAY: offset of value i's length prefix
};

// Where the values of one data page start, and how to find the value of a non-null index.
class PageValues {
 public:
  PageValues(parquet::Encoding::type encoding, const uint8_t* data, int64_t size, int width,
             const Dictionary* dict)
      : encoding_(encoding),
        data_(data),
        size_(size),
        width_(width),
        dict_(dict),
        indices_(size > 0 ? data + 1 : data, size > 0 ? size - 1 : 0, size > 0 ? data[0] : 0) {}

  bool dictionary_encoded() const {
    return encoding_ == parquet::Encoding::RLE_DICTIONARY ||
           encoding_ == parquet::Encoding::PLAIN_DICTIONARY;
  }

  // The bytes of non-null value `v` (ascending between calls): a fixed-width value's
  // `width` bytes, or a BYTE_ARRAY's payload. An error message when it is not there.
  bool Value(int64_t v, const uint8_t** ptr, uint32_t* len, std::string* error) {
    if (dictionary_encoded()) {
      if (size_ < 1 || data_[0] > 32) return Fail("bad dictionary index bit width", error);
      uint32_t index;
      if (!indices_.Get(v, &index)) return Fail("dictionary indices end early", error);
      if (static_cast<int64_t>(index) >= dict_->count) {
        return Fail("dictionary index " + std::to_string(index) + " out of a dictionary of " +
                        std::to_string(dict_->count),
                    error);
      }
      if (width_ > 0) {
        *ptr = dict_->data + static_cast<size_t>(index) * static_cast<size_t>(width_);
        *len = static_cast<uint32_t>(width_);
      } else {
        const uint32_t start = dict_->starts[index];
        *len = LoadLE32(dict_->data + start);
        *ptr = dict_->data + start + 4;
      }
      return true;
    }
    if (width_ > 0) {
      if ((v + 1) * width_ > size_) return Fail("PLAIN values end early", error);
      *ptr = data_ + v * width_;
      *len = static_cast<uint32_t>(width_);
      return true;
    }
    // PLAIN BYTE_ARRAY: walk the length prefixes up to value v.
    while (true) {
      if (cursor_ + 4 > size_) return Fail("PLAIN values end early", error);
      const uint32_t n = LoadLE32(data_ + cursor_);
      if (static_cast<int64_t>(n) > size_ - cursor_ - 4) {
        return Fail("PLAIN value overruns its page", error);
      }
      if (cursor_index_ == v) {
        *ptr = data_ + cursor_ + 4;
        *len = n;
        return true;
      }
      cursor_ += 4 + static_cast<int64_t>(n);
      ++cursor_index_;
    }
  }

 private:
  static bool Fail(std::string message, std::string* error) {
    *error = std::move(message);
    return false;
  }

  parquet::Encoding::type encoding_;
  const uint8_t* data_;
  int64_t size_;
  int width_;
  const Dictionary* dict_;
  HybridRuns indices_;
  int64_t cursor_ = 0;  // PLAIN BYTE_ARRAY: byte offset of value cursor_index_
  int64_t cursor_index_ = 0;
};

// Where the wanted values go: a fixed-width values buffer with a validity bitmap, or a
// binary builder.
class Output {
 public:
  static Result<Output> Make(const std::shared_ptr<arrow::DataType>& type, int width, bool nullable,
                             int64_t rows, arrow::MemoryPool* pool) {
    Output out;
    out.type_ = type;
    out.width_ = width;
    out.rows_ = rows;
    if (width > 0) {
      ARROW_ASSIGN_OR_RAISE(out.values_, arrow::AllocateBuffer(rows * width, pool));
      if (nullable) {
        ARROW_ASSIGN_OR_RAISE(out.validity_,
                              arrow::AllocateBuffer(arrow::bit_util::BytesForBits(rows), pool));
        std::memset(out.validity_->mutable_data(), 0xff,
                    static_cast<size_t>(out.validity_->size()));
      }
    } else {
      ARROW_RETURN_NOT_OK(arrow::MakeBuilder(pool, type, &out.builder_));
      ARROW_RETURN_NOT_OK(out.builder_->Reserve(rows));
      out.large_ =
          type->id() == arrow::Type::LARGE_BINARY || type->id() == arrow::Type::LARGE_STRING;
    }
    return out;
  }

  Status Null() {
    if (width_ > 0) {
      arrow::bit_util::ClearBit(validity_->mutable_data(), next_++);
      ++nulls_;
      return Status::OK();
    }
    return builder_->AppendNull();
  }

  Status Value(const uint8_t* ptr, uint32_t len) {
    if (width_ > 0) {
      std::memcpy(values_->mutable_data() + next_ * width_, ptr, static_cast<size_t>(width_));
      ++next_;
      return Status::OK();
    }
    if (large_) return static_cast<arrow::LargeBinaryBuilder*>(builder_.get())->Append(ptr, len);
    return static_cast<arrow::BinaryBuilder*>(builder_.get())->Append(ptr, len);
  }

  Result<std::shared_ptr<arrow::Array>> Finish() {
    if (width_ == 0) return builder_->Finish();
    std::shared_ptr<arrow::Buffer> validity;
    if (nulls_ > 0) validity = std::move(validity_);
    return arrow::MakeArray(arrow::ArrayData::Make(
        type_, rows_, {std::move(validity), std::shared_ptr<arrow::Buffer>(std::move(values_))},
        nulls_));
  }

 private:
  std::shared_ptr<arrow::DataType> type_;
  int width_ = 0;
  int64_t rows_ = 0;
  int64_t next_ = 0;
  int64_t nulls_ = 0;
  std::unique_ptr<arrow::Buffer> values_;
  std::unique_ptr<arrow::Buffer> validity_;
  std::unique_ptr<arrow::ArrayBuilder> builder_;
  bool large_ = false;
};

int FixedWidth(parquet::Type::type physical) {
  switch (physical) {
    case parquet::Type::INT32:
    case parquet::Type::FLOAT:
      return 4;
    case parquet::Type::INT64:
    case parquet::Type::DOUBLE:
      return 8;
    default:
      return 0;
  }
}

bool SignedIntOrNone(const parquet::ColumnDescriptor& descr, int max_bits) {
  const auto& logical = descr.logical_type();
  if (logical == nullptr || logical->is_none()) return true;
  if (!logical->is_int()) return false;
  const auto& as_int = static_cast<const parquet::IntLogicalType&>(*logical);
  return as_int.is_signed() && as_int.bit_width() <= max_bits;
}

bool NoLogicalType(const parquet::ColumnDescriptor& descr) {
  const auto& logical = descr.logical_type();
  return logical == nullptr || logical->is_none();
}

// `page` (a DictionaryPage) into `dict`: in place when `in_place`, else copied into `pool`.
Status LoadDictionary(std::shared_ptr<parquet::Page> page_ptr, bool in_place, int width,
                      const std::string& column, arrow::MemoryPool* pool, Dictionary* dict) {
  const auto& page = static_cast<const parquet::DictionaryPage&>(*page_ptr);
  if (page.encoding() != parquet::Encoding::PLAIN &&
      page.encoding() != parquet::Encoding::PLAIN_DICTIONARY) {
    return Status::IOError("column '", column, "': dictionary page of unsupported encoding ",
                           parquet::EncodingToString(page.encoding()));
  }
  const int64_t count = page.num_values();
  const uint8_t* data = page.data();
  const int64_t size = page.size();
  if (count < 0 || (width > 0 && count * width > size)) {
    return Status::IOError("column '", column, "': dictionary page of ", count,
                           " values holds only ", size, " bytes");
  }
  dict->present = true;
  dict->count = count;
  dict->page.reset();
  dict->copy.reset();
  if (in_place) {
    dict->data = data;
    dict->page = std::move(page_ptr);
  } else {
    const int64_t length = width > 0 ? count * width : size;
    ARROW_ASSIGN_OR_RAISE(dict->copy, arrow::AllocateBuffer(length, pool));
    std::memcpy(dict->copy->mutable_data(), data, static_cast<size_t>(length));
    dict->data = dict->copy->data();
  }
  if (width == 0) {
    dict->starts.resize(static_cast<size_t>(count));
    uint32_t* starts = dict->starts.data();
    int64_t at = 0;
    for (int64_t i = 0; i < count; ++i) {
      if (at + 4 > size) {
        return Status::IOError("column '", column, "': dictionary page value ", i, " of ", count,
                               ": its length prefix overruns the page of ", size, " bytes");
      }
      const int64_t length = LoadLE32(data + at);
      if (length > size - at - 4) {
        return Status::IOError("column '", column, "': dictionary page value ", i, " of ", count,
                               " (", length, " bytes at offset ", at + 4, ") overruns the page of ",
                               size, " bytes");
      }
      starts[i] = static_cast<uint32_t>(at);
      at += 4 + length;
    }
  } else {
    dict->starts.clear();
  }
  return Status::OK();
}

}  // namespace

bool IsSparsePageColumn(const parquet::ColumnDescriptor& descr,
                        const parquet::ColumnChunkMetaData& col, const arrow::DataType& type) {
  if (descr.max_repetition_level() != 0 || descr.max_definition_level() > 1) return false;
  bool typed = false;
  switch (descr.physical_type()) {
    case parquet::Type::INT32:
      typed = (type.id() == arrow::Type::INT32 && SignedIntOrNone(descr, 32)) ||
              (type.id() == arrow::Type::DATE32 && descr.logical_type() != nullptr &&
               descr.logical_type()->is_date());
      break;
    case parquet::Type::INT64:
      typed = type.id() == arrow::Type::INT64 && SignedIntOrNone(descr, 64);
      break;
    case parquet::Type::FLOAT:
      typed = type.id() == arrow::Type::FLOAT && NoLogicalType(descr);
      break;
    case parquet::Type::DOUBLE:
      typed = type.id() == arrow::Type::DOUBLE && NoLogicalType(descr);
      break;
    case parquet::Type::BYTE_ARRAY:
      typed = IsSparseByteArrayColumn(descr, type);
      break;
    default:
      break;
  }
  if (!typed) return false;
  for (auto encoding : col.encodings()) {
    switch (encoding) {
      case parquet::Encoding::PLAIN:
      case parquet::Encoding::RLE:
      case parquet::Encoding::RLE_DICTIONARY:
      case parquet::Encoding::PLAIN_DICTIONARY:
        break;
      default:
        return false;
    }
  }
  return true;
}

Result<std::shared_ptr<arrow::Array>> GatherSparsePages(
    parquet::PageReader* pages, const parquet::ColumnDescriptor& descr,
    const std::vector<RowRange>& kept, const std::vector<RowRange>& wanted,
    const std::shared_ptr<arrow::DataType>& type, arrow::MemoryPool* pool,
    parquet::PageReader* dictionary_pages) {
  const std::string column = descr.path()->ToDotString();
  const int width = FixedWidth(descr.physical_type());
  const bool nullable = descr.max_definition_level() > 0;
  int64_t total = 0;
  for (const auto& r : wanted) total += r.count();
  ARROW_ASSIGN_OR_RAISE(auto out, Output::Make(type, width, nullable, total, pool));

  Dictionary dict;
  if (dictionary_pages != nullptr) {
    std::shared_ptr<parquet::Page> page = dictionary_pages->NextPage();
    if (page == nullptr || page->type() != parquet::PageType::DICTIONARY_PAGE) {
      return Status::IOError("column '", column, "': no dictionary page where its metadata ",
                             "puts one");
    }
    ARROW_RETURN_NOT_OK(
        LoadDictionary(std::move(page), /*in_place=*/true, width, column, pool, &dict));
  }
  std::vector<uint8_t> levels;     // the page's definition levels as a bitmap
  std::vector<int64_t> ones_upto;  // set bits before each 64-bit word of `levels`
  std::string error;
  size_t w = 0;  // wanted[w] holds the next wanted row
  int64_t row = wanted.empty() ? 0 : wanted[0].from;
  int64_t consumed = 0;   // rows of the data pages loaded so far
  size_t span = 0;        // kept[span] holds the next page's first row
  int64_t span_base = 0;  // kept rows before kept[span]
  int64_t page_number = 0;
  while (w < wanted.size()) {
    std::shared_ptr<parquet::Page> page = pages->NextPage();
    if (page == nullptr) {
      return Status::IOError("column '", column, "': its pages end before row ", row);
    }
    if (page->type() == parquet::PageType::DICTIONARY_PAGE) {
      ARROW_RETURN_NOT_OK(
          LoadDictionary(std::move(page), /*in_place=*/false, width, column, pool, &dict));
      continue;
    }
    const bool v2 = page->type() == parquet::PageType::DATA_PAGE_V2;
    if (!v2 && page->type() != parquet::PageType::DATA_PAGE) continue;  // index pages
    const auto& data_page = static_cast<const parquet::DataPage&>(*page);
    ++page_number;
    const int64_t n =
        v2 ? static_cast<const parquet::DataPageV2&>(data_page).num_rows() : data_page.num_values();
    if (n < 0) return Status::IOError("column '", column, "': page of ", n, " rows");
    // The page's first row: `consumed` counted through the kept spans.
    while (span < kept.size() && span_base + kept[span].count() <= consumed) {
      span_base += kept[span].count();
      ++span;
    }
    if (n == 0) continue;
    if (span >= kept.size()) {
      return Status::UnknownError("column '", column, "': page selection lost row ", row);
    }
    const int64_t first = kept[span].from + (consumed - span_base);
    const int64_t last = first + n - 1;
    consumed += n;
    if (row > last) continue;  // a kept page of no wanted row (whole-chunk reads)
    if (row < first || last > kept[span].to) {
      return Status::UnknownError("column '", column, "': page selection lost row ", row);
    }

    // Levels, then values.
    const uint8_t* data = data_page.data();
    int64_t size = data_page.size();
    bool all_valid = true;
    if (v2) {
      const auto& p2 = static_cast<const parquet::DataPageV2&>(data_page);
      const int64_t rep = p2.repetition_levels_byte_length();
      const int64_t def = p2.definition_levels_byte_length();
      if (rep < 0 || def < 0 || rep + def > size) {
        return Status::IOError("column '", column, "': page ", page_number,
                               " has level lengths beyond its size");
      }
      if (nullable && p2.num_nulls() > 0) {
        levels.assign(static_cast<size_t>(arrow::bit_util::BytesForBits(n)), 0);
        HybridRuns runs(data + rep, def, 1);
        if (!runs.DecodeBits(n, levels.data(), &all_valid)) {
          return Status::IOError("column '", column, "': page ", page_number,
                                 " has malformed definition levels");
        }
      }
      data += rep + def;
      size -= rep + def;
    } else if (nullable) {
      const auto& p1 = static_cast<const parquet::DataPageV1&>(data_page);
      if (p1.definition_level_encoding() != parquet::Encoding::RLE || size < 4) {
        return Status::IOError("column '", column, "': page ", page_number,
                               " has definition levels of an unsupported encoding");
      }
      const int64_t length = LoadLE32(data);
      if (length > size - 4) {
        return Status::IOError("column '", column, "': page ", page_number,
                               " has definition levels beyond its size");
      }
      levels.assign(static_cast<size_t>(arrow::bit_util::BytesForBits(n)), 0);
      HybridRuns runs(data + 4, length, 1);
      if (!runs.DecodeBits(n, levels.data(), &all_valid)) {
        return Status::IOError("column '", column, "': page ", page_number,
                               " has malformed definition levels");
      }
      data += 4 + length;
      size -= 4 + length;
    }
    if (!all_valid) {
      // Prefix counts per 64-bit word: a row's value index is the set bits before it.
      const int64_t words = (n + 63) / 64;
      levels.resize(static_cast<size_t>(words * 8), 0);
      ones_upto.resize(static_cast<size_t>(words));
      int64_t ones = 0;
      for (int64_t i = 0; i < words; ++i) {
        ones_upto[static_cast<size_t>(i)] = ones;
        uint64_t word;
        std::memcpy(&word, levels.data() + i * 8, 8);
        ones += std::popcount(word);
      }
    }
    const auto encoding = data_page.encoding();
    if (encoding != parquet::Encoding::PLAIN && encoding != parquet::Encoding::RLE_DICTIONARY &&
        encoding != parquet::Encoding::PLAIN_DICTIONARY) {
      return Status::IOError("column '", column, "': page ", page_number,
                             " has values of unsupported encoding ",
                             parquet::EncodingToString(encoding));
    }
    PageValues values(encoding, data, size, width, &dict);
    if (values.dictionary_encoded() && !dict.present) {
      return Status::IOError("column '", column, "': dictionary-encoded page ", page_number,
                             " without a dictionary page");
    }

    // Every wanted row of this page.
    while (w < wanted.size() && row <= last) {
      const int64_t pos = row - first;
      int64_t index = pos;
      bool valid = true;
      if (!all_valid) {
        valid = arrow::bit_util::GetBit(levels.data(), pos);
        uint64_t word;
        std::memcpy(&word, levels.data() + (pos >> 6) * 8, 8);
        const uint64_t below = word & ((uint64_t{1} << (pos & 63)) - 1);
        index = ones_upto[static_cast<size_t>(pos >> 6)] + std::popcount(below);
      }
      if (valid) {
        const uint8_t* ptr;
        uint32_t len;
        if (!values.Value(index, &ptr, &len, &error)) {
          return Status::IOError("column '", column, "': page ", page_number, ": ", error);
        }
        ARROW_RETURN_NOT_OK(out.Value(ptr, len));
      } else {
        ARROW_RETURN_NOT_OK(out.Null());
      }
      if (row < wanted[w].to) {
        ++row;
      } else if (++w < wanted.size()) {
        row = wanted[w].from;
      }
    }
  }
  return out.Finish();
}

}  // namespace paimon_rowid::format_internal
