"""Vector search over the vector index files of a column (docs/search.md, "Exact filters"):
each file searched with paimon-vindex under an include bitmap of its allowed rows, direct
scoring where few rows are allowed, widening where a filtered search comes back short, and
brute force over the rows no file covers.

What a query costs once a column has been searched at a snapshot: resolving the snapshot
(the table's ``LATEST`` hint), one index search per index file (a leased cached reader), and
with a filter a cache lookup of its rows. The column's files, readers, metric and covered
ranges are kept per (table, snapshot, schema, column, partition filter) (``_plan``); a handle
pinned to the snapshot is made only when the query reads rows (filter scan, brute force,
refine reads): a commit landing mid-query cannot mix two snapshots into one answer.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .._internal._lib import native
from . import _search_io as io
from . import _search_options as opts
from ._search_io import AtSnapshot
from ._search_rank import (
    Ranges,
    TopK,
    ids_to_ranges,
    merge_ranges,
    offer_scores,
    scores_of,
    subtract,
)
from ._search_refine import vectors_of_hits
from .predicate import Predicate

#: Allowed rows x dimension at or below which a file is scored directly. paimon-vindex's
#: filtered IVF search costs about a scan of the whole file whatever the filter keeps (100k x
#: 128 ivf-flat, 10% kept: 16 ms against 0.5 ms direct; at 768: 87 ms against 4.4 ms), so
#: direct scoring wins until the allowed rows are a large part of the file; the bound is memory.
_DIRECT_ELEMENTS = 1 << 24
#: Bytes of directly scored vectors kept across (snapshot, filter, file) entries.
_DIRECT_CACHE_BYTES = 256 << 20
_PLAN_ENTRIES = 16
_lock = threading.Lock()
_plans: OrderedDict[Any, Any] = OrderedDict()
_prepared_files: OrderedDict[Any, Any] = OrderedDict()


@dataclass
class _ColumnPlan:
    """The vector index files of a column at one snapshot, their readers, and what they
    cover."""

    files: List[Dict[str, Any]]
    readers: List[io.VectorReaders]
    metrics: List[str]
    covered: Ranges
    deleted: np.ndarray


def _plan(table: Any, column: str, snapshot_id: int,
          partition_filter: Optional[Predicate]) -> _ColumnPlan:
    key = (table.path, snapshot_id, table.table_schema.id, column,
           io.predicate_key(partition_filter), native().global_indexes_trusted(table._native))
    with _lock:
        found = _plans.get(key)
        if found is not None:
            _plans.move_to_end(key)
            return found
    files = io.index_files(table, column, opts.VECTOR_INDEX_TYPES, snapshot_id, partition_filter)
    readers = [io.vector_readers(table, f["path"]) for f in files]
    found = _ColumnPlan(files, readers, [r.metadata.metric for r in readers],
                        merge_ranges([(f["from"], f["to"]) for f in files]),
                        io.deleted_row_ids(table, snapshot_id))
    with _lock:
        _plans[key] = found
        while len(_plans) > _PLAN_ENTRIES:
            _plans.popitem(last=False)
    return found


def _widths(meta: Any, top_k: int) -> List[Tuple[str, int]]:
    """The wider searches tried, in order, for queries an include bitmap left short: a
    sixteenth, a quarter, then every IVF list; DiskANN lists of 8 x k (at least 512), then 8x
    that."""
    if meta.index_type == "diskann":
        first = max(top_k * 8, 512)
        return [("diskann", first), ("diskann", first * 8)]
    nlist = max(1, int(meta.nlist))
    return [("ivf", w) for w in sorted({max(1, nlist // 16), max(1, nlist // 4), nlist})]


def _search_params(options: Dict[str, str], top_k: int,
                   widen: Optional[Tuple[str, int]] = None) -> Any:
    import paimon_vindex
    nprobe = options.get("ivf.nprobe")
    l_search = options.get("diskann.l_search")
    if nprobe is not None and l_search is not None:
        raise ValueError("Cannot set both 'ivf.nprobe' and 'diskann.l_search'.")
    if widen is not None:
        kind, width = widen
        if kind == "diskann":
            return paimon_vindex.SearchParams.diskann(top_k=top_k, l_search=width)
        return paimon_vindex.SearchParams.ivf(top_k=top_k, nprobe=width)
    for key, value in (("ivf.nprobe", nprobe), ("diskann.l_search", l_search)):
        if value is not None:
            try:
                width = int(value)
            except (TypeError, ValueError) as e:
                raise ValueError(
                    f"Invalid value for '{key}': {value}. Must be an integer.") from e
            if key == "ivf.nprobe":
                return paimon_vindex.SearchParams.ivf(top_k=top_k, nprobe=width)
            return paimon_vindex.SearchParams.diskann(top_k=top_k, l_search=width)
    return paimon_vindex.SearchParams.automatic(top_k=top_k)


def _brute_force(table: Any, column: str, ranges: Ranges, queries: np.ndarray, metric: str,
                 top: TopK, predicate: Optional[Predicate] = None,
                 partition_filter: Optional[Predicate] = None) -> None:
    ids, vectors = io.read_vectors(table, column, ranges, predicate, partition_filter)
    offer_scores(ids, vectors, queries, metric, top)


class _Prepared:
    """What one index file needs for one (snapshot, filter): the allowed rows (None: all),
    their include bitmap, and, when few, their vectors for direct scoring."""

    def __init__(self, include: Optional[np.ndarray], start: int) -> None:
        self.include = include
        self.filter_bytes: Optional[bytes] = None
        self.direct: Optional[Tuple[np.ndarray, np.ndarray]] = None
        self._start = start

    def bitmap(self) -> Optional[bytes]:
        if self.include is not None and self.filter_bytes is None:
            self.filter_bytes = native().encode_roaring64(
                (self.include - self._start).astype("<i8").tobytes())
        return self.filter_bytes


def _prepared(at: AtSnapshot, column: str, f: Dict[str, Any], key: Any,
              allowed: Optional[np.ndarray], deleted: np.ndarray, direct_rows: int
              ) -> _Prepared:
    cache_key = (f["path"], key, direct_rows)
    with _lock:
        found = _prepared_files.get(cache_key)
        if found is not None:
            _prepared_files.move_to_end(cache_key)
            return found
    start, end = f["from"], f["to"]
    include: Optional[np.ndarray] = None
    if allowed is not None:
        include = allowed[(allowed >= start) & (allowed <= end)]
    elif deleted.size and ((deleted >= start) & (deleted <= end)).any():
        span = np.arange(start, end + 1, dtype=np.int64)
        include = span[~np.isin(span, deleted)]
    found = _Prepared(include, start)
    if include is not None and 0 < include.size <= direct_rows:
        found.direct = io.read_vectors(at.handle, column, ids_to_ranges(include), only=include)
    with _lock:
        _prepared_files[cache_key] = found
        while len(_prepared_files) > 1 and (
                len(_prepared_files) > io.READER_CACHE_FILES
                or _direct_bytes(_prepared_files.values()) > _DIRECT_CACHE_BYTES):
            _prepared_files.popitem(last=False)
    return found


def _direct_bytes(entries: Any) -> int:
    return sum(p.direct[1].nbytes for p in entries if p.direct is not None)


def _direct_rows(options: Dict[str, str], limit: int, dimension: int) -> int:
    """``brute-force.max-rows``: a file with at most this many allowed rows is scored directly
    (default: as many as hold 2^24 vector elements (64 MiB of float32: 131,072 rows of 128,
    21,845 of 768), at least 4 x limit); 0 always searches the index."""
    value = options.get("brute-force.max-rows")
    if value is None:
        return max(_DIRECT_ELEMENTS // max(1, dimension), 4 * limit)
    try:
        rows = int(value)
    except ValueError:
        rows = -1
    if rows < 0:
        raise ValueError(f"Invalid value for 'brute-force.max-rows': {value}. Must be a "
                         "non-negative integer.")
    return rows


def vector_search(table: Any, column: str, queries: np.ndarray, limit: int,
                  predicate: Optional[Predicate], partition_filter: Optional[Predicate],
                  options: Dict[str, str]) -> List[List[Tuple[int, float]]]:
    """The top ``limit`` (row id, score) of each query, best first."""
    mode = opts.search_mode(options, table.options, "vector-index")
    snapshot = table.resolve_snapshot()
    if snapshot is None or not snapshot.next_row_id:
        return [[] for _ in range(queries.shape[0])]
    at = AtSnapshot(table, snapshot)
    top = TopK(queries.shape[0], limit)
    plan = _plan(table, column, snapshot.id, partition_filter)
    # pypaimon's FAST: rows no index file covers are not searched (unless no index is trusted)
    fast = mode == "fast" and native().global_indexes_trusted(table._native)
    for readers in plan.readers:
        dimension = readers.metadata.dimension
        if queries.shape[1] != dimension:
            raise ValueError(f"Query vector dimension mismatch: expected {dimension}, "
                             f"got {queries.shape[1]}")
    metrics = set(plan.metrics)
    if len(metrics) > 1:
        raise ValueError(f"Cannot merge vector indexes with different metrics {sorted(metrics)} "
                         f"for column '{column}'.")
    requested = options.get("metric") or options.get("distance.metric")
    metric = metrics.pop() if metrics else str(
        requested or table.options.get(f"fields.{column}.distance.metric")
        or "inner_product").lower()
    allowed = None
    if predicate is not None and plan.covered:
        allowed = io.matching_rows(at, plan.covered, predicate, None)
    direct_rows = _direct_rows(options, limit, int(queries.shape[1]))
    key = (snapshot.id, io.predicate_key(predicate))
    for f, readers in zip(plan.files, plan.readers):
        prep = _prepared(at, column, f, key, allowed, plan.deleted, direct_rows)
        if prep.include is not None and prep.include.size == 0:
            continue
        if prep.direct is not None:
            offer_scores(prep.direct[0], prep.direct[1], queries, metric, top)
            continue
        _search_file(at, column, f, readers, prep, queries, limit, options, metric, top)
    for lo, hi in [] if fast else subtract(0, snapshot.next_row_id - 1, plan.covered):
        _brute_force(at.handle, column, [(lo, hi)], queries, metric, top, predicate,
                     partition_filter)
    return [top.ranked(q) for q in range(queries.shape[0])]


def _offer_hits(at: AtSnapshot, column: str, f: Dict[str, Any], ids: np.ndarray,
                distances: np.ndarray, queries: np.ndarray, rows: List[int], metric: str,
                refine: bool, top: TopK) -> List[int]:
    """Offers each query's index hits (exact scores from the rows' vectors when ``refine``,
    cached per index file: _search_refine); returns how many hits each query got."""
    start = f["from"]
    hits = [ids[i][ids[i] >= 0] + start for i in range(len(rows))]
    counts = [int(h.size) for h in hits]
    if not refine:
        for i, q in enumerate(rows):
            keep = ids[i] >= 0
            top.offer(q, hits[i], [opts.score_of_distance(float(d), metric)
                                   for d in distances[i][keep]])
        return counts
    union = np.unique(np.concatenate(hits)) if hits else np.empty(0, np.int64)
    if union.size == 0:
        return counts
    found_ids, vectors = vectors_of_hits(
        f, int(queries.shape[1]), union,
        lambda: io.read_vectors(at.handle, column, [(f["from"], f["to"])]),
        lambda wanted: io.read_vectors(at.handle, column, ids_to_ranges(wanted), only=wanted))
    order = np.argsort(found_ids, kind="stable")
    ordered = found_ids[order]
    for i, q in enumerate(rows):
        at_ = np.minimum(np.searchsorted(ordered, hits[i]), ordered.size - 1)
        mine = order[at_[ordered[at_] == hits[i]]]
        if mine.size:
            scores = scores_of(vectors[mine], queries[q:q + 1], metric)[0]
            mine_ids = found_ids[mine]
            best = np.lexsort((mine_ids, -scores))[:top.k]  # exact scores: only k can win
            top.offer(q, mine_ids[best], scores[best])
    return counts


def _search_file(at: AtSnapshot, column: str, f: Dict[str, Any], readers: io.VectorReaders,
                 prep: _Prepared, queries: np.ndarray, limit: int, options: Dict[str, str],
                 metric: str, top: TopK) -> None:
    meta = readers.metadata
    include = prep.include
    allowed = meta.total_vectors if include is None else min(meta.total_vectors, include.size)
    k = max(1, min(limit, allowed))
    factor = opts.refine_factor(options, at.table.options, column, f["index_type"])
    k_search = max(1, min(k * factor, allowed)) if factor else k
    filter_bytes = prep.bitmap()
    everyone = list(range(queries.shape[0]))
    with readers.lease() as reader:
        ids, distances = reader.search_batch(queries, _search_params(options, k_search),
                                             filter_bytes)
    counts = _offer_hits(at, column, f, ids, distances, queries, everyone, metric, factor > 0,
                         top)
    still = [q for q in everyone if include is not None and counts[q] < k]
    for width in _widths(meta, k_search):
        if not still:
            return
        with readers.lease() as reader:
            ids, distances = reader.search_batch(
                queries[still], _search_params(options, k_search, width), filter_bytes)
        counts = _offer_hits(at, column, f, ids, distances, queries, still, metric, factor > 0,
                             top)
        still = [q for q, n in zip(still, counts) if n < k]
    if still and include is not None:
        sub = TopK(len(still), limit)
        _brute_force(at.handle, column, ids_to_ranges(include), queries[still], metric, sub)
        for i, q in enumerate(still):
            ranked = sub.ranked(i)
            top.offer(q, [r for r, _ in ranked], [s for _, s in ranked])
