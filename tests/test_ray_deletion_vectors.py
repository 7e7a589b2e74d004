"""The Ray row-id jobs on a deletion-vector table (pypaimon.ray 2.1.0's behaviour, FINDINGS
of issue 19): read_by_row_id leaves deleted ids out; update_by_row_id refuses a deleted id
before anything is written; process_row_id_ranges and read_paimon see only live rows."""
from __future__ import annotations

import pyarrow as pa
import pytest

import dv_tables as dv

pytestmark = [pytest.mark.native, pytest.mark.ray]

DELETED = [1, 6, 11]


@pytest.fixture
def dv_table(warehouse):
    dv.our_setup(warehouse, "t", ["p"])
    assert dv.our_delete(warehouse, "db.t", DELETED) == 4
    return warehouse


def test_ray_read_by_row_id_leaves_deleted_ids_out(ray_session, dv_table):
    import ray

    from paimon_rowid.ray import read_by_row_id
    for source in (pa.table({"_ROW_ID": pa.array([0, 1, 6, 7, 12], pa.int64())}),
                   ray.data.from_arrow(pa.table({"_ROW_ID": pa.array([0, 1, 6, 7, 12],
                                                                     pa.int64())}))):
        ds = read_by_row_id("db.t", source, {"warehouse": dv_table}, projection=["b"])
        got = sorted(r["_ROW_ID"] for r in ds.take_all())
        assert got == [0, 7, 12]


def test_ray_update_refuses_a_deleted_id_and_leaves_nothing(ray_session, dv_table):
    from paimon_rowid.ray import update_by_row_id
    before, latest = dv.files(dv_table), dv.latest_id(dv_table, "db.t")
    with pytest.raises(ValueError, match=r"^Cannot update deleted _ROW_ID 6\.$"):
        update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([5, 6], pa.int64()),
                                           "b": ["x", "y"]}),
                         {"warehouse": dv_table}, update_cols=["b"])
    assert dv.latest_id(dv_table, "db.t") == latest
    assert dv.files(dv_table) == before
    # Live rows update; the deleted ones stay deleted.
    assert update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([5, 7], pa.int64()),
                                              "b": ["x", "y"]}),
                            {"warehouse": dv_table}, update_cols=["b"]) == {"num_updated": 2}
    rows = dv.by_row_id(dv.our_read(dv_table, "db.t", ["b", "_ROW_ID"]))
    assert sorted(rows) == [i for i in range(dv.NUM_ROWS) if i not in DELETED]
    assert (rows[5]["b"], rows[7]["b"]) == ("x", "y")


def test_ray_read_paimon_hides_deleted_rows(ray_session, dv_table):
    from paimon_rowid.ray import read_paimon
    got = sorted(r["_ROW_ID"] for r in read_paimon(
        "db.t", {"warehouse": dv_table}, projection=["id", "_ROW_ID"]).take_all())
    assert got == [i for i in range(dv.NUM_ROWS) if i not in DELETED]


def test_ray_update_moves_on_when_its_base_vectors_expire_under_its_task(ray_session, dv_table,
                                                                          tmp_path):
    """Issue 44 §5 on Ray: the update's base (the snapshot its index was built on) and that
    base's deletion-vector file are expired while its apply task is held before it opens the
    table. The task fails with BaseSnapshotExpiredException; the job moves onto the latest
    snapshot, checks the rows against the old base, and lands, with nothing left behind."""
    import threading
    import time

    from paimon_rowid import expire_snapshots
    from paimon_rowid.ray import update_by_row_id
    from paimon_rowid.ray._task_hooks import HoldWhileExists, TaskHooks
    hold = tmp_path / "hold"
    hold.write_text("")
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["result"] = update_by_row_id(
                "db.t", pa.table({"_ROW_ID": pa.array([5, 7], pa.int64()), "b": ["x", "y"]}),
                {"warehouse": dv_table}, update_cols=["b"], num_partitions=1,
                _hooks=TaskHooks(before_apply=HoldWhileExists(str(hold), report_node=True)))
        except BaseException as error:  # reported below
            outcome["error"] = error

    worker = threading.Thread(target=run)
    worker.start()
    deadline = time.monotonic() + 120
    while not (tmp_path / "hold.node").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (tmp_path / "hold.node").exists(), outcome
    base = dv.latest_id(dv_table, "db.t")
    assert dv.our_delete(dv_table, "db.t", [3]) is not None  # replaces the base's vector file
    import ours
    ours.write(dv.our_table(dv_table, "db.t"), dv.rows(20, 2))
    expired = expire_snapshots("db.t", {"warehouse": dv_table}, retain_min=1,
                               older_than_ms=2 ** 62)
    assert expired["snapshots_expired"] >= 2
    assert not (dv.table_dir(dv_table, "db.t") / "snapshot" / f"snapshot-{base}").exists()
    hold.unlink()
    worker.join(120)
    assert not worker.is_alive()
    assert "error" not in outcome, repr(outcome.get("error"))
    assert outcome["result"] == {"num_updated": 2}
    rows = dv.by_row_id(dv.our_read(dv_table, "db.t", ["id", "b", "_ROW_ID"]))
    assert sorted(rows) == [i for i in range(dv.NUM_ROWS + 2) if i not in DELETED + [3]]
    assert (rows[5]["b"], rows[7]["b"]) == ("x", "y")
    assert all(r["b"] == f"b{r['id']}" for i, r in rows.items() if i not in (5, 7))
    # Nothing of the failed round stays: every data file is referenced by the latest snapshot.
    from paimon_rowid import remove_orphan_files
    orphans = remove_orphan_files("db.t", {"warehouse": dv_table}, older_than_ms=2 ** 62,
                                  dry_run=True)
    assert orphans["files"] == 0, orphans["paths"]
