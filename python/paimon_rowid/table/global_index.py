"""Global indexes of data-evolution tables (docs/global-index.md): pypaimon 2.1.0's
``create_global_index`` / ``drop_global_index``, built and committed in C++, plus a key lookup.

The files (btree, bitmap) and index-manifest entries are byte-compatible with pypaimon's:
pypaimon's index-driven reads use our indexes, and we read theirs. ``btree`` and ``bitmap`` are
built in C++; the search index types (``ivf-flat``, ``ivf-pq``, ``ivf-sq``, ``ivf-rq``,
``diskann``, ``full-text``) are built by ``search_index`` with paimon-vindex / paimon-ftindex
(docs/search.md).

Cost of a build: one read of the indexed column and ``_ROW_ID`` of the rows no live file of the
same index covers yet, held in memory per contiguous row-id segment of a partition and sorted
there (as pypaimon does), then one file per ``sorted-index.records-per-file`` x 1.2 rows, and one
commit. The GIL is released throughout.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import pyarrow as pa

from .._internal._lib import native
from .._internal._progress import JobProgress, check_progress_args, run_native
from ._partition_spec import spec_predicate
from ._search_options import SEARCH_INDEX_TYPES
from .predicate import Predicate, PredicateBuilder
from .search_index import build_search_index

PartitionSpecs = Union[Mapping[str, Any], Sequence[Mapping[str, Any]]]


def _column(index_column: Union[str, Sequence[str]]) -> str:
    """pypaimon's normalization: "a,b" or ["a", "b"]; one column only."""
    if isinstance(index_column, str):
        columns = [c.strip() for c in index_column.split(",") if c.strip()]
    else:
        columns = [str(c).strip() for c in index_column if str(c).strip()]
    if len(columns) != 1:
        raise ValueError(
            f"Python global index build currently supports one column, got {columns}.")
    return columns[0]


def _partition_filter(table: Any, partition_filter: Optional[Predicate],
                      partitions: Optional[PartitionSpecs]) -> Optional[Predicate]:
    """``partition_filter`` wins over ``partitions`` (pypaimon's precedence); ``partitions`` is
    one spec or a list of specs, OR-ed."""
    if partition_filter is not None:
        if not isinstance(partition_filter, Predicate):
            raise TypeError("partition_filter must be a paimon_rowid Predicate, got "
                            f"{type(partition_filter).__name__}")
        return partition_filter
    if partitions is None:
        return None
    specs = [partitions] if isinstance(partitions, Mapping) else list(partitions)
    keys = table.partition_keys
    predicates: List[Optional[Predicate]] = []
    for spec in specs:
        if not isinstance(spec, Mapping):
            raise TypeError(f"a partition spec must be a dict, got {type(spec).__name__}")
        for key in spec:
            if key not in keys:
                raise ValueError(f"Partition spec key '{key}' is not a partition column. "
                                 f"Partition keys are: {list(keys)}")
        predicates.append(spec_predicate(table, spec))
    if any(p is None for p in predicates):  # an empty spec selects every partition
        return None
    return PredicateBuilder.or_predicates(predicates)


def _native_filter(predicate: Optional[Predicate]) -> Any:
    return None if predicate is None else predicate.to_native()


def create_global_index(table: Any, index_column: Union[str, Sequence[str]],
                        index_type: str = "btree", partition_filter: Optional[Predicate] = None,
                        partitions: Optional[PartitionSpecs] = None,
                        options: Optional[Mapping[str, Any]] = None, *, progress: Any = False,
                        on_progress: Optional[Callable[[JobProgress], Any]] = None) -> int:
    """Builds the ``index_type`` index of ``index_column`` over the rows it does not cover yet
    and commits it in one snapshot; returns the number of index files added (0 when nothing is
    left to index). ``options`` overlay the table's (``btree-index.block-size``,
    ``btree-index.bloom-filter.enabled``, ``btree-index.compression`` none/zstd,
    ``bitmap-index.dictionary-block-size``, ``sorted-index.records-per-file``).

    Raises ``ValueError`` for an unknown column or index type, a table without row tracking, a
    column type no index accepts, or ``bitmap-index.compression`` other than ``none`` for a
    bitmap build (pypaimon's rule). On any error nothing is committed and no index file is
    left behind.

    Beyond pypaimon: ``progress`` / ``on_progress``, the jobs' progress interface (unit: rows,
    ``total`` the row ids to index); an ``on_progress`` that raises stops the build before
    its commit, leaving nothing behind. The progress arguments are checked first, for every
    index type."""
    check_progress_args(progress, on_progress)
    column = _column(index_column)
    kind = str(index_type).lower().strip()
    predicate = _partition_filter(table, partition_filter, partitions)
    if kind in SEARCH_INDEX_TYPES:  # paimon-vindex / paimon-ftindex (docs/search.md)
        return build_search_index(table, column, kind, predicate, dict(options or {}),
                                  progress=progress, on_progress=on_progress)
    overlay = {str(k): str(v) for k, v in (options or {}).items()}
    return int(run_native("create_global_index", "rows", progress, on_progress,
                          lambda counter: native().create_global_index(
                              table._native, column, kind, _native_filter(predicate), overlay,
                              counter)))


def drop_global_index(table: Any, index_column: Union[str, Sequence[str]],
                      index_type: str = "btree", partition_filter: Optional[Predicate] = None,
                      partitions: Optional[PartitionSpecs] = None, dry_run: bool = False) -> int:
    """Drops the live files of the ``index_type`` index of ``index_column`` (in the selected
    partitions) in one commit; returns how many matched. ``dry_run`` commits nothing. The files
    stay on disk until snapshot expiration or orphan cleaning removes them (as pypaimon)."""
    column = _column(index_column)
    kind = str(index_type).lower().strip()
    predicate = _partition_filter(table, partition_filter, partitions)
    return int(native().drop_global_index(table._native, column, kind,
                                          _native_filter(predicate), bool(dry_run)))


def list_global_indexes(table: Any) -> List[Dict[str, Any]]:
    """The live global-index files of the snapshot the table's options select (default the
    latest), in index-manifest order: one dict per file with ``index_type``, ``column`` (None
    for a field no longer in the schema), ``field_id``, ``partition`` (a dict; empty when
    unpartitioned), ``row_range`` (inclusive), ``row_count``, ``file_name`` and ``file_size``.
    Reads the index manifest only."""
    entries: List[Dict[str, Any]] = native().global_index_entries(table._native)
    return [dict(e, row_range=tuple(e["row_range"]), partition=dict(e["partition"]))
            for e in entries]


@dataclass(frozen=True)
class IndexLookup:
    """What a btree (or bitmap) index says about ``column IN keys``: ``row_ids`` of the
    matching rows among the ``covered`` row-id ranges (inclusive); rows outside them are
    unknown to the index."""

    row_ids: List[int]
    covered: List[Tuple[int, int]] = field(default_factory=list)
    files_read: int = 0
    #: Bytes read from the index files: a btree file is read in ranges (footer, bloom filter,
    #: index block, the data blocks that can hold a key), a bitmap file whole.
    bytes_read: int = 0


def lookup_global_index(table: Any, column: str, keys: Any,
                        snapshot_id: Optional[int] = None) -> IndexLookup:
    """Looks ``keys`` (a list or Arrow array of the column's type; nulls skipped) up in the
    btree index of ``column`` at ``snapshot_id`` (default the latest snapshot), or its bitmap
    index without one. Files whose first and last keys exclude every key are not read.
    ``KeyError`` when the column has neither."""
    field_type = table.read_schema([column]).field(0).type
    array = keys if isinstance(keys, (pa.Array, pa.ChunkedArray)) else pa.array(keys, field_type)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if not array.type.equals(field_type):
        array = array.cast(field_type)
    found: Dict[str, Any] = native().global_index_lookup(table._native, column, array,
                                                         snapshot_id)
    return IndexLookup(list(found["row_ids"]), [tuple(r) for r in found["covered"]],
                       int(found["files_read"]), int(found["bytes_read"]))


def global_index_plan_stats(table: Any, predicate: Predicate) -> Optional[Dict[str, Any]]:
    """The plan statistic of a filtered read of ``table`` (its time-travel options apply):
    which indexed columns' ``=`` / ``IN`` conjuncts narrowed the plan, how many index files were
    read, and how many of the snapshot's row ids (``rows_total``) are left to read
    (``rows_selected``, in ``row_ranges``: the matches plus every row the index does not
    cover). None when no btree or bitmap index answers the predicate (the read scans as
    before). Reads evaluate the same thing while planning; this call repeats it for display."""
    if not isinstance(predicate, Predicate):
        raise TypeError(f"predicate must be a paimon_rowid Predicate, got "
                        f"{type(predicate).__name__}")
    found = native().global_index_plan_stats(table._native, predicate.to_native())
    if found is None:
        return None
    out = dict(found)
    out["columns"] = list(out["columns"])
    out["row_ranges"] = [tuple(r) for r in out["row_ranges"]]
    return out
