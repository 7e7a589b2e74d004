"""An order-normalised content hash of an Arrow table that is equal across pyarrow versions,
Arrow layouts (string vs large_string, chunking, slicing) and engines.

Used to check that ours and pypaimon return (or leave behind) the same data without shipping
the data between processes.
"""
from __future__ import annotations

import hashlib
from typing import Dict, Optional, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def _type_name(t: pa.DataType) -> str:
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return "binary"
    return str(t)


def _column_digest(column: pa.ChunkedArray) -> str:
    validity, lengths, values = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
    t = column.type
    var_width = _type_name(t) in ("string", "binary")
    for chunk in column.chunks:
        if len(chunk) == 0:
            continue
        validity.update(np.asarray(chunk.is_valid().to_numpy(zero_copy_only=False),
                                   dtype=np.uint8).tobytes())
        if var_width:
            chunk = chunk.cast(pa.large_string() if _type_name(t) == "string"
                               else pa.large_binary())
            buffers = chunk.buffers()
            offsets = np.frombuffer(buffers[1], dtype=np.int64, count=len(chunk) + 1,
                                    offset=chunk.offset * 8)
            lengths.update(np.diff(offsets).tobytes())
            if buffers[2] is not None:
                values.update(memoryview(buffers[2])[offsets[0]:offsets[-1]])
        else:
            if chunk.null_count:
                chunk = pc.fill_null(chunk, pa.scalar(0, t) if not pa.types.is_boolean(t)
                                     else False)
            values.update(np.ascontiguousarray(chunk.to_numpy(zero_copy_only=False)).tobytes())
    whole = hashlib.sha256()
    for part in (validity, lengths, values):
        whole.update(part.digest())
    return whole.hexdigest()[:16]


def table_digest(table: pa.Table, sort_by: Optional[Sequence[str]] = None) -> Dict:
    """``{"rows", "columns": [[name, type], ...], "hash", "column_hashes"}`` of ``table``
    sorted by ``sort_by`` (row order otherwise counts)."""
    if sort_by:
        table = table.sort_by([(k, "ascending") for k in sort_by])
    column_hashes = {f.name: _column_digest(table.column(i))
                     for i, f in enumerate(table.schema)}
    whole = hashlib.sha256(str(table.num_rows).encode())
    columns = [[f.name, _type_name(f.type)] for f in table.schema]
    for name, type_name in columns:
        whole.update(f"{name}:{type_name}:{column_hashes[name]};".encode())
    return {"rows": table.num_rows, "columns": columns, "hash": whole.hexdigest()[:16],
            "column_hashes": column_hashes}
