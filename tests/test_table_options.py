"""Table options (issue 44 §2, §6): every option the engine reads is checked at create_table,
by the code that reads it, so a table is never created unusable; `data-file.path-directory`
is honoured by every writer, reader, row-id job and maintenance step, both ways with pypaimon,
and no value can put files outside the table."""
from __future__ import annotations

import os

import pyarrow as pa
import pytest

import paimon_rowid
from ours import catalog, create_table

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("s", pa.string())])
FORMAT_ERRORS = {
    "target-file-size": "0",
    "blob.target-file-size": "-1 mb",
    "file.block-size": "many",
    "file.format": "../x",
    "file.compression": "nonsense",
    "parquet.compression": "zip",
    "file.compression.zstd-level": "99",
    "manifest.compression": "rar",
    "manifest.merge-min-count": "0",
    "manifest.target-file-size": "-5",
    "snapshot.num-retained.min": "abc",
    "snapshot.num-retained.max": "0",
    "snapshot.expire.limit": "0",
    "snapshot.time-retained": "soon",
    "commit.max-retries": "-1",
    "commit.min-retry-wait": "x",
    "compaction.min.file-num": "1",
    "blob-compaction.enabled": "maybe",
    "metadata.stats-mode": "truncate(0)",
    "fields.s.stats-mode": "some",
    "metadata.stats-keep-first-n-columns": "two",
    "data-file.prefix": "../up-",
    "file.suffix.include.compression": "yes",
    "paimon-rowid.update.memory-budget": "-1",
    "deletion-vectors.enabled": "perhaps",
    "data-file.path-directory": "../../../escaped",
}


def _table_dir(warehouse, name="t"):
    return os.path.join(warehouse, "db.db", name)


def _read(table, columns=None):
    rb = table.new_read_builder()
    if columns:
        rb = rb.with_projection(columns)
    return rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id")


def _append(table, ids):
    builder = table.new_batch_write_builder()
    writer = builder.new_write()
    writer.write_arrow(pa.table({"id": pa.array(ids, pa.int64()), "s": [f"s{i}" for i in ids]}))
    builder.new_commit().commit(writer.prepare_commit())


@pytest.mark.parametrize("key,value", sorted(FORMAT_ERRORS.items()), ids=sorted(FORMAT_ERRORS))
def test_a_value_the_engine_cannot_use_is_refused_at_create(warehouse, key, value):
    cat = catalog(warehouse)
    cat.create_database("db", True)
    schema = paimon_rowid.Schema.from_pyarrow_schema(SCHEMA, options={**DE, key: value})
    with pytest.raises(ValueError) as err:
        cat.create_table("db.t", schema, False)
    assert key in str(err.value) and value in str(err.value)
    assert not os.path.exists(_table_dir(warehouse))  # nothing written


@pytest.mark.parametrize("value", ["orc", "avro", "lance"])
def test_a_format_we_cannot_write_is_refused_at_create(warehouse, value):
    cat = catalog(warehouse)
    cat.create_database("db", True)
    schema = paimon_rowid.Schema.from_pyarrow_schema(SCHEMA, options={**DE, "file.format": value})
    with pytest.raises(ValueError, match="file.format.*parquet only"):
        cat.create_table("db.t", schema, False)
    assert not os.path.exists(_table_dir(warehouse))


@pytest.mark.parametrize("value", ["/abs/data", "s3://bucket/data", "data/../../out", ".."])
def test_a_data_directory_outside_the_table_is_refused(warehouse, value):
    cat = catalog(warehouse)
    cat.create_database("db", True)
    options = {**DE, "data-file.path-directory": value}
    with pytest.raises(ValueError, match="data-file.path-directory"):
        cat.create_table("db.t", paimon_rowid.Schema.from_pyarrow_schema(SCHEMA, options=options),
                         False)
    assert not os.path.exists(_table_dir(warehouse))


def test_external_data_paths_are_refused_not_ignored(warehouse):
    cat = catalog(warehouse)
    cat.create_database("db", True)
    options = {**DE, "data-file.external-paths": f"file://{warehouse}/ext"}
    with pytest.raises(NotImplementedError, match="data-file.external-paths"):
        cat.create_table("db.t", paimon_rowid.Schema.from_pyarrow_schema(SCHEMA, options=options),
                         False)
    assert not os.path.exists(_table_dir(warehouse))


def test_unknown_keys_and_good_values_are_kept(warehouse):
    options = {**DE, "my.own.key": "anything", "target-file-size": "64 mb",
               "file.compression": "SNAPPY", "snapshot.num-retained.min": "3",
               "metadata.stats-mode": "full", "paimon-rowid.update.memory-budget": "0"}
    table = create_table(warehouse, "t", SCHEMA, options)
    _append(table, [1, 2])
    assert _read(table).column("id").to_pylist() == [1, 2]
    assert table.options["my.own.key"] == "anything"


def _data_files(root):
    found = []
    for dirpath, _dirs, names in os.walk(root):
        found += [os.path.relpath(os.path.join(dirpath, n), root) for n in names
                  if n.endswith(".parquet")]
    return sorted(found)


@pytest.mark.parametrize("partitioned", [False, True], ids=["flat", "partitioned"])
def test_data_directory_is_used_by_every_writer_reader_and_job(warehouse, partitioned):
    options = {**DE, "data-file.path-directory": "data"}
    schema = pa.schema([("id", pa.int64()), ("s", pa.string()), ("p", pa.string())])
    table = create_table(warehouse, "t", schema, options,
                         partition_keys=["p"] if partitioned else None)
    builder = table.new_batch_write_builder()
    writer = builder.new_write()
    writer.write_arrow(pa.table({"id": pa.array(range(6), pa.int64()),
                                 "s": [f"s{i}" for i in range(6)], "p": ["a", "b"] * 3}))
    builder.new_commit().commit(writer.prepare_commit())
    root = _table_dir(warehouse)
    assert all(f.startswith("data" + os.sep) for f in _data_files(root))
    row_ids = _read(table, ["id", "_ROW_ID"]).column("_ROW_ID").to_pylist()
    new = {1: "u1", 4: "u4"}  # by row id
    expected = [new.get(r, f"s{i}") for i, r in enumerate(row_ids)]
    ident, opts = "db.t", {"warehouse": warehouse}
    paimon_rowid.update_by_row_id(
        ident, pa.table({"_ROW_ID": pa.array([1, 4], pa.int64()), "s": ["u1", "u4"]}), opts,
        update_cols=["s"])
    got = paimon_rowid.read_by_row_id(ident, pa.table({"_ROW_ID": pa.array([1, 4], pa.int64())}),
                                      opts, projection=["s"])
    assert sorted(got.column("s").to_pylist()) == ["u1", "u4"]
    paimon_rowid.compact(ident, opts, full=True)
    table = catalog(warehouse).get_table(ident)
    assert _read(table, ["id", "s"]).column("s").to_pylist() == expected
    assert all(f.startswith("data" + os.sep) for f in _data_files(root))
    paimon_rowid.expire_snapshots(ident, opts, retain_max=1, retain_min=1,
                                  older_than_ms=2**62)
    bucket_dir = os.path.dirname(os.path.join(root, _data_files(root)[0]))
    stray = os.path.join(bucket_dir, "data-stray-0.parquet")  # a crashed writer's file
    with open(stray, "wb") as f:
        f.write(b"x")
    result = paimon_rowid.remove_orphan_files(ident, opts, older_than_ms=2**62)
    assert result["paths"] == [stray]  # found under data/, and nothing live
    table = catalog(warehouse).get_table(ident)
    assert _read(table, ["id", "s"]).column("s").to_pylist() == expected


@pytest.mark.oracle
def test_data_directory_both_ways_with_pypaimon(oracle, warehouse):
    options = {**DE, "data-file.path-directory": "data"}
    oracle.create_table(warehouse, "db.theirs", SCHEMA, options=options)
    oracle.write(warehouse, "db.theirs", pa.table({"id": pa.array([1, 2], pa.int64()),
                                                   "s": ["a", "b"]}))
    assert _data_files(_table_dir(warehouse, "theirs"))[0].startswith("data" + os.sep)
    theirs = catalog(warehouse).get_table("db.theirs")
    assert _read(theirs).column("s").to_pylist() == ["a", "b"]
    paimon_rowid.update_by_row_id("db.theirs", pa.table({"_ROW_ID": pa.array([0], pa.int64()),
                                                        "s": ["A"]}),
                                  {"warehouse": warehouse}, update_cols=["s"])
    ours = create_table(warehouse, "ours", SCHEMA, options)
    _append(ours, [5, 6])
    for name, want in (("theirs", ["A", "b"]), ("ours", ["s5", "s6"])):
        got = oracle.read(warehouse, f"db.{name}").sort_by("id")
        assert got.column("s").to_pylist() == want
