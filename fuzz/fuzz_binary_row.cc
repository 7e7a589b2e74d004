// BinaryRow (codec/binary_row.h): partition values and stats rows in manifests. The first
// byte chooses the arity (0..8), the next bytes one Arrow type per field from the types the
// schema maps to; the rest is the serialized row. Round trip: decoded scalars re-encode and
// decode back equal.
#include <vector>

#include "arrow/scalar.h"
#include "arrow/type.h"
#include "fuzz_util.h"
#include "paimon_rowid/codec/binary_row.h"

namespace {

const std::vector<std::shared_ptr<arrow::DataType>>& Types() {
  static const auto* types = new std::vector<std::shared_ptr<arrow::DataType>>{
      arrow::boolean(),
      arrow::int8(),
      arrow::int16(),
      arrow::int32(),
      arrow::int64(),
      arrow::float32(),
      arrow::float64(),
      arrow::date32(),
      arrow::time32(arrow::TimeUnit::MILLI),
      arrow::time64(arrow::TimeUnit::MICRO),
      arrow::utf8(),
      arrow::large_utf8(),
      arrow::binary(),
      arrow::large_binary(),
      arrow::fixed_size_binary(4),
      arrow::decimal128(10, 2),
      arrow::decimal128(18, 0),
      arrow::decimal128(38, 10),
      arrow::decimal128(19, 3),
      arrow::timestamp(arrow::TimeUnit::SECOND),
      arrow::timestamp(arrow::TimeUnit::MILLI),
      arrow::timestamp(arrow::TimeUnit::MICRO),
      arrow::timestamp(arrow::TimeUnit::NANO),
      arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")};
  return *types;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  Input in(data, size);
  std::vector<std::shared_ptr<arrow::DataType>> types(in.Byte() % 9);
  for (auto& type : types) type = Types()[in.Byte() % Types().size()];
  std::string_view row = in.Rest();

  (void)SerializedBinaryRowArity(row);
  auto values = DecodeBinaryRow(row, types);
  if (!values.ok()) return 0;
  FUZZ_CHECK(values->size() == types.size());
  auto encoded = EncodeBinaryRow(*values);
  FUZZ_CHECK(encoded.ok(), encoded.status());
  auto decoded = DecodeBinaryRow(*encoded, types);
  FUZZ_CHECK(decoded.ok(), decoded.status());
  for (size_t i = 0; i < types.size(); ++i) {
    const auto& a = *(*values)[i];
    const auto& b = *(*decoded)[i];
    FUZZ_CHECK(a.Equals(b, arrow::EqualOptions::Defaults().nans_equal(true)),
               a.ToString() + " vs " + b.ToString());
  }
  return 0;
}
