"""Data-evolution test tables written by the pypaimon oracle (shared by the compat and the
corruption suites). Everything is deterministic: same calls, same rows, same row ids."""
from __future__ import annotations

import datetime
import decimal
import random
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

import pyarrow as pa

DE_OPTIONS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}

ROW_TYPE = pa.struct([("a", pa.int32()), ("b", pa.string()),
                      ("inner", pa.struct([("x", pa.float64())]))])

SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    ("c_bool", pa.bool_()), ("c_tinyint", pa.int8()), ("c_smallint", pa.int16()),
    ("c_int", pa.int32()), ("c_bigint", pa.int64()), ("c_float", pa.float32()),
    ("c_double", pa.float64()), ("c_dec_small", pa.decimal128(10, 2)),
    ("c_dec_big", pa.decimal128(30, 6)), ("c_string", pa.string()), ("c_binary", pa.binary()),
    ("c_date", pa.date32()), ("c_ts3", pa.timestamp("ms")), ("c_ts6", pa.timestamp("us")),
    ("c_ltz", pa.timestamp("us", tz="UTC")), ("c_time", pa.time32("ms")),
    ("c_array", pa.list_(pa.int32())), ("c_map", pa.map_(pa.string(), pa.int64())),
    ("c_row", ROW_TYPE), ("p_str", pa.string()), ("p_int", pa.int32()),
])

PARTITIONINGS = {"plain": [], "pstr": ["p_str"], "pboth": ["p_str", "p_int"]}

_EPOCH = datetime.datetime(2024, 1, 1)
_WORDS = ["apple", "banana", "cherry", "date", "elder", "fig", "grape", "ha_ha", "100%"]


def _value(column: str, rnd: random.Random, row_id: int):
    """A value for ``column`` (None ~1/7 of the time for nullable columns)."""
    if column in ("p_str", "p_int"):
        return ["a", "b", "c"][row_id % 3] if column == "p_str" else 1 + (row_id // 3) % 2
    if rnd.random() < 1 / 7:
        return None
    n = rnd.randint(-1000, 1000)
    if column == "c_bool":
        return n % 2 == 0
    if column == "c_tinyint":
        return n % 128
    if column == "c_smallint":
        return n * 17 % 30000
    if column == "c_int":
        return n * 1009
    if column == "c_bigint":
        return n * 10 ** 12 + row_id
    if column == "c_float":
        return n / 8.0
    if column == "c_double":
        return n / 3.0
    if column == "c_dec_small":
        return decimal.Decimal(n * 7919) / 100
    if column == "c_dec_big":
        return decimal.Decimal(n) * 10 ** 18 + decimal.Decimal(row_id) / 10 ** 6
    if column == "c_string":
        return f"{rnd.choice(_WORDS)}-{row_id}"
    if column == "c_binary":
        return bytes([row_id % 256, n % 256]) * (1 + row_id % 3)
    if column == "c_date":
        return (_EPOCH + datetime.timedelta(days=n)).date()
    if column == "c_ts3":
        return _EPOCH + datetime.timedelta(milliseconds=n * 123457)
    if column == "c_ts6":
        return _EPOCH + datetime.timedelta(microseconds=n * 123456789)
    if column == "c_ltz":
        return (_EPOCH + datetime.timedelta(seconds=n * 3607, microseconds=row_id)).replace(
            tzinfo=datetime.timezone.utc)
    if column == "c_time":
        return datetime.time(abs(n) % 24, abs(n) % 60, row_id % 60, (row_id % 1000) * 1000)
    if column == "c_array":
        return [None if k == 2 else n + k for k in range(row_id % 4)]
    if column == "c_map":
        return [(f"k{k}", None if k == 1 else n * k) for k in range(row_id % 3)]
    if column == "c_row":
        return {"a": n, "b": None if n % 5 == 0 else f"r{row_id}",
                "inner": None if n % 7 == 0 else {"x": n / 2}}
    raise KeyError(column)


def rows(first_id: int, count: int, seed: int) -> pa.Table:
    """``count`` rows with ids ``first_id..`` in SCHEMA."""
    rnd = random.Random(seed)
    ids = list(range(first_id, first_id + count))
    columns = {"id": ids}
    for f in SCHEMA:
        if f.name != "id":
            columns[f.name] = [_value(f.name, rnd, i) for i in ids]
    return pa.table(columns, schema=SCHEMA)


def update_rows(row_ids: Sequence[int], columns: Sequence[str], seed: int) -> pa.Table:
    """New values for ``columns`` at ``row_ids`` (with ``_ROW_ID``), typed as the table."""
    rnd = random.Random(seed)
    data = {"_ROW_ID": pa.array(list(row_ids), pa.int64())}
    for column in columns:
        data[column] = pa.array([_value(column, rnd, 1000 + i) for i in row_ids],
                                SCHEMA.field(column).type)
    return pa.table(data)


@dataclass
class BuiltTable:
    """What was committed: snapshot ids by step, tags, and the expected row count."""
    warehouse: str
    identifier: str
    partition_keys: List[str]
    snapshots: Dict[str, int] = field(default_factory=dict)
    tags: Dict[str, int] = field(default_factory=dict)
    num_rows: int = 0


# (step name, kind, payload): writes append rows; updates rewrite some columns by row id.
STEPS = [
    ("write1", "write", (0, 40)),
    ("write2", "write", (40, 30)),
    ("tag:t_after_write2", "tag", None),
    ("write3", "write", (70, 30)),
    ("update1", "update", ([0, 5, 17, 41, 42, 88], ["c_int", "c_string"])),
    ("update2", "update", ([1, 5, 60, 99], ["c_double", "c_array", "c_map"])),
    ("tag:t_after_update2", "tag", None),
    ("update3", "update", ([5, 6, 70, 71, 72], ["c_int", "c_row", "c_ltz"])),
    ("write4", "write", (100, 20)),
]


def build(oracle, warehouse: str, identifier: str, partition_keys: Sequence[str],
          steps=STEPS, options: Optional[Dict[str, str]] = None) -> BuiltTable:
    """Creates the table with pypaimon and runs ``steps`` in one driver process."""
    built = BuiltTable(str(warehouse), identifier, list(partition_keys))
    cmds = [oracle.create_table_cmd(warehouse, identifier, SCHEMA,
                                    partition_keys=partition_keys,
                                    options=dict(DE_OPTIONS if options is None else options))]
    for index, (name, kind, payload) in enumerate(steps):
        if kind == "write":
            first, count = payload
            cmds.append(oracle.write_cmd(warehouse, identifier, rows(first, count, seed=index)))
            built.num_rows += count
        elif kind == "update":
            ids, columns = payload
            cmds.append(oracle.update_cmd(warehouse, identifier,
                                          update_rows(ids, columns, seed=index), columns))
        elif kind == "tag":
            cmds.append(oracle.tag_cmd(warehouse, identifier, name.split(":", 1)[1]))
    results = oracle.run_all(cmds)
    last_snapshot = None
    for (name, kind, _), result in zip(steps, results[1:]):
        if kind == "tag":
            built.tags[name.split(":", 1)[1]] = last_snapshot
        else:
            last_snapshot = result["snapshot_id"]
            built.snapshots[name] = last_snapshot
    return built
