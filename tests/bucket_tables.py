"""Fixed-bucket tables written by the pypaimon oracle for the bucket_join suites, and the
reference join the results are compared with."""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pyarrow as pa

LEFT_SCHEMA = pa.schema([("k", pa.int64()), ("a", pa.string())])
RIGHT_SCHEMA = pa.schema([("b", pa.int32()), ("k", pa.int64())])

NESTED_LEFT = pa.schema([
    ("k", pa.string()), ("arr", pa.list_(pa.int32())),
    ("m", pa.map_(pa.string(), pa.int64())),
    ("row", pa.struct([("x", pa.int32()), ("y", pa.string())])),
])
NESTED_RIGHT = pa.schema([
    ("k", pa.string()), ("vec", pa.list_(pa.float32(), 3)), ("blobish", pa.binary()),
])


def bucket_options(buckets: int = 4, key: str = "k", **extra: str) -> Dict[str, str]:
    return {"bucket": str(buckets), "bucket-key": key, **extra}


def make_table(oracle, warehouse: str, identifier: str, schema: pa.Schema,
               batches: Sequence[pa.Table], options: Optional[Dict[str, str]] = None,
               partition_keys: Sequence[str] = ()) -> None:
    cmds = [oracle.create_table_cmd(warehouse, identifier, schema,
                                    options=options or bucket_options(),
                                    partition_keys=list(partition_keys))]
    cmds += [oracle.write_cmd(warehouse, identifier, data) for data in batches]
    oracle.run_all(cmds)


def left_rows(n: int = 60, keys: int = 25, offset: int = 0) -> pa.Table:
    ks = [(offset + i) % keys for i in range(n)]
    return pa.table({"k": pa.array(ks + [None], pa.int64()),
                     "a": [f"a{offset + i}" for i in range(n)] + ["null-key"]},
                    schema=LEFT_SCHEMA)


def right_rows(n: int = 30, keys: int = 40, start: int = 10) -> pa.Table:
    ks = [start + (i % keys) for i in range(n)] + [start + (i % keys) for i in range(0, n, 3)]
    return pa.table({"b": list(range(len(ks))) + [999], "k": pa.array(ks + [None], pa.int64())},
                    schema=RIGHT_SCHEMA)


def nested_rows() -> Tuple[pa.Table, pa.Table]:
    """Left rows with ARRAY, MAP and ROW payloads, right rows with a VECTOR-like fixed-size
    list and a binary payload (NULLs and empties included), keyed by k."""
    lrows = pa.table({
        "k": [f"k{i % 7}" for i in range(21)],
        "arr": [[i, i + 1] if i % 4 else None for i in range(21)],
        "m": [[("x", i)] if i % 3 else [] for i in range(21)],
        "row": [{"x": i, "y": f"y{i}"} if i % 5 else None for i in range(21)],
    }, schema=NESTED_LEFT)
    rrows = pa.table({
        "k": [f"k{i % 9}" for i in range(18)],
        "vec": [[float(i), 0.5, -1.0] for i in range(18)],
        "blobish": [bytes([i]) * (i + 1) for i in range(18)],
    }, schema=NESTED_RIGHT)
    return lrows, rrows


def _hashable(value: Any) -> Any:
    return json.dumps(value, sort_keys=True, default=repr)


def row_set(table: pa.Table) -> List[str]:
    """The rows of ``table`` (column order kept) as sorted JSON strings: a multiset."""
    names = table.column_names
    return sorted(_hashable([row[n] for n in names]) for row in table.to_pylist())


def reference_join(left: pa.Table, right: pa.Table, on: List[str]) -> List[str]:
    """Nested-loop inner join of two pyarrow tables (works for any payload), as a row set of
    (left columns, right non-key columns); NULL keys never match."""
    right_extra = [n for n in right.column_names if n not in on]
    index: Dict[str, List[Dict[str, Any]]] = {}
    for row in right.to_pylist():
        key = [row[k] for k in on]
        if any(v is None for v in key):
            continue
        index.setdefault(_hashable(key), []).append(row)
    out = []
    for row in left.to_pylist():
        key = [row[k] for k in on]
        if any(v is None for v in key):
            continue
        for match in index.get(_hashable(key), []):
            out.append(_hashable([row[n] for n in left.column_names]
                                 + [match[n] for n in right_extra]))
    return sorted(out)


def pyarrow_join(left: pa.Table, right: pa.Table, on: List[str]) -> List[str]:
    """What pypaimon's bucket_join computes (pyarrow's hash join), as a row set."""
    joined = left.join(right, keys=on, join_type="inner")
    right_extra = [n for n in right.column_names if n not in on]
    return row_set(joined.select(left.column_names + right_extra))

