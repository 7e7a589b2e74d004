// Avro object container files (codec/avro.h): header, schema JSON, blocks, all codecs.
// Round trip: the records re-encoded with the file's own schema (uncompressed) read back
// equal, up to what a union cannot tell apart (int vs long, float vs double).
#include <cmath>
#include <variant>

#include "fuzz_util.h"
#include "paimon_rowid/codec/avro.h"

namespace paimon_rowid::fuzz {
namespace {

bool Number(const avro::Value& v, double* out) {
  const auto& s = v.storage();
  if (auto p = std::get_if<int32_t>(&s)) return *out = *p, true;
  if (auto p = std::get_if<int64_t>(&s)) return *out = static_cast<double>(*p), true;
  if (auto p = std::get_if<float>(&s)) return *out = *p, true;
  if (auto p = std::get_if<double>(&s)) return *out = *p, true;
  return false;
}

bool Same(const avro::Value& a, const avro::Value& b) {
  double x, y;
  if (Number(a, &x) && Number(b, &y)) return x == y || (std::isnan(x) && std::isnan(y));
  const auto& s = a.storage();
  const auto& t = b.storage();
  if (s.index() != t.index()) return false;
  if (auto r = std::get_if<avro::Value::Record>(&s)) {
    const auto& q = std::get<avro::Value::Record>(t);
    if (r->fields.size() != q.fields.size()) return false;
    for (size_t i = 0; i < r->fields.size(); ++i) {
      if (!Same(r->fields[i], q.fields[i])) return false;
    }
    return true;
  }
  if (auto r = std::get_if<avro::Value::Array>(&s)) {
    const auto& q = std::get<avro::Value::Array>(t);
    if (r->items.size() != q.items.size()) return false;
    for (size_t i = 0; i < r->items.size(); ++i) {
      if (!Same(r->items[i], q.items[i])) return false;
    }
    return true;
  }
  if (auto r = std::get_if<avro::Value::MapValue>(&s)) {
    const auto& q = std::get<avro::Value::MapValue>(t);
    if (r->entries.size() != q.entries.size()) return false;
    for (size_t i = 0; i < r->entries.size(); ++i) {
      if (r->entries[i].first != q.entries[i].first) return false;
      if (!Same(r->entries[i].second, q.entries[i].second)) return false;
    }
    return true;
  }
  if (auto r = std::get_if<std::string>(&s)) return *r == std::get<std::string>(t);
  if (auto r = std::get_if<bool>(&s)) return *r == std::get<bool>(t);
  return true;  // both null
}

}  // namespace
}  // namespace paimon_rowid::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  auto reader = avro::FileReader::Open(AsBuffer(data, size));
  if (!reader.ok()) return 0;
  auto records = (*reader)->ReadAll();
  if (!records.ok()) return 0;

  const std::string& schema = (*reader)->metadata().at("avro.schema");
  auto writer = avro::FileWriter::Make(schema, "null");
  FUZZ_CHECK(writer.ok(), writer.status());
  for (const auto& record : *records) {
    // A union whose branches look alike to the writer (say two records of the same arity)
    // may take another branch, which can refuse the value: that is not a decoder bug.
    if (!(*writer)->Append(record).ok()) return 0;
  }
  auto file = (*writer)->Finish();
  FUZZ_CHECK(file.ok(), file.status());
  auto again = avro::FileReader::Open(*file);
  FUZZ_CHECK(again.ok(), again.status());
  auto reread = (*again)->ReadAll();
  FUZZ_CHECK(reread.ok(), reread.status());
  FUZZ_CHECK(reread->size() == records->size());
  for (size_t i = 0; i < records->size(); ++i) {
    FUZZ_CHECK(Same((*records)[i], (*reread)[i]), "record " + std::to_string(i));
  }
  return 0;
}
