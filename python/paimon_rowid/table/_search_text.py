"""Full-text search over the full-text index files of a column (docs/search.md): BM25 with
paimon-ftindex under include bitmaps of the allowed rows; rows no index file covers (appended
after the build, partitions not built, or every row when no index is trusted, as under
``global-index.column-update-action`` IGNORE) through a temporary index over them.

A temporary index is built once per (table, snapshot, schema, column, partition filter, rows)
and kept (``TEMPORARY_INDEXES`` of them, least recently used first): the rows of one snapshot
never change, so it equals an index built over those rows at that snapshot, and the queries
after the first cost a search, not a build. A commit makes a new snapshot and so a new one.
"""
from __future__ import annotations

import io as _bytes_io
import json
import threading
from collections import OrderedDict
from typing import Any, List, Optional, Tuple

import numpy as np

from .._internal._lib import native
from . import _search_io as io
from . import _search_options as opts
from ._search_io import AtSnapshot
from ._search_rank import Ranges, TopK, merge_ranges, subtract
from .predicate import Predicate

#: Temporary full-text indexes kept per process.
TEMPORARY_INDEXES = 4

_lock = threading.Lock()
_search_lock = threading.Lock()  # one search at a time on a shared temporary reader
_temporary: OrderedDict[Any, Optional[Tuple[Any, np.ndarray, int]]] = OrderedDict()


def full_text_query(query: Any) -> str:
    """paimon-ftindex's JSON query: a JSON text as is, a mapping as JSON, plain text as
    ``{"match": {"query": text}}``."""
    if isinstance(query, str):
        return query if query.lstrip().startswith("{") else json.dumps(
            {"match": {"query": query}}, separators=(",", ":"))
    if isinstance(query, dict):
        return json.dumps(query, separators=(",", ":"))
    raise ValueError(f"A full-text query is a string or a mapping, got {type(query).__name__}")


def _text_hits(reader: Any, query: str, limit: int, filter_bytes: Optional[bytes],
               size: int) -> Tuple[List[int], List[float]]:
    """The reader's hits, asked for more while the k-th score ties the last one returned (so
    that ties resolve to the smaller row id, as a search of every candidate would)."""
    want = max(1, min(limit, size))
    while True:
        ids, scores = reader.search(query, limit=want, filter_bytes=filter_bytes)
        if len(ids) < want or want >= size or scores[min(limit, len(ids)) - 1] > scores[-1]:
            return list(ids), list(scores)
        want = min(size, want * 4)


def _build_temporary(at: AtSnapshot, column: str, ranges: Ranges,
                     partition_filter: Optional[Predicate]
                     ) -> Optional[Tuple[Any, np.ndarray, int]]:
    """(reader, row ids it holds (ascending), base row id) of an index over the live non-null
    texts of ``ranges``, or None when there are none."""
    import paimon_ftindex
    rows = io.scan(at.handle, [column], ranges, None, partition_filter)
    texts, ids = rows.column(column).to_pylist(), rows.column("_ROW_ID").to_pylist()
    pairs = sorted((int(i), t) for i, t in zip(ids, texts) if t is not None)
    if not pairs:
        return None
    base = ranges[0][0]
    out = _bytes_io.BytesIO()
    with paimon_ftindex.FullTextIndexWriter(io.full_text_options(at.table.options)) as writer:
        for row_id, text in pairs:
            writer.add_document(row_id - base, text)
        writer.write(out)
    io.tune_malloc()
    source = io.MemoryInput(out.getvalue())
    reader = paimon_ftindex.FullTextIndexReader(source)
    reader._paimon_rowid_input = source
    return reader, np.asarray([i for i, _ in pairs], np.int64), base


def _temporary_index(at: AtSnapshot, column: str, ranges: Ranges,
                     partition_filter: Optional[Predicate]
                     ) -> Optional[Tuple[Any, np.ndarray, int]]:
    table = at.table
    key = (table.path, at.snapshot.id, table.table_schema.id, column,
           io.predicate_key(partition_filter), tuple(ranges),
           tuple(sorted(io.full_text_options(table.options).items())))
    with _lock:
        if key in _temporary:
            _temporary.move_to_end(key)
            return _temporary[key]
    found = _build_temporary(at, column, ranges, partition_filter)
    with _lock:
        _temporary[key] = found
        while len(_temporary) > TEMPORARY_INDEXES:
            _temporary.popitem(last=False)
    return found


def temporary_indexes() -> int:
    """How many temporary indexes are kept (tests)."""
    with _lock:
        return len(_temporary)


def _raw_full_text(at: AtSnapshot, column: str, query: str, limit: int, ranges: Ranges,
                   allowed: Optional[np.ndarray], partition_filter: Optional[Predicate],
                   top: TopK) -> None:
    """Rows no index covers: a temporary index over all of them (BM25 statistics of that
    corpus, as pypaimon), searched with the filter's rows as include bitmap."""
    found = _temporary_index(at, column, ranges, partition_filter)
    if found is None:
        return
    reader, present, base = found
    filter_bytes = None
    if allowed is not None:
        inside = allowed[np.isin(allowed, present)]
        if inside.size == 0:
            return
        filter_bytes = native().encode_roaring64((inside - base).astype("<i8").tobytes())
    with _search_lock:
        hits, scores = _text_hits(reader, query, limit, filter_bytes, int(present.size))
    top.offer(0, [h + base for h in hits], scores)


def full_text_search(table: Any, column: str, query: Any, limit: int,
                     predicate: Optional[Predicate], partition_filter: Optional[Predicate]
                     ) -> List[Tuple[int, float]]:
    """The top ``limit`` (row id, BM25 score) of ``query`` over the full-text index files of
    ``column``; rows no file covers are searched through a temporary index over them."""
    text = full_text_query(query)
    fast = opts.search_mode({}, table.options, "full-text-index") == "fast"
    snapshot = table.resolve_snapshot()
    if snapshot is None or not snapshot.next_row_id:
        return []
    at = AtSnapshot(table, snapshot)
    files = io.index_files(table, column, (opts.FULL_TEXT_INDEX_TYPE,), snapshot.id,
                           partition_filter)
    covered = merge_ranges([(f["from"], f["to"]) for f in files])
    uncovered = subtract(0, snapshot.next_row_id - 1, covered)
    if fast and native().global_indexes_trusted(table._native):
        uncovered = []  # pypaimon's FAST: rows no index file covers are not searched
    allowed = None
    if predicate is not None:
        allowed = io.matching_rows(at, merge_ranges(covered + uncovered), predicate,
                                   partition_filter)
    deleted = io.deleted_row_ids(table, snapshot.id)
    top = TopK(1, limit)
    for f in files:
        start, end = f["from"], f["to"]
        include: Optional[np.ndarray] = None
        if allowed is not None:
            include = allowed[(allowed >= start) & (allowed <= end)]
        elif deleted.size and ((deleted >= start) & (deleted <= end)).any():
            span = np.arange(start, end + 1, dtype=np.int64)
            include = span[~np.isin(span, deleted)]
        if include is not None and include.size == 0:
            continue
        filter_bytes = None if include is None else native().encode_roaring64(
            (include - start).astype("<i8").tobytes())
        reader = io.full_text_reader(table, f["path"])
        ids, scores = _text_hits(reader, text, limit, filter_bytes, end - start + 1)
        top.offer(0, [i + start for i in ids], scores)
    if uncovered:
        _raw_full_text(at, column, text, limit, uncovered, allowed, partition_filter, top)
    return top.ranked(0)
