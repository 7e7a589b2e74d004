// The SQL string parser behind DataType::Parse ("ARRAY<INT NOT NULL>", "DECIMAL(10, 2)",
// ...): a recursive descent over the characters.
#include <cctype>
#include <charconv>
#include <limits>

#include "paimon_rowid/types/data_type.h"
#include "paimon_rowid/types/data_type_internal.h"

namespace paimon_rowid {
namespace {

using data_type_internal::CheckPrecision;
using data_type_internal::CheckVector;
using data_type_internal::kMaxNestingDepth;
using data_type_internal::Upper;

Status CheckLength(int64_t length) {
  if (length < 1 || length > DataType::kMaxLength) {
    return Status::Invalid("Length must be between 1 and ", DataType::kMaxLength,
                           " (both inclusive), got ", length);
  }
  return Status::OK();
}

// ------------------------------------------------------------------------------------------
// SQL string parser (recursive descent over the characters).

class SqlTypeParser {
 public:
  explicit SqlTypeParser(std::string_view text) : text_(text) {}

  Result<DataTypePtr> ParseAll() {
    ARROW_ASSIGN_OR_RAISE(auto type, ParseType(0));
    SkipSpaces();
    if (pos_ != text_.size()) return Error("unexpected trailing text");
    return type;
  }

 private:
  Status Error(std::string_view what) const {
    return Status::Invalid("Cannot parse type '", text_, "': ", what, " at position ", pos_);
  }

  void SkipSpaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  static bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  // The next word, upper-cased, without consuming it ("" when none).
  std::string PeekWord() {
    SkipSpaces();
    size_t end = pos_;
    while (end < text_.size() && IsWordChar(text_[end])) ++end;
    return Upper(text_.substr(pos_, end - pos_));
  }

  std::string NextWord() {
    std::string word = PeekWord();
    pos_ += word.size();
    return word;
  }

  bool ConsumeKeyword(std::string_view keyword) {
    size_t saved = pos_;
    if (PeekWord() == keyword) {
      pos_ += keyword.size();
      return true;
    }
    pos_ = saved;
    return false;
  }

  Status ExpectKeyword(std::string_view keyword) {
    if (!ConsumeKeyword(keyword)) return Error(std::string("expected ") + std::string(keyword));
    return Status::OK();
  }

  bool Consume(char c) {
    SkipSpaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  Status Expect(char c) {
    if (!Consume(c)) return Error(std::string("expected '") + c + "'");
    return Status::OK();
  }

  Result<int64_t> ParseInt() {
    SkipSpaces();
    size_t end = pos_;
    while (end < text_.size() && std::isdigit(static_cast<unsigned char>(text_[end]))) ++end;
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + end, value);
    if (end == pos_ || ec != std::errc() || value > std::numeric_limits<int32_t>::max()) {
      return Error("expected a non-negative 32-bit integer");
    }
    pos_ = end;
    return value;
  }

  // "(n)" when present, else `fallback`.
  Result<int64_t> OptionalParenInt(int64_t fallback) {
    if (!Consume('(')) return fallback;
    ARROW_ASSIGN_OR_RAISE(int64_t value, ParseInt());
    ARROW_RETURN_NOT_OK(Expect(')'));
    return value;
  }

  // Reads "NOT NULL" / "NULL" after a type; true means nullable.
  bool ParseNullability() {
    size_t saved = pos_;
    if (ConsumeKeyword("NOT")) {
      if (ConsumeKeyword("NULL")) return false;
      pos_ = saved;
      return true;
    }
    ConsumeKeyword("NULL");
    return true;
  }

  Result<std::string> ParseIdentifier() {
    SkipSpaces();
    if (pos_ < text_.size() && (text_[pos_] == '`' || text_[pos_] == '"')) {
      char quote = text_[pos_++];
      std::string out;
      while (pos_ < text_.size()) {
        char c = text_[pos_++];
        if (c == quote) {
          if (pos_ < text_.size() && text_[pos_] == quote) {
            out += quote;
            ++pos_;
            continue;
          }
          return out;
        }
        out += c;
      }
      return Error("unterminated quoted identifier");
    }
    size_t start = pos_;
    while (pos_ < text_.size() && IsWordChar(text_[pos_])) ++pos_;
    if (pos_ == start) return Error("expected a field name");
    return std::string(text_.substr(start, pos_ - start));
  }

  Result<std::string> ParseStringLiteral() {
    SkipSpaces();
    if (pos_ >= text_.size() || text_[pos_] != '\'') return Error("expected a string literal");
    ++pos_;
    std::string out;
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == '\'') {
        if (pos_ < text_.size() && text_[pos_] == '\'') {
          out += '\'';
          ++pos_;
          continue;
        }
        return out;
      }
      out += c;
    }
    return Error("unterminated string literal");
  }

  Result<std::vector<DataField>> ParseRowFields(int depth, char close) {
    std::vector<DataField> fields;
    if (Consume(close)) return fields;
    do {
      DataField field;
      ARROW_ASSIGN_OR_RAISE(field.name, ParseIdentifier());
      Consume(':');  // pypaimon's str() form "name: TYPE"
      ARROW_ASSIGN_OR_RAISE(field.type, ParseType(depth + 1));
      if (ConsumeKeyword("COMMENT")) {
        ARROW_ASSIGN_OR_RAISE(auto comment, ParseStringLiteral());
        field.description = std::move(comment);
      }
      fields.push_back(std::move(field));
    } while (Consume(','));
    ARROW_RETURN_NOT_OK(Expect(close));
    return fields;
  }

  Result<DataTypePtr> ParseType(int depth) {
    if (depth > kMaxNestingDepth) return Error("type nesting is too deep");
    std::string word = NextWord();
    if (word.empty()) return Error("expected a type name");
    DataTypePtr base;
    if (word == "BOOLEAN") {
      base = DataType::Atomic(TypeRoot::kBoolean);
    } else if (word == "TINYINT") {
      base = DataType::Atomic(TypeRoot::kTinyInt);
    } else if (word == "SMALLINT") {
      base = DataType::Atomic(TypeRoot::kSmallInt);
    } else if (word == "INT" || word == "INTEGER") {
      base = DataType::Atomic(TypeRoot::kInt);
    } else if (word == "BIGINT") {
      base = DataType::Atomic(TypeRoot::kBigInt);
    } else if (word == "FLOAT") {
      base = DataType::Atomic(TypeRoot::kFloat);
    } else if (word == "DOUBLE") {
      ConsumeKeyword("PRECISION");
      base = DataType::Atomic(TypeRoot::kDouble);
    } else if (word == "DATE") {
      base = DataType::Atomic(TypeRoot::kDate);
    } else if (word == "VARIANT") {
      base = DataType::Atomic(TypeRoot::kVariant);
    } else if (word == "BLOB") {
      base = DataType::Atomic(TypeRoot::kBlob);
    } else if (word == "STRING") {
      base = DataType::Char(TypeRoot::kVarChar, DataType::kMaxLength);
    } else if (word == "BYTES") {
      base = DataType::Char(TypeRoot::kVarBinary, DataType::kMaxLength);
    } else if (word == "CHAR" || word == "VARCHAR" || word == "BINARY" || word == "VARBINARY") {
      TypeRoot root = word == "CHAR"      ? TypeRoot::kChar
                      : word == "VARCHAR" ? TypeRoot::kVarChar
                      : word == "BINARY"  ? TypeRoot::kBinary
                                          : TypeRoot::kVarBinary;
      ARROW_ASSIGN_OR_RAISE(int64_t length, OptionalParenInt(1));
      ARROW_RETURN_NOT_OK(CheckLength(length));
      base = DataType::Char(root, static_cast<int32_t>(length));
    } else if (word == "DECIMAL" || word == "DEC" || word == "NUMERIC") {
      int64_t precision = 10, scale = 0;
      if (Consume('(')) {
        ARROW_ASSIGN_OR_RAISE(precision, ParseInt());
        if (Consume(',')) {
          ARROW_ASSIGN_OR_RAISE(scale, ParseInt());
        }
        ARROW_RETURN_NOT_OK(Expect(')'));
      }
      ARROW_RETURN_NOT_OK(CheckPrecision(TypeRoot::kDecimal, precision, scale));
      base = DataType::Decimal(static_cast<int32_t>(precision), static_cast<int32_t>(scale));
    } else if (word == "TIME") {
      ARROW_ASSIGN_OR_RAISE(int64_t precision, OptionalParenInt(0));
      ARROW_RETURN_NOT_OK(CheckPrecision(TypeRoot::kTime, precision, 0));
      if (ConsumeKeyword("WITHOUT")) {
        ARROW_RETURN_NOT_OK(ExpectKeyword("TIME"));
        ARROW_RETURN_NOT_OK(ExpectKeyword("ZONE"));
      }
      base = DataType::Temporal(TypeRoot::kTime, static_cast<int32_t>(precision));
    } else if (word == "TIMESTAMP" || word == "TIMESTAMP_LTZ") {
      ARROW_ASSIGN_OR_RAISE(int64_t precision, OptionalParenInt(6));
      TypeRoot root = word == "TIMESTAMP" ? TypeRoot::kTimestamp : TypeRoot::kTimestampLtz;
      if (root == TypeRoot::kTimestamp) {
        if (ConsumeKeyword("WITHOUT")) {
          ARROW_RETURN_NOT_OK(ExpectKeyword("TIME"));
          ARROW_RETURN_NOT_OK(ExpectKeyword("ZONE"));
        } else if (ConsumeKeyword("WITH")) {
          ARROW_RETURN_NOT_OK(ExpectKeyword("LOCAL"));
          ARROW_RETURN_NOT_OK(ExpectKeyword("TIME"));
          ARROW_RETURN_NOT_OK(ExpectKeyword("ZONE"));
          root = TypeRoot::kTimestampLtz;
        }
      }
      ARROW_RETURN_NOT_OK(CheckPrecision(root, precision, 0));
      base = DataType::Temporal(root, static_cast<int32_t>(precision));
    } else if (word == "ARRAY" || word == "MULTISET") {
      ARROW_RETURN_NOT_OK(Expect('<'));
      ARROW_ASSIGN_OR_RAISE(auto element, ParseType(depth + 1));
      ARROW_RETURN_NOT_OK(Expect('>'));
      base = word == "ARRAY" ? DataType::Array(element) : DataType::Multiset(element);
    } else if (word == "MAP") {
      ARROW_RETURN_NOT_OK(Expect('<'));
      ARROW_ASSIGN_OR_RAISE(auto key, ParseType(depth + 1));
      ARROW_RETURN_NOT_OK(Expect(','));
      ARROW_ASSIGN_OR_RAISE(auto value, ParseType(depth + 1));
      ARROW_RETURN_NOT_OK(Expect('>'));
      base = DataType::Map(key, value);
    } else if (word == "VECTOR") {
      ARROW_RETURN_NOT_OK(Expect('<'));
      ARROW_ASSIGN_OR_RAISE(auto element, ParseType(depth + 1));
      ARROW_RETURN_NOT_OK(Expect(','));
      ARROW_ASSIGN_OR_RAISE(int64_t length, ParseInt());
      ARROW_RETURN_NOT_OK(Expect('>'));
      ARROW_RETURN_NOT_OK(CheckVector(element, length));
      base = DataType::Vector(element, static_cast<int32_t>(length));
    } else if (word == "ROW") {
      char close;
      if (Consume('<')) {
        close = '>';
      } else if (Consume('(')) {
        close = ')';
      } else {
        return Error("expected '<' after ROW");
      }
      ARROW_ASSIGN_OR_RAISE(auto fields, ParseRowFields(depth, close));
      base = DataType::Row(std::move(fields));
    } else {
      return Status::Invalid("Unknown type: ", word, " in '", text_, "'");
    }
    bool nullable = ParseNullability();
    return nullable ? base : base->WithNullable(false);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Result<DataTypePtr> DataType::Parse(std::string_view sql) { return SqlTypeParser(sql).ParseAll(); }

}  // namespace paimon_rowid
