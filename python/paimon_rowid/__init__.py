"""paimon_rowid: fast reads (and row-id updates) of Apache Paimon append tables with row
tracking and data evolution, with pypaimon's API shape.

``from paimon_rowid import CatalogFactory, Schema, Range`` replaces the pypaimon imports;
``update_by_row_id``, ``read_by_row_id`` and ``process_row_id_ranges`` are the row-id jobs,
embedded (no Ray), with ``pypaimon.ray``'s signatures (``paimon_rowid.ray`` runs them on Ray);
``backfill`` computes a derived column in one call, resumable and incremental (beyond pypaimon);
``range_join`` joins two tables clustered by the join key without a shuffle;
``expire_snapshots`` and ``remove_orphan_files`` keep a table's storage bounded. The
native engine (``paimon_rowid._native``) is loaded with the package when it is built, so a
process's first call does not pay for loading it; without it the pure-Python parts (Schema,
Range, PredicateBuilder) still import, and the first native call raises the ImportError.
"""
# pyarrow.fs registers Arrow's S3 shutdown to run at interpreter exit, before modules are torn
# down; the engine's object-store FileIO shares that libarrow (C++'s own exit hook would run
# too late in a Python process).
import sys as _sys

import pyarrow.fs as _pyarrow_fs  # noqa: F401

from ._internal import _lib
from ._internal._progress import JobProgress
from ._internal.exceptions import (
    CatalogException,
    CommitConflictException,
    DatabaseAlreadyExistException,
    DatabaseNoPermissionException,
    DatabaseNotExistException,
    RESTException,
    TableAlreadyExistException,
    TableNoPermissionException,
    TableNotExistException,
    TagAlreadyExistException,
    TagNotExistException,
)
from ._internal.range import Range
from .catalog.catalog import Catalog, CatalogFactory
from .jobs.backfill_job import (
    BackfillError,
    BackfillProgress,
    BackfillResult,
    BackfillStatus,
    RangeStatus,
    backfill,
    backfill_status,
)
from .jobs.compact import compact
from .jobs.joins import bucket_join, bucket_join_reader
from .jobs.key_lookup import lookup_row_ids
from .jobs.maintenance import expire_snapshots, remove_orphan_files
from .jobs.merge_into import merge_into
from .jobs.range_join import range_join
from .jobs.row_id_jobs import read_by_row_id, update_by_row_id
from .jobs.row_id_ranges import process_row_id_ranges
from .schema import DataField, DataType, Schema, TableSchema
from .table.blob import BlobDescriptor, map_with_blobs
from .table.manifest_cache import manifest_cache_stats, set_manifest_cache_capacity
from .table.merge_clauses import WhenMatched, WhenNotMatched, lit, source_col, target_col
from .table.predicate import Predicate, PredicateBuilder
from .table.read import ReadBuilder, TableRead
from .table.scan import Plan, Split, TableScan
from .table.table import Table

__all__ = [
    "CatalogFactory", "Catalog", "Schema", "TableSchema", "DataField", "DataType", "Range",
    "Table", "ReadBuilder", "TableScan", "Plan", "Split", "TableRead", "Predicate",
    "PredicateBuilder", "CatalogException", "DatabaseNotExistException",
    "DatabaseAlreadyExistException", "TableNotExistException", "TableAlreadyExistException",
    "CommitConflictException", "TagNotExistException", "TagAlreadyExistException",
    "DatabaseNoPermissionException", "TableNoPermissionException", "RESTException",
    "BlobDescriptor", "map_with_blobs",
    # the row-id jobs, embedded (paimon_rowid.ray has the same calls on Ray)
    "update_by_row_id", "read_by_row_id", "process_row_id_ranges",
    # a derived column in one call (paimon_rowid.ray.backfill runs it on Ray)
    "backfill", "backfill_status", "BackfillResult", "BackfillProgress", "BackfillStatus",
    "RangeStatus", "BackfillError",
    # what on_progress receives from every long job (compact, expire_snapshots, ...)
    "JobProgress",
    # SQL's MERGE (paimon_rowid.ray.merge_into runs it on Ray)
    "merge_into", "WhenMatched", "WhenNotMatched", "source_col", "target_col", "lit",
    # key -> row id through a global index, or a pruned scan (paimon_rowid.ray.lookup_row_ids)
    "lookup_row_ids",
    # co-bucketed joins without a shuffle (paimon_rowid.ray.bucket_join runs it on Ray)
    "bucket_join", "bucket_join_reader",
    # a shuffle-free join of tables clustered by the join key (paimon_rowid.ray.range_join)
    "range_join",
    # table maintenance (paimon_rowid.ray.compact runs compaction on Ray)
    "compact",
    # table maintenance: snapshot expiration and orphan-file cleaning
    "expire_snapshots", "remove_orphan_files",
    # the process-wide cache of decoded manifests
    "manifest_cache_stats", "set_manifest_cache_capacity",
]

# The module paths from before the package was laid out in layers (docs/architecture.md) stay
# importable: each old name is the moved module itself (so its private names and monkeypatching
# work as before). The ones the docs, examples, tests and benchmarks use also have a .pyi beside
# this file that gives type checkers their public names. No .py at the old paths, so that git
# follows each module to its new folder.
_MOVED_MODULES = {
    "backfill_job": "jobs.backfill_job", "blob": "table.blob", "compact": "jobs.compact",
    "exceptions": "_internal.exceptions", "global_index": "table.global_index",
    "joins": "jobs.joins",
    "maintenance": "jobs.maintenance", "manifest_cache": "table.manifest_cache",
    "merge_clauses": "table.merge_clauses", "merge_into": "jobs.merge_into",
    "predicate": "table.predicate", "range": "_internal.range", "range_join": "jobs.range_join",
    "read": "table.read", "row_id_jobs": "jobs.row_id_jobs",
    "row_id_ranges": "jobs.row_id_ranges", "scan": "table.scan",
    "table_update": "table.table_update", "write": "table.write",
    "write_builder": "table.write_builder",
}
for _old, _new in _MOVED_MODULES.items():
    _sys.modules.setdefault(f"{__name__}.{_old}", _sys.modules[f"{__name__}.{_new}"])
del _old, _new

# Loaded now rather than by the first catalog or table call: the dynamic loader's work
# (~10 ms of symbol resolution across Arrow's and Parquet's libraries) then belongs to the
# import, not to a process's first operation. A missing module is reported by that call.
try:
    _lib.native()
except ImportError:
    pass
