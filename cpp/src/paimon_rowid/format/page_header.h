// The few fields of a Parquet page header that copying pages between files needs, read from
// the header's Thrift compact encoding (internal to format/). Arrow's page reader decodes
// headers too, but only while decompressing the pages behind them; a page copied whole is
// never decompressed, so its header is read here.
#pragma once

#include <cstdint>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid::format_internal {

struct PageHeaderInfo {
  enum Type : int32_t { kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3 };
  int32_t type = -1;
  int32_t uncompressed_size = 0;  // of the page body
  int32_t compressed_size = 0;    // of the page body
  int64_t header_size = 0;        // bytes of the serialized header
  int32_t num_values = -1;        // data and dictionary pages
  int32_t num_rows = -1;          // V2 data pages only
  int32_t encoding = -1;          // parquet::Encoding::type of the values
  bool has_crc = false;           // the optional CRC32 of the compressed body
  uint32_t crc = 0;
};

/// Parses the page header at the start of `data` (`size` bytes available, at least the whole
/// header). Invalid for a malformed or truncated header or one without its required fields.
Result<PageHeaderInfo> ParsePageHeader(const uint8_t* data, int64_t size);

}  // namespace paimon_rowid::format_internal
