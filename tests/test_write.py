"""The write API (paimon_rowid.write) and its compatibility with pypaimon, both ways, on one
warehouse: tables we write read identically in pypaimon (rows, _ROW_ID, _SEQUENCE_NUMBER);
pypaimon appends and partial-column updates on top of our commits read identically in ours;
interleaved commits keep row ids unique and contiguous. Plus cross-process concurrency and
the error paths (nothing is left behind)."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import List, Optional

import pyarrow as pa
import pytest

import de_tables

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SIMPLE = pa.schema([pa.field("id", pa.int64(), nullable=False), ("name", pa.string()),
                    ("score", pa.float64()), ("dt", pa.string())])
SYS = ["_ROW_ID", "_SEQUENCE_NUMBER"]


def _catalog(warehouse):
    from paimon_rowid import CatalogFactory
    return CatalogFactory.create({"warehouse": warehouse})


def _create(warehouse, name="t", schema=SIMPLE, partition_keys=None, options=None):
    from paimon_rowid import Schema
    catalog = _catalog(warehouse)
    catalog.create_database("db", True)
    catalog.create_table(f"db.{name}", Schema.from_pyarrow_schema(
        schema, partition_keys=partition_keys, options=dict(DE if options is None else options)),
        False)
    return catalog.get_table(f"db.{name}")


def _simple_rows(start: int, count: int, dts=("a", "b", "c")) -> pa.Table:
    ids = list(range(start, start + count))
    return pa.table({"id": ids, "name": [f"n{i}" for i in ids],
                     "score": [i / 4 for i in ids], "dt": [dts[i % len(dts)] for i in ids]},
                    schema=SIMPLE)


def _write(table, data, write_cols=None) -> Optional[int]:
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    if write_cols is not None:
        write.with_write_type(write_cols)
    write.write_arrow(data)
    snapshot = commit.commit(write.prepare_commit())
    write.close()
    commit.close()
    return snapshot


def _read(table, columns: Optional[List[str]] = None) -> pa.Table:
    builder = table.new_read_builder()
    if columns is not None:
        builder = builder.with_projection(columns)
    result = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return result.sort_by("_ROW_ID") if "_ROW_ID" in result.column_names else result


def _oracle_read(oracle, warehouse, identifier, columns) -> pa.Table:
    result = oracle.read(warehouse, identifier, projection=columns)
    return result.sort_by("_ROW_ID") if "_ROW_ID" in result.column_names else result


def _assert_same(ours: pa.Table, theirs: pa.Table) -> None:
    assert ours.num_rows == theirs.num_rows
    theirs = theirs.select(ours.column_names)
    assert ours.to_pylist() == theirs.to_pylist()


def _files(path) -> List[str]:
    root = Path(path)
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


# -- the API itself ---------------------------------------------------------------------------

def test_roundtrip_row_ids_and_sequence_numbers(warehouse):
    table = _create(warehouse)
    assert _write(table, _simple_rows(0, 100)) == 1
    assert _write(table, _simple_rows(100, 50)) == 2
    got = _read(table, SIMPLE.names + SYS)
    assert got.column("id").to_pylist() == list(range(150))
    assert got.column("_ROW_ID").to_pylist() == list(range(150))
    assert got.column("_SEQUENCE_NUMBER").to_pylist() == [1] * 100 + [2] * 50
    snap = table.latest_snapshot()
    assert snap["nextRowId"] == 150 and snap["totalRecordCount"] == 150
    assert snap["commitKind"] == "APPEND" and snap["writerVersion"] == "paimon-rowid 0.1.0"
    assert snap["commitIdentifier"] == 9223372036854775807


def test_one_time_prepare_and_commit(warehouse):
    table = _create(warehouse)
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow_batch(_simple_rows(0, 3).to_batches()[0])
    messages = write.prepare_commit()
    with pytest.raises(RuntimeError, match="BatchTableWrite only supports one-time committing."):
        write.prepare_commit()
    assert commit.commit(messages) == 1
    with pytest.raises(RuntimeError, match="BatchTableCommit only supports one-time committing."):
        commit.commit(messages)
    # Empty messages make no snapshot.
    assert table.new_batch_write_builder().new_commit().commit([]) is None
    assert table.latest_snapshot()["id"] == 1


def test_inputs_pandas_stream_and_cast(warehouse):
    pd = pytest.importorskip("pandas")
    table = _create(warehouse)
    builder = table.new_batch_write_builder()
    write = builder.new_write()
    write.write_pandas(pd.DataFrame({"id": [1, 2], "name": ["x", "y"], "score": [0.5, 1.5],
                                     "dt": ["a", "a"]}))

    class StreamOnly:  # any object speaking the Arrow PyCapsule stream protocol
        def __init__(self, data):
            self._data = data

        def __arrow_c_stream__(self, requested_schema=None):
            return self._data.__arrow_c_stream__(requested_schema)

    # int32 ids and reordered columns are cast / matched by name.
    data = pa.table({"dt": ["b"], "score": [2.5], "name": ["z"],
                     "id": pa.array([3], pa.int32())})
    write.write(StreamOnly(data))
    builder.new_commit().commit(write.prepare_commit())
    write.close()
    got = _read(table, ["id", "name", "dt"] + SYS)
    assert got.column("id").to_pylist() == [1, 2, 3]
    assert got.column("_ROW_ID").to_pylist() == [0, 1, 2]


def test_pickled_messages_commit_and_abort(warehouse):
    table = _create(warehouse)
    builder = table.new_batch_write_builder()
    write = builder.new_write()
    write.write_arrow(_simple_rows(0, 10))
    messages = pickle.loads(pickle.dumps(write.prepare_commit()))
    assert sum(m.row_count for m in messages) == 10
    assert builder.new_commit().commit(messages) == 1
    # abort(messages) deletes the files of messages that are not committed.
    before = _files(table.path)
    other = table.new_batch_write_builder()
    w2 = other.new_write()
    w2.write_arrow(_simple_rows(10, 10))
    msgs2 = w2.prepare_commit()
    assert _files(table.path) != before
    other.new_commit().abort(msgs2)
    assert _files(table.path) == before
    # close() without prepare_commit deletes what was written.
    w3 = table.new_batch_write_builder().new_write()
    w3.write_arrow(_simple_rows(20, 10))
    w3.close()
    assert _files(table.path) == before


def test_partial_column_append(warehouse):
    table = _create(warehouse)
    _write(table, _simple_rows(0, 4))
    _write(table, pa.table({"id": [10, 11], "score": [1.0, 2.0]}), write_cols=["id", "score"])
    got = _read(table, SIMPLE.names + SYS)
    assert got.column("_ROW_ID").to_pylist() == list(range(6))
    assert got.column("name").to_pylist()[4:] == [None, None]
    assert got.column("score").to_pylist()[4:] == [1.0, 2.0]


def test_create_table_validation(warehouse):
    from paimon_rowid import Schema
    catalog = _catalog(warehouse)
    catalog.create_database("db", True)
    with pytest.raises(ValueError, match="bucket"):
        catalog.create_table("db.b", Schema.from_pyarrow_schema(
            SIMPLE, options={**DE, "bucket": "2"}), False)
    with pytest.raises(ValueError, match="row-tracking"):
        catalog.create_table("db.c", Schema.from_pyarrow_schema(
            SIMPLE, options={"data-evolution.enabled": "true"}), False)
    with pytest.raises(ValueError, match="_ROW_ID"):
        catalog.create_table("db.d", Schema.from_pyarrow_schema(
            pa.schema([("_ROW_ID", pa.int64()), ("x", pa.int32())]), options=DE), False)
    with pytest.raises(ValueError, match="BLOB columns require"):
        catalog.create_table("db.e", Schema.from_pyarrow_schema(
            pa.schema([("id", pa.int64()), ("pic", pa.large_binary())])), False)
    # pypaimon: BLOB only top-level, in ARRAY<BLOB> or as a MAP value (ValueError at create).
    for i, nested in enumerate([pa.list_(pa.list_(pa.large_binary())),
                                pa.struct([("b", pa.large_binary())]),
                                pa.map_(pa.string(), pa.list_(pa.large_binary()))]):
        with pytest.raises(ValueError, match="unsupported nested BLOB type"):
            catalog.create_table(f"db.n{i}", Schema.from_pyarrow_schema(
                pa.schema([("id", pa.int64()), ("pics", nested)]), options=DE), False)
    assert catalog.list_tables("db") == []


# -- error paths: exception type, no new snapshot, no new files --------------------------------

@pytest.mark.parametrize("case", ["uncastable", "missing", "null_in_not_null", "unknown"])
def test_bad_input_leaves_nothing(warehouse, case):
    table = _create(warehouse)
    _write(table, _simple_rows(0, 5))
    before = _files(table.path)
    good = _simple_rows(100, 2000)
    if case == "uncastable":
        bad = good.set_column(2, "score", pa.array([[1.0]] * good.num_rows))
        error = TypeError
    elif case == "missing":
        bad = good.drop_columns(["name"])
        error = ValueError
    elif case == "null_in_not_null":
        bad = good.set_column(0, pa.field("id", pa.int64()), pa.array([None] * good.num_rows,
                                                                        pa.int64()))
        error = ValueError
    else:
        bad = good.append_column("extra", pa.array([1] * good.num_rows))
        error = ValueError
    builder = table.new_batch_write_builder()
    write = builder.new_write()
    write.write_arrow(good)  # files exist now ...
    with pytest.raises(error):
        write.write_arrow(bad)  # ... and are deleted by the failure
    with pytest.raises(Exception):  # noqa: B017 - the writer is unusable after a failure
        write.prepare_commit()
    write.close()
    assert table.latest_snapshot()["id"] == 1
    assert _files(table.path) == before


def test_uncastable_string_value_is_type_error(warehouse):
    table = _create(warehouse)
    before = _files(table.path)
    data = pa.table({"id": ["not-a-number"], "name": ["x"], "score": [1.0], "dt": ["a"]})
    with pytest.raises(TypeError, match="Cannot cast column 'id'"):
        _write(table, data)
    assert table.latest_snapshot() is None
    assert _files(table.path) == before


# -- compatibility with pypaimon ---------------------------------------------------------------

@pytest.mark.oracle
@pytest.mark.parametrize("partitioning", sorted(de_tables.PARTITIONINGS))
def test_pypaimon_reads_what_we_write(oracle, warehouse, partitioning):
    keys = de_tables.PARTITIONINGS[partitioning]
    table = _create(warehouse, schema=de_tables.SCHEMA, partition_keys=keys)
    _write(table, de_tables.rows(0, 60, seed=1))
    _write(table, de_tables.rows(60, 45, seed=2))
    columns = de_tables.SCHEMA.names + SYS
    ours = _read(table, columns)
    if not keys:
        assert ours.column("id").to_pylist() == list(range(105))
    assert sorted(ours.column("_ROW_ID").to_pylist()) == list(range(105))
    theirs = _oracle_read(oracle, warehouse, "db.t", columns)
    _assert_same(ours, theirs)
    snap = oracle.snapshot(warehouse, "db.t")
    assert snap["id"] == 2 and snap["nextRowId"] == 105


@pytest.mark.oracle
def test_pypaimon_appends_and_updates_on_top_of_ours(oracle, warehouse):
    table = _create(warehouse, schema=de_tables.SCHEMA, partition_keys=["p_str"])
    _write(table, de_tables.rows(0, 30, seed=1))
    oracle.write(warehouse, "db.t", de_tables.rows(30, 20, seed=2))
    oracle.update_by_row_id(warehouse, "db.t",
                            de_tables.update_rows([1, 5, 33, 40], ["c_string", "c_int"], seed=3),
                            ["c_string", "c_int"])
    _write(table, de_tables.rows(50, 10, seed=4))
    columns = de_tables.SCHEMA.names + SYS
    ours = _read(table, columns)
    theirs = _oracle_read(oracle, warehouse, "db.t", columns)
    _assert_same(ours, theirs)
    assert ours.column("_ROW_ID").to_pylist() == list(range(60))
    assert max(ours.column("_SEQUENCE_NUMBER").to_pylist()) == 4
    assert table.latest_snapshot()["nextRowId"] == 60


@pytest.mark.oracle
def test_interleaved_commits_stay_consistent(oracle, warehouse):
    table = _create(warehouse)
    expected = 0
    for step in range(6):
        data = _simple_rows(expected, 7 + step)
        if step % 2 == 0:
            _write(table, data)
        else:
            oracle.write(warehouse, "db.t", data)
        expected += data.num_rows
    columns = SIMPLE.names + SYS
    ours = _read(table, columns)
    theirs = _oracle_read(oracle, warehouse, "db.t", columns)
    _assert_same(ours, theirs)
    assert ours.column("_ROW_ID").to_pylist() == list(range(expected))
    assert sorted(ours.column("id").to_pylist()) == list(range(expected))
    assert ours.column("_SEQUENCE_NUMBER").to_pylist() == sum(
        ([s + 1] * (7 + s) for s in range(6)), [])
    assert table.latest_snapshot()["nextRowId"] == expected


@pytest.mark.oracle
def test_merged_manifests_read_by_pypaimon(oracle, warehouse):
    """Once the trailing small manifests reach manifest.merge-min-count they are folded into
    one (docs/format.md §3.4); pypaimon reads such snapshots, and appends and updates on top of
    them, exactly like ours, and the base manifest lists stay short."""
    from paimon_rowid.row_id_jobs import update_by_row_id
    table = _create(warehouse, options={**DE, "manifest.merge-min-count": "4"})
    expected = 0
    for _ in range(9):
        _write(table, _simple_rows(expected, 3))
        expected += 3
    update_by_row_id("db.t", pa.table({"_ROW_ID": [1, 13, 25], "name": ["u1", "u13", "u25"]}),
                     {"warehouse": warehouse}, update_cols=["name"])
    oracle.write(warehouse, "db.t", _simple_rows(expected, 5))
    expected += 5
    _write(table, _simple_rows(expected, 2))
    expected += 2
    columns = SIMPLE.names + SYS
    ours = _read(table, columns)
    _assert_same(ours, _oracle_read(oracle, warehouse, "db.t", columns))
    assert ours.column("_ROW_ID").to_pylist() == list(range(expected))
    names = ours.column("name").to_pylist()
    assert (names[1], names[13], names[25], names[2]) == ("u1", "u13", "u25", "n2")
    files = oracle.files(warehouse, "db.t")
    assert files["snapshot_id"] == 12
    # Without merging the latest snapshot would list 11 base manifests.
    assert len(files["base_manifests"]) < 4, files
    assert sorted(files["data_files"]) == sorted(set(files["data_files"]))


@pytest.mark.oracle
def test_pypaimon_filters_on_our_value_stats(oracle, warehouse):
    """Plain append table (no data evolution): pypaimon decodes our value stats to prune."""
    schema = pa.schema([f for f in de_tables.SCHEMA
                        if not pa.types.is_nested(f.type)])
    table = _create(warehouse, schema=schema, options={"row-tracking.enabled": "true"})
    _write(table, de_tables.rows(0, 40, seed=1).select(schema.names))
    _write(table, de_tables.rows(40, 40, seed=2).select(schema.names))
    for spec, expect in ((["greater_or_equal", "id", [40]], 40),
                         (["less_than", "id", [10]], 10)):
        got = oracle.read(warehouse, "db.t", projection=["id"], filter=spec)
        assert got.num_rows == expect
    theirs = oracle.read(warehouse, "db.t", projection=schema.names)
    ours = _read(table, schema.names)
    _assert_same(ours.sort_by("id"), theirs.sort_by("id"))


# -- concurrency -------------------------------------------------------------------------------

_APPENDER = textwrap.dedent("""
    import sys
    import pyarrow as pa
    from paimon_rowid import CatalogFactory
    warehouse = sys.argv[1]
    worker, commits, rows = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    table = CatalogFactory.create({"warehouse": warehouse}).get_table("db.t")
    for c in range(commits):
        first = (worker * commits + c) * rows
        ids = list(range(first, first + rows))
        data = pa.table({"id": ids, "name": [f"w{worker}" for _ in ids],
                         "score": [float(c)] * rows, "dt": ["x"] * rows})
        builder = table.new_batch_write_builder()
        write, commit = builder.new_write(), builder.new_commit()
        write.write_arrow(data)
        commit.commit(write.prepare_commit())
        write.close()
""")


@pytest.mark.slow
def test_concurrent_appenders(warehouse):
    workers, commits, rows = 4, 25, 10
    table = _create(warehouse)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    procs = [subprocess.Popen([sys.executable, "-c", _APPENDER, warehouse, str(w), str(commits),
                               str(rows)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for w in range(workers)]
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-3000:]
    total = workers * commits * rows
    snap = table.latest_snapshot()
    assert snap["id"] == workers * commits
    assert snap["nextRowId"] == total and snap["totalRecordCount"] == total
    got = _read(table, ["id"] + SYS)
    assert got.column("_ROW_ID").to_pylist() == list(range(total))
    assert sorted(got.column("id").to_pylist()) == list(range(total))
    assert len(set(got.column("_SEQUENCE_NUMBER").to_pylist())) == workers * commits
    # Every snapshot exists; no manifest of a lost race is left behind.
    snapshots = [f for f in os.listdir(Path(table.path) / "snapshot") if f.startswith("snapshot-")]
    assert len(snapshots) == workers * commits
    manifests = os.listdir(Path(table.path) / "manifest")
    lists = [m for m in manifests if m.startswith("manifest-list-")]
    assert len(lists) == 2 * workers * commits
    # One manifest per commit, plus one each time the trailing run of small manifests of a
    # base list reaches manifest.merge-min-count (30) and is merged: snapshots 31, 60, 89.
    merges, run = 0, 0
    for _snapshot_id in range(2, workers * commits + 1):
        run += 1  # the previous snapshot's delta manifest joins the base list
        if run >= 30:
            merges, run = merges + 1, 1
    assert len(manifests) - len(lists) == workers * commits + merges


@pytest.mark.slow
def test_concurrent_with_pypaimon_never_loses_our_commits(oracle, warehouse):
    """3 of our appenders and 1 pypaimon appender on one table. pypaimon creates snapshots
    with check-then-rename, which can replace one of ours; our committer reads its snapshot
    back and commits again when that happens, so every one of our rows lands exactly once."""
    import threading
    workers, commits, rows = 3, 12, 10
    table = _create(warehouse)
    theirs_first = 100_000
    cmds = [oracle.write_cmd(warehouse, "db.t", pa.table({
        "id": pa.array(range(theirs_first + c * rows, theirs_first + (c + 1) * rows), pa.int64()),
        "name": ["pypaimon"] * rows, "score": [1.0] * rows, "dt": ["x"] * rows}))
        for c in range(commits)]
    results = {}
    thread = threading.Thread(target=lambda: results.update(r=oracle.run_batch(cmds)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    procs = [subprocess.Popen([sys.executable, "-c", _APPENDER, warehouse, str(w), str(commits),
                               str(rows)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for w in range(workers)]
    thread.start()
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-3000:]
    thread.join(timeout=600)
    got = _read(table, ["id"] + SYS)
    ids = got.column("id").to_pylist()
    ours = [i for i in ids if i < theirs_first]
    assert sorted(ours) == list(range(workers * commits * rows))  # none lost, none twice
    assert len(set(got.column("_ROW_ID").to_pylist())) == got.num_rows  # row ids unique
    landed = [r for r in results["r"] if not isinstance(r, Exception)]
    assert landed, "pypaimon did not commit at all: the test would prove nothing"
    assert any(i >= theirs_first for i in ids)


def test_tags_read_by_pypaimon(oracle, warehouse):
    """Tags we create read identically in pypaimon (time travel by tag)."""
    table = _create(warehouse)
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(pa.table({"id": [1, 2], "name": ["a", "b"], "score": [1.0, 2.0],
                                "dt": ["x", "x"]}))
    commit.commit(write.prepare_commit())
    table.create_tag("v1")
    with pytest.raises(ValueError, match="already exists"):
        table.create_tag("v1")
    table.create_tag("v1", ignore_if_exists=True)
    with pytest.raises(ValueError, match="doesn't exist"):
        table.create_tag("v9", snapshot_id=9)
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(pa.table({"id": [3], "name": ["c"], "score": [3.0], "dt": ["x"]}))
    commit.commit(write.prepare_commit())
    assert table.list_tags() == ["v1"]
    theirs = oracle.read(warehouse, "db.t", projection=["id"], tag="v1")
    ours = _read(table.copy({"scan.tag-name": "v1"}), ["id"])
    assert sorted(theirs["id"].to_pylist()) == sorted(ours["id"].to_pylist()) == [1, 2]
    assert table.delete_tag("v1") and not table.delete_tag("v1")


def test_snapshot_is_a_typed_native_object(warehouse):
    table = _create(warehouse)
    assert table.latest_snapshot() is None
    _write(table, _simple_rows(0, 100))
    _write(table, _simple_rows(100, 50))
    snap = table.latest_snapshot()
    # pypaimon's attribute names, read-only.
    assert (snap.id, snap.schema_id, snap.commit_kind) == (2, 0, "APPEND")
    assert snap.total_record_count == 150 and snap.delta_record_count == 50
    assert snap.next_row_id == 150 and snap.properties == {}
    assert snap.commit_identifier == 9223372036854775807 and snap.time_millis > 0
    assert snap.commit_user and snap.watermark is None
    with pytest.raises(AttributeError):
        snap.id = 3
    # The Java JSON key names keep working: absent keys are KeyError / the default.
    assert snap["totalRecordCount"] == 150 and snap.get("watermark", -1) == -1
    assert "properties" not in snap and "id" in snap
    with pytest.raises(KeyError):
        snap["properties"]
    first = table.snapshot(1)
    assert first.id == 1 and first.next_row_id == 100 and first != snap
    assert table.copy({"scan.snapshot-id": "1"}).resolve_snapshot() == first
    assert pickle.loads(pickle.dumps(snap)) == snap
    with pytest.raises(ValueError, match="Snapshot id '7' doesn't exist."):
        table.snapshot(7)
