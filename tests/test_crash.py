"""Crash safety: a writer killed with SIGKILL at every point of a commit never corrupts the
table. Each case runs a writer process that kills itself at a named fault point of the
committer (C++ ``FaultPoint``, armed in that process only through the test-only
``_native._arm_crash_point``), then checks from a fresh process that the table reads, that
its snapshot is either fully there or not there at all, and that later commits succeed with
unique, contiguous row ids."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pyarrow as pa
import pytest

pytestmark = pytest.mark.native

POINTS = ["before_manifest", "after_manifest", "after_manifest_lists", "after_snapshot",
          "after_latest"]

WRITER = textwrap.dedent("""
    import sys, pyarrow as pa
    from paimon_rowid import CatalogFactory
    from paimon_rowid._internal._lib import native
    from paimon_rowid.row_id_jobs import update_by_row_id
    wh, kind, start, crash_at = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    native()._arm_crash_point(crash_at)
    if kind == "append":
        t = CatalogFactory.create({"warehouse": wh}).get_table("db.t")
        wb = t.new_batch_write_builder()
        w, c = wb.new_write(), wb.new_commit()
        w.write_arrow(pa.table({"id": pa.array(range(start, start + 10), pa.int64()),
                                "v": pa.array([0] * 10, pa.int64())}))
        c.commit(w.prepare_commit())
    else:
        update_by_row_id("db.t", pa.table({"_ROW_ID": [1, 12], "v": [start, start]}),
                         {"warehouse": wh}, update_cols=["v"])
""")


def _writer(wh, kind, start, crash_at=None):
    import paimon_rowid
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(paimon_rowid.__file__))
    return subprocess.run([sys.executable, "-c", WRITER, wh, kind, str(start), crash_at or ""],
                          env=env, capture_output=True, text=True, timeout=120)


def _read(wh):
    from paimon_rowid import CatalogFactory
    t = CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    rb = t.new_read_builder().with_projection(["_ROW_ID", "id", "v"])
    return t, rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("_ROW_ID")


@pytest.fixture
def table(warehouse):
    from paimon_rowid import CatalogFactory, Schema
    c = CatalogFactory.create({"warehouse": warehouse})
    c.create_database("db", True)
    c.create_table("db.t", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("v", pa.int64())]),
        options={"row-tracking.enabled": "true", "data-evolution.enabled": "true"}), False)
    for start in (0, 10):
        assert _writer(warehouse, "append", start).returncode == 0
    return warehouse


@pytest.mark.parametrize("kind", ["append", "update"])
@pytest.mark.parametrize("point", POINTS)
def test_sigkill_during_commit(table, kind, point):
    before, rows_before = _read(table)
    snap_before = before.latest_snapshot()["id"]
    run = _writer(table, kind, 100, crash_at=point)
    assert run.returncode == -signal.SIGKILL, run.stderr
    t, rows = _read(table)
    snap = t.latest_snapshot()["id"]
    landed = point in ("after_snapshot", "after_latest")
    assert snap == (snap_before + 1 if landed else snap_before)
    if kind == "append":
        assert rows.num_rows == rows_before.num_rows + (10 if landed else 0)
    else:
        v = dict(zip(rows["_ROW_ID"].to_pylist(), rows["v"].to_pylist()))
        assert (v[1], v[12]) == ((100, 100) if landed else (0, 0))
    # The table keeps working: another append lands with contiguous row ids.
    assert _writer(table, "append", 200).returncode == 0
    t, rows = _read(table)
    ids = rows["_ROW_ID"].to_pylist()
    assert ids == list(range(len(ids)))
    assert t.latest_snapshot()["nextRowId"] == len(ids)


# The source is a stream that ends only once every updater has read its rows: an update pins
# its base snapshot before reading its source, so all updaters plan on the same snapshot and
# then race to commit (a barrier of marker files; no test hook in the engine).
UPDATER = textwrap.dedent("""
    import os, sys, time, pyarrow as pa
    from paimon_rowid.row_id_jobs import update_by_row_id
    wh, ids, value = sys.argv[1], [int(i) for i in sys.argv[2].split(",")], int(sys.argv[3])
    barrier, parties = sys.argv[4], int(sys.argv[5])
    rows = pa.record_batch({"_ROW_ID": pa.array(ids, pa.int64()), "v": [value] * len(ids)})
    def source():
        yield rows
        open(os.path.join(barrier, str(os.getpid())), "w").close()
        deadline = time.monotonic() + 60
        while len(os.listdir(barrier)) < parties and time.monotonic() < deadline:
            time.sleep(0.01)
    update_by_row_id("db.t", pa.RecordBatchReader.from_batches(rows.schema, source()),
                     {"warehouse": wh}, update_cols=["v"])
""")


def _updaters(wh, jobs):
    import tempfile

    import paimon_rowid
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(paimon_rowid.__file__))
    with tempfile.TemporaryDirectory() as barrier:
        procs = [subprocess.Popen([sys.executable, "-c", UPDATER, wh, ids, str(value), barrier,
                                   str(len(jobs))], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
                 for ids, value in jobs]
        return [(p.wait(timeout=120), p.stderr.read()) for p in procs]


def test_two_processes_update_disjoint_rows_of_one_group(table):
    """Same column, same group, other rows: the loser rebases, both land."""
    results = _updaters(table, [("1,2", 7), ("5,6", 8)])
    assert [rc for rc, _ in results] == [0, 0], results
    _, rows = _read(table)
    v = dict(zip(rows["_ROW_ID"].to_pylist(), rows["v"].to_pylist()))
    assert (v[1], v[2], v[5], v[6], v[3]) == (7, 7, 8, 8, 0)


def test_two_processes_update_the_same_row(table):
    """Same row and column: exactly one lands, the other fails clearly and leaves nothing."""
    results = _updaters(table, [("3", 7), ("3", 8)])
    codes = sorted(rc for rc, _ in results)
    assert codes[0] == 0 and codes[1] != 0, results
    failed = [err for rc, err in results if rc != 0][0]
    assert "CommitConflictException" in failed and "same rows" in failed
    t, rows = _read(table)
    assert t.latest_snapshot()["id"] == 3  # two appends + the one update that won
