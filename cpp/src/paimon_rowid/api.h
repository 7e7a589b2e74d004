// paimon-rowid: the public C++ surface. Include this one header; link
// `paimon_rowid::paimon_rowid` (installed CMake package, see docs/cpp-api.md).
//
// The engine reads and writes Apache Paimon append tables with row tracking and data
// evolution. Every row has a stable `_ROW_ID`; an update rewrites only some columns of the
// rows it names, as a partial-column file that the read path merges back by row id. The
// pieces, in the order a program meets them:
//
// Catalog and tables. A Catalog is a warehouse directory; it lists, creates and drops
// databases and tables and opens a Table (immutable: its schema, options and paths; a later
// snapshot needs a new GetTable, or the table's time-travel options).
//
//   ARROW_ASSIGN_OR_RAISE(auto catalog, Catalog::Make({{"warehouse", "/path/to/wh"}}));
//   TableSchema schema;
//   ARROW_ASSIGN_OR_RAISE(schema.fields, FieldsFromArrow(*arrow_schema));
//   schema.options = {{"row-tracking.enabled", "true"}, {"data-evolution.enabled", "true"}};
//   ARROW_RETURN_NOT_OK(catalog->CreateTable("db.t", schema, /*ignore_if_exists=*/true));
//   ARROW_ASSIGN_OR_RAISE(auto table, catalog->GetTable("db.t"));
//
// A REST catalog server (Paimon's REST protocol; docs/rest-catalog.md) holds the databases and
// tables instead: RestCatalog has the same calls, and its tables commit through the server.
//
//   ARROW_ASSIGN_OR_RAISE(auto rest, RestCatalog::Make({{"uri", "http://host:port"},
//       {"warehouse", "wh"}, {"token.provider", "bear"}, {"token", token}}));
//   ARROW_ASSIGN_OR_RAISE(auto table, rest->GetTable("db.t"));
//
// Object stores. A warehouse `s3://bucket/path` (or s3a://, oss://) is configured by the same
// options pypaimon takes (`fs.s3.endpoint`, `fs.s3.accessKeyId`, ...; docs/object-stores.md).
// A program that opened one must call FinalizeObjectStores() before it exits (Arrow's S3
// rule; Python does it for you).
//
// Writing is two-phase. An AppendWriter turns Arrow batches into data files and returns
// CommitMessages; nothing is visible until a Committer turns the messages into one new
// snapshot (optimistic, retried against concurrent committers in any process). Messages
// serialize, so workers may write and one driver commit.
//
//   ARROW_ASSIGN_OR_RAISE(auto writer, AppendWriter::Make(table));
//   ARROW_RETURN_NOT_OK(writer->Write(batch));
//   ARROW_ASSIGN_OR_RAISE(auto messages, writer->PrepareCommit());
//   ARROW_ASSIGN_OR_RAISE(auto committer, Committer::Make(table));
//   ARROW_ASSIGN_OR_RAISE(std::optional<int64_t> snapshot_id, committer->Commit(messages));
//
// An overwrite is the same commit with CommitOptions::overwrite set: the partitions a
// Predicate on partition keys selects (nullptr: the whole table), or, with `dynamic`, those
// the new files are written to; the snapshot deletes their live files (an OVERWRITE).
//
//   CommitOptions opts;
//   opts.overwrite.emplace();
//   opts.overwrite->partitions = dt_is_2026_12_01;  // Predicate::Leaf(kEqual, "dt", ...)
//   ARROW_ASSIGN_OR_RAISE(auto overwriter, Committer::Make(table, opts));
//
// Reading is plan, then read. ScanPlanner picks the files of a snapshot (optionally only
// some row-id ranges, or pruned by a Predicate) into DataSplits; TableRead streams the
// splits as an arrow::RecordBatchReader of the requested columns (`_ROW_ID` and
// `_SEQUENCE_NUMBER` may be asked for like fields).
//
//   ARROW_ASSIGN_OR_RAISE(auto plan, ScanPlanner(table).WithRowRanges({{0, 99}}).Plan());
//   ARROW_ASSIGN_OR_RAISE(auto read, TableRead::Make(table, {{"id", "_ROW_ID"}}));
//   ARROW_ASSIGN_OR_RAISE(auto reader, read->Read(plan.splits));
//
// Row-id jobs. A RowIdIndex maps every row id of one snapshot to its file group (one
// manifest read, then binary search; serializable, to ship to workers). RowIdUpdate routes
// (_ROW_ID, columns...) rows to their groups and writes one partial-column file per touched
// group; CommitUpdate commits them, rebasing onto a concurrent commit that touched other
// rows. RowIdRead reads some columns of a set of row ids, decoding only the row groups that
// hold them.
//
//   ARROW_ASSIGN_OR_RAISE(auto cols, ValidateUpdateColumns(*table, {"name"}, "db.t",
//                                                          "update_by_row_id"));
//   ARROW_ASSIGN_OR_RAISE(auto update, RowIdUpdate::Make(table, cols, "db.t"));
//   ARROW_RETURN_NOT_OK(update->Add(rows));  // _ROW_ID int64 + the update columns
//   ARROW_ASSIGN_OR_RAISE(auto outcome, CommitUpdate(update.get(), table, RandomUuid()));
//
//   ARROW_ASSIGN_OR_RAISE(auto snapshot, table->LatestSnapshot());  // nullopt: empty table
//   ARROW_ASSIGN_OR_RAISE(auto index, RowIdIndex::Build(table, *snapshot));
//   ARROW_ASSIGN_OR_RAISE(auto by_id, RowIdRead::Make(table, {"name"}, index));
//   ARROW_ASSIGN_OR_RAISE(auto rows, by_id->Read({id_array}));  // name, _ROW_ID
//
// Deletes (tables with deletion-vectors.enabled): DeleteByRowId returns commit messages that
// add deletion vectors (no data file rewritten, row ids unchanged; docs/deletes.md);
// DeletePartitions drops whole partitions for a predicate on partition keys.
//
//   ARROW_ASSIGN_OR_RAISE(auto messages, DeleteByRowId(table, {12, 40}));
//   ARROW_ASSIGN_OR_RAISE(auto snapshot_id, committer->Commit(messages));  // OVERWRITE
//
// Maintenance. Compact rewrites each file group that updates have split into many files
// into one file with the same row ids and values (a COMPACT snapshot; maint/compact.h).
//
//   ARROW_ASSIGN_OR_RAISE(CompactResult done, Compact(table, CompactOptions{}));
// Maintenance. ExpireSnapshots deletes old snapshots and the files only they need (Java's
// snapshot.num-retained.min/max, snapshot.time-retained); RemoveOrphanFiles deletes files no
// snapshot or tag references that are older than a safety margin (docs/maintenance.md).
//
//   ARROW_ASSIGN_OR_RAISE(auto expired, ExpireSnapshots(table, {.retain_max = 5}));
//   ARROW_ASSIGN_OR_RAISE(auto orphans, RemoveOrphanFiles(table, {.dry_run = true}));
//
// Global indexes (docs/global-index.md). CreateGlobalIndex builds a btree (or, with
// `index_type = "bitmap"`, a bitmap) index of a column over the rows it does not cover yet
// (one APPEND commit, files byte-identical to pypaimon's);
// DropGlobalIndex drops its files. Filtered reads (ScanPlanner) use live indexes by
// themselves. LookupRowIds maps keys to `(key, _ROW_ID)` through the index where it covers
// rows and a pruned scan elsewhere.
//
//   GlobalIndexBuildOptions build;
//   build.column = "name";
//   ARROW_ASSIGN_OR_RAISE(int64_t files, CreateGlobalIndex(table, build));
//   ARROW_ASSIGN_OR_RAISE(auto located, LookupRowIds(table, *keys, "name"));  // name, _ROW_ID
//   ARROW_ASSIGN_OR_RAISE(int64_t dropped,
//                         DropGlobalIndex(table, "name", "btree", nullptr, /*dry_run=*/false));
//
// Errors: every fallible call returns arrow::Status / arrow::Result; nothing throws across
// this surface. Invalid and TypeError mean bad input (the messages follow pypaimon's),
// IOError the file system. Errors a caller branches on (a table that does not exist, a lost
// commit conflict, ...) carry an ErrorKind: GetErrorKind(status) (common/status.h).
//
// Memory: the options of TableRead (ReadOptions), AppendWriter (AppendWriterOptions),
// RowIdUpdate (RowIdUpdateOptions) and RowIdRead (RowIdReadOptions) carry an
// `arrow::MemoryPool* pool`, default arrow::default_memory_pool(), that every allocation of
// their data path comes from (docs/cpp-api.md, "Memory pools"). The pool is not owned and
// must outlive the object and what it returns.
//
// Threads: objects are immutable after construction and may be shared between threads
// unless their header says otherwise (writers, updates and committers are driven by one
// thread at a time). Each header states its own contract in more detail.
//
// Only the headers included here (and what they include) are the public surface; the other
// headers of the installed tree are implementation details and may change.
#pragma once

// Basics: Status helpers, options, identifiers, row ranges.
#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/common/options.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/common/status.h"

// Types and schemas.
#include "paimon_rowid/types/data_type.h"
#include "paimon_rowid/types/table_schema.h"

// Catalog, tables and snapshots.
#include "paimon_rowid/catalog/catalog.h"
#include "paimon_rowid/catalog/rest_catalog.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/meta/snapshot.h"

// Scan and read.
#include "paimon_rowid/read/table_read.h"
#include "paimon_rowid/scan/manifest_cache.h"
#include "paimon_rowid/scan/plan.h"
#include "paimon_rowid/scan/predicate.h"

// Write and commit (CommitMessage comes with both headers).
#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/write/append_writer.h"

// Row-id jobs.
#include "paimon_rowid/rowid/delete_by_row_id.h"
#include "paimon_rowid/rowid/read_by_row_id.h"
#include "paimon_rowid/rowid/row_id_index.h"
#include "paimon_rowid/rowid/update_by_row_id.h"

// Table maintenance.
#include "paimon_rowid/maint/compact.h"
// Maintenance: snapshot expiration and orphan-file cleaning.
#include "paimon_rowid/maint/expire.h"
#include "paimon_rowid/maint/orphan.h"

// Global indexes: build, drop, key -> row id.
#include "paimon_rowid/indexing/global_index.h"
#include "paimon_rowid/indexing/key_lookup.h"
