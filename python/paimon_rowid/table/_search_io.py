"""What a search reads (docs/search.md): index-file readers (paimon-vindex / paimon-ftindex
over the file's bytes held in memory), the live index files of a column, deleted row ids, and
the scans behind exact filters and direct scoring.

Caches, per process: the bytes and opened readers of an index file per path (index files
never change; ``READER_CACHE_FILES`` files), several readers per vector file so that threads
search one file at once (paimon-vindex serializes the calls on one reader); deleted row ids
per (table, snapshot); the rows a filter selects per (table, snapshot, filter, ranges),
``FILTER_CACHE_ENTRIES`` of them.
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa

from .._internal._lib import native
from .._internal._time_travel import TIME_TRAVEL_KEYS, pin_snapshot
from . import _search_options as opts
from ._search_rank import Ranges
from .predicate import Predicate, PredicateBuilder

READER_CACHE_FILES = 64
FILTER_CACHE_ENTRIES = 16
#: Idle readers kept per vector index file (one is opened per thread searching it at once).
IDLE_READERS_PER_FILE = max(2, os.cpu_count() or 1)

_lock = threading.Lock()
_readers: OrderedDict[str, Any] = OrderedDict()
_deleted: OrderedDict[Tuple[str, int], np.ndarray] = OrderedDict()
_filtered: OrderedDict[Any, np.ndarray] = OrderedDict()
_malloc_tuned = False

# glibc mallopt parameters
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
#: Allocations below this come from the heap, not a fresh mmap (glibc's own dynamic limit).
MMAP_THRESHOLD_BYTES = 32 << 20
#: Free heap memory kept before it is returned to the system.
TRIM_THRESHOLD_BYTES = 64 << 20


def tune_malloc() -> None:
    """paimon-vindex allocates, fills and frees a buffer of the lists it probes on every query
    (for ivf-flat at 100k x 128, ~5 MB). Under glibc's default thresholds that buffer is a
    fresh mmap or a heap top trimmed after each query, so each query pays page faults and
    page zeroing for all of it: ~85% of a query's CPU (perf, bench/RESULTS-search.md). Fixed
    thresholds keep such buffers in the heap: at most ``TRIM_THRESHOLD_BYTES`` of freed memory
    stays with the process. Once per process, on Linux with glibc, unless the caller set
    glibc's own ``MALLOC_TRIM_THRESHOLD_`` / ``MALLOC_MMAP_THRESHOLD_`` (theirs win) or
    ``PAIMON_ROWID_KEEP_MALLOC=1``."""
    global _malloc_tuned
    if _malloc_tuned:
        return
    _malloc_tuned = True
    if not sys.platform.startswith("linux") or os.environ.get("PAIMON_ROWID_KEEP_MALLOC") == "1" \
            or any(k in os.environ for k in ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_")):
        return
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 - glibc only (musl has no such thresholds)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)


class AtSnapshot:
    """The snapshot a search answers for and, made on first use, a handle reading exactly it
    (a handle on the latest snapshot is pinned; a time-travel handle already reads one)."""

    def __init__(self, table: Any, snapshot: Any) -> None:
        self.table, self.snapshot = table, snapshot
        self._handle: Optional[Any] = None

    @property
    def handle(self) -> Any:
        if self._handle is None:
            travels = any(k in self.table.options for k in TIME_TRAVEL_KEYS)
            self._handle = self.table if travels else pin_snapshot(self.table, self.snapshot)
        return self._handle


class MemoryInput:
    """An index file held in memory, as paimon-vindex's / paimon-ftindex's input."""

    def __init__(self, data: bytes) -> None:
        self._view = memoryview(data)

    def pread_many(self, ranges: Sequence[Tuple[int, int]]) -> List[memoryview]:
        return [self._view[o:o + n] for o, n in ranges]

    def pread(self, offset: int, length: int) -> bytes:
        return bytes(self._view[offset:offset + length])


class _MemoryFile(ctypes.Structure):
    """python/src/search.cc's MemoryFile: the context of its read callback."""

    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]


class NativeVectorReader:
    """A paimon-vindex 0.5 reader opened through its C ABI with our C read callback over the
    file's bytes (``native().vindex_memory_read_ranges``): the per-query reads of the probed
    lists are one ``memcpy`` each, without the GIL. paimon-vindex's own ``VectorIndexReader``
    reads through a Python callback that takes the GIL and copies each range twice (~40% of
    a query's CPU once the malloc thresholds are fixed, ``tune_malloc``). Same library, same
    file, same results. Not thread-safe: one search at a time (``VectorReaders.lease``)."""

    def __init__(self, data: bytes) -> None:
        from paimon_vindex import _ffi
        self._ffi, self._data = _ffi, data
        self._file = _MemoryFile(ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p), len(data))
        source = _ffi.PaimonVindexInputFile()
        source.ctx = ctypes.cast(ctypes.pointer(self._file), ctypes.c_void_p)
        source.read_ranges_fn = ctypes.cast(native().vindex_memory_read_ranges(),
                                            _ffi.READ_RANGES_FN)
        source.estimated_random_read_latency_nanos = 0
        source.preferred_window_bytes = 0
        source.max_ranges_per_read = 0
        self._source = source
        self._handle = _ffi.lib.paimon_vindex_reader_open_with_options(
            source, _ffi.PaimonVindexReaderOptions(4 << 30))
        if not self._handle:
            self._raise("failed to open reader")
        if _ffi.lib.paimon_vindex_reader_optimize_for_search(self._handle) != 0:
            self._raise("optimize_for_search failed")
        raw = _ffi.PaimonVindexMetadata()
        if _ffi.lib.paimon_vindex_reader_metadata(self._handle, ctypes.byref(raw)) != 0:
            self._raise("metadata failed")
        import paimon_vindex
        self._metadata = paimon_vindex._metadata_from_ffi(raw)

    def _raise(self, message: str) -> None:
        error = self._ffi.lib.paimon_vindex_last_error()
        raise RuntimeError(error.decode("utf-8", errors="replace") if error else message)

    def metadata(self) -> Any:
        return self._metadata

    def search_batch(self, queries: np.ndarray, params: Any,
                     filter_bytes: Optional[bytes] = None) -> Tuple[np.ndarray, np.ndarray]:
        """paimon-vindex's ``search_batch``: ([q, top_k] ids, -1 where none; distances)."""
        queries = np.ascontiguousarray(queries, dtype=np.float32)
        if queries.ndim != 2 or queries.shape[1] != self._metadata.dimension:
            raise RuntimeError(f"queries of shape {queries.shape} do not match index dimension "
                               f"{self._metadata.dimension}")
        n, k = queries.shape[0], params.top_k
        ids = np.empty((n, k), dtype=np.int64)
        distances = np.empty((n, k), dtype=np.float32)
        search, filtered = _search_functions()
        ffi_params = _ffi_params(params)
        if filter_bytes is None:
            rc = search(self._handle, queries.ctypes.data, n, ffi_params, ids.ctypes.data,
                        distances.ctypes.data, n * k)
        else:
            rc = filtered(self._handle, queries.ctypes.data, n, ffi_params, filter_bytes,
                          len(filter_bytes), ids.ctypes.data, distances.ctypes.data, n * k)
        if rc != 0:
            self._raise("batch search failed")
        return ids, distances

    def close(self) -> None:
        if self._handle:
            self._ffi.lib.paimon_vindex_reader_free(self._handle)
            self._handle = None

    def __del__(self) -> None:
        self.close()


_functions: Optional[Tuple[Any, Any]] = None
_params: Dict[Any, Any] = {}


def _search_functions() -> Tuple[Any, Any]:
    """paimon-vindex's batch searches (without, with a Roaring filter) with untyped pointer
    arguments: a query passes array addresses as ints instead of building typed pointers
    (``ctypes.data_as``: about a tenth of our per-query cost). The GIL is released during the
    call, as for the library's own prototypes."""
    global _functions
    if _functions is None:
        from paimon_vindex import _ffi
        p, size = ctypes.c_void_p, ctypes.c_size_t
        params = _ffi.PaimonVindexSearchParamsV2
        plain = ctypes.CFUNCTYPE(ctypes.c_int, p, p, size, params, p, p, size)
        filtered = ctypes.CFUNCTYPE(ctypes.c_int, p, p, size, params, ctypes.c_char_p, size, p,
                                    p, size)
        address = lambda fn: int(ctypes.cast(fn, ctypes.c_void_p).value or 0)  # noqa: E731
        _functions = (
            plain(address(_ffi.lib.paimon_vindex_reader_search_batch_v2)),
            filtered(address(_ffi.lib.paimon_vindex_reader_search_batch_with_roaring_filter_v2)))
    return _functions


def _ffi_params(params: Any) -> Any:
    """The C struct of a (frozen, hashable) ``paimon_vindex.SearchParams``, made once."""
    found = _params.get(params)
    if found is None:
        if len(_params) > 256:
            _params.clear()
        found = _params[params] = params.to_ffi_v2()
    return found


class VectorReaders:
    """The opened readers of one vector index file over its bytes: ``first`` answers metadata;
    ``lease()`` lends a reader to one search (a new one when all are busy)."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self.first = self._open()
        self.metadata = self.first.metadata()
        self._idle = [self.first]

    def _open(self) -> Any:
        return NativeVectorReader(self._data)

    @contextmanager
    def lease(self) -> Iterator[Any]:
        with _lock:
            reader = self._idle.pop() if self._idle else None
        if reader is None:
            reader = self._open()
        try:
            yield reader
        finally:
            with _lock:
                if len(self._idle) < IDLE_READERS_PER_FILE:
                    self._idle.append(reader)


def _cached(path: str, table: Any, opener: Any) -> Any:
    with _lock:
        found = _readers.get(path)
        if found is not None:
            _readers.move_to_end(path)
            return found
    tune_malloc()
    found = opener(native().read_index_file(table._native, path))
    with _lock:
        found = _readers.setdefault(path, found)
        while len(_readers) > READER_CACHE_FILES:
            _readers.popitem(last=False)
    return found


def vector_readers(table: Any, path: str) -> VectorReaders:
    return _cached(path, table, VectorReaders)


def vector_reader(table: Any, path: str) -> Any:
    """A reader of the vector index file at ``path`` (for its metadata; searches lease one
    through ``vector_readers``)."""
    return vector_readers(table, path).first


def full_text_reader(table: Any, path: str) -> Any:
    import paimon_ftindex

    def open_reader(data: bytes) -> Any:
        source = MemoryInput(data)
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
    ``global-index.column-update-action`` IGNORE: an update may have left them stale)."""
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


def predicate_key(p: Optional[Predicate]) -> Any:
    if p is None:
        return None
    return (p.method, p.field, tuple(repr(v) for v in p.literals or []),
            tuple(predicate_key(c) for c in p.children or []))


def matching_rows(at: Any, ranges: Ranges, predicate: Optional[Predicate],
                  partition_filter: Optional[Predicate]) -> np.ndarray:
    """The live row ids in ``ranges`` satisfying both predicates (ascending) at ``at``'s
    snapshot (an ``AtSnapshot``), cached per (table, snapshot, predicates, ranges): many
    queries with one filter scan once."""
    key = (at.table.path, at.snapshot.id, predicate_key(predicate), predicate_key(partition_filter),
           tuple(ranges))
    with _lock:
        found = _filtered.get(key)
        if found is not None:
            _filtered.move_to_end(key)
            return found
    rows = scan(at.handle, [], ranges, predicate, partition_filter)
    found = np.unique(rows.column("_ROW_ID").to_numpy().astype(np.int64))
    with _lock:
        _filtered[key] = found
        while len(_filtered) > FILTER_CACHE_ENTRIES:
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


def read_vectors(table: Any, column: str, ranges: Ranges, predicate: Optional[Predicate] = None,
                 partition_filter: Optional[Predicate] = None,
                 only: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
    """(row ids, vectors) of the live non-null rows in ``ranges`` satisfying the predicates
    (and among ``only`` when given)."""
    rows = scan(table, [column], ranges, predicate, partition_filter)
    ids, vectors = vector_matrix(rows.column(column), rows.column("_ROW_ID"))
    if only is not None and ids.size:
        wanted = np.isin(ids, only)
        ids, vectors = ids[wanted], vectors[wanted]
    return ids, vectors


def full_text_options(table_options: Dict[str, str]) -> Dict[str, str]:
    """paimon-ftindex's options for a temporary index (no searcher pool)."""
    out = opts.full_text_native_options(table_options)
    out["searcher-pool.max-size"] = "0"
    return out
