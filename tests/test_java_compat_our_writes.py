"""Compatibility with Java Paimon (tests/java/), we write -> Java reads: tables written and
updated by row id through paimon_rowid's write API read identically through Java Paimon;
TIMESTAMP(7..9) columns as INT96 and BLOB tables too. The table is java_compat_table.py's;
the other direction is test_java_compat.py. Needs JDK 17 + Maven, as there.
"""
from __future__ import annotations

import copy
import glob
import os
import random
from typing import Dict, List

import pytest

from java import JavaOracleError, arrow_to_neutral, neutral_to_arrow
from java_compat_table import (
    DE_OPTIONS,
    FIELDS,
    LAYOUTS,
    LTZ,
    SYS,
    assert_same_rows,
    our_read,
    random_timestamp,
    rows,
    update_rows,
)

pytestmark = [pytest.mark.native, pytest.mark.java]


# ------------------------------------------------------------------------------------------
# we write -> Java reads (paimon_rowid's write API: table.new_batch_write_builder())
# ------------------------------------------------------------------------------------------

def _our_write_api():
    """The write API, or skip naming what is missing (the API landed in 865a7b6)."""
    write = pytest.importorskip("paimon_rowid.write",
                                reason="paimon_rowid write API (python/paimon_rowid/write.py) "
                                       "is not there yet")
    from paimon_rowid import table as table_module
    if not hasattr(table_module.Table, "new_batch_write_builder"):
        pytest.skip("paimon_rowid Table.new_batch_write_builder is not there yet")
    return write


# Our writer stores TIMESTAMP(7..9) as INT96 like Java (it used to write INT64 NANOS, which
# Java 1.4.2 read as milliseconds); the round-trip table holds them, and a small table per
# column checks them alone (test_our_timestamp9_in_java).
TS9_COLUMNS = ["c_ts9", "c_ltz9"]
OUR_FIELDS = list(FIELDS)
OUR_NAMES = [f["name"] for f in OUR_FIELDS]


def _our_schema(partition_keys, fields=None):
    """FIELDS as a paimon_rowid Schema, ids assigned like Java's Schema.Builder."""
    from paimon_rowid import Schema
    from paimon_rowid.schema import DataField, DataType
    counter = [0]

    def next_id():
        counter[0] += 1
        return counter[0] - 1

    def nested(type_json):
        if isinstance(type_json, str):
            return type_json
        out = dict(type_json)
        if "fields" in out:
            out["fields"] = [dict(f, id=next_id(), type=nested(f["type"]))
                             for f in out["fields"]]
        for key in ("element", "key", "value"):
            if key in out:
                out[key] = nested(out[key])
        return out

    out = []
    for f in (OUR_FIELDS if fields is None else fields):
        top = next_id()
        out.append(DataField(top, f["name"], DataType(nested(copy.deepcopy(f["type"])))))
    return Schema(out, list(partition_keys), [], dict(DE_OPTIONS))


def _our_append(warehouse, identifier, data_rows, columns=None) -> int:
    from paimon_rowid import CatalogFactory
    table = CatalogFactory.create({"warehouse": warehouse}).get_table(identifier)
    names = list(columns) if columns is not None else table.field_names
    data = neutral_to_arrow(data_rows, table.read_schema(names))
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    try:
        if columns is not None:
            write.with_write_type(names)
        write.write_arrow(data)
        return commit.commit(write.prepare_commit())
    finally:
        write.close()
        commit.close()


OUR_FULL = OUR_NAMES + SYS
OUR_CASES = {
    "latest": {"projection": OUR_FULL},
    "after_our_writes": {"projection": OUR_FULL, "snapshot_id": 3},
    "tag_ours": {"projection": OUR_FULL, "tag": "t_ours"},
    "first_snapshot": {"projection": OUR_FULL, "snapshot_id": 1},
    "after_java_update": {"projection": OUR_FULL, "snapshot_id": 4},
    "updated_columns": {"projection": ["c_int", "c_ts6", "c_ltz9", "_ROW_ID"]},
    "row_ranges": {"projection": OUR_FULL, "row_ranges": [(0, 3), (40, 60)]},
    "after_our_update": {"projection": OUR_FULL, "snapshot_id": 7},
    "tag_ours_updated": {"projection": OUR_FULL, "tag": "t_ours2"},
}

OUR_UPDATE_COLUMNS = ["c_int", "c_string", "c_dec38", "c_ts6", "c_ltz9"]


def _our_rows(first_id, count, seed, columns=None):
    return rows(first_id, count, seed, columns=OUR_NAMES if columns is None else columns)


@pytest.fixture(scope="module")
def our_tables(native, java, tmp_path_factory):
    """Per layout: we create the table and commit two full appends and a partial-column
    append (snapshots 1-3); Java tags it, updates columns of our files and appends
    (snapshots 4-5); we append once more (6), update columns by row id across our and Java's
    groups (7) and tag it. Java reads every case."""
    _our_write_api()
    from paimon_rowid import CatalogFactory
    warehouse = str(tmp_path_factory.mktemp("ours") / "warehouse")
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    expected_rows, dumps, snapshots = {}, {}, {}
    for layout, keys in LAYOUTS.items():
        identifier = f"db.{layout}"
        catalog.create_table(identifier, _our_schema(keys), False)
        first = _our_rows(0, 30, seed=101)
        second = _our_rows(30, 20, seed=102)
        partial_cols = ["id", "c_int", "c_ts6", "c_ts9", "c_row"] + list(keys)
        partial = _our_rows(50, 10, seed=103, columns=partial_cols)
        ids = [_our_append(warehouse, identifier, first),
               _our_append(warehouse, identifier, second),
               _our_append(warehouse, identifier, partial, columns=partial_cols)]
        update_columns = ["c_int", "c_ts6", "c_dec38", "c_array_row"]
        update = update_rows([2, 33, 55], update_columns, seed=104)
        results = java.run_all([
            java.tag_cmd(warehouse, identifier, "t_ours"),
            java.update_cmd(warehouse, identifier, update, update_columns),
            java.write_cmd(warehouse, identifier, _our_rows(60, 10, seed=105)),
        ])
        ids += [results[1]["snapshot_id"], results[2]["snapshot_id"]]
        ids.append(_our_append(warehouse, identifier, _our_rows(70, 5, seed=106)))
        # OUR update_by_row_id on groups written by us and by Java, then OUR tag.
        from paimon_rowid.row_id_jobs import update_by_row_id
        table = CatalogFactory.create({"warehouse": warehouse}).get_table(identifier)
        ours = neutral_to_arrow(update_rows([1, 31, 56, 61, 72], OUR_UPDATE_COLUMNS, seed=107),
                                table.read_schema(["_ROW_ID"] + OUR_UPDATE_COLUMNS))
        update_by_row_id(identifier, ours, {"warehouse": warehouse},
                         update_cols=OUR_UPDATE_COLUMNS)
        ids.append(table.latest_snapshot()["id"])
        table.create_tag("t_ours2")
        snapshots[layout] = ids
        expected_rows[layout] = {"first": first, "second": second, "partial": partial}
        dumps[layout] = java.dump_many(warehouse, identifier, list(OUR_CASES.values()))
    return warehouse, snapshots, expected_rows, dumps


@pytest.mark.parametrize("case", list(OUR_CASES))
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_our_written_reads_the_same_in_java(our_tables, layout, case):
    """OUR WRITE -> JAVA READ (plus Java updates on our files, then our append)."""
    warehouse, snapshots, _, dumps = our_tables
    assert snapshots[layout] == [1, 2, 3, 4, 5, 6, 7]
    theirs = dumps[layout][list(OUR_CASES).index(case)]
    if isinstance(theirs, JavaOracleError):
        pytest.fail(f"Java could not read our table ({case}): {theirs}", pytrace=False)
    spec = OUR_CASES[case]
    names, ours = our_read(warehouse, f"db.{layout}", **spec)
    assert_same_rows(names, ours, theirs, f"ours/{layout}/{case}")


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_our_written_values_are_what_we_wrote(our_tables, layout):
    """Java's read of our first snapshots equals the rows we wrote (neutral form), partial
    append columns we did not write read as NULL."""
    warehouse, _, expected_rows, dumps = our_tables
    theirs = dumps[layout][list(OUR_CASES).index("after_our_writes")]
    if isinstance(theirs, JavaOracleError):
        pytest.fail(f"Java could not read our table: {theirs}", pytrace=False)
    by_id = {row[theirs.names.index("id")]: dict(zip(theirs.names, row)) for row in theirs.rows}
    written = expected_rows[layout]
    for row in written["first"] + written["second"]:
        got = by_id[row["id"]]
        assert {c: got[c] for c in OUR_NAMES} == row, f"row {row['id']}"
    for row in written["partial"]:
        got = by_id[row["id"]]
        assert {c: got[c] for c in row} == row
        assert all(got[c] is None for c in OUR_NAMES if c not in row)
    assert sorted(by_id[i]["_ROW_ID"] for i in by_id) == list(range(60))


def _parquet_leaf_types(path: str) -> Dict[str, str]:
    import pyarrow.parquet as pq
    schema = pq.ParquetFile(path).schema
    return {schema.column(i).path: schema.column(i).physical_type for i in range(len(schema))}


def _data_files(warehouse: str, identifier: str) -> List[str]:
    database, name = identifier.split(".")
    return sorted(glob.glob(os.path.join(warehouse, f"{database}.db", name, "**", "*.parquet"),
                            recursive=True))


@pytest.mark.parametrize("column", TS9_COLUMNS)
def test_our_timestamp9_in_java(native, java, tmp_path, column):
    """OUR WRITE -> JAVA READ of TIMESTAMP(9) / TIMESTAMP(9) WITH LOCAL TIME ZONE: our
    writer stores them as INT96 (like Java; formerly INT64 NANOS, which Java 1.4.2 read as
    milliseconds), keeps TIMESTAMP(6) INT64, and Java reads every value exactly (1700..2250,
    negative and sub-microsecond nanos), whole and by row ranges."""
    _our_write_api()
    from paimon_rowid import CatalogFactory
    warehouse = str(tmp_path / "warehouse")
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    names = ["id", column, "c_ts6"]
    fields = [f for f in FIELDS if f["name"] in names]
    catalog.create_table("db.t", _our_schema([], fields=fields), False)
    data = rows(0, 40, seed=7, columns=names)
    data[0][column] = -1                        # 1969-12-31T23:59:59.999999999
    data[1][column] = -8_520_336_000 * 10 ** 9 + 7   # 1700-01-01 plus 7 ns
    data[2][column] = 8_835_955_199 * 10 ** 9 + 999_999_999  # 2249-12-31T23:59:59.999999999
    _our_append(warehouse, "db.t", data)
    for path in _data_files(warehouse, "db.t"):
        leaves = _parquet_leaf_types(path)
        assert leaves[column] == "INT96" and leaves["c_ts6"] == "INT64", leaves
    expected = [[row["id"], row[column], row["c_ts6"]] for row in data]
    dumps = java.dump_many(warehouse, "db.t", [
        {"projection": names},
        {"projection": names + ["_ROW_ID"], "row_ranges": [(0, 2), (17, 17), (30, 60)]}])
    for dump in dumps:
        if isinstance(dump, JavaOracleError):
            raise dump
    assert dumps[0].rows == expected
    assert [row[:3] for row in dumps[1].rows] == [expected[i] for i in
                                                  [0, 1, 2, 17] + list(range(30, 40))]
    our_names, ours = our_read(warehouse, "db.t", projection=names)
    assert ours == expected


def test_our_timestamp9_elsewhere(native, oracle, tmp_path):
    """Our INT96 TIMESTAMP(9)/LTZ(9) columns (top level and nested in ROW / ARRAY) read back
    exactly through our reader (scan, row ranges, read_by_row_id: the page-selective path),
    and pypaimon reads them the same."""
    _our_write_api()
    import pyarrow as pa

    from paimon_rowid import CatalogFactory
    from paimon_rowid.row_id_jobs import read_by_row_id
    warehouse = str(tmp_path / "warehouse")
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    fields = [{"name": "id", "type": "BIGINT NOT NULL"},
              {"name": "c_ts9", "type": "TIMESTAMP(9)"},
              {"name": "c_ltz9", "type": "TIMESTAMP(9)" + LTZ},
              {"name": "c_ts3", "type": "TIMESTAMP(3)"},
              {"name": "c_nested", "type": {"type": "ROW", "fields": [
                  {"id": 0, "name": "t", "type": "TIMESTAMP(9)"},
                  {"id": 0, "name": "ts", "type": {"type": "ARRAY",
                                                   "element": "TIMESTAMP(7)"}}]}}]
    catalog.create_table("db.t", _our_schema([], fields=fields), False)
    rnd = random.Random(11)
    data = []
    for i in range(3000):
        nested = None if i % 9 == 0 else {
            "t": None if i % 4 == 0 else random_timestamp(rnd, 9),
            "ts": [None if k == 1 else random_timestamp(rnd, 7) for k in range(i % 4)]}
        data.append({"id": i, "c_ts9": None if i % 7 == 0 else random_timestamp(rnd, 9),
                     "c_ltz9": None if i % 5 == 0 else random_timestamp(rnd, 9),
                     "c_ts3": random_timestamp(rnd, 3), "c_nested": nested})
    data[5]["c_ts9"] = -1
    data[6]["c_ltz9"] = -8_520_336_000 * 10 ** 9 + 1
    _our_append(warehouse, "db.t", data[:1700])
    _our_append(warehouse, "db.t", data[1700:])
    leaves = _parquet_leaf_types(_data_files(warehouse, "db.t")[0])
    assert leaves["c_ts9"] == leaves["c_ltz9"] == "INT96"
    assert leaves["c_nested.t"] == leaves["c_nested.ts.list.element"] == "INT96"
    assert leaves["c_ts3"] == "INT64"
    names = [f["name"] for f in fields]
    expected = [[row[n] for n in names] for row in data]
    got_names, ours = our_read(warehouse, "db.t", projection=names)
    assert ours == expected
    ranges = [(0, 0), (999, 1003), (1699, 1701), (2990, 4000)]
    picked = [i for a, b in ranges for i in range(a, min(b, 2999) + 1)]
    _, ours = our_read(warehouse, "db.t", projection=names + ["_ROW_ID"], row_ranges=ranges)
    assert [row[:-1] for row in ours] == [expected[i] for i in picked]
    wanted = [3, 1500, 1701, 2999, 10, 2222]
    by_id = read_by_row_id("db.t", pa.table({"_ROW_ID": pa.array(wanted, pa.int64())}),
                           {"warehouse": warehouse}, projection=names)
    got = {row[-1]: row[:-1] for row in arrow_to_neutral(by_id)}
    assert got == {i: expected[i] for i in wanted}
    theirs = oracle.read_many(warehouse, "db.t", [{"projection": names + ["_ROW_ID"]}])[0]
    if not isinstance(theirs, pa.Table):
        raise theirs
    theirs = theirs.sort_by("_ROW_ID").select(names)
    assert arrow_to_neutral(theirs) == expected


def test_our_blob_tables_read_in_java(native, java, tmp_path):
    """OUR WRITE -> JAVA READ for BLOB columns (.blob files rolled at 64 kb, nulls, empty and
    1 MiB payloads) after two appends and our update of another column. (VECTOR columns are
    not readable by Java 1.4.2's Parquet reader: "Unsupported type: VECTOR<FLOAT, 4>".)"""
    _our_write_api()
    import numpy as np
    import pyarrow as pa

    from paimon_rowid import CatalogFactory, Schema
    from paimon_rowid.row_id_jobs import update_by_row_id
    warehouse = str(tmp_path / "warehouse")
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table("db.b", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("pic", pa.large_binary()), ("label", pa.string())]),
        options=dict(DE_OPTIONS, **{"blob.target-file-size": "64 kb"})), False)
    table = catalog.get_table("db.b")
    rng = np.random.default_rng(3)
    for start in (0, 20):
        ids = list(range(start, start + 20))
        pics = [None if i % 7 == 3 else (b"" if i % 7 == 4 else rng.bytes(
            1 << 20 if i == 5 else int(rng.integers(1, 30_000)))) for i in ids]
        builder = table.new_batch_write_builder()
        write, commit = builder.new_write(), builder.new_commit()
        write.write_arrow(pa.table({"id": pa.array(ids, pa.int64()),
                                    "pic": pa.array(pics, pa.large_binary()),
                                    "label": [f"l{i}" for i in ids]}))
        commit.commit(write.prepare_commit())
    update_by_row_id("db.b", pa.table({"_ROW_ID": [0, 21], "label": ["new", None]}),
                     {"warehouse": warehouse}, update_cols=["label"])
    projection = ["id", "pic", "label", "_ROW_ID", "_SEQUENCE_NUMBER"]
    theirs = java.dump(warehouse, "db.b", projection=projection)
    if isinstance(theirs, JavaOracleError):
        pytest.fail(f"Java could not read our BLOB table: {theirs}", pytrace=False)
    names, ours = our_read(warehouse, "db.b", projection=projection)
    assert_same_rows(names, ours, theirs, "ours/blob")
