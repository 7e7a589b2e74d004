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
SCHEMAS = {"base": BASE_SCHEMA, "blob": BLOB_SCHEMA}


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


def random_ids(rows: int, count: int, *key: int) -> np.ndarray:
    """``count`` distinct ids of [0, rows) in random order."""
    return rng(*key).choice(rows, size=min(count, rows), replace=False)


def clustered_ids(rows: int, count: int, *key: int) -> np.ndarray:
    """``count`` consecutive ids at a random offset, ascending."""
    count = min(count, rows)
    start = int(rng(*key).integers(0, rows - count + 1))
    return np.arange(start, start + count, dtype=np.int64)
