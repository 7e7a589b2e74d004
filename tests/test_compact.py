"""Data-evolution compaction, embedded and from the CLI (``paimon_rowid.compact``; Ray in
tests/test_ray_compact.py): after many partial-column updates every file group is one file
again, every reader (ours, pypaimon, Java) reads what it read before, row ids never move,
concurrent updates are never lost, and every refused call leaves the table untouched."""
from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pytest

import ours
from de_tables import build
from java_compat_table import assert_same_rows, our_read
from test_cli import _cli

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("x", pa.float64()),
                    ("name", pa.string()), ("p", pa.string())])


def _opts(warehouse):
    return {"warehouse": str(warehouse)}


def _make(warehouse, name="t", groups=3, rows=40, partition_keys=None, options=DE):
    table = ours.create_table(warehouse, name, SCHEMA, dict(options), partition_keys)
    for g in range(groups):
        ids = np.arange(g * rows, (g + 1) * rows)
        ours.write(table, pa.table({"id": ids, "x": ids * 0.5, "name": [f"n{i}" for i in ids],
                                    "p": [["a", "b"][i % 2] for i in ids]}, schema=SCHEMA))
    return table


def _update(warehouse, ids, column, values, name="t"):
    from paimon_rowid import update_by_row_id
    data = pa.table({"_ROW_ID": pa.array(ids, pa.int64()),
                     column: pa.array(values, SCHEMA.field(column).type)})
    update_by_row_id(f"db.{name}", data, _opts(warehouse), update_cols=[column])


def _read(warehouse, name="t"):
    table = ours.catalog(warehouse).get_table(f"db.{name}")
    builder = table.new_read_builder().with_projection(
        ["id", "x", "name", "p", "_ROW_ID", "_SEQUENCE_NUMBER"])
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("_ROW_ID")


def _normal_files_per_group(warehouse, name="t"):
    """Normal (non-.blob) live files per file group of the latest snapshot, sorted."""
    from paimon_rowid._internal._lib import native
    table = ours.catalog(warehouse).get_table(f"db.{name}")
    _, multi, total = native().plan_compaction(table._native, True, None)
    single = total - len(multi)
    counts = [1] * single
    for split in multi:
        counts.append(sum(1 for p in split.file_paths if not p.endswith(".blob")))
    return sorted(counts)


def _snapshot(warehouse, name="t"):
    return ours.catalog(warehouse).get_table(f"db.{name}").latest_snapshot()


def test_fifty_updates_then_compaction_reads_the_same_everywhere(warehouse, oracle, java):
    from paimon_rowid import compact
    _make(warehouse, partition_keys=["p"])
    rng = np.random.default_rng(7)
    for u in range(50):
        ids = sorted(rng.choice(120, 12, replace=False).tolist())
        _update(warehouse, ids, "x", [float(u * 1000 + i) for i in ids])
    before = _read(warehouse)
    theirs_before = oracle.read(warehouse, "db.t", projection=["id", "x", "name", "p", "_ROW_ID"])
    assert max(_normal_files_per_group(warehouse)) > 5

    result = compact("db.t", _opts(warehouse))
    assert result["snapshot_id"] == 54 and result["attempts"] == 1
    assert result["groups_compacted"] == result["groups_total"] == 6  # 3 commits x 2 partitions
    assert result["files_written"] == 6 and result["rows_rewritten"] == 120
    assert result["files_removed"] > 50 and result["bytes_written"] < result["bytes_before"]
    assert _normal_files_per_group(warehouse) == [1] * 6
    assert _snapshot(warehouse).commit_kind == "COMPACT"

    after = _read(warehouse)
    assert after.equals(before)  # values, row ids and sequence numbers
    theirs_after = oracle.read(warehouse, "db.t", projection=["id", "x", "name", "p", "_ROW_ID"])
    key = [("_ROW_ID", "ascending")]
    assert theirs_after.sort_by(key).equals(theirs_before.sort_by(key))
    assert theirs_after.sort_by(key).equals(before.select(theirs_after.column_names))
    names, rows = our_read(warehouse, "db.t", projection=["id", "x", "name", "p", "_ROW_ID"])
    assert_same_rows(names, rows, java.dump(warehouse, "db.t",
                                            projection=["id", "x", "name", "p", "_ROW_ID"]),
                     "java after our compaction")

    # The compacted table takes updates from both engines, and both read them.
    _update(warehouse, [3, 77], "name", ["ours-3", "ours-77"])
    oracle.update_by_row_id(warehouse, "db.t", pa.table(
        {"_ROW_ID": pa.array([4], pa.int64()), "x": pa.array([-4.0])}), ["x"])
    got = {r["_ROW_ID"]: r for r in _read(warehouse).to_pylist()}
    assert got[3]["name"] == "ours-3" and got[77]["name"] == "ours-77" and got[4]["x"] == -4.0
    theirs = oracle.read(warehouse, "db.t", projection=["id", "x", "name", "p", "_ROW_ID"])
    assert theirs.sort_by(key).equals(_read(warehouse).select(theirs.column_names))


def test_compaction_of_a_pypaimon_table(warehouse, oracle):
    from paimon_rowid import compact
    build(oracle, warehouse, "db.py", ["p_str"])
    cols = ["id", "c_int", "c_string", "c_double", "c_array", "c_map", "c_row", "c_ltz",
            "_ROW_ID"]
    key = [("_ROW_ID", "ascending")]
    before = oracle.read(warehouse, "db.py", projection=cols).sort_by(key)
    result = compact("db.py", _opts(warehouse), full=True)
    assert result["snapshot_id"] is not None and result["groups_compacted"] > 0
    assert oracle.read(warehouse, "db.py", projection=cols).sort_by(key).equals(before)
    table = ours.catalog(warehouse).get_table("db.py")
    builder = table.new_read_builder().with_projection(cols)
    mine = builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by(key)
    assert mine.to_pylist() == before.to_pylist()
    # Tags made before the compaction still read their old snapshot.
    old = oracle.read(warehouse, "db.py", projection=cols, tag="t_after_write2")
    assert old.num_rows == 70


def test_thresholds(warehouse):
    from paimon_rowid import compact
    _make(warehouse, groups=2)
    for u in range(3):
        _update(warehouse, [1, 2], "x", [float(u), float(u)])  # group 0: 4 normal files
    assert compact("db.t", _opts(warehouse))["snapshot_id"] is None  # default min 5
    assert compact("db.t", _opts(warehouse), min_file_num=5)["groups_compacted"] == 0
    done = compact("db.t", _opts(warehouse), min_file_num=4)
    assert done["groups_compacted"] == 1 and done["groups_total"] == 2
    _update(warehouse, [50], "x", [1.0])
    assert compact("db.t", _opts(warehouse), full=True)["groups_compacted"] == 1
    assert _normal_files_per_group(warehouse) == [1, 1]


def test_table_option_sets_the_threshold(warehouse):
    from paimon_rowid import compact
    _make(warehouse, groups=1, options={**DE, "compaction.min.file-num": "2"})
    _update(warehouse, [1], "x", [9.0])
    assert compact("db.t", _opts(warehouse))["groups_compacted"] == 1


def test_update_planned_before_a_compaction_lands_after_it(warehouse):
    from paimon_rowid import compact
    _make(warehouse, groups=1)
    for u in range(5):
        _update(warehouse, [1], "x", [float(u)])
    table = ours.catalog(warehouse).get_table("db.t")
    builder = table.new_batch_write_builder()
    messages = builder.new_update().with_update_type(["name"]).update_by_arrow_with_row_id(
        pa.table({"_ROW_ID": pa.array([1, 2], pa.int64()), "name": ["late-1", "late-2"]}))
    assert compact("db.t", _opts(warehouse), full=True)["snapshot_id"] == 7
    assert builder.new_commit().commit(messages) == 8
    got = {r["_ROW_ID"]: r for r in _read(warehouse).to_pylist()}
    assert got[1]["name"] == "late-1" and got[1]["x"] == 4.0 and got[2]["name"] == "late-2"


def test_blob_tables_keep_their_blob_files(warehouse, oracle):
    from paimon_rowid import compact, read_by_row_id
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("x", pa.float64()),
                        ("img", pa.large_binary())])
    table = ours.create_table(warehouse, "b", schema,
                              {**DE, "blob-field": "img"})
    payloads = [os.urandom(100 + i) for i in range(20)]
    ours.write(table, pa.table({"id": pa.array(range(20), pa.int64()),
                                "x": pa.array([0.0] * 20),
                                "img": pa.array(payloads, pa.large_binary())}, schema=schema))
    from paimon_rowid import update_by_row_id
    for u in range(3):
        update_by_row_id("db.b", pa.table({"_ROW_ID": pa.array([2, 5], pa.int64()),
                                           "x": pa.array([u + 1.0, u + 2.0])}),
                         _opts(warehouse), update_cols=["x"])
    result = compact("db.b", _opts(warehouse), full=True)
    assert result["groups_compacted"] == 1 and result["files_removed"] == 4
    got = read_by_row_id("db.b", pa.table({"_ROW_ID": pa.array([2, 5, 7], pa.int64())}),
                         _opts(warehouse), projection=["x", "img"]).sort_by("_ROW_ID")
    assert got.column("x").to_pylist() == [3.0, 4.0, 0.0]
    assert got.column("img").to_pylist() == [payloads[2], payloads[5], payloads[7]]
    theirs = oracle.read(warehouse, "db.b", projection=["id", "x", "img", "_ROW_ID"])
    assert theirs.sort_by("_ROW_ID").column("img").to_pylist() == payloads


@pytest.mark.parametrize("case", ["no_data_evolution", "bad_min", "bad_type", "bad_full",
                                  "missing_table", "blob_compaction"])
def test_refused_calls_leave_nothing_behind(warehouse, case):
    from paimon_rowid import TableNotExistException, compact
    _make(warehouse, groups=1)
    for u in range(5):
        _update(warehouse, [1], "x", [float(u)])
    _make(warehouse, name="plain", groups=1, options={"row-tracking.enabled": "true"})
    _make(warehouse, name="bc", groups=1, options={**DE, "blob-compaction.enabled": "true"})
    _update(warehouse, [1], "x", [1.0], name="bc")
    before = ours.files(warehouse)
    target, kwargs, error = {
        "no_data_evolution": ("db.plain", {}, ValueError),
        "bad_min": ("db.t", {"min_file_num": 1}, ValueError),
        "bad_type": ("db.t", {"min_file_num": "5"}, TypeError),
        "bad_full": ("db.t", {"full": "yes"}, TypeError),
        "missing_table": ("db.nope", {}, TableNotExistException),
        "blob_compaction": ("db.bc", {"full": True}, NotImplementedError),
    }[case]
    with pytest.raises(error) as raised:
        compact(target, _opts(warehouse), **kwargs)
    assert str(raised.value)
    assert ours.files(warehouse) == before
    assert _snapshot(warehouse).id == 6


def test_cli_compact(warehouse):
    _make(warehouse, groups=2)
    for u in range(5):
        _update(warehouse, [1, 41], "x", [float(u), float(u)])
    before = _read(warehouse)
    out = _cli(warehouse, "compact", "db.t", "--min-file-num", "7")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:2] == ["snapshot: none", "file groups compacted: 0 of 2"]
    out = _cli(warehouse, "compact", "db.t")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:2] == ["snapshot: 8", "file groups compacted: 2 of 2"]
    assert lines[2].startswith("files replaced: 12 (") and lines[3].startswith("files written: 2 (")
    assert lines[4] == "rows rewritten: 80"
    assert _read(warehouse).equals(before)
    bad = _cli(warehouse, "compact", "db.t", "--min-file-num", "1")
    assert bad.returncode == 2 and "must be at least 2" in bad.stderr


def test_backfill_resumes_after_compaction_and_expiration(warehouse):
    """The COMPACT snapshot carries the backfill's resume state, so a resumed backfill skips
    the finished batches even once the snapshots that recorded them are expired."""
    from paimon_rowid import compact, expire_snapshots, process_row_id_ranges, update_by_row_id
    _make(warehouse, groups=3)
    seen = []

    def processor(ranges):
        seen.append([(r.from_, r.to) for r in ranges])
        for r in ranges:
            ids = list(range(r.from_, r.to + 1))
            update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array(ids, pa.int64()),
                                               "x": pa.array([float(-i) for i in ids])}),
                             _opts(warehouse), update_cols=["x"])

    process_row_id_ranges("db.t", _opts(warehouse), rows_per_commit=40, processor=processor,
                          resume_key="neg")
    assert len(seen) == 3
    assert compact("db.t", _opts(warehouse), full=True)["groups_compacted"] == 3
    expire_snapshots("db.t", _opts(warehouse), retain_max=1, retain_min=1,
                     older_than_ms=2**62)
    assert [s for s in range(1, 8) if _exists_snapshot(warehouse, s)] == [7]
    seen.clear()
    process_row_id_ranges("db.t", _opts(warehouse), rows_per_commit=40, processor=processor,
                          resume_key="neg")
    assert seen == []
    assert _read(warehouse).column("x").to_pylist() == [float(-i) for i in range(120)]


def _exists_snapshot(warehouse, snapshot_id):
    try:
        ours.catalog(warehouse).get_table("db.t").snapshot(snapshot_id)
        return True
    except ValueError:
        return False
