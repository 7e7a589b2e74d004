// Decompressed Parquet pages as format/sparse_pages.h reads them: the value bytes of pages a
// reader gathers single rows from (definition levels, dictionary indices in RLE/bit-packed
// runs, PLAIN values). Files without page checksums (pyarrow, pypaimon) hand them over as
// written, so every byte is untrusted. A gather that succeeds returns exactly one value or
// null per wanted row.
#include <deque>

#include "fuzz_util.h"
#include "paimon_rowid/format/sparse_pages.h"
#include "parquet/column_page.h"
#include "parquet/schema.h"

namespace {

using paimon_rowid::RowRange;

// The next `n` bytes of the input (fewer at its end) as an owned buffer: ASan then catches a
// read past the end of any page.
std::shared_ptr<arrow::Buffer> Take(paimon_rowid::fuzz::Input* in, size_t n) {
  std::string bytes;
  for (size_t i = 0; i < n && !in->Rest().empty(); ++i)
    bytes.push_back(static_cast<char>(in->Byte()));
  return arrow::Buffer::FromString(std::move(bytes));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  fuzz::Input in(data, size);
  const uint8_t mode = in.Byte();
  static const parquet::Type::type kPhysical[] = {parquet::Type::INT64, parquet::Type::INT32,
                                                  parquet::Type::DOUBLE, parquet::Type::BYTE_ARRAY};
  static const std::shared_ptr<arrow::DataType> kTypes[] = {arrow::int64(), arrow::int32(),
                                                            arrow::float64(), arrow::binary()};
  const int kind = mode & 3;
  const bool nullable = (mode & 4) != 0;
  const bool v2 = (mode & 8) != 0;
  const bool has_dictionary = (mode & 16) != 0;
  auto leaf = parquet::schema::PrimitiveNode::Make(
      "v", nullable ? parquet::Repetition::OPTIONAL : parquet::Repetition::REQUIRED,
      kind == 3 ? parquet::LogicalType::String() : parquet::LogicalType::None(), kPhysical[kind]);
  parquet::SchemaDescriptor schema;
  schema.Init(parquet::schema::GroupNode::Make("schema", parquet::Repetition::REQUIRED, {leaf}));

  const int32_t rows_per_page = 1 + (in.Byte() | (in.Byte() << 8)) % 4096;
  const int num_pages = 1 + in.Byte() % 4;
  std::deque<std::shared_ptr<parquet::Page>> pages;
  if (has_dictionary) {
    const int32_t count = in.Byte();
    const size_t length = in.Byte() | (in.Byte() << 8);
    pages.push_back(std::make_shared<parquet::DictionaryPage>(Take(&in, length), count,
                                                              parquet::Encoding::PLAIN));
  }
  for (int p = 0; p < num_pages; ++p) {
    const uint8_t flags = in.Byte();
    const auto encoding =
        (flags & 1) ? parquet::Encoding::RLE_DICTIONARY : parquet::Encoding::PLAIN;
    const size_t length = in.Byte() | (in.Byte() << 8);
    auto bytes = Take(&in, length);
    if (v2) {
      const int32_t def_length = in.Byte();
      const int32_t nulls = flags >> 1;
      pages.push_back(std::make_shared<parquet::DataPageV2>(
          bytes, rows_per_page, nulls, rows_per_page, encoding, def_length, 0, bytes->size()));
    } else {
      pages.push_back(std::make_shared<parquet::DataPageV1>(bytes, rows_per_page, encoding,
                                                            parquet::Encoding::RLE,
                                                            parquet::Encoding::RLE, bytes->size()));
    }
  }
  // Wanted rows: runs at steps the remaining bytes choose, inside the pages' rows.
  const int64_t total = static_cast<int64_t>(rows_per_page) * num_pages;
  std::vector<RowRange> wanted;
  int64_t row = 0;
  int64_t count = 0;
  while (!in.Rest().empty()) {
    const uint8_t b = in.Byte();
    row += b % 17;
    if (row >= total) break;
    const int64_t to = std::min(total - 1, row + b / 17 % 4);
    wanted.push_back({row, to});
    count += to - row + 1;
    row = to + 1;
  }
  format_internal::PageListReader reader(std::move(pages));
  auto got = format_internal::GatherSparsePages(&reader, *schema.Column(0), {{0, total - 1}},
                                                wanted, kTypes[kind], arrow::default_memory_pool());
  if (!got.ok()) return 0;
  FUZZ_CHECK((*got)->length() == count);
  FUZZ_CHECK((*got)->type()->Equals(*kTypes[kind]));
  FUZZ_CHECK((*got)->ValidateFull().ok(), (*got)->ValidateFull());
  return 0;
}
