"""Type stubs for the native module ``paimon_rowid._native`` (built from python/src).

The native layer is thin: it owns C++ objects and moves data only as Arrow C streams /
arrays (PyCapsules). Every C++ error becomes a Python exception in one place:
Invalid -> ValueError, TypeError -> TypeError, KeyError -> KeyError, IOError -> OSError,
NotImplemented -> NotImplementedError, others -> RuntimeError; catalog error kinds are raised
as the classes registered with ``register_error_classes``.
"""
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

def register_error_classes(classes: Dict[str, type]) -> None:
    """Maps error kinds ("TableNotExist", "TableAlreadyExist", "DatabaseNotExist",
    "DatabaseAlreadyExist", "CommitConflict") to Python exception classes."""

def _arm_crash_point(point: str) -> None:
    """Test-only: this process kills itself with SIGKILL when a commit reaches the fault point
    ``point`` ("before_manifest", "after_manifest", "after_manifest_lists", "after_snapshot",
    "after_latest"); "" disarms. Nothing is read from the environment."""

def _arm_fault_hook(point: str, hook: Optional[Callable[[], None]]) -> None:
    """Test-only: the first thread reaching the fault point ``point`` (e.g.
    "commit_after_choosing_latest") calls ``hook()`` there, once; an exception it raises is
    reported as unraisable. "" or None disarms."""

class Catalog:
    def __init__(self, options: Dict[str, str]) -> None: ...
    @property
    def warehouse(self) -> str: ...
    def list_databases(self) -> List[str]: ...
    def list_tables(self, database: str) -> List[str]: ...
    def get_table(self, identifier: str) -> Table: ...
    def create_database(self, name: str, ignore_if_exists: bool) -> None: ...
    def drop_database(self, name: str, ignore_if_not_exists: bool, cascade: bool) -> None: ...
    def create_table(self, identifier: str, schema_json: str, ignore_if_exists: bool) -> None:
        """schema_json: TableSchema JSON (docs/format.md §1.4) with field ids assigned."""
    def drop_table(self, identifier: str, ignore_if_not_exists: bool) -> None: ...
    def rename_table(self, from_identifier: str, to_identifier: str) -> None: ...
    def alter_table(self, identifier: str, changes_json: str,
                    ignore_if_not_exists: bool) -> Optional[str]: ...

class Table:
    @property
    def identifier(self) -> str: ...
    @property
    def path(self) -> str: ...
    def schema_json(self) -> str:
        """The schema in force (the travelled snapshot's schema under time travel)."""
    def options(self) -> Dict[str, str]: ...
    @property
    def file_io_options(self) -> Dict[str, str]:
        """The filesystem keys the table's FileIO was made from (empty: local)."""
    def copy(self, overrides: Dict[str, Optional[str]]) -> Table:
        """None removes a key; changing 'bucket' raises ValueError."""
    def snapshot(self, snapshot_id: int) -> Snapshot:
        """ValueError "Snapshot id 'n' doesn't exist." when absent."""
    def latest_snapshot(self) -> Optional[Snapshot]: ...
    def resolve_snapshot(self) -> Optional[Snapshot]:
        """The snapshot selected by the options (scan.snapshot-id / scan.tag-name) or latest."""
    def list_snapshot_ids(self) -> List[int]: ...
    def partition_stats(self) -> List[Dict[str, Any]]:
        """The latest snapshot's partitions: {"spec", "record_count", "file_size_in_bytes",
        "file_count", "last_file_creation_time", "total_buckets"}, sorted by name."""
    # tags (python/src/module.cc over catalog/tags.h): ValueError with pypaimon's messages
    def create_tag(self, name: str, snapshot_id: Optional[int], ignore_if_exists: bool,
                   time_retained: Optional[str] = None) -> None: ...
    def replace_tag(self, name: str, snapshot_id: Optional[int],
                    time_retained: Optional[str]) -> None: ...
    def rename_tag(self, old_name: str, new_name: str) -> None: ...
    def delete_tag(self, name: str) -> bool: ...
    def list_tags(self) -> List[str]: ...
    def get_tag(self, name: str) -> Optional[Tuple[Snapshot, Optional[int], Optional[int]]]:
        """(snapshot, tagCreateTime as epoch ms in the host's zone, tagTimeRetained in ns);
        None when the tag does not exist."""

class Snapshot:
    """One snapshot file (meta/snapshot.h), read-only. Attributes use pypaimon's names;
    absent optional keys are None. ``s[key]`` / ``s.get(key)`` / ``key in s`` answer the Java
    JSON key names ("id", "nextRowId", "totalRecordCount", "properties", ...): KeyError /
    the default when the file has no such key. Picklable (as its JSON text)."""
    version: int
    id: int
    schema_id: int
    base_manifest_list: str
    delta_manifest_list: str
    changelog_manifest_list: Optional[str]
    index_manifest: Optional[str]
    commit_user: str
    commit_identifier: int
    commit_kind: str
    time_millis: int
    total_record_count: Optional[int]
    delta_record_count: Optional[int]
    changelog_record_count: Optional[int]
    watermark: Optional[int]
    statistics: Optional[str]
    next_row_id: Optional[int]
    writer_version: Optional[str]
    operation: Optional[str]
    @property
    def properties(self) -> Dict[str, str]:
        """A copy of the snapshot's properties ({} when it has none)."""
    def __getitem__(self, key: str) -> Any: ...
    def get(self, key: str, default: Any = None) -> Any: ...
    def __contains__(self, key: str) -> bool: ...
    def to_json(self) -> str:
        """The snapshot file's JSON (Java's key order)."""

def backfill_done_ranges(table: Table, property_key: str) -> List[Tuple[int, int]]:
    """The inclusive ranges recorded under snapshot property ``property_key`` (JSON text
    "[[from, to], ...]") in the newest snapshot carrying it, walking snapshots newest first
    and stopping at snapshot 1 or an expired snapshot ([] then). ValueError when the recorded
    value is malformed. The GIL is released while snapshots are read."""

# A predicate is a nested tuple:
#   ("and", [pred, ...]) | ("or", [pred, ...]) |
#   ("leaf", method, field_name, literals)
# where method is one of equal, not_equal, less_than, less_or_equal, greater_than,
# greater_or_equal, is_null, is_not_null, startswith, endswith, contains, is_in, is_not_in,
# between, not_between, like; and literals is None (is_null/is_not_null) or an object with
# __arrow_c_array__ (a pyarrow Array of the field's Arrow type holding the literal values:
# 1 value, 2 for between/not_between, n for is_in/is_not_in).
Predicate = Tuple[Any, ...]

class Split:
    @property
    def row_count(self) -> int: ...
    @property
    def file_paths(self) -> List[str]: ...
    @property
    def partition(self) -> Dict[str, Any]: ...
    @property
    def row_ranges(self) -> Optional[List[Tuple[int, int]]]:
        """Inclusive row-id ranges the split is restricted to (None = whole split)."""
    @property
    def bucket(self) -> int:
        """The bucket of the split's files (0 on bucket-unaware tables)."""
    def serialize(self) -> bytes: ...
    @staticmethod
    def deserialize(data: bytes) -> Split: ...

class Plan:
    @property
    def snapshot_id(self) -> Optional[int]: ...
    def splits(self) -> List[Split]: ...

def plan(table: Table, predicate: Optional[Predicate],
         row_ranges: Optional[Sequence[Tuple[int, int]]]) -> Plan:
    """Plans the snapshot selected by the table's options. row_ranges are inclusive
    (from, to) pairs, already sorted and merged; an empty list plans nothing."""

def row_ranges_of(predicate: Optional[Predicate]) -> Optional[List[Tuple[int, int]]]:
    """The inclusive _ROW_ID ranges (sorted, merged) the predicate confines a read to, as the
    planner derives them (equal / is_in / between leaves, AND intersects, OR unites), or None
    when it does not restrict row ids. No I/O."""

def fields_from_arrow(ipc_schema: bytes) -> str:
    """The Paimon fields (JSON text of a list of DataField objects, ids assigned as
    pypaimon's Schema.from_pyarrow_schema does) of an Arrow schema given as an IPC schema
    message (``pa.Schema.serialize()``; unlike a C schema capsule it keeps NUL bytes in
    names). ValueError "Unsupported pyarrow type: T" for Arrow types without a Paimon type
    (the innermost one is named)."""

def arrow_type_of(type_json: str) -> Any:
    """The Arrow type of a Paimon type given as its schema-JSON text (a JSON string such as
    '"BIGINT NOT NULL"' or an object), as an "arrow_schema" PyCapsule of the type
    (pyarrow: ``pa.field(obj).type``). ValueError when the type is malformed."""

def read(table: Table, splits: Sequence[Split], read_fields: Sequence[str],
         predicate: Optional[Predicate], limit: Optional[int], threads: int = 1,
         whole: bool = False) -> Any:
    """Reads the splits with the given output fields (table fields and _ROW_ID /
    _SEQUENCE_NUMBER, in that order) and returns a PyCapsule holding an ArrowArrayStream
    ("arrow_array_stream"), or with ``whole`` the drained result column by column (see
    ``_arrow.whole_table``). Rows not matching the predicate are removed exactly. ``threads``
    file groups are read at once (0 = one per core; 1 = on the consumer's thread)."""

def read_schema(table: Table, read_fields: Sequence[str]) -> Any:
    """The output schema of read() as an "arrow_schema" PyCapsule."""

def manifest_cache_stats() -> Dict[str, int]:
    """The process-wide decoded-manifest cache: hits, misses, manifests, bytes, capacity."""

def set_manifest_cache_capacity(bytes: int) -> None:
    """Bytes the decoded-manifest cache may hold (0 disables it; shrinking evicts)."""

def blob_descriptor_serialize(uri: str, offset: int, length: int) -> bytes:
    """Version-2 BlobDescriptor bytes (codec/blob_file.h)."""

def blob_descriptor_deserialize(data: Any) -> Tuple[str, int, int, int]:
    """(uri, offset, length, version) of version 0/1/2 descriptor bytes (any object
    ``bytes()`` accepts). ValueError "invalid BlobDescriptor: ..." (or "offset and length
    must be >= 0, ...") when malformed; UnicodeDecodeError when the uri is not UTF-8."""

def blob_looks_like_descriptor(data: Any) -> bool:
    """pypaimon's detection rule: >= 9 bytes, version 0 or 2, then the BLOBDESC magic."""

def blob_array_holds_descriptor(array: Any) -> bool:
    """True when any valid value of a binary / string array (``__arrow_c_array__``) looks
    like a serialized BlobDescriptor (blob_looks_like_descriptor). TypeError for other
    types."""

def blob_ranges_of(values: Sequence[Any]) -> List[Tuple[str, int, int]]:
    """The (uri, offset, length) of each serialized descriptor, in order, all checked before
    returning: ValueError "expected serialized BlobDescriptor values (read with
    'blob-as-descriptor'='true'), got raw bytes" for a value that is not one."""

def read_blob_ranges(ranges: Sequence[Tuple[str, int, int]],
                     options: Mapping[str, str] = ...) -> List[bytes]:
    """The bytes of each (uri, offset, length) range, in order. Ranges into ``.blob`` files
    are verified against the CRC of the entry holding them (OSError naming the file when it
    does not match, or when a range lies outside every payload); other files are read as
    they are. ``options``: catalog options whose filesystem keys configure the filesystem of
    the first uri (an object store's endpoint and keys); empty: the local filesystem. Every
    uri is checked first (NotImplementedError for a uri the filesystem cannot read, before
    any read). The GIL is released while reading."""

class BlobFiles:
    """A table's files for payload reads: its own FileIO (a REST table's data token,
    refreshed from the server within an hour of its expiry). Pickles with the table's
    directory, filesystem options (the current token) and REST catalog options, without
    opening the table; the copy asks the server for a token only when the shipped one is
    stale. Thread-safe."""
    def __init__(self, table: Table) -> None: ...
    @property
    def path(self) -> str: ...
    def read(self, ranges: Sequence[Tuple[str, int, int]]) -> List[bytes]:
        """``read_blob_ranges`` through the table's FileIO (ranges into local files are read
        locally); the GIL is released while reading."""

# ---------------------------------------------------------------------------- row-id jobs

class CommitMessage:
    @property
    def file_names(self) -> List[str]: ...
    @property
    def index_file_names(self) -> List[str]: ...
    @property
    def row_count(self) -> int: ...
    check_from_snapshot: Optional[int]
    def is_empty(self) -> bool: ...
    def serialize(self) -> bytes: ...
    @staticmethod
    def deserialize(data: bytes) -> CommitMessage: ...

class RowIdIndex:
    """The file groups of one snapshot, sorted by first row id (built once per job, shipped
    to Ray workers as bytes)."""
    @staticmethod
    def build(table: Table, snapshot_id: Optional[int]) -> RowIdIndex: ...
    @property
    def snapshot_id(self) -> int: ...
    @property
    def num_groups(self) -> int: ...
    @property
    def total_rows(self) -> int: ...
    def group_ranges(self) -> List[Tuple[int, int]]: ...
    def valid_ranges(self) -> List[Tuple[int, int]]: ...
    def route(self, ids: Any, context: str) -> Any:
        """The owning group of each id (a pyarrow int32 Array); ValueError for foreign ids."""
    def estimate_bytes(self, table: Table, owners: Any, columns: List[str]) -> int:
        """File bytes a job touching ``columns`` of the rows routed to ``owners`` (route()'s
        output) costs: each touched group's Parquet bytes of those columns, and of its
        .blob files the routed rows' share (where a Ray row-id job runs)."""
    def serialize(self) -> bytes: ...
    @staticmethod
    def deserialize(data: bytes) -> RowIdIndex: ...

class RebaseStep:
    """What a rebased update round must do: move onto ``latest_index``'s snapshot, checking
    that none of its rows changed since ``previous_base_id``."""
    previous_base_id: int
    latest_index: RowIdIndex

def validate_update_columns(table: Table, cols: List[str], target: str,
                            operation: str, allow_blob: bool = False) -> List[str]: ...

def update_by_row_id(table: Table, source: Any, update_cols: List[str], target: str,
                     threads: int = 0, index: Optional[RowIdIndex] = None,
                     verify_since: Optional[RowIdIndex] = None, reject_deleted: bool = True,
                     allow_blob: bool = False) -> Tuple[List[CommitMessage], int]:
    """The apply kernel of one round: routes and writes, commits nothing; (messages, rows).
    ``reject_deleted``: ids of deleted rows are a ValueError. ``allow_blob``: BLOB columns
    may be set (merge_into), written to .blob files over each touched group."""

def validate_delete(table: Table) -> None:
    """pypaimon's checks of a delete (data evolution, row tracking, deletion vectors)."""

def delete_partitions(table: Table, predicate: Any) -> Optional[List[CommitMessage]]:
    """Messages dropping the partitions ``predicate`` (on partition keys alone) matches;
    None when the predicate looks at other fields."""

def delete_by_row_id(table: Table, row_ids: List[int]) -> List[CommitMessage]:
    """Commit messages deleting ``row_ids`` through deletion vectors; nothing committed."""

def commit_update(table: Table, round: Any, num_updated: int, commit_user: str,
                  properties: Dict[str, str] = ..., max_rebases: int = 5,
                  operation: str = "update_by_row_id") -> Tuple[Optional[int], int]:
    """The one commit path of an update whose rounds run elsewhere: calls
    ``round(None)``, then ``round(RebaseStep)`` after each lost conflict, for the commit
    messages; returns (snapshot id or None, rebases). ``round``'s exceptions pass through."""

def update_by_row_id_commit(table: Table, source: Any, update_cols: List[str], target: str,
                            commit_user: str, threads: int = 0, max_rebases: int = 5,
                            properties: Dict[str, str] = ...
                            ) -> Tuple[int, Optional[int], int]:
    """Embedded update: (rows, snapshot id or None, rebases)."""

def update_file_paths(table: Table, update_cols: List[str], index: RowIdIndex,
                      groups: List[int]) -> List[str]:
    """The files an update with the table's file stem writes for ``groups``."""

def delete_files(table: Table, paths: List[str]) -> int:
    """Deletes the existing files of ``paths`` through the table's FileIO; how many."""

def read_by_row_id(table: Table, source: Any, row_id_col: str, projection: List[str],
                   index: RowIdIndex, threads: int = 0) -> Any:
    """(*projection, _ROW_ID), drained, column by column (see ``_arrow.whole_table``)."""

def read_by_row_id_schema(table: Table, projection: List[str]) -> Any: ...

def hash_join_inner(left: Any, right: Any, left_keys: List[str], right_keys: List[str],
                    build: str = "auto", batch_rows: Optional[int] = None) -> Any:
    """Inner equi hash join of two ``__arrow_c_stream__`` objects: an "arrow_array_stream"
    capsule of (left fields, right non-key fields). ``build`` ("auto" = "left", "left",
    "right") is the side read completely; the other streams. ValueError for bad keys,
    TypeError for key pairs of different (or non-atomic) types."""

def live_total_buckets(table: Table) -> List[int]:
    """The distinct ``total_buckets`` of the live files of the snapshot ``table`` reads
    (sorted; [] without a snapshot)."""
# -- range_join planning (python/src/range_plan.cc over join/range_plan.h)

class RangeSide:
    """One side of a range join: its splits (one per file group) and their key bounds."""
    def __len__(self) -> int: ...
    def splits(self) -> List[Split]: ...
    def bounds(self) -> List[Tuple[Any, Any]]:
        """Per split (lo, hi) as pyarrow scalars of the key type, (None, None) when unknown."""
    def rows(self) -> List[int]: ...
    def bytes(self) -> List[int]: ...

def plan_range_side(table: Table, range_column: str,
                    partition_filter: Optional[Predicate]) -> RangeSide:
    """Plans the table's selected snapshot with the range key's bounds per split (value stats,
    else Parquet footers, else unknown). KeyError for an unknown column."""

def plan_range_tasks(left: RangeSide, right: RangeSide,
                     num_ranges: int) -> List[Tuple[Any, Any, List[int], List[int]]]:
    """(lo, hi, left split indices, right split indices) per range to join; lo/hi are
    pyarrow scalars or None (unbounded). num_ranges is clamped to [1, 512] and halved while
    the re-read budget is exceeded; ranges one side cannot feed are dropped."""

def _plan_range_tasks_int64(left: Sequence[Tuple[Optional[int], Optional[int], int, int]],
                            right: Sequence[Tuple[Optional[int], Optional[int], int, int]],
                            num_ranges: int) -> List[Tuple[Optional[int], Optional[int],
                                                           List[int], List[int]]]:
    """Test seam: plan_range_tasks over synthetic int64 extents (lo, hi, rows, bytes)."""

# -- progress of the long jobs (python/src/progress.cc over common/progress.h)

class ProgressCounter:
    """Units of work known (total) and finished (done) of a running job, counted by the job's
    threads; cancel() asks it to stop at its next check (a Cancelled error, RuntimeError)."""
    def __init__(self) -> None: ...
    @property
    def total(self) -> int: ...
    @property
    def done(self) -> int: ...
    @property
    def cancelled(self) -> bool: ...
    def cancel(self) -> None: ...

# -- data-evolution compaction (python/src/compact.cc over maint/compact.h)

def compact(table: Table, full: bool, min_file_num: Optional[int], threads: int,
            commit_user: str, progress: Optional[ProgressCounter] = None) -> Dict[str, Any]:
    """Compacts the due file groups on the thread pool and commits one COMPACT snapshot:
    {"snapshot_id" (None when nothing was due), "groups_total", "groups_compacted",
    "files_removed", "files_written", "rows_rewritten", "bytes_before", "bytes_written",
    "attempts"}. ValueError for a table without data evolution or min_file_num < 2."""

def plan_compaction(table: Table, full: bool,
                    min_file_num: Optional[int]) -> Tuple[Optional[int], List[Split], int]:
    """(base snapshot id, one single-group split per group to compact, groups in the table)."""

def compact_group(table: Table, split: Split) -> CommitMessage:
    """Rewrites the group of ``split`` into one file; the message also names its inputs."""

def compacted_file_path(table: Table, split: Split) -> str:
    """The file compact_group writes for ``split`` (``table`` must carry a file stem)."""

def commit_compaction(table: Table, messages: List[CommitMessage],
                      commit_user: str) -> Optional[int]:
    """Commits the messages as one COMPACT snapshot; CommitConflictException when an input
    is no longer live (the new files are deleted then)."""

def compaction_tally(messages: List[CommitMessage]) -> Dict[str, Any]:
    """The counts of ``compact`` for these messages."""

# -- maintenance (python/src/maint.cc over maint/expire.h, maint/orphan.h)

def expire_snapshots(table: Table, retain_max: Optional[int], retain_min: Optional[int],
                     older_than_ms: Optional[int], max_deletes: Optional[int],
                     progress: Optional[ProgressCounter] = None) -> Dict[str, Any]:
    """ExpireSnapshots: {"snapshots_expired", "data_files_deleted", "manifest_files_deleted",
    "bytes_freed", "earliest_snapshot_id"}. None takes the table option."""

def remove_orphan_files(table: Table, older_than_ms: Optional[int], dry_run: bool,
                        progress: Optional[ProgressCounter] = None) -> Dict[str, Any]:
    """RemoveOrphanFiles: {"files", "bytes", "paths", "dirs_removed", "dry_run"}."""

# rollback (maint/rollback.h): {"snapshot_id", "snapshots_deleted", "tags_deleted",
# "data_files_deleted", "manifest_files_deleted", "bytes_freed"}; ValueError when the target
# does not exist.
def rollback_to_snapshot(table: Table, snapshot_id: int,
                         delete_unused_files: bool = False) -> Dict[str, Any]: ...
def rollback_to_tag(table: Table, tag_name: str,
                    delete_unused_files: bool = False) -> Dict[str, Any]: ...
def rollback_to_timestamp(table: Table, timestamp_millis: int,
                          delete_unused_files: bool = False) -> Dict[str, Any]: ...

def create_global_index(table: Table, column: str, index_type: str,
                        partition_filter: Optional[Tuple[Any, ...]],
                        options: Dict[str, str],
                        progress: Optional[ProgressCounter] = None) -> int:
    """CreateGlobalIndex: the number of index files added (0: nothing left to index)."""

def drop_global_index(table: Table, column: str, index_type: str,
                      partition_filter: Optional[Tuple[Any, ...]], dry_run: bool) -> int:
    """DropGlobalIndex: the number of live index files matched."""

def global_index_lookup(table: Table, column: str, keys: Any,
                        snapshot_id: Optional[int]) -> Dict[str, Any]:
    """LookupGlobalIndex: {"row_ids", "covered" [(from, to)], "files_read"}."""

def write_sorted_index_range(table: Table, column: str, index_type: str,
                             options: Dict[str, str], partition: bytes, from_: int,
                             to: int) -> List[Dict[str, Any]]:
    """WriteSortedIndexRange: the btree or bitmap files of one planned range, written, not
    committed (dicts for commit_external_index_files, plus "path")."""

def global_index_entries(table: Table) -> List[Dict[str, Any]]:
    """The live global-index entries of the table's snapshot: {"index_type", "column",
    "field_id", "partition", "row_range", "row_count", "file_name", "file_size"}."""

def lookup_row_ids(table: Table, keys: Any, key_column: str) -> Tuple[Any, Dict[str, Any]]:
    """LookupRowIds: (whole-result export of (key_column, _ROW_ID), {"index_used",
    "index_files_read", "index_rows", "scanned_ranges", "scanned_rows"})."""

def global_index_plan_stats(table: Table, predicate: Tuple[Any, ...]) -> Optional[Dict[str, Any]]:
    """RangesFromGlobalIndexes: {"columns", "files_read", "rows_total", "rows_selected",
    "row_ranges"}, or None when no index answers the predicate."""

# search indexes written from Python (python/src/search.cc, docs/search.md)
def external_index_plan(table: Table, column: str, index_type: str,
                        partition_filter: Optional[Tuple[Any, ...]]) -> Dict[str, Any]:
    """PlanExternalIndexBuild: {"snapshot_id", "field_id", "ranges" [(partition bytes, from,
    to)]}: the rows the index does not cover yet."""

def commit_external_index_files(table: Table, files: List[Dict[str, Any]]) -> int:
    """CommitExternalIndexFiles: ADD entries {partition, index_type, file_name, file_size,
    row_count, from, to, field_id, index_meta}; the snapshot id. Deletes the files on failure."""

def external_index_files(table: Table, column: str, index_type: str,
                         snapshot_id: Optional[int],
                         partition_filter: Optional[Tuple[Any, ...]]) -> List[Dict[str, Any]]:
    """The live files of the (column, type) index: {file_name, path, file_size, row_count,
    partition, from, to, index_meta}."""

def deleted_row_ids(table: Table, snapshot_id: Optional[int]) -> bytes:
    """The row ids the snapshot's deletion vectors hide, as int64 little-endian bytes."""

def encode_roaring64(int64_le: bytes) -> bytes:
    """Portable Roaring64 bytes (pyroaring's BitMap64.serialize) of ascending int64 values."""

def index_file_path(table: Table, file_name: str) -> str: ...

def write_index_file(table: Table, path: str, data: bytes) -> None:
    """Writes a new index file (no-replace) through the table's FileIO."""

def read_index_file(table: Table, path: str) -> bytes: ...

def vindex_memory_read_ranges() -> int:
    """The address of a paimon-vindex read_ranges callback whose context is
    {const uint8_t* data; size_t size} (vindex_io.cc)."""

class IndexFileOutput:
    """A new index file written from paimon-vindex's write callbacks (vindex_io.cc)."""

    def __init__(self, table: Table, path: str) -> None: ...
    def callbacks(self) -> Tuple[int, int, int, int]:
        """(context, write, flush, position) addresses for PaimonVindexOutputFile."""
    def finish(self) -> int:
        """Writes what is buffered and closes the file; its size (on failure the file is
        deleted and the error raised)."""
    def abort(self) -> None:
        """Stops writing and deletes the file."""
    def check(self) -> None:
        """Raises the error that made a write fail, if any."""
