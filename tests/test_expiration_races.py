"""Jobs racing snapshot expiration, made deterministic with fault hooks (issue 44 §5), on a
local warehouse and on the local S3 server.

``_native._arm_fault_hook(point, hook)`` runs ``hook`` once, on the thread that first reaches
the named point in the C++ core: here another writer's commits and an expiration run exactly
between two steps of our job.

- An append chose the latest snapshot ("commit_after_choosing_latest"); two commits land and
  an expiration keeps only the newest. The append retries on the latest and lands once (it
  used to fail with ``Snapshot id 'N' doesn't exist.``, seen on S3 with a maintenance loop).
- An update of a deletion-vector table is about to write ("update_before_write"); a delete
  replaces the base's vector file, an append lands, and an expiration removes the base and
  that file. The update moves onto the latest snapshot and lands (it used to fail with an
  I/O error naming the expired index file).
"""
from __future__ import annotations

from typing import Any, Dict, List

import pyarrow as pa
import pytest

import dv_tables as dv
import ours

pytestmark = [pytest.mark.native]

WHERE = ["local", pytest.param("s3", marks=pytest.mark.s3)]
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string())])
DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


@pytest.fixture(params=WHERE)
def options(request, tmp_path) -> Dict[str, str]:
    if request.param == "local":
        return {"warehouse": str(tmp_path / "wh")}
    s3_server = request.getfixturevalue("s3_server")
    return s3_server.catalog_options(s3_server.fresh_warehouse("expiration-race"))


def _rows(first: int, n: int) -> pa.Table:
    ids = list(range(first, first + n))
    return pa.table({"id": pa.array(ids, pa.int64()), "name": [f"n{i}" for i in ids]})


def _arm(point: str, hook) -> List[str]:
    """Arms ``hook`` at ``point``; returns a list the hook's run appends "done" to (a hook's
    exception is only reported as unraisable, so the test checks that it finished)."""
    from paimon_rowid._internal._lib import native
    ran: List[str] = []

    def run() -> None:
        hook()
        ran.append("done")

    native()._arm_fault_hook(point, run)
    return ran


def _disarm() -> None:
    from paimon_rowid._internal._lib import native
    native()._arm_fault_hook("", None)


def _orphans(options: Dict[str, str], identifier: str) -> Any:
    from paimon_rowid import remove_orphan_files
    return remove_orphan_files(identifier, options, older_than_ms=2 ** 62, dry_run=True)


def test_an_append_whose_chosen_latest_expires_retries_and_lands(options):
    from paimon_rowid import expire_snapshots
    table = ours.create_table(options, "t", SCHEMA, DE)
    ours.write(table, _rows(0, 10))  # 1

    def others() -> None:
        ours.write(table, _rows(20, 10))  # 2
        ours.write(table, _rows(30, 10))  # 3
        assert expire_snapshots("db.t", options, retain_min=1,
                                older_than_ms=2 ** 62)["snapshots_expired"] == 2

    ran = _arm("commit_after_choosing_latest", others)
    try:
        ours.write(table, _rows(10, 10))
    finally:
        _disarm()
    assert ran == ["done"]
    latest = ours.catalog(options).get_table("db.t").latest_snapshot()
    assert latest["id"] == 4
    rb = table.new_read_builder().with_projection(["id", "_ROW_ID"])
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert sorted(got.column("id").to_pylist()) == list(range(40))  # each row once
    assert sorted(got.column("_ROW_ID").to_pylist()) == list(range(40))
    assert _orphans(options, "db.t")["files"] == 0


def test_an_update_whose_base_vectors_expire_moves_on_and_lands(options):
    from paimon_rowid import expire_snapshots, update_by_row_id
    dv.our_setup(options, "t", [])
    assert dv.our_delete(options, "db.t", [1]) is not None  # the base: the group's first vector

    def others() -> None:
        assert dv.our_delete(options, "db.t", [3]) is not None  # replaces the base's vector file
        ours.write(dv.our_table(options, "db.t"), dv.rows(20, 2))
        assert expire_snapshots("db.t", options, retain_min=1,
                                older_than_ms=2 ** 62)["snapshots_expired"] >= 2

    ran = _arm("update_before_write", others)
    try:
        result = update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([5, 7], pa.int64()),
                                                    "b": ["x", "y"]}),
                                  options, update_cols=["b"])
    finally:
        _disarm()
    assert ran == ["done"]
    assert result == {"num_updated": 2}
    rows = dv.by_row_id(dv.our_read(options, "db.t", ["id", "b", "_ROW_ID"]))
    assert sorted(rows) == [i for i in range(dv.NUM_ROWS + 2) if i not in (1, 3)]
    assert (rows[5]["b"], rows[7]["b"]) == ("x", "y")
    assert all(r["b"] == f"b{r['id']}" for i, r in rows.items() if i not in (5, 7))
    assert _orphans(options, "db.t")["files"] == 0
