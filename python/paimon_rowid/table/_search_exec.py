"""How a search runs (docs/search.md): index files searched with paimon-vindex /
paimon-ftindex, exact filter semantics, appended and deleted rows.

For one snapshot: the live index files of the column (in the selected partitions) are searched
with an include bitmap of the rows allowed in their range: the rows the filter selects (a scan
of ``_ROW_ID`` under the filter, exact), minus deleted rows. A file whose allowed rows are few
is scored by brute force over those rows; a filtered index search that returns fewer hits than
allowed rows is widened (every IVF list / a longer DiskANN list) and, if still short, scored by
brute force: a filtered search returns the top-k among the rows satisfying the filter, never
fewer because the index could not reach them. Rows no index file covers (appended after the
build, or partitions not built) are scored by brute force. Scores use pypaimon's conversions
(higher is better); ties go to the smaller row id.

Readers of index files are cached per file path (index files are immutable), up to
``_READER_CACHE_FILES`` files per process; deleted row ids are cached per (table, snapshot), and
the rows a filter selects per (table, snapshot, filter), up to ``_FILTER_CACHE_ENTRIES``.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa

from .._internal._lib import native
from .._internal._time_travel import TIME_TRAVEL_KEYS, pin_snapshot
from . import _search_options as opts
from ._search_refine import vectors_of_hits
from .predicate import Predicate, PredicateBuilder

_READER_CACHE_FILES = 64
_DIRECT_ELEMENTS = 1 << 22  # allowed rows x dimension at or below which a file is scored directly
_lock = threading.Lock()
_readers: OrderedDict[str, Any] = OrderedDict()
_deleted: OrderedDict[Tuple[str, int], np.ndarray] = OrderedDict()
_FILTER_CACHE_ENTRIES = 16
_filtered: OrderedDict[Any, np.ndarray] = OrderedDict()
_prepared_files: OrderedDict[Any, Any] = OrderedDict()

Ranges = List[Tuple[int, int]]


class _MemoryInput:
    """An index file held in memory, as paimon-vindex's / paimon-ftindex's input."""

    def __init__(self, data: bytes) -> None:
        self._view = memoryview(data)

    def pread_many(self, ranges: Sequence[Tuple[int, int]]) -> List[memoryview]:
        return [self._view[o:o + n] for o, n in ranges]

    def pread(self, offset: int, length: int) -> bytes:
        return bytes(self._view[offset:offset + length])


def _cached(path: str, table: Any, opener: Any) -> Any:
    with _lock:
        found = _readers.get(path)
        if found is not None:
            _readers.move_to_end(path)
            return found
    data = native().read_index_file(table._native, path)
    reader = opener(_MemoryInput(data))
    with _lock:
        _readers[path] = reader
        while len(_readers) > _READER_CACHE_FILES:
            _readers.popitem(last=False)
    return reader


def vector_reader(table: Any, path: str) -> Any:
    import paimon_vindex

    def open_reader(source: _MemoryInput) -> Any:
        reader = paimon_vindex.VectorIndexReader(source)
        reader.optimize_for_search()
        reader._paimon_rowid_input = source  # keep the bytes alive with the reader
        return reader

    return _cached(path, table, open_reader)


def full_text_reader(table: Any, path: str) -> Any:
    import paimon_ftindex

    def open_reader(source: _MemoryInput) -> Any:
        reader = paimon_ftindex.FullTextIndexReader(source)
        reader._paimon_rowid_input = source
        return reader

    return _cached(path, table, open_reader)


def deleted_row_ids(table: Any, snapshot_id: int) -> np.ndarray:
    key = (table.path, snapshot_id)
    with _lock:
        found = _deleted.get(key)
    if found is None:
        found = np.frombuffer(native().deleted_row_ids(table._native, snapshot_id), np.int64)
        with _lock:
            _deleted[key] = found
            while len(_deleted) > 64:
                _deleted.popitem(last=False)
    return found


def index_files(table: Any, column: str, types: Sequence[str], snapshot_id: int,
                partition_filter: Optional[Predicate]) -> List[Dict[str, Any]]:
    """The live index files of ``column`` of the ``types`` at ``snapshot_id``, by range start;
    none when reads may not depend on indexes (``global-index.enabled`` false, or
    ``global-index.column-update-action`` IGNORE: an update may have left them stale), so every
    row is then scored directly, as the btree reads do, whatever the search mode."""
    if not native().global_indexes_trusted(table._native):
        return []
    predicate = None if partition_filter is None else partition_filter.to_native()
    out: List[Dict[str, Any]] = []
    for kind in types:
        for f in native().external_index_files(table._native, column, kind, snapshot_id,
                                               predicate):
            f["index_type"] = kind
            out.append(f)
    out.sort(key=lambda f: f["from"])
    return out


def merge_ranges(ranges: Ranges) -> Ranges:
    out: Ranges = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def subtract(lo: int, hi: int, covered: Ranges) -> Ranges:
    out: Ranges = []
    nxt = lo
    for c_lo, c_hi in covered:
        if c_hi < nxt:
            continue
        if c_lo > hi:
            break
        if c_lo > nxt:
            out.append((nxt, c_lo - 1))
        nxt = max(nxt, c_hi + 1)
    if nxt <= hi:
        out.append((nxt, hi))
    return out


def ids_to_ranges(ids: np.ndarray) -> Ranges:
    if ids.size == 0:
        return []
    breaks = np.nonzero(np.diff(ids) != 1)[0]
    starts = np.concatenate(([ids[0]], ids[breaks + 1]))
    ends = np.concatenate((ids[breaks], [ids[-1]]))
    return [(int(a), int(b)) for a, b in zip(starts, ends)]


def scan(table: Any, columns: List[str], ranges: Ranges, predicate: Optional[Predicate],
         partition_filter: Optional[Predicate]) -> pa.Table:
    """``columns`` + ``_ROW_ID`` of the live rows in ``ranges`` satisfying both predicates."""
    if not ranges:
        return pa.table({c: [] for c in columns + ["_ROW_ID"]})
    builder = table.new_read_builder().with_projection(columns + ["_ROW_ID"])
    conjuncts = [p for p in (predicate, partition_filter) if p is not None]
    if conjuncts:
        builder = builder.with_filter(conjuncts[0] if len(conjuncts) == 1
                                      else PredicateBuilder.and_predicates(conjuncts))
    plan = builder.new_scan().with_row_ranges(ranges).plan()
    return builder.new_read().to_arrow(plan.splits())


def _predicate_key(p: Optional[Predicate]) -> Any:
    if p is None:
        return None
    return (p.method, p.field, tuple(repr(v) for v in p.literals or []),
            tuple(_predicate_key(c) for c in p.children or []))


def matching_rows(table: Any, ranges: Ranges, predicate: Optional[Predicate],
                  partition_filter: Optional[Predicate], snapshot_id: int) -> np.ndarray:
    """The live row ids in ``ranges`` satisfying both predicates (ascending), cached per
    (table, snapshot, predicates, ranges): many queries with one filter scan once."""
    key = (table.path, snapshot_id, _predicate_key(predicate), _predicate_key(partition_filter),
           tuple(ranges))
    with _lock:
        found = _filtered.get(key)
        if found is not None:
            _filtered.move_to_end(key)
            return found
    rows = scan(table, [], ranges, predicate, partition_filter)
    found = np.unique(rows.column("_ROW_ID").to_numpy().astype(np.int64))
    with _lock:
        _filtered[key] = found
        while len(_filtered) > _FILTER_CACHE_ENTRIES:
            _filtered.popitem(last=False)
    return found


def vector_matrix(column: pa.ChunkedArray, row_ids: pa.ChunkedArray
                  ) -> Tuple[np.ndarray, np.ndarray]:
    """(row ids, float32 [n, d]) of the non-null vectors."""
    array = column.combine_chunks()
    ids = row_ids.combine_chunks().to_numpy(zero_copy_only=False).astype(np.int64)
    if len(array) == 0:
        return ids[:0], np.empty((0, 0), np.float32)
    valid = ~np.asarray(array.is_null().to_numpy(zero_copy_only=False), bool)
    ids = ids[valid]
    array = array.filter(pa.array(valid))
    if len(array) == 0:
        return ids, np.empty((0, 0), np.float32)
    flat = array.flatten().to_numpy(zero_copy_only=False).astype(np.float32, copy=False)
    return ids, flat.reshape(len(array), -1)


def scores_of(vectors: np.ndarray, queries: np.ndarray, metric: str) -> np.ndarray:
    """[q, n] scores of ``vectors`` for ``queries`` as paimon-vindex's distances converted by
    pypaimon (l2: squared distance, 1 / (1 + d); cosine: 1 - (1 - cos); ip: dot)."""
    dots = queries @ vectors.T
    if metric == "inner_product":
        return dots
    if metric == "l2":
        d = (queries * queries).sum(1)[:, None] + (vectors * vectors).sum(1)[None, :] - 2 * dots
        return 1.0 / (1.0 + np.maximum(d, 0.0))
    if metric == "cosine":
        qn = np.linalg.norm(queries, axis=1)[:, None]
        vn = np.linalg.norm(vectors, axis=1)[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.nan_to_num(dots / (qn * vn))
    raise ValueError(f"Unknown vector search metric: {metric}")


class TopK:
    """The best ``k`` (score, row id) per query: higher score first, then smaller row id."""

    def __init__(self, queries: int, k: int) -> None:
        self.k = k
        self.scores: List[Dict[int, float]] = [{} for _ in range(queries)]

    def offer(self, query: int, row_ids: Any, scores: Any) -> None:
        found = self.scores[query]
        for row_id, score in zip(row_ids, scores):
            found[int(row_id)] = float(score)
        if len(found) > 4 * self.k:
            self.scores[query] = dict(self.ranked(query))

    def ranked(self, query: int) -> List[Tuple[int, float]]:
        items = sorted(self.scores[query].items(), key=lambda kv: (-kv[1], kv[0]))
        return items[:self.k]


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


def _offer_scores(ids: np.ndarray, vectors: np.ndarray, queries: np.ndarray, metric: str,
                  top: TopK) -> None:
    """Scores ``vectors`` (rows ``ids``) for every query and offers each query's best."""
    if ids.size == 0:
        return
    if vectors.shape[1] != queries.shape[1]:
        raise ValueError(f"Query vector dimension mismatch: expected {vectors.shape[1]}, "
                         f"got {queries.shape[1]}")
    for lo in range(0, ids.size, 65536):
        block = scores_of(vectors[lo:lo + 65536], queries, metric)
        width = int(block.shape[1])
        keep = top.k if top.k < width else width
        for q in range(queries.shape[0]):
            best = np.argpartition(-block[q], keep - 1)[:keep] if keep < width \
                else np.arange(width)
            top.offer(q, ids[lo:lo + 65536][best], block[q][best])


def _read_vectors(table: Any, column: str, ranges: Ranges, predicate: Optional[Predicate] = None,
                  partition_filter: Optional[Predicate] = None,
                  only: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
    rows = scan(table, [column], ranges, predicate, partition_filter)
    ids, vectors = vector_matrix(rows.column(column), rows.column("_ROW_ID"))
    if only is not None and ids.size:
        wanted = np.isin(ids, only)
        ids, vectors = ids[wanted], vectors[wanted]
    return ids, vectors


def _brute_force(table: Any, column: str, ranges: Ranges, queries: np.ndarray, metric: str,
                 top: TopK, predicate: Optional[Predicate] = None,
                 partition_filter: Optional[Predicate] = None) -> None:
    ids, vectors = _read_vectors(table, column, ranges, predicate, partition_filter)
    _offer_scores(ids, vectors, queries, metric, top)


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


def _prepared(table: Any, column: str, f: Dict[str, Any], key: Any,
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
        found.direct = _read_vectors(table, column, ids_to_ranges(include), only=include)
    with _lock:
        _prepared_files[cache_key] = found
        while len(_prepared_files) > _READER_CACHE_FILES:
            _prepared_files.popitem(last=False)
    return found


def _direct_rows(options: Dict[str, str], limit: int, dimension: int) -> int:
    """``brute-force.max-rows``: a file with at most this many allowed rows is scored directly
    (default: as many as hold 2^22 vector elements (16 MiB of float32: 32,768 rows of 128),
    at least 4 x limit); 0 always searches the index."""
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


def _at_one_snapshot(table: Any) -> Tuple[Any, Any]:
    """(handle, snapshot): the snapshot the search runs at and a handle reading exactly it. A
    handle on the latest snapshot is pinned, so a commit landing mid-search (its filter scans,
    brute force over unindexed rows) cannot mix two snapshots into one answer."""
    snapshot = table.resolve_snapshot()
    if snapshot is None or any(k in table.options for k in TIME_TRAVEL_KEYS):
        return table, snapshot
    return pin_snapshot(table, snapshot), snapshot


def vector_search(table: Any, column: str, queries: np.ndarray, limit: int,
                  predicate: Optional[Predicate], partition_filter: Optional[Predicate],
                  options: Dict[str, str]) -> List[List[Tuple[int, float]]]:
    """The top ``limit`` (row id, score) of each query, best first."""
    mode = opts.search_mode(options, table.options, "vector-index")
    table, snapshot = _at_one_snapshot(table)
    top = TopK(queries.shape[0], limit)
    if snapshot is None or not snapshot.next_row_id:
        return [[] for _ in range(queries.shape[0])]
    files = index_files(table, column, opts.VECTOR_INDEX_TYPES, snapshot.id, partition_filter)
    # pypaimon's FAST: rows no index file covers are not searched (unless no index is trusted)
    fast = mode == "fast" and native().global_indexes_trusted(table._native)
    readers = [vector_reader(table, f["path"]) for f in files]
    for reader in readers:
        dimension = reader.metadata().dimension
        if queries.shape[1] != dimension:
            raise ValueError(f"Query vector dimension mismatch: expected {dimension}, "
                             f"got {queries.shape[1]}")
    metrics = {r.metadata().metric for r in readers}
    if len(metrics) > 1:
        raise ValueError(f"Cannot merge vector indexes with different metrics {sorted(metrics)} "
                         f"for column '{column}'.")
    requested = options.get("metric") or options.get("distance.metric")
    metric = metrics.pop() if metrics else str(
        requested or table.options.get(f"fields.{column}.distance.metric")
        or "inner_product").lower()
    covered = merge_ranges([(f["from"], f["to"]) for f in files])
    allowed = None
    if predicate is not None and covered:
        allowed = matching_rows(table, covered, predicate, None, snapshot.id)
    deleted = deleted_row_ids(table, snapshot.id)
    direct_rows = _direct_rows(options, limit, int(queries.shape[1]))
    key = (snapshot.id, _predicate_key(predicate))
    for f, reader in zip(files, readers):
        prep = _prepared(table, column, f, key, allowed, deleted, direct_rows)
        if prep.include is not None and prep.include.size == 0:
            continue
        if prep.direct is not None:
            _offer_scores(prep.direct[0], prep.direct[1], queries, metric, top)
            continue
        _search_file(table, column, f, reader, prep, queries, limit, options, metric, top)
    for lo, hi in [] if fast else subtract(0, snapshot.next_row_id - 1, covered):
        _brute_force(table, column, [(lo, hi)], queries, metric, top, predicate,
                     partition_filter)
    return [top.ranked(q) for q in range(queries.shape[0])]


def _offer_hits(table: Any, column: str, f: Dict[str, Any], ids: np.ndarray,
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
        lambda: _read_vectors(table, column, [(f["from"], f["to"])]),
        lambda wanted: _read_vectors(table, column, ids_to_ranges(wanted), only=wanted))
    position = {int(r): j for j, r in enumerate(found_ids)}
    for i, q in enumerate(rows):
        mine = [position[int(r)] for r in hits[i] if int(r) in position]
        if mine:
            scores = scores_of(vectors[mine], queries[q:q + 1], metric)[0]
            top.offer(q, found_ids[mine], scores)
    return counts


def _search_file(table: Any, column: str, f: Dict[str, Any], reader: Any, prep: _Prepared,
                 queries: np.ndarray, limit: int, options: Dict[str, str], metric: str,
                 top: TopK) -> None:
    meta = reader.metadata()
    include = prep.include
    allowed = meta.total_vectors if include is None else min(meta.total_vectors, include.size)
    k = max(1, min(limit, allowed))
    factor = opts.refine_factor(options, table.options, column, f["index_type"])
    k_search = max(1, min(k * factor, allowed)) if factor else k
    filter_bytes = prep.bitmap()
    everyone = list(range(queries.shape[0]))
    ids, distances = reader.search_batch(queries, _search_params(options, k_search),
                                         filter_bytes)
    counts = _offer_hits(table, column, f, ids, distances, queries, everyone, metric,
                         factor > 0, top)
    still = [q for q in everyone if include is not None and counts[q] < k]
    for width in _widths(meta, k_search):
        if not still:
            return
        ids, distances = reader.search_batch(queries[still], _search_params(options, k_search,
                                                                             width), filter_bytes)
        counts = _offer_hits(table, column, f, ids, distances, queries, still, metric,
                             factor > 0, top)
        still = [q for q, n in zip(still, counts) if n < k]
    if still and include is not None:
        sub = TopK(len(still), limit)
        _brute_force(table, column, ids_to_ranges(include), queries[still], metric, sub)
        for i, q in enumerate(still):
            ranked = sub.ranked(i)
            top.offer(q, [r for r, _ in ranked], [s for _, s in ranked])


def full_text_query(query: Any) -> str:
    """paimon-ftindex's JSON query: a JSON text as is, a mapping as JSON, plain text as
    ``{"match": {"query": text}}``."""
    import json
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


def _raw_full_text(table: Any, column: str, query: str, limit: int, ranges: Ranges,
                   allowed: Optional[np.ndarray], partition_filter: Optional[Predicate],
                   top: TopK) -> None:
    """Rows no index covers: one temporary index over all of them (BM25 statistics of that
    corpus, as pypaimon), searched with the filter's rows as include bitmap."""
    import paimon_ftindex
    rows = scan(table, [column], ranges, None, partition_filter)
    texts, ids = rows.column(column).to_pylist(), rows.column("_ROW_ID").to_pylist()
    pairs = [(i, t) for i, t in zip(ids, texts) if t is not None]
    if not pairs:
        return
    base = ranges[0][0]
    options = opts.full_text_native_options(table.options)
    options["searcher-pool.max-size"] = "0"
    import io
    out = io.BytesIO()
    with paimon_ftindex.FullTextIndexWriter(options) as writer:
        for row_id, text in pairs:
            writer.add_document(int(row_id) - base, text)
        writer.write(out)
    filter_bytes = None
    if allowed is not None:
        inside = allowed[np.isin(allowed, np.asarray([i for i, _ in pairs], np.int64))]
        if inside.size == 0:
            return
        filter_bytes = native().encode_roaring64((inside - base).astype("<i8").tobytes())
    reader = paimon_ftindex.FullTextIndexReader(_MemoryInput(out.getvalue()))
    try:
        hits, scores = _text_hits(reader, query, limit, filter_bytes, len(pairs))
    finally:
        reader.close()
    top.offer(0, [h + base for h in hits], scores)


def full_text_search(table: Any, column: str, query: Any, limit: int,
                     predicate: Optional[Predicate], partition_filter: Optional[Predicate]
                     ) -> List[Tuple[int, float]]:
    """The top ``limit`` (row id, BM25 score) of ``query`` over the full-text index files of
    ``column``; rows no file covers are searched through one temporary index over them."""
    text = full_text_query(query)
    fast = opts.search_mode({}, table.options, "full-text-index") == "fast"
    table, snapshot = _at_one_snapshot(table)
    if snapshot is None or not snapshot.next_row_id:
        return []
    files = index_files(table, column, (opts.FULL_TEXT_INDEX_TYPE,), snapshot.id,
                        partition_filter)
    covered = merge_ranges([(f["from"], f["to"]) for f in files])
    uncovered = subtract(0, snapshot.next_row_id - 1, covered)
    if fast and native().global_indexes_trusted(table._native):
        uncovered = []  # pypaimon's FAST: rows no index file covers are not searched
    allowed = None
    if predicate is not None:
        allowed = matching_rows(table, merge_ranges(covered + uncovered), predicate,
                                partition_filter, snapshot.id)
    deleted = deleted_row_ids(table, snapshot.id)
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
        reader = full_text_reader(table, f["path"])
        ids, scores = _text_hits(reader, text, limit, filter_bytes, end - start + 1)
        top.offer(0, [i + start for i in ids], scores)
    if uncovered:
        _raw_full_text(table, column, text, limit, uncovered, allowed, partition_filter, top)
    return top.ranked(0)
