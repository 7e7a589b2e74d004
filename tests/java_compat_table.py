"""The table the Java compatibility suites share (test_java_compat.py,
test_java_compat_our_writes.py, and the Java suites of compaction, BLOBs, merge_into and
maintenance): every atomic type both implementations support plus nested types, the value
generator, Java's build steps (appends, a partial-column append, updates by row id, tags),
the read cases, our read as user code writes it, and the column-by-column comparison with a
Java dump (both in the neutral encoding of tests/java.py).
"""
from __future__ import annotations

import base64
import random
from typing import Any, Dict, List, Optional, Sequence

from java import arrow_to_neutral

DE_OPTIONS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SYS = ["_ROW_ID", "_SEQUENCE_NUMBER"]

# ------------------------------------------------------------------------------------------
# the table: every atomic type both implementations support, plus nested types
# ------------------------------------------------------------------------------------------

LTZ = " WITH LOCAL TIME ZONE"
FIELDS: List[Dict[str, Any]] = [
    {"name": "id", "type": "BIGINT NOT NULL"},
    {"name": "c_bool", "type": "BOOLEAN"},
    {"name": "c_tinyint", "type": "TINYINT"},
    {"name": "c_smallint", "type": "SMALLINT"},
    {"name": "c_int", "type": "INT"},
    {"name": "c_bigint", "type": "BIGINT"},
    {"name": "c_float", "type": "FLOAT"},
    {"name": "c_double", "type": "DOUBLE"},
    {"name": "c_dec9", "type": "DECIMAL(9, 2)"},      # Java: INT32
    {"name": "c_dec18", "type": "DECIMAL(18, 6)"},    # Java: INT64
    {"name": "c_dec38", "type": "DECIMAL(38, 10)"},   # Java: FIXED_LEN_BYTE_ARRAY
    {"name": "c_char", "type": "CHAR(8)"},
    {"name": "c_varchar", "type": "VARCHAR(40)"},
    {"name": "c_string", "type": "STRING"},
    {"name": "c_binary", "type": "BINARY(4)"},
    {"name": "c_varbinary", "type": "VARBINARY(64)"},
    {"name": "c_bytes", "type": "BYTES"},
    {"name": "c_date", "type": "DATE"},
    {"name": "c_time", "type": "TIME(3)"},
    {"name": "c_ts0", "type": "TIMESTAMP(0)"},
    {"name": "c_ts3", "type": "TIMESTAMP(3)"},
    {"name": "c_ts6", "type": "TIMESTAMP(6)"},
    {"name": "c_ts9", "type": "TIMESTAMP(9)"},        # Java: INT96
    {"name": "c_ltz3", "type": "TIMESTAMP(3)" + LTZ},
    {"name": "c_ltz6", "type": "TIMESTAMP(6)" + LTZ},
    {"name": "c_ltz9", "type": "TIMESTAMP(9)" + LTZ},  # Java: INT96
    {"name": "c_array", "type": {"type": "ARRAY", "element": "INT"}},
    {"name": "c_map", "type": {"type": "MAP", "key": "STRING NOT NULL", "value": "BIGINT"}},
    {"name": "c_row", "type": {"type": "ROW", "fields": [
        {"id": 0, "name": "a", "type": "INT"},
        {"id": 0, "name": "b", "type": "STRING"},
        {"id": 0, "name": "ts", "type": "TIMESTAMP(6)"},
        {"id": 0, "name": "inner", "type": {"type": "ROW", "fields": [
            {"id": 0, "name": "x", "type": "DOUBLE"}]}}]}},
    {"name": "c_array_row", "type": {"type": "ARRAY", "element": {"type": "ROW", "fields": [
        {"id": 0, "name": "k", "type": "STRING"},
        {"id": 0, "name": "d", "type": "DECIMAL(20, 3)"}]}}},
    {"name": "p_str", "type": "STRING"},
    {"name": "p_int", "type": "INT"},
]
NAMES = [f["name"] for f in FIELDS]
PARTITION_COLUMNS = ["p_str", "p_int"]
VALUE_COLUMNS = [n for n in NAMES if n != "id" and n not in PARTITION_COLUMNS]
LAYOUTS = {"plain": [], "pstr": ["p_str"], "pboth": ["p_str", "p_int"]}
# Values that Java must escape in partition directory names (and a null: the default name).
P_STR_VALUES = ["a:b", "x/y", "sp ace=%", None]
P_INT_VALUES = [1, -2, None]

_TYPE = {f["name"]: f["type"] for f in FIELDS}
_WORDS = ["", "a", "apple", "日本語テキスト", "emoji-\U0001F600", "exactly-sixteen!",
          "a string that is longer than sixteen characters", "ümlaut-ÄÖÜ-long-enough-x"]
_NS_PER_DAY = 86_400 * 10 ** 9


def random_timestamp(rnd: random.Random, precision: int) -> int:
    """Epoch nanoseconds in 1700..2250 (fits Arrow's ns range), rounded to ``precision``."""
    nanos = rnd.randint(-270 * 365 * _NS_PER_DAY, 280 * 365 * _NS_PER_DAY)
    if rnd.random() < 0.2:  # near the epoch, also negative
        nanos = rnd.randint(-3 * _NS_PER_DAY, 3 * _NS_PER_DAY)
    step = 10 ** (9 - precision)
    return nanos - nanos % step


def _decimal(rnd: random.Random, precision: int, scale: int) -> str:
    bound = 10 ** precision - 1
    unscaled = rnd.choice([bound, -bound, 0, rnd.randint(-bound, bound),
                           rnd.randint(-999, 999)])
    sign = "-" if unscaled < 0 else ""
    digits = str(abs(unscaled)).rjust(scale + 1, "0")
    return f"{sign}{digits[:-scale]}.{digits[-scale:]}" if scale else f"{sign}{digits}"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def value(column: str, rnd: random.Random, row_id: int) -> Any:
    """A neutral-encoded value for ``column`` (None ~1/8 of the time when nullable)."""
    if column == "id":
        return row_id
    if column == "p_str":
        return P_STR_VALUES[row_id % len(P_STR_VALUES)]
    if column == "p_int":
        return P_INT_VALUES[(row_id // 2) % len(P_INT_VALUES)]
    if rnd.random() < 1 / 8:
        return None
    n = rnd.randint(-10 ** 6, 10 ** 6)
    if column == "c_bool":
        return n % 2 == 0
    if column == "c_tinyint":
        return rnd.choice([-128, 127, 0, n % 256 - 128])
    if column == "c_smallint":
        return rnd.choice([-32768, 32767, n % 65536 - 32768])
    if column == "c_int":
        return rnd.choice([-2 ** 31, 2 ** 31 - 1, n * 1009])
    if column == "c_bigint":
        return rnd.choice([-2 ** 63, 2 ** 63 - 1, n * 10 ** 12 + row_id])
    if column == "c_float":
        return rnd.choice([n / 16.0, "NaN", "Infinity", "-Infinity", 3.4028234663852886e38,
                           1.401298464324817e-45, n / 8.0])
    if column == "c_double":
        return rnd.choice([n / 3.0, "NaN", "-Infinity", 1.7976931348623157e308, 5e-324, n * 1e300])
    if column == "c_dec9":
        return _decimal(rnd, 9, 2)
    if column == "c_dec18":
        return _decimal(rnd, 18, 6)
    if column == "c_dec38":
        return _decimal(rnd, 38, 10)
    if column == "c_char":
        return rnd.choice(["", "c", "char-8ch", "日本"])
    if column == "c_varchar":
        return f"{rnd.choice(_WORDS)}-{row_id}"[:40]
    if column == "c_string":
        return f"{rnd.choice(_WORDS)}-{row_id}-{n}"
    if column == "c_binary":
        return _b64(bytes([row_id % 256, n % 256, 0, 255]))
    if column == "c_varbinary":
        return _b64(bytes((n + k) % 256 for k in range(rnd.randint(0, 40))))
    if column == "c_bytes":
        return _b64(bytes((row_id * k) % 256 for k in range(rnd.randint(0, 100))))
    if column == "c_date":
        return rnd.choice([n // 10, -719162, 2932896, 0])  # 0001-01-01 .. 9999-12-31
    if column == "c_time":
        return rnd.randint(0, 86_399_999)
    if column.startswith("c_ts") or column.startswith("c_ltz"):
        precision = int(column[-1])
        return random_timestamp(rnd, precision)
    if column == "c_array":
        return [None if k == 2 else n + k for k in range(row_id % 5)]
    if column == "c_map":
        return [[f"k{k}", None if k == 1 else n * k] for k in range(row_id % 4)]
    if column == "c_row":
        return {"a": n, "b": None if n % 5 == 0 else f"r{row_id}",
                "ts": None if n % 3 == 0 else random_timestamp(rnd, 6),
                "inner": None if n % 7 == 0 else {"x": n / 2}}
    if column == "c_array_row":
        return [None if k == 1 else {"k": f"e{k}", "d": _decimal(rnd, 20, 3)}
                for k in range(row_id % 3)]
    raise KeyError(column)


def rows(first_id: int, count: int, seed: int,
         columns: Optional[Sequence[str]] = None) -> List[Dict[str, Any]]:
    rnd = random.Random(seed)
    columns = list(NAMES if columns is None else columns)
    return [{c: value(c, rnd, i) for c in columns} for i in range(first_id, first_id + count)]


def update_rows(row_ids: Sequence[int], columns: Sequence[str], seed: int
                ) -> List[Dict[str, Any]]:
    rnd = random.Random(seed)
    return [dict({"_ROW_ID": i}, **{c: value(c, rnd, 1000 + i) for c in columns})
            for i in row_ids]


# Steps: appends (full or partial-column), updates by row id, tags. Every value column is
# updated at least once; the partial append's rows are updated too (their group has no file
# holding the other columns).
PARTIAL_COLUMNS = ["id", "c_int", "c_string", "c_ts9", "c_map"]
UPDATE3_COLUMNS = [c for c in VALUE_COLUMNS
                   if c not in ("c_int", "c_string", "c_dec38", "c_double", "c_ts9", "c_ltz9",
                                "c_array", "c_row", "c_binary")]
STEPS = [
    ("write1", "write", (0, 30)),
    ("write2", "write", (30, 25)),
    ("tag:t_write2", "tag", None),
    ("partial", "partial", (55, 15, PARTIAL_COLUMNS)),
    ("update1", "update", ([0, 3, 17, 31, 32, 60], ["c_int", "c_string", "c_dec38"])),
    ("update2", "update", ([1, 3, 45, 66], ["c_double", "c_ts9", "c_ltz9", "c_array", "c_row",
                                            "c_binary"])),
    ("tag:t_update2", "tag", None),
    ("update3", "update", ([3, 4, 5, 56, 69], UPDATE3_COLUMNS)),
    ("write3", "write", (70, 15)),
    ("update4", "update", ([0, 70, 84], ["c_int"])),
]
NUM_ROWS = 85


def java_build_cmds(java, warehouse: str, identifier: str, partition_keys: Sequence[str],
                    create: bool = True) -> List[Dict[str, Any]]:
    cmds = []
    if create:
        cmds.append(java.create_table_cmd(warehouse, identifier, FIELDS, partition_keys,
                                          DE_OPTIONS))
    for index, (name, kind, payload) in enumerate(STEPS):
        if kind == "write":
            first, count = payload
            cmds.append(java.write_cmd(warehouse, identifier, rows(first, count, seed=index)))
        elif kind == "partial":
            first, count, columns = payload
            columns = list(columns) + [k for k in partition_keys if k not in columns]
            cmds.append(java.write_cmd(warehouse, identifier,
                                       rows(first, count, seed=index, columns=columns),
                                       columns=columns))
        elif kind == "update":
            ids, columns = payload
            cmds.append(java.update_cmd(warehouse, identifier,
                                        update_rows(ids, columns, seed=index), columns))
        else:
            cmds.append(java.tag_cmd(warehouse, identifier, name.split(":", 1)[1]))
    return cmds


def step_snapshots(results: Sequence[Any]) -> Dict[str, int]:
    """Snapshot id after each non-tag step (``results`` aligned with STEPS)."""
    out = {}
    for (name, kind, _), result in zip(STEPS, results):
        if kind != "tag":
            out[name] = result["snapshot_id"]
    return out


# ------------------------------------------------------------------------------------------
# reads: Java's dump vs ours, both in the neutral encoding
# ------------------------------------------------------------------------------------------

def read_cases(snapshots: Dict[str, int]) -> Dict[str, Dict[str, Any]]:
    full = NAMES + SYS
    cases = {
        "latest": {"projection": full},
        "default_projection": {},
        "system_first": {"projection": SYS + ["id", "c_string", "c_ts9"]},
        "updated_columns": {"projection": ["c_int", "c_string", "_ROW_ID", "_SEQUENCE_NUMBER"]},
        "id_and_sequence": {"projection": ["id", "_SEQUENCE_NUMBER", "_ROW_ID"]},
        "nested": {"projection": ["c_row", "c_map", "c_array_row", "c_array", "_ROW_ID"]},
        "partition_columns": {"projection": ["p_int", "p_str", "_ROW_ID"]},
        "row_ranges": {"projection": full, "row_ranges": [(2, 5), (30, 40), (80, 200)]},
        "tag_t_write2": {"projection": full, "tag": "t_write2"},
        "tag_t_update2": {"projection": full, "tag": "t_update2"},
    }
    for name, snapshot_id in snapshots.items():
        cases[f"snapshot_{name}"] = {"projection": full, "snapshot_id": snapshot_id}
    return cases


def our_read(warehouse: str, identifier: str, projection=None, snapshot_id=None, tag=None,
             row_ranges=None):
    """paimon_rowid's read, as user code would write it; returns (names, neutral rows sorted
    by _ROW_ID when projected)."""
    from paimon_rowid import CatalogFactory, Range
    table = CatalogFactory.create({"warehouse": str(warehouse)}).get_table(identifier)
    overrides = {}
    if snapshot_id is not None:
        overrides["scan.snapshot-id"] = str(snapshot_id)
    if tag is not None:
        overrides["scan.tag-name"] = tag
    if overrides:
        table = table.copy(overrides)
    read_builder = table.new_read_builder()
    if projection is not None:
        read_builder.with_projection(list(projection))
    scan = read_builder.new_scan()
    if row_ranges is not None:
        scan.with_row_ranges([Range(a, b) for a, b in row_ranges])
    result = read_builder.new_read().to_arrow(scan.plan().splits())
    if "_ROW_ID" in result.column_names:
        result = result.sort_by("_ROW_ID")
    return result.column_names, arrow_to_neutral(result)


def diff_column(name: str, ours: List[Any], theirs: List[Any], row_ids: List[Any]) -> str:
    diffs = [(row_ids[i], a, b) for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    return (f"column {name!r} differs at {len(diffs)} row(s); first (_ROW_ID, ours, Java): "
            f"{diffs[:4]}")


def assert_same_rows(names: List[str], ours: List[List[Any]], dump, context: str,
                     skip: Sequence[str] = ()) -> None:
    assert names == dump.names, f"{context}: columns {names} vs Java {dump.names}"
    assert len(ours) == len(dump.rows), f"{context}: {len(ours)} rows, Java {len(dump.rows)}"
    if "_ROW_ID" not in names:  # no key: compare as multisets
        ours = sorted(ours, key=repr)
        theirs = sorted(dump.rows, key=repr)
    else:
        theirs = dump.rows
    key = names.index("_ROW_ID") if "_ROW_ID" in names else None
    row_ids = [row[key] if key is not None else i for i, row in enumerate(ours)]
    problems = []
    for index, name in enumerate(names):
        if name in skip:
            continue
        a = [row[index] for row in ours]
        b = [row[index] for row in theirs]
        if a != b:
            problems.append(diff_column(name, a, b, row_ids))
    assert not problems, f"{context}:\n" + "\n".join(problems)
