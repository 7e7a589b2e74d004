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
