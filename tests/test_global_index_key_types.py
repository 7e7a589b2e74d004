"""DECIMAL, TIME, TIMESTAMP and TIMESTAMP WITH LOCAL TIME ZONE keys of btree and bitmap global
indexes (docs/global-index.md, "Keys") against pypaimon 2.1.0, both ways: each builder writes
byte-identical files for the same rows; our reads through pypaimon's indexes and pypaimon's
evaluation of ours hold exactly the scan's rows; TIMESTAMP(9) keys are lossy (pypaimon keeps
microseconds), so reads through them stay exact and lookups scan.
"""
from __future__ import annotations

import datetime
import decimal
import os
from typing import Any, List

import pyarrow as pa
import pytest

from oracle import build_predicate, encode_filter

pytestmark = [pytest.mark.native, pytest.mark.oracle]

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
ID = "db.k"
N = 90
BASE = datetime.datetime(1969, 12, 31, 23, 59, 58)  # before and after the epoch

COLUMNS = {
    "d_small": pa.decimal128(10, 2),
    "d_big": pa.decimal128(30, 4),
    "t": pa.time32("ms"),
    "ts0": pa.timestamp("s"),
    "ts3": pa.timestamp("ms"),
    "ts6": pa.timestamp("us"),
    "ts9": pa.timestamp("ns"),
    "ltz": pa.timestamp("us", tz="UTC"),
}


def _value(column: str, i: int) -> Any:
    k = (i * 37) % 23 - 11  # repeats, negatives
    if i % 10 == 7:
        return None
    if column == "d_small":
        return decimal.Decimal(k * 1234) / 100
    if column == "d_big":
        return decimal.Decimal(k) * decimal.Decimal("123456789012345678901.2345")
    if column == "t":
        return datetime.time(k + 11, (k * 7) % 60, 5, (k % 5) * 1000)
    delta = datetime.timedelta(seconds=k, microseconds=(k % 7) * 1001)
    if column == "ts0":
        return BASE.replace(microsecond=0) + datetime.timedelta(seconds=k)
    if column == "ts3":
        return BASE + datetime.timedelta(milliseconds=k * 1001)
    if column == "ltz":
        return (BASE + delta).replace(tzinfo=datetime.timezone.utc)
    return BASE + delta


def _data() -> pa.Table:
    arrays = {"id": pa.array(range(N), pa.int32())}
    for column, typ in COLUMNS.items():
        values = [_value(column, i) for i in range(N)]
        arrays[column] = pa.array(values, typ)
    # ts9: nanoseconds below the microsecond (lost in the keys, kept in the data).
    arrays["ts9"] = pa.array([None if v is None else v + i % 3
                              for i, v in enumerate(arrays["ts9"].cast(pa.int64()).to_pylist())],
                             pa.int64()).cast(pa.timestamp("ns"))
    return pa.table(arrays)


def _table(warehouse: str, options=None) -> Any:
    from paimon_rowid import CatalogFactory
    table = CatalogFactory.create({"warehouse": warehouse}).get_table(ID)
    return table.copy(options) if options else table


def _ids(table: Any, spec: list) -> List[int]:
    predicate = build_predicate(table.new_read_builder().new_predicate_builder(), spec)
    builder = table.new_read_builder().with_projection(["_ROW_ID"]).with_filter(predicate)
    return sorted(builder.new_read().to_arrow(builder.new_scan().plan().splits())
                  .column("_ROW_ID").to_pylist())


def _literal(column: str, i: int) -> Any:
    value = _data().column(column)[i]
    return value.as_py() if column != "ts9" else value.cast(pa.int64()).as_py()


def _specs(column: str) -> List[list]:
    a, b, c = (_literal(column, i) for i in (0, 5, 13))
    return [["equal", column, [a]], ["is_in", column, [[a, c]]], ["is_null", column],
            ["less_than", column, [b]], ["greater_or_equal", column, [c]],
            ["between", column, sorted([a, c])], ["not_equal", column, [b]]]


@pytest.mark.parametrize("index_type", ["btree", "bitmap"])
def test_key_types_byte_identical_and_used_both_ways(warehouse, oracle, index_type):
    data = _data()
    oracle.create_table(warehouse, ID, data.schema, options=DE)
    oracle.write(warehouse, ID, data)
    index_dir = os.path.join(warehouse, "db.db", "k", "index")
    run = {"cmd": "create_global_index", "warehouse": warehouse, "identifier": ID,
           "index_type": index_type}
    full = {"scalar-index.search-mode": "full"}
    unindexed = _table(warehouse, {"global-index.enabled": "false"})
    for column in COLUMNS:
        before = set(os.listdir(index_dir)) if os.path.isdir(index_dir) else set()
        assert oracle.run({**run, "column": column}) == 1, column
        (theirs,) = set(os.listdir(index_dir)) - before
        # pypaimon's index drives our reads.
        specs = _specs(column) if column != "ts9" else [
            s for s in _specs(column) if s[0] in ("equal", "is_in", "is_null")]
        for spec in specs:
            assert _ids(_table(warehouse), spec) == _ids(unindexed, spec), (column, spec)
        assert oracle.run({"cmd": "drop_global_index", "warehouse": warehouse,
                           "identifier": ID, "column": column, "index_type": index_type}) == 1
        assert _table(warehouse).create_global_index(column, index_type) == 1
        (ours,) = set(os.listdir(index_dir)) - before - {theirs}
        with open(os.path.join(index_dir, theirs), "rb") as a, \
                open(os.path.join(index_dir, ours), "rb") as b:
            assert a.read() == b.read(), column
        # Ours drives our reads and pypaimon's evaluation.
        from paimon_rowid.global_index import global_index_plan_stats
        for spec in specs:
            expected = _ids(unindexed, spec)
            assert _ids(_table(warehouse), spec) == expected, (column, spec)
            table = _table(warehouse)
            stats = global_index_plan_stats(table, build_predicate(
                table.new_read_builder().new_predicate_builder(), spec))
            if spec[0] == "not_equal" and column == "ts9":
                assert stats is None  # a lossy key answers no negation
                continue
            assert stats is not None, (column, spec)
            if column == "ts9":
                continue  # pypaimon compares its truncated keys with full literals
            theirs_eval = oracle.run({"cmd": "global_index_eval", "warehouse": warehouse,
                                      "identifier": ID, "filter": encode_filter(spec),
                                      "options": full})
            if theirs_eval is not None and theirs_eval["row_ids"] is not None:
                assert set(expected) <= set(theirs_eval["row_ids"]), (column, spec)
                if theirs_eval["exact"]:
                    assert sorted(theirs_eval["row_ids"]) == expected, (column, spec)
        assert _table(warehouse).drop_global_index(column, index_type) == 1


def test_lossy_timestamp_keys_are_not_trusted_by_lookups(warehouse, oracle):
    import paimon_rowid
    data = _data()
    oracle.create_table(warehouse, ID, data.schema, options=DE)
    oracle.write(warehouse, ID, data)
    assert _table(warehouse).create_global_index("ts9") == 1
    assert _table(warehouse).create_global_index("ts6") == 1
    for column in ("ts9", "ts6"):
        keys = data.column(column).slice(0, 4)
        located = paimon_rowid.lookup_row_ids(ID, keys, column, {"warehouse": warehouse})
        spec = ["is_in", column, [[_literal(column, i) for i in range(4)
                                   if data.column(column)[i].is_valid]]]
        assert sorted(located.column("_ROW_ID").to_pylist()) == _ids(
            _table(warehouse, {"global-index.enabled": "false"}), spec), column
