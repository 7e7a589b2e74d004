"""INSERT OVERWRITE and truncates (``builder.overwrite(spec)``, ``commit.truncate_table()``,
``commit.truncate_partitions(specs)``) against pypaimon 2.1.0's behaviour
(docs/python-api.md, "Overwrite"): which partitions are replaced in static and dynamic mode,
row ids that continue from nextRowId, the OVERWRITE snapshot and its DELETE entries, the
refusals (type, message, nothing committed, no file left), and both directions with
pypaimon: it reads what we overwrite, we read what it overwrites.
"""
from __future__ import annotations

import os
import warnings
from typing import Any, List, Optional

import pyarrow as pa
import pytest

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("dt", pa.string()), ("h", pa.int32())])
STATIC = {**DE, "dynamic-partition-overwrite": "false"}


def _rows(*rows) -> pa.Table:
    return pa.Table.from_pylist([{"id": i, "dt": dt, "h": h} for i, dt, h in rows], SCHEMA)


def _catalog(warehouse):
    from paimon_rowid import CatalogFactory
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    return catalog


def _create(warehouse, name="t", keys=("dt", "h"), options=None):
    from paimon_rowid import Schema
    catalog = _catalog(warehouse)
    catalog.create_table(f"db.{name}", Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=list(keys), options=dict(options or STATIC)), False)
    return catalog.get_table(f"db.{name}")


def _write(warehouse, data: Optional[pa.Table], spec: Any = False, name="t") -> Optional[int]:
    """Ours: an append, or with ``spec`` (a dict or None) an overwrite."""
    table = _catalog(warehouse).get_table(f"db.{name}")
    builder = table.new_batch_write_builder()
    if spec is not False:
        builder.overwrite(spec)
    write = builder.new_write()
    if data is not None and data.num_rows:
        write.write_arrow(data)
    return builder.new_commit().commit(write.prepare_commit())


def _read(warehouse, name="t") -> List[tuple]:
    table = _catalog(warehouse).get_table(f"db.{name}")
    rb = table.new_read_builder().with_projection(["id", "dt", "h", "_ROW_ID"])
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return sorted((r["_ROW_ID"], r["id"], r["dt"], r["h"]) for r in got.to_pylist())


def _snapshot(warehouse, name="t"):
    return _catalog(warehouse).get_table(f"db.{name}").latest_snapshot()


def _files(warehouse) -> List[str]:
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(warehouse) for f in fs)


BASE = _rows((1, "d1", 1), (2, "d1", 2), (3, "d2", 1), (4, None, None))


# -- static mode (dynamic-partition-overwrite = false) ----------------------------------------

@pytest.mark.parametrize("spec, data, left", [
    # a full spec: that partition only; the new rows continue the row ids (4 -> 4)
    ({"dt": "d1", "h": 1}, _rows((10, "d1", 1)),
     [(1, 2, "d1", 2), (2, 3, "d2", 1), (3, 4, None, None), (4, 10, "d1", 1)]),
    # a partial spec: every partition it matches
    ({"dt": "d1"}, _rows((10, "d1", 1)), [(2, 3, "d2", 1), (3, 4, None, None), (4, 10, "d1", 1)]),
    # a string for an INT key is parsed (as Java does; pypaimon never matches it)
    ({"h": "1"}, None, [(1, 2, "d1", 2), (3, 4, None, None)]),
    # None and the default partition name mean null
    ({"dt": None}, None, [(0, 1, "d1", 1), (1, 2, "d1", 2), (2, 3, "d2", 1)]),
    ({"h": "__DEFAULT_PARTITION__"}, None, [(0, 1, "d1", 1), (1, 2, "d1", 2), (2, 3, "d2", 1)]),
    # {}: the whole table, with no data a truncate
    ({}, _rows((10, "d9", 9)), [(4, 10, "d9", 9)]),
    ({}, None, []),
    # a spec that matches nothing still commits (pypaimon and Java do)
    ({"dt": "zzz"}, None, [(0, 1, "d1", 1), (1, 2, "d1", 2), (2, 3, "d2", 1), (3, 4, None, None)]),
])
def test_static_overwrite_replaces_the_spec_partitions(warehouse, oracle, spec, data, left):
    _create(warehouse)
    _write(warehouse, BASE)
    snapshot_id = _write(warehouse, data, spec)
    assert snapshot_id == 2
    assert _read(warehouse) == left
    snap = _snapshot(warehouse)
    added = 0 if data is None else data.num_rows
    assert (snap["commitKind"], snap["totalRecordCount"], snap["nextRowId"]) == \
        ("OVERWRITE", len(left), 4 + added)  # row ids are never reused
    # pypaimon reads the same rows, and the delta holds one DELETE per replaced file.
    theirs = oracle.read(warehouse, "db.t", projection=["_ROW_ID", "id", "dt", "h"])
    assert sorted(tuple(r.values()) for r in theirs.to_pylist()) == left
    entries = oracle.run({"cmd": "entries", "warehouse": warehouse, "identifier": "db.t",
                          "delta": True})
    assert sum(e["kind"] == 1 for e in entries) == 4 + added - len(left)
    assert sum(e["kind"] == 0 for e in entries) == added


def test_rows_outside_the_static_partition_are_refused(warehouse):
    _create(warehouse)
    _write(warehouse, BASE)
    before = _files(warehouse)
    with pytest.raises(RuntimeError, match=r"Trying to overwrite partition \{'dt': 'd1'\}, but "
                                           r"the changes in partition 'dt=d3/h=7'"):
        _write(warehouse, _rows((10, "d1", 1), (11, "d3", 7)), {"dt": "d1"})
    assert _snapshot(warehouse)["id"] == 1
    assert _files(warehouse) == before  # the new files are gone
    assert len(_read(warehouse)) == 4


@pytest.mark.parametrize("spec, error, match", [
    ({"zz": 1}, ValueError, r"The field zz is not in field list \['dt', 'h'\]\."),
    ({"h": "one"}, ValueError, "partition value 'one' of 'h' is not a valid int32"),
    (["dt"], TypeError, "static_partition must be a dict"),
])
def test_bad_specs_are_refused_before_anything_is_written(warehouse, spec, error, match):
    table = _create(warehouse)
    _write(warehouse, BASE)
    before = _files(warehouse)
    with pytest.raises(error, match=match):
        table.new_batch_write_builder().overwrite(spec)
    assert _files(warehouse) == before


def test_a_spec_on_an_unpartitioned_table_is_refused(warehouse):
    table = _create(warehouse, keys=(), options=DE)
    with pytest.raises(ValueError, match=r"The field id is not in field list \[\]\."):
        table.new_batch_write_builder().overwrite({"id": 1})


def test_unpartitioned_overwrite_replaces_the_table(warehouse):
    _create(warehouse, keys=(), options=DE)
    _write(warehouse, BASE)
    assert _write(warehouse, _rows((10, "x", 0)), {}) == 2
    assert _read(warehouse) == [(4, 10, "x", 0)]
    assert _write(warehouse, None, None) == 3  # overwrite(None) is {}: a truncate
    snap = _snapshot(warehouse)
    assert (snap["commitKind"], snap["totalRecordCount"], snap["nextRowId"]) == ("OVERWRITE", 0, 5)
    assert _read(warehouse) == []


# -- dynamic mode (the default of a partitioned table) ----------------------------------------

def test_dynamic_overwrite_replaces_the_written_partitions_only(warehouse, oracle):
    _create(warehouse, options=DE)
    _write(warehouse, BASE)
    assert _write(warehouse, _rows((10, "d2", 1), (11, None, None)), {}) == 2
    assert _read(warehouse) == [(0, 1, "d1", 1), (1, 2, "d1", 2), (4, 10, "d2", 1),
                                (5, 11, None, None)]
    # A spec is ignored (pypaimon and Java ignore it too), with a warning saying so.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _write(warehouse, _rows((12, "d1", 2)), {"dt": "d2"}) == 3
    assert any("'dynamic-partition-overwrite' is true" in str(w.message) for w in caught)
    assert _read(warehouse) == [(0, 1, "d1", 1), (4, 10, "d2", 1), (5, 11, None, None),
                                (6, 12, "d1", 2)]
    # No data: no partition is replaced, no snapshot.
    assert _write(warehouse, None, {}) is None
    assert _snapshot(warehouse)["id"] == 3
    theirs = oracle.read(warehouse, "db.t", projection=["_ROW_ID", "id", "dt", "h"])
    assert sorted(tuple(r.values()) for r in theirs.to_pylist()) == _read(warehouse)


# -- truncates ------------------------------------------------------------------------------

def test_truncate_partitions_and_table(warehouse, oracle):
    table = _create(warehouse)
    _write(warehouse, BASE)
    commit = table.new_batch_write_builder().new_commit()
    assert commit.truncate_partitions([{"dt": "d1", "h": 2}, {"dt": None}]) == 2
    assert _read(warehouse) == [(0, 1, "d1", 1), (2, 3, "d2", 1)]
    # Nothing matches: no snapshot (as pypaimon).
    assert table.new_batch_write_builder().new_commit().truncate_partitions(
        [{"dt": "zzz"}]) is None
    assert table.new_batch_write_builder().new_commit().truncate_table() == 3
    assert _read(warehouse) == []
    assert table.new_batch_write_builder().new_commit().truncate_table() is None
    snap = _snapshot(warehouse)
    assert (snap["id"], snap["commitKind"], snap["nextRowId"]) == (3, "OVERWRITE", 4)
    assert oracle.read(warehouse, "db.t", projection=["id"]).num_rows == 0


@pytest.mark.parametrize("partitions, error, match", [
    ([], ValueError, "Partitions list cannot be empty."),
    ([{"q": 1}], ValueError, r"Partition spec key 'q' is not a partition column\. Partition "
                             r"keys are: \['dt', 'h'\]\."),
    ([{}], RuntimeError, "Failed to build partition filter for drop_partitions"),
    ({"dt": "d1"}, TypeError, "partitions must be a list"),
])
def test_truncate_partitions_refusals(warehouse, partitions, error, match):
    table = _create(warehouse)
    _write(warehouse, BASE)
    before = _files(warehouse)
    commit = table.new_batch_write_builder().new_commit()
    with pytest.raises(error, match=match):
        commit.truncate_partitions(partitions)
    assert _files(warehouse) == before
    assert commit.truncate_partitions([{"dt": "d2"}]) == 2  # a refusal does not use it up


def test_commit_is_once_across_commit_and_truncate(warehouse):
    table = _create(warehouse)
    commit = table.new_batch_write_builder().new_commit()
    commit.truncate_table()
    with pytest.raises(RuntimeError, match="only supports one-time committing"):
        commit.commit([])


# -- concurrency, deletion vectors, pypaimon's overwrites ------------------------------------

def test_overwrite_replaces_rows_committed_after_it_was_written(warehouse):
    """The replaced files are those of the snapshot the commit lands on, as in Java and
    pypaimon: an append to the partition committed between the overwrite's write and its
    commit is replaced too."""
    table = _create(warehouse)
    _write(warehouse, BASE)
    builder = table.new_batch_write_builder().overwrite({"dt": "d1"})
    write = builder.new_write()
    write.write_arrow(_rows((10, "d1", 1)))
    messages = write.prepare_commit()
    _write(warehouse, _rows((20, "d1", 5), (21, "d2", 5)))  # a concurrent append
    assert builder.new_commit().commit(messages) == 3
    assert _read(warehouse) == [(2, 3, "d2", 1), (3, 4, None, None), (5, 21, "d2", 5),
                                (6, 10, "d1", 1)]


def test_overwrite_drops_the_deletion_vectors_of_replaced_partitions(warehouse, oracle):
    """pypaimon 2.1.0 keeps them (stale entries naming deleted files); Java removes them."""
    from paimon_rowid import CatalogFactory
    _create(warehouse, options={**STATIC, "deletion-vectors.enabled": "true"})
    _write(warehouse, BASE)
    table = CatalogFactory.create({"warehouse": warehouse}).get_table("db.t")
    update = table.new_batch_write_builder().new_update()
    table.new_batch_write_builder().new_commit().commit(update.delete_by_row_id([0, 2]))
    assert len(oracle.run(oracle.index_manifest_cmd(warehouse, "db.t"))["entries"]) == 2
    assert _write(warehouse, _rows((10, "d1", 1)), {"dt": "d1"}) == 3
    entries = oracle.run(oracle.index_manifest_cmd(warehouse, "db.t"))["entries"]
    assert [e["partition"] for e in entries] == [["d2", 1]]  # d1's vector left with its file
    assert _read(warehouse) == [(3, 4, None, None), (4, 10, "d1", 1)]
    theirs = oracle.read(warehouse, "db.t", projection=["_ROW_ID", "id", "dt", "h"])
    assert sorted(tuple(r.values()) for r in theirs.to_pylist()) == _read(warehouse)


@pytest.mark.parametrize("spec", [{"dt": "d1"}, {}, {"h": 1}])
def test_we_read_what_pypaimon_overwrites(warehouse, oracle, spec):
    _create(warehouse)
    _write(warehouse, BASE)
    oracle.write(warehouse, "db.t", _rows((10, "d1", 1)) if spec != {"h": 1} else
                 _rows((10, "d9", 1)), overwrite=spec)
    theirs = oracle.read(warehouse, "db.t", projection=["_ROW_ID", "id", "dt", "h"])
    assert sorted(tuple(r.values()) for r in theirs.to_pylist()) == _read(warehouse)
    assert _snapshot(warehouse)["commitKind"] == "OVERWRITE"


@pytest.mark.java
def test_java_reads_what_we_overwrite(warehouse, java):
    """Java Paimon 1.4.2 reads our OVERWRITE snapshots (static, dynamic and a truncate) as we
    do, row ids included."""
    _create(warehouse)
    _write(warehouse, BASE)
    _write(warehouse, _rows((10, "d1", 1), (11, "d1", 3)), {"dt": "d1"})
    _create(warehouse, name="dyn", options=DE)
    _write(warehouse, BASE, name="dyn")
    _write(warehouse, _rows((10, "d2", 1)), {}, name="dyn")
    _create(warehouse, name="flat", keys=(), options=DE)
    _write(warehouse, BASE, name="flat")
    _write(warehouse, None, {}, name="flat")
    for name in ("t", "dyn", "flat"):
        dump = java.dump(warehouse, f"db.{name}", projection=["_ROW_ID", "id", "dt", "h"])
        assert sorted(tuple(row) for row in dump.rows) == _read(warehouse, name), name


# -- what an overwrite refuses to mix in, typed keys, blobs, first commits -------------------

def test_updates_and_deletes_are_not_committed_as_an_overwrite(warehouse):
    """An overwrite commits newly written files only: an update's partial file or a
    deletion vector would outlive the files the overwrite deletes."""
    table = _create(warehouse, options={**STATIC, "deletion-vectors.enabled": "true"})
    _write(warehouse, BASE)
    before = _files(warehouse)
    builder = table.new_batch_write_builder().overwrite({"dt": "d1"})
    update = builder.new_update().with_update_type(["id"]).update_by_arrow_with_row_id(
        pa.table({"_ROW_ID": pa.array([0], pa.int64()), "id": pa.array([7], pa.int64())}))
    with pytest.raises(ValueError, match="an overwrite commits newly written files only"):
        builder.new_commit().commit(update)
    deletes = table.new_batch_write_builder().new_update().delete_by_row_id([2])
    builder = table.new_batch_write_builder().overwrite({"dt": "d1"})
    with pytest.raises(ValueError, match="an overwrite commits newly written files only"):
        builder.new_commit().commit(deletes)
    assert _snapshot(warehouse)["id"] == 1
    assert _files(warehouse) == before  # the refused messages' files are gone


TYPED = pa.schema([("id", pa.int64()), ("d", pa.date32()), ("ts", pa.timestamp("us")),
                   ("m", pa.decimal128(10, 2))])


def test_typed_partition_keys(warehouse):
    import datetime
    import decimal

    from paimon_rowid import Schema
    catalog = _catalog(warehouse)
    catalog.create_table("db.k", Schema.from_pyarrow_schema(
        TYPED, partition_keys=["d", "ts", "m"], options=STATIC), False)
    table = catalog.get_table("db.k")
    day, ts = datetime.date(2026, 12, 1), datetime.datetime(2026, 12, 1, 10, 0, 0, 123456)
    rows = pa.Table.from_pylist([
        {"id": 1, "d": day, "ts": ts, "m": decimal.Decimal("1.50")},
        {"id": 2, "d": day, "ts": ts, "m": decimal.Decimal("2.50")},
        {"id": 3, "d": datetime.date(2026, 12, 2), "ts": None, "m": None}], TYPED)
    builder = table.new_batch_write_builder()
    write = builder.new_write()
    write.write_arrow(rows)
    builder.new_commit().commit(write.prepare_commit())

    def ids():
        rb = table.new_read_builder().with_projection(["id"])
        return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits())["id"].to_pylist())

    # Typed values and their string forms select the same partitions.
    commit = table.new_batch_write_builder().new_commit()
    assert commit.truncate_partitions([{"d": "2026-12-01", "m": "1.50"}]) == 2
    assert ids() == [2, 3]
    builder = table.new_batch_write_builder().overwrite(
        {"d": day, "ts": ts, "m": decimal.Decimal("2.50")})
    write = builder.new_write()
    write.write_arrow(pa.Table.from_pylist(
        [{"id": 20, "d": day, "ts": ts, "m": decimal.Decimal("2.50")}], TYPED))
    assert builder.new_commit().commit(write.prepare_commit()) == 3
    assert ids() == [3, 20]
    # (pypaimon cannot read this table: it looks for DATE/TIMESTAMP partition directories
    # under its own str() names, not Java's escaped ones we write; docs/format-notes.md.)
    # A value the key's type cannot hold exactly is refused, not rounded.
    with pytest.raises(ValueError, match="is not exactly a timestamp"):
        table.new_batch_write_builder().overwrite(
            {"ts": pd_timestamp_ns(ts)})
    with pytest.raises(ValueError, match="not a valid decimal"):
        table.new_batch_write_builder().overwrite({"m": "1.505"})


def pd_timestamp_ns(ts):
    """A timestamp one nanosecond past ``ts`` (more digits than TIMESTAMP(6) holds)."""
    pd = pytest.importorskip("pandas")
    return pd.Timestamp(ts) + pd.Timedelta(1, "ns")


def test_dynamic_overwrite_matches_pypaimons_null_partition_bytes(warehouse, oracle):
    """pypaimon writes a null TIMESTAMP(6) partition value with other BinaryRow bytes than
    we and Java do: the dynamic overwrite still replaces that partition (matched by value)."""
    schema = pa.schema([("id", pa.int64()), ("ts", pa.timestamp("us"))])
    oracle.run(oracle.create_table_cmd(warehouse, "db.n", schema, partition_keys=["ts"],
                                       options=DE))
    oracle.write(warehouse, "db.n", pa.table({"id": [1, 2], "ts": pa.array(
        [None, 1_700_000_000_000_000], pa.timestamp("us"))}))
    table = _catalog(warehouse).get_table("db.n")
    builder = table.new_batch_write_builder().overwrite()
    write = builder.new_write()
    write.write_arrow(pa.table({"id": [10], "ts": pa.array([None], pa.timestamp("us"))}))
    builder.new_commit().commit(write.prepare_commit())
    theirs = oracle.read(warehouse, "db.n", projection=["id"])
    assert sorted(theirs["id"].to_pylist()) == [2, 10]


def test_overwrite_of_a_blob_table(warehouse, oracle):
    from paimon_rowid import Schema
    schema = pa.schema([("id", pa.int64()), ("dt", pa.string()), ("pic", pa.large_binary())])
    catalog = _catalog(warehouse)
    catalog.create_table("db.b", Schema.from_pyarrow_schema(
        schema, partition_keys=["dt"], options=STATIC), False)
    table = catalog.get_table("db.b")

    def write(rows, spec=False):
        builder = table.new_batch_write_builder()
        if spec is not False:
            builder.overwrite(spec)
        w = builder.new_write()
        w.write_arrow(pa.Table.from_pylist(rows, schema))
        return builder.new_commit().commit(w.prepare_commit())

    write([{"id": i, "dt": "a" if i < 3 else "b", "pic": bytes([i]) * 100} for i in range(5)])
    write([{"id": 9, "dt": "a", "pic": b"new" * 50}], {"dt": "a"})
    entries = oracle.run({"cmd": "entries", "warehouse": warehouse, "identifier": "db.b",
                          "delta": True})
    deleted = [e["file_name"] for e in entries if e["kind"] == 1]
    assert any(n.endswith(".blob") for n in deleted) and len(deleted) == 2
    theirs = oracle.read(warehouse, "db.b", projection=["_ROW_ID", "id", "pic"])
    rb = table.new_read_builder().with_projection(["_ROW_ID", "id", "pic"])
    ours = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert sorted(theirs.to_pylist(), key=lambda r: r["_ROW_ID"]) == \
        sorted(ours.to_pylist(), key=lambda r: r["_ROW_ID"])
    assert sorted((r["_ROW_ID"], r["id"]) for r in ours.to_pylist()) == [(3, 3), (4, 4), (5, 9)]


def test_first_commit_can_be_an_overwrite_and_carries_snapshot_properties(warehouse):
    """overwrite({}) with no data on a table with no snapshot makes snapshot 1 (pypaimon
    does too); commit's second argument is pypaimon's snapshot_properties."""
    table = _create(warehouse, keys=(), options=DE)
    assert table.new_batch_write_builder().overwrite({}).new_commit().commit([]) == 1
    snap = _snapshot(warehouse)
    assert (snap["commitKind"], snap["totalRecordCount"], snap["nextRowId"]) == ("OVERWRITE", 0, 0)
    builder = table.new_batch_write_builder()
    write = builder.new_write()
    write.write_arrow(BASE)
    assert builder.new_commit().commit(write.prepare_commit(), {"job": "nightly"}) == 2
    assert _snapshot(warehouse)["properties"] == {"job": "nightly"}
    with pytest.raises(TypeError, match="snapshot_properties"):
        table.new_batch_write_builder().new_commit().commit([], {"n": 1})
