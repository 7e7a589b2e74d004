"""Building the search indexes of data-evolution tables (docs/search.md): vector indexes with
paimon-vindex (``ivf-flat``, ``ivf-pq``, ``ivf-sq``, ``ivf-rq``, ``diskann``) and full-text
indexes with paimon-ftindex (``full-text``), as pypaimon 2.1.0 builds them: the same shards
(``global-index.row-count-per-shard`` rows, cut at contiguous row-id segments of each
partition), the same native options, the same training sample, so equal inputs give
byte-identical index files and index-manifest entries.

What differs: the rows are read by our C++ reader (a shard's row range in one part per core,
read at once on its threads, ``read_shard``), shards are built on
``global-index.build.parallelism`` threads (default: the machine's cores; paimon-vindex
releases the GIL while it trains and assigns), and the build is planned and committed by the
C++ core (``external_index_plan`` / ``commit_external_index_files``), whose commit checks
refuse an index that overlaps a live one. On any failure every index file written is deleted
and nothing is committed.

Cost: each shard's vectors (rows x dimension float32) are held in memory while it is built; at
most ``parallelism`` shards at a time.
"""
from __future__ import annotations

import io
import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._internal._lib import native
from .._internal._progress import DrawBar, JobProgress, ProgressReporter, check_progress_args
from .._internal._time_travel import pin_snapshot_id
from . import _search_options as opts
from .predicate import Predicate


def _vindex() -> Any:
    try:
        import paimon_vindex
    except ImportError as e:  # the optional "search" extra
        raise ImportError("paimon-vindex is required for vector indexes: "
                          "pip install 'paimon-rowid[search]'") from e
    return paimon_vindex


def _ftindex() -> Any:
    try:
        import paimon_ftindex
    except ImportError as e:
        raise ImportError("paimon-ftindex is required for full-text indexes: "
                          "pip install 'paimon-rowid[search]'") from e
    return paimon_ftindex


@dataclass(frozen=True)
class Shard:
    """One index file to build: ``partition`` (BinaryRow bytes) and inclusive row range."""

    partition: bytes
    start: int
    end: int


def plan_shards(table: Any, column: str, index_type: str, partition_filter: Optional[Predicate],
                rows_per_shard: int) -> Tuple[int, int, List[Shard]]:
    """(snapshot id, field id, shards): the uncovered ranges of the C++ plan cut at multiples
    of ``rows_per_shard`` (pypaimon's shard windows)."""
    predicate = None if partition_filter is None else partition_filter.to_native()
    plan = native().external_index_plan(table._native, column, index_type, predicate)
    shards: List[Shard] = []
    for partition, start, end in plan["ranges"]:
        lo = start
        while lo <= end:
            window_end = (lo // rows_per_shard + 1) * rows_per_shard - 1
            hi = min(end, window_end)
            shards.append(Shard(bytes(partition), lo, hi))
            lo = hi + 1
    return int(plan["snapshot_id"]), int(plan["field_id"]), shards


MIN_PART_ROWS = 10_000  # below this a part's fixed costs (plan, file footers) outweigh it


def read_parts(start: int, end: int, parts: int) -> List[Tuple[int, int]]:
    """The inclusive row range [start, end] cut into at most ``parts`` contiguous ranges in
    row order, each of at least ``MIN_PART_ROWS`` rows, their sizes differing by at most one
    (one range when the rows are fewer than two parts' minimum)."""
    rows = end - start + 1
    count = max(1, min(parts, rows // MIN_PART_ROWS))
    size, longer = divmod(rows, count)
    out: List[Tuple[int, int]] = []
    lo = start
    for i in range(count):
        hi = lo + size + (1 if i < longer else 0) - 1
        out.append((lo, hi))
        lo = hi + 1
    return out


def default_read_parts() -> int:
    """The row ranges a shard is read in when the job sets none: one per core."""
    return os.cpu_count() or 1


def read_shard(pinned: Any, column: str, shard: Shard, parts: Optional[int] = None) -> pa.Table:
    """``column`` and ``_ROW_ID`` of the shard's rows at the pinned snapshot, ordered by row
    id. The range is read in ``parts`` row ranges (default: one per core; ``read_parts``) by
    the native reader, which reads them on its threads at once with the GIL released and
    returns them in row order (one chunk per file group of each part): the same rows as one
    read of the whole range, the file read in ``parts`` pieces on otherwise idle cores."""
    builder = pinned.new_read_builder().with_projection([column, "_ROW_ID"])
    splits: List[Any] = []
    for lo, hi in read_parts(shard.start, shard.end, parts or default_read_parts()):
        splits += builder.new_scan().with_row_ranges([(lo, hi)]).plan().splits()
    table = builder.new_read().to_arrow(splits)
    if table.num_rows and table.column("_ROW_ID").null_count:
        raise ValueError("Cannot build global index because _ROW_ID is null.")
    if table.num_rows > 1:
        ids = np.concatenate([c.to_numpy(zero_copy_only=False)
                              for c in table.column("_ROW_ID").chunks])
        if (np.diff(ids) < 0).any():  # sorting copies the rows
            table = table.sort_by("_ROW_ID")
    return table


VectorBlocks = List[Tuple[np.ndarray, np.ndarray]]


def vector_blocks(rows: pa.Table, dimension: int, start: int) -> VectorBlocks:
    """The non-null vectors of ``rows`` (column 0 the vectors, column 1 ``_ROW_ID``) as
    (relative row ids int64, vectors float32 [n, dimension]) blocks in row order, one per
    record batch read: the vectors are views of the arrays read (no concatenation, no copy;
    a copy only where nulls are dropped). ValueError as ``vectors_of``."""
    out: VectorBlocks = []
    for batch in rows.to_batches():
        ids, data = vectors_of(batch.column(0), batch.column(1), dimension, start)
        if ids.shape[0]:
            out.append((ids, data))
    return out


def vectors_of(column: Any, row_ids: Any, dimension: int,
               start: int) -> Tuple[np.ndarray, np.ndarray]:
    """(relative row ids int64, vectors float32 [n, dimension]) of the non-null vectors of an
    Array or ChunkedArray (several chunks are concatenated: ``vector_blocks`` avoids that);
    ValueError for a vector of another length or with a null, NaN or infinite element."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if isinstance(row_ids, pa.ChunkedArray):
        row_ids = row_ids.combine_chunks() if row_ids.num_chunks != 1 else row_ids.chunk(0)
    array, ids = column, row_ids
    if array.null_count:
        valid = pc.is_valid(array)
        array, ids = pc.filter(array, valid), pc.filter(ids, valid)
    n = len(array)
    if n == 0:
        return np.empty(0, np.int64), np.empty((0, dimension), np.float32)
    if pa.types.is_fixed_size_list(array.type):
        lengths_ok = array.type.list_size == dimension
        values = array.values.slice(array.offset * array.type.list_size,
                                    n * array.type.list_size)
    else:
        offsets = array.offsets.to_numpy()
        lengths = np.diff(offsets)
        lengths_ok = bool((lengths == dimension).all())
        if not lengths_ok:
            bad = int(lengths[lengths != dimension][0])
            raise ValueError(f"Vector dimension mismatch: expected {dimension}, but got {bad}")
        values = array.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    if not lengths_ok:
        raise ValueError(f"Vector dimension mismatch: expected {dimension}, but got "
                         f"{array.type.list_size}")
    if values.null_count:
        raise ValueError("Vector element is null")
    data = values.to_numpy(zero_copy_only=False).astype(np.float32, copy=False)
    data = data.reshape(n, dimension)
    # a row sum is finite only if every element is (one float per row, not a mask of the data);
    # a sum that overflows falls back to the element-wise check
    if not np.isfinite(data.sum(axis=1, dtype=np.float32)).all() and \
            not np.isfinite(data).all():
        row, col = np.argwhere(~np.isfinite(data))[0]
        raise ValueError(f"Vector element at rowId={int(ids[row].as_py()) - start}, "
                         f"index={int(col)} is {float(data[row, col])}")
    relative = ids.to_numpy(zero_copy_only=False).astype(np.int64) - start
    return np.ascontiguousarray(relative), np.ascontiguousarray(data)


def training_sample(blocks: VectorBlocks, ratio: float) -> List[np.ndarray]:
    """pypaimon's evenly spaced sample of the blocks' vectors: ceil(n x ratio) rows at
    i x n // count, as arrays in row order (the blocks themselves when every row is kept)."""
    sizes = np.array([data.shape[0] for _, data in blocks], np.int64)
    n = int(sizes.sum())
    count = max(1, min(n, int(math.ceil(n * ratio))))
    if count == n:
        return [data for _, data in blocks]
    positions = np.arange(count, dtype=np.int64) * n // count  # ascending
    firsts = np.concatenate([[0], np.cumsum(sizes)])  # each block's first position
    bounds = np.searchsorted(positions, firsts)  # each block's share of the sample
    sample = np.empty((count, blocks[0][1].shape[1]), np.float32)
    for (_, data), first, lo, hi in zip(blocks, firsts, bounds, bounds[1:]):
        np.take(data, positions[lo:hi] - first, axis=0, out=sample[lo:hi])
    return [sample]


def train(native_options: Mapping[str, str], sample: Sequence[np.ndarray],
          vector_count: int) -> Any:
    """A paimon-vindex training of the ``sample`` arrays' rows, in order
    (``expected-vector-count`` set to the shard's vector count when ``nlist`` is automatic,
    as pypaimon does)."""
    vindex = _vindex()
    options = dict(native_options)
    if (options.get("index.type", "").startswith("ivf_")
            and options.get("nlist") in (None, "auto")
            and "expected-vector-count" not in options):
        options["expected-vector-count"] = str(vector_count)
    with vindex.VectorIndexTrainer.create(options) as trainer:
        for part in sample:
            for lo in range(0, part.shape[0], opts.ADD_BATCH_ROWS):
                trainer.add_training_vectors(part[lo:lo + opts.ADD_BATCH_ROWS])
        return trainer.finish_training()


def write_vector_file(training: Any, blocks: VectorBlocks, table: Any, path: str) -> int:
    """Writes the index file of one shard at ``path`` (a new file of ``table``'s FileIO): its
    vectors (``vector_blocks``, in row order) assigned with ``training`` (consumed); returns
    the file's size. The file does not depend on how the rows are cut into blocks
    (tests/test_search_build.py). paimon-vindex serializes the index through C callbacks
    (``_native.IndexFileOutput``) whose thread writes each 8 MiB piece while the next is
    made; on failure the file is deleted."""
    vindex = _vindex()
    out = native().IndexFileOutput(table._native, path)
    try:
        with vindex.VectorIndexWriter(training) as writer:
            for ids, data in blocks:
                for lo in range(0, ids.shape[0], opts.ADD_BATCH_ROWS):
                    writer.add_vectors(ids[lo:lo + opts.ADD_BATCH_ROWS],
                                       data[lo:lo + opts.ADD_BATCH_ROWS])
            _write_index(writer, out)
        return int(out.finish())
    except BaseException:
        out.abort()
        raise
    finally:
        training.close()


def _write_index(writer: Any, out: Any) -> None:
    """paimon-vindex's ``VectorIndexWriter.write`` with ``out``'s C callbacks in place of its
    Python ones (which copy every piece into a Python bytes object under the GIL)."""
    from paimon_vindex import _ffi
    context, write, flush, position = out.callbacks()
    target = _ffi.PaimonVindexOutputFile()
    target.ctx = context
    target.write_fn = _ffi.WRITE_FN(write)
    target.flush_fn = _ffi.FLUSH_FN(flush)
    target.get_pos_fn = _ffi.GET_POS_FN(position)
    with writer._native_handle_lock:
        writer._require_open()
        rc = _ffi.lib.paimon_vindex_writer_write_index(writer._handle, target)
    if rc != 0:
        out.check()  # the file's own I/O error first
        error = _ffi.lib.paimon_vindex_last_error()
        raise RuntimeError(error.decode("utf-8", errors="replace") if error
                           else "paimon-vindex failed to write the index")


def write_full_text_file(native_options: Mapping[str, str], texts: pa.ChunkedArray,
                         row_ids: pa.ChunkedArray, start: int) -> Optional[bytes]:
    """The full-text index file of one shard, None when every text is null."""
    ftindex = _ftindex()
    pairs = [(i, t) for i, t in zip(row_ids.to_pylist(), texts.to_pylist()) if t is not None]
    if not pairs:
        return None
    out = io.BytesIO()
    with ftindex.FullTextIndexWriter(dict(native_options)) as writer:
        for row_id, text in pairs:
            writer.add_document(int(row_id) - start, text)
        writer.write(out)
    return out.getvalue()


def file_name(index_type: str) -> str:
    import uuid
    prefix = "full-text" if index_type == opts.FULL_TEXT_INDEX_TYPE else f"vector-{index_type}"
    return f"{prefix}-global-index-{uuid.uuid4()}.index"


def _vector_length(table: Any, column: str) -> Optional[int]:
    arrow_type = table.read_schema([column]).field(0).type
    if pa.types.is_fixed_size_list(arrow_type):
        return int(arrow_type.list_size)
    return None


def check_column(table: Any, column: str, index_type: str) -> None:
    """pypaimon's checks of a search index's column and table."""
    field = next((f for f in table.fields if f.name == column), None)
    if field is None:
        raise ValueError(f"Column '{column}' does not exist in table '{table.identifier}'.")
    arrow_type = table.read_schema([column]).field(0).type
    if index_type == opts.FULL_TEXT_INDEX_TYPE:
        if not (pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type)):
            raise ValueError(
                f"Native full-text index requires string type, but got: {field.type}")
    else:
        if not (pa.types.is_list(arrow_type) or pa.types.is_fixed_size_list(arrow_type)
                or pa.types.is_large_list(arrow_type)):
            raise ValueError("Vector index requires VectorType or ArrayType<FLOAT>, but got: "
                             f"{field.type}")
        if arrow_type.value_type != pa.float32():
            raise ValueError(f"Vector index requires float vector, but got: {field.type}")
    options = table.options
    if str(options.get("bucket", "-1")).strip() != "-1":
        raise ValueError("Generic global index only supports unaware-bucket tables (bucket = "
                         f"-1), but table '{table.identifier}' has bucket = "
                         f"{options.get('bucket')}.")
    dv = str(options.get("deletion-vectors.enabled", "false")).lower() == "true"
    if dv and index_type == opts.FULL_TEXT_INDEX_TYPE:
        raise ValueError("Global index build with deletion vectors requires a native vector "
                         f"index on a data-evolution table. Table '{table.identifier}', index "
                         f"type '{index_type}'.")


def build_search_index(table: Any, column: str, index_type: str,
                       partition_filter: Optional[Predicate],
                       user_options: Mapping[str, Any],
                       run_shards: Optional[Callable[..., List[Dict[str, Any]]]] = None,
                       progress: Any = False,
                       on_progress: Optional[Callable[[JobProgress], Any]] = None,
                       draw: Optional[DrawBar] = None) -> int:
    """Builds and commits the ``index_type`` index of ``column`` over the rows it does not
    cover yet; returns the number of index files added. ``run_shards(job, shards, reporter)``
    (Ray) may replace the local thread pool; it returns the written files' manifest dicts.

    ``progress`` / ``on_progress``: the jobs' progress interface (job ``create_global_index``,
    unit rows: the row ids of the shards, counted as each shard's file is written). A hook
    that raises stops the build before its commit; every file written is deleted. ``draw``:
    the bar of ``progress=True`` (the Ray door's ``tqdm_ray``; default tqdm)."""
    check_progress_args(progress, on_progress)
    check_column(table, column, index_type)
    table_options = dict(table.options)
    merged = {**table_options, **{str(k): v for k, v in user_options.items()}}
    rows_per_shard = opts.positive_int(merged, "global-index.row-count-per-shard",
                                       opts.DEFAULT_ROWS_PER_SHARD)
    parallelism = opts.positive_int(merged, "global-index.build.parallelism",
                                    os.cpu_count() or 1)
    if index_type == opts.FULL_TEXT_INDEX_TYPE:
        native_options: Dict[str, str] = opts.full_text_native_options(merged)
        ratio = 1.0
    else:
        native_options = opts.vector_native_options(table_options, user_options, index_type,
                                                    column, _vector_length(table, column))
        ratio = opts.train_sample_ratio(table_options, user_options, index_type, column)
    reporter = ProgressReporter("create_global_index", "rows", progress, on_progress,
                                draw=draw)
    try:
        reporter.start()  # a hook that raises here stops the build before it reads anything
        snapshot_id, field_id, shards = plan_shards(table, column, index_type,
                                                    partition_filter, rows_per_shard)
        reporter.add_total(sum(s.end - s.start + 1 for s in shards))
        files: List[Dict[str, Any]] = []
        if shards:
            schema_id = int(table.table_schema.id)
            pinned = pin_snapshot_id(table, snapshot_id, schema_id)
            job = ShardJob(pinned, column, index_type, field_id, native_options, ratio,
                           snapshot_id, schema_id)
            if run_shards is not None:
                files = run_shards(job, shards, reporter)
            else:
                files = run_local(job, shards, parallelism, reporter)
        if files:
            try:
                native().commit_external_index_files(table._native, files)
            except BaseException:
                native().delete_files(table._native, [f["path"] for f in files])
                raise
        reporter.finish()
        return len(files)
    finally:
        reporter.close()


@dataclass
class ShardJob:
    """Everything one shard's build needs (picklable: the table is a catalog handle)."""

    table: Any
    column: str
    index_type: str
    field_id: int
    native_options: Dict[str, str]
    sample_ratio: float
    snapshot_id: int = 0
    schema_id: int = 0  # the schema the pinned table reads with (the caller's)

    read_parts: Optional[int] = None  # row ranges a shard is read in (None: one per core)

    def read(self, shard: Shard) -> pa.Table:
        return read_shard(self.table, self.column, shard, self.read_parts)

    def build(self, shard: Shard, training: Any = None) -> Optional[Dict[str, Any]]:
        """Writes the shard's index file (with ``training`` when given, else trained on the
        shard's own sample); returns its manifest dict, None when the shard has no value."""
        rows = self.read(shard)
        if rows.num_rows == 0:
            if training is not None:
                training.close()
            return None
        name = file_name(self.index_type)
        path = native().index_file_path(self.table._native, name)
        if self.index_type == opts.FULL_TEXT_INDEX_TYPE:
            if training is not None:
                training.close()
            data = write_full_text_file(self.native_options, rows.column(0),
                                        rows.column(1), shard.start)
            if data is None:
                return None
            native().write_index_file(self.table._native, path, data)
            return self._entry(shard, name, path, len(data), rows.num_rows,
                               opts.full_text_meta(self.native_options))
        blocks = vector_blocks(rows, int(self.native_options["dimension"]), shard.start)
        if not blocks:
            if training is not None:
                training.close()
            return None
        if training is None:
            training = train(self.native_options, training_sample(blocks, self.sample_ratio),
                             sum(ids.shape[0] for ids, _ in blocks))
        size = write_vector_file(training, blocks, self.table, path)
        return self._entry(shard, name, path, size, rows.num_rows, b"{}")

    def _entry(self, shard: Shard, name: str, path: str, size: int, rows: int,
               meta: bytes) -> Dict[str, Any]:
        """The manifest dict of a shard's index file."""
        return {"partition": shard.partition, "index_type": self.index_type,
                "file_name": name, "path": path, "file_size": size, "row_count": rows,
                "from": shard.start, "to": shard.end, "field_id": self.field_id,
                "index_meta": meta}


def run_local(job: ShardJob, shards: Sequence[Shard], parallelism: int,
              reporter: Optional[ProgressReporter] = None) -> List[Dict[str, Any]]:
    """Builds the shards on ``parallelism`` threads, counting each finished shard's rows into
    ``reporter``; on failure (or a progress hook raising) cancels the shards not started,
    waits for the running ones and deletes every file written."""
    written: List[Dict[str, Any]] = []

    def done(shard: Shard) -> None:
        if reporter is not None:
            reporter.advance(shard.end - shard.start + 1)

    try:
        if parallelism <= 1 or len(shards) == 1:
            for shard in shards:
                found = job.build(shard)
                if found is not None:
                    written.append(found)
                done(shard)
            return written
        pool = ThreadPoolExecutor(max_workers=min(parallelism, len(shards)),
                                  thread_name_prefix="paimon-rowid-search-index")
        futures = [pool.submit(job.build, shard) for shard in shards]
        consumed = 0
        errors: List[BaseException] = []
        try:
            for shard, future in zip(shards, futures):  # plan order: deterministic manifests
                consumed += 1
                try:
                    found = future.result()
                except BaseException as e:  # keep collecting what others wrote
                    errors.append(e)
                    continue
                if found is not None:
                    written.append(found)
                if not errors:
                    done(shard)
        finally:  # interrupted: no new shard starts; the running ones' files are collected
            for future in futures[consumed:]:
                future.cancel()
            pool.shutdown(wait=True)
            for future in futures[consumed:]:
                if future.done() and not future.cancelled() and future.exception() is None:
                    found = future.result()
                    if found is not None:
                        written.append(found)
        if errors:
            raise errors[0]
        return written
    except BaseException:
        if written:
            native().delete_files(job.table._native, [f["path"] for f in written])
        raise
