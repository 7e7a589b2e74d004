// paimon-rowid: the public C++ surface.
//
//   auto catalog = paimon_rowid::Catalog::Make({{"warehouse", "/path/to/warehouse"}});
//   auto table = (*catalog)->GetTable("db.table");
//   auto plan = paimon_rowid::ScanPlanner(*table).WithRowRanges({{0, 99}}).Plan();
//   auto read = paimon_rowid::TableRead::Make(*table, {{"id", "_ROW_ID"}});
//   auto reader = (*read)->Read(plan->splits);   // an arrow::RecordBatchReader
//
// Every fallible call returns arrow::Status / arrow::Result. Objects are immutable after
// construction and may be shared between threads unless their header says otherwise.
#pragma once

#include "paimon_rowid/catalog/catalog.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/common/options.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/read/table_read.h"
#include "paimon_rowid/scan/plan.h"
#include "paimon_rowid/scan/predicate.h"
#include "paimon_rowid/types/data_type.h"
#include "paimon_rowid/types/table_schema.h"
