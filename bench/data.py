"""Seeded input data, written once per work dir as Arrow IPC files that both sides read.

Every file's content depends only on (seed, its own parameters), so inputs are byte-identical
across runs, sides and rounds. Row ids: the base table is written by one engine in commit order
from an empty table, so its ``_ROW_ID`` equals ``id`` (0 .. rows-1).
"""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import numpy as np
import pyarrow as pa

SEED = 20260507
Y_RANGE = 1_000_000
BASE_SCHEMA = pa.schema([("id", pa.int64()), ("x", pa.float64()), ("y", pa.int32()),
                         ("s", pa.string())])
BLOB_SCHEMA = pa.schema([("id", pa.int64()), ("payload", pa.large_binary())])  # BLOB
# 6. the embedding backfill: an image BLOB and a nullable VECTOR<FLOAT, 64> embedding.
EMBEDDING_DIM = 64
EMBEDDING_TYPE = pa.list_(pa.float32(), EMBEDDING_DIM)  # fixed_size_list -> VECTOR
HEADER_BYTES = EMBEDDING_DIM * 4  # the "model" reads the first 256 bytes of each image
IMAGE_SCHEMA = pa.schema([("id", pa.int64()), ("image", pa.large_binary()),
                          ("embedding", EMBEDDING_TYPE)])
# 7. planning on many files: two narrow columns.
NARROW_SCHEMA = pa.schema([("id", pa.int64()), ("x", pa.float64())])
LOCATOR_SCHEMA = pa.schema([("k", pa.int64()), ("row_id", pa.int64())])
INCOMING_SCHEMA = pa.schema([("k", pa.int64()), ("label", pa.int64())])
SCHEMAS = {"base": BASE_SCHEMA, "blob": BLOB_SCHEMA, "image": IMAGE_SCHEMA,
           "narrow": NARROW_SCHEMA, "locator": LOCATOR_SCHEMA, "incoming": INCOMING_SCHEMA}
# Business keys of the join workloads: id * an odd constant mod 2^62, a bijection on ids.
_KEY_MULTIPLIER = 0x9E3779B97F4A7C15 & ((1 << 62) - 1) | 1


def rng(*key: int) -> np.random.Generator:
    return np.random.default_rng([SEED, *key])


def write_ipc(path: Path, table: pa.Table) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    with pa.OSFile(str(path), "wb") as sink:
        with pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table, max_chunksize=1 << 20)
    return str(path)


def read_ipc(path: str) -> pa.Table:
    """Memory-mapped, so loading costs no read() syscalls and no copy (works on pyarrow 19)."""
    return pa.ipc.open_file(pa.memory_map(path, "r")).read_all()


def random_strings(gen: np.random.Generator, n: int, min_len: int = 8,
                   max_len: int = 24) -> pa.Array:
    lengths = gen.integers(min_len, max_len + 1, size=n, dtype=np.int32)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    chars = gen.integers(ord("a"), ord("z") + 1, size=int(offsets[-1]), dtype=np.uint8)
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets),
                                                  pa.py_buffer(chars)])


def base_inputs(directory: Path, rows: int, commits: int) -> List[str]:
    """``commits`` files of (id, x, y, s); ids 0..rows-1 in order."""
    paths = []
    bounds = np.linspace(0, rows, commits + 1).astype(np.int64)
    for i in range(commits):
        start, n = int(bounds[i]), int(bounds[i + 1] - bounds[i])
        gen = rng(1, i)
        table = pa.table({
            "id": pa.array(np.arange(start, start + n, dtype=np.int64)),
            "x": pa.array(gen.random(n)),
            "y": pa.array(gen.integers(0, Y_RANGE, size=n, dtype=np.int32)),
            "s": random_strings(gen, n),
        }, schema=BASE_SCHEMA)
        paths.append(write_ipc(directory / f"commit-{i:03d}.arrow", table))
    return paths


def blob_inputs(directory: Path, rows: int, commits: int, payload_bytes: int) -> List[str]:
    """``commits`` files of (id, payload) with random ``payload_bytes``-byte payloads."""
    paths = []
    bounds = np.linspace(0, rows, commits + 1).astype(np.int64)
    for i in range(commits):
        start, n = int(bounds[i]), int(bounds[i + 1] - bounds[i])
        gen = rng(2, i)
        offsets = np.arange(n + 1, dtype=np.int64) * payload_bytes
        payload = pa.Array.from_buffers(pa.large_binary(), n, [
            None, pa.py_buffer(offsets), pa.py_buffer(gen.bytes(n * payload_bytes))])
        table = pa.table({"id": pa.array(np.arange(start, start + n, dtype=np.int64)),
                          "payload": payload}, schema=BLOB_SCHEMA)
        paths.append(write_ipc(directory / f"blob-{i:03d}.arrow", table))
    return paths


def row_id_input(path: Path, ids: np.ndarray, x: Optional[np.ndarray] = None) -> str:
    """(_ROW_ID[, x]) in the given order."""
    columns = {"_ROW_ID": pa.array(ids.astype(np.int64))}
    if x is not None:
        columns["x"] = pa.array(x.astype(np.float64))
    return write_ipc(path, pa.table(columns))


def update_inputs(directory: Path, rows: int, updates: int, fraction: float) -> List[str]:
    """``updates`` files of (_ROW_ID, x): ``fraction`` of [0, rows) at random (distinct
    within a file, a new draw per file), new random x; applied in file order."""
    count = max(1, int(rows * fraction))
    paths = []
    for i in range(updates):
        gen = rng(11, i)
        ids = gen.choice(rows, size=count, replace=False)
        paths.append(row_id_input(directory / f"update-{i:03d}.arrow", ids, gen.random(count)))
    return paths


def random_ids(rows: int, count: int, *key: int) -> np.ndarray:
    """``count`` distinct ids of [0, rows) in random order."""
    return rng(*key).choice(rows, size=min(count, rows), replace=False)


def clustered_ids(rows: int, count: int, *key: int) -> np.ndarray:
    """``count`` consecutive ids at a random offset, ascending."""
    count = min(count, rows)
    start = int(rng(*key).integers(0, rows - count + 1))
    return np.arange(start, start + count, dtype=np.int64)


def image_inputs(directory: Path, rows: int, commits: int, payload_bytes: int) -> List[str]:
    """``commits`` files of (id, image, embedding=NULL). Each image is ``payload_bytes`` bytes:
    a 256-byte header of 64 float32 in [0, 1) (what the backfill's "model" turns into the
    embedding, so no NaN) followed by random bytes."""
    if payload_bytes < HEADER_BYTES:
        raise ValueError(f"images must hold at least {HEADER_BYTES} bytes")
    paths = []
    bounds = np.linspace(0, rows, commits + 1).astype(np.int64)
    for i in range(commits):
        start, n = int(bounds[i]), int(bounds[i + 1] - bounds[i])
        gen = rng(5, i)
        body = np.frombuffer(gen.bytes(n * payload_bytes), dtype=np.uint8).reshape(n, -1).copy()
        body[:, :HEADER_BYTES] = gen.random((n, EMBEDDING_DIM), dtype=np.float32).view(np.uint8)
        offsets = np.arange(n + 1, dtype=np.int64) * payload_bytes
        image = pa.Array.from_buffers(pa.large_binary(), n, [
            None, pa.py_buffer(offsets), pa.py_buffer(body.reshape(-1))])
        table = pa.table({"id": pa.array(np.arange(start, start + n, dtype=np.int64)),
                          "image": image, "embedding": pa.nulls(n, EMBEDDING_TYPE)},
                         schema=IMAGE_SCHEMA)
        paths.append(write_ipc(directory / f"image-{i:03d}.arrow", table))
    return paths


def narrow_inputs(directory: Path, rows: int, commits: int) -> List[str]:
    """``commits`` files of (id, x); ids 0..rows-1 in order."""
    paths = []
    bounds = np.linspace(0, rows, commits + 1).astype(np.int64)
    for i in range(commits):
        start, n = int(bounds[i]), int(bounds[i + 1] - bounds[i])
        table = pa.table({"id": pa.array(np.arange(start, start + n, dtype=np.int64)),
                          "x": pa.array(rng(6, i).random(n))}, schema=NARROW_SCHEMA)
        paths.append(write_ipc(directory / f"narrow-{i:03d}.arrow", table))
    return paths


def image_headers(column) -> np.ndarray:
    """The "model" of the backfill: the first 256 bytes of each image as float32[64], an
    (n, 64) float32 array (a (Chunked)Array of binary / large_binary; numpy only, so it runs
    the same under pyarrow 19 and 22)."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    out = []
    for chunk in chunks:
        n = len(chunk)
        if n == 0:
            continue
        if not pa.types.is_large_binary(chunk.type):
            chunk = chunk.cast(pa.large_binary())
        buffers = chunk.buffers()
        offsets = np.frombuffer(buffers[1], dtype=np.int64, count=n + 1, offset=chunk.offset * 8)
        values = np.frombuffer(buffers[2], dtype=np.uint8)
        lengths = np.diff(offsets)
        if lengths.min() < HEADER_BYTES:
            raise ValueError("an image is shorter than its header")
        if (lengths == lengths[0]).all():  # fixed-size images: one strided view, no copy
            rows = values[offsets[0]:offsets[-1]].reshape(n, int(lengths[0]))[:, :HEADER_BYTES]
        else:
            rows = np.stack([values[o:o + HEADER_BYTES] for o in offsets[:-1]])
        out.append(np.ascontiguousarray(rows).view(np.float32))
    if not out:
        return np.empty((0, EMBEDDING_DIM), dtype=np.float32)
    return np.concatenate(out)


def embedding_array(vectors: np.ndarray) -> pa.Array:
    """(n, 64) float32 -> a non-null VECTOR (fixed_size_list<float32, 64>) array."""
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1))
    return pa.FixedSizeListArray.from_arrays(flat, EMBEDDING_DIM)


def embedding_matrix(column) -> tuple[np.ndarray, np.ndarray]:
    """A VECTOR column as ((n, 64) float32 with null rows zeroed, (n,) bool validity)."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    values, valid = [], []
    for chunk in chunks:
        n = len(chunk)
        if n == 0:
            continue
        if pa.types.is_fixed_size_list(chunk.type):
            child = chunk.values.to_numpy(zero_copy_only=False).astype(np.float32, copy=False)
            matrix = child.reshape(-1, EMBEDDING_DIM)[chunk.offset:chunk.offset + n].copy()
        else:  # a variable-size list (a reader that does not restore the fixed size)
            flat = chunk.flatten().to_numpy(zero_copy_only=False).astype(np.float32)
            matrix = np.zeros((n, EMBEDDING_DIM), dtype=np.float32)
            ok = np.asarray(chunk.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
            matrix[ok] = flat.reshape(-1, EMBEDDING_DIM)
        ok = np.asarray(chunk.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        matrix[~ok] = 0
        values.append(matrix)
        valid.append(ok)
    if not values:
        return np.empty((0, EMBEDDING_DIM), dtype=np.float32), np.empty(0, dtype=bool)
    return np.concatenate(values), np.concatenate(valid)


def join_key(ids: np.ndarray) -> np.ndarray:
    """The business key of row ``id`` (distinct for distinct ids, scattered over int64)."""
    return ((ids.astype(np.uint64) * np.uint64(_KEY_MULTIPLIER))
            & np.uint64((1 << 62) - 1)).astype(np.int64)


def locator_inputs(directory: Path, rows: int, commits: int) -> List[str]:
    """``commits`` files of (k, row_id): the locator of a ``rows``-row table, row_id = id."""
    paths = []
    bounds = np.linspace(0, rows, commits + 1).astype(np.int64)
    for i in range(commits):
        ids = np.arange(int(bounds[i]), int(bounds[i + 1]), dtype=np.int64)
        table = pa.table({"k": pa.array(join_key(ids)), "row_id": pa.array(ids)},
                         schema=LOCATOR_SCHEMA)
        paths.append(write_ipc(directory / f"locator-{i:03d}.arrow", table))
    return paths


def incoming_inputs(directory: Path, rows: int, count: int) -> List[str]:
    """One file of (k, label): ``count`` distinct keys of the locator, random order."""
    ids = rng(8, 0).choice(rows, size=count, replace=False).astype(np.int64)
    table = pa.table({"k": pa.array(join_key(ids)), "label": pa.array(ids * 3)},
                     schema=INCOMING_SCHEMA)
    return [write_ipc(directory / "incoming-000.arrow", table)]
