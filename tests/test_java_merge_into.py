"""``merge_into`` results read identically by Java Paimon 1.4.2 (issue 19). Java refuses any
data-evolution table with deletion vectors, so the merges here update and insert only, on
plain and partitioned data-evolution tables: conditional updates of some columns (partial-column
files per touched group), inserts with new row ids, and a self-merge."""
from __future__ import annotations

import pyarrow as pa
import pytest

import dv_tables as dv

pytestmark = pytest.mark.native

COLUMNS = ["_ROW_ID", "id", "a", "b", "p"]


def _merges(warehouse):
    import paimon_rowid as mr
    options = {"warehouse": warehouse}
    source = pa.table({"id": pa.array([1, 2, 3, 40, 41], pa.int64()),
                       "a": pa.array([5, 100, None, 7, 8], pa.int32()),
                       "b": ["s1", "s2", "s3", "n40", "n41"],
                       "p": ["y", "x", "y", "x", "y"]})
    first = mr.merge_into("db.t", source, options, on=["id"],
                          when_matched=[mr.WhenMatched.update({"a": "s.a", "b": "s.b"},
                                                              condition="s.a > t.a"),
                                        mr.WhenMatched.update({"b": mr.lit("kept-a")})],
                          when_not_matched=[mr.WhenNotMatched(insert="*")])
    second = mr.merge_into("db.t", "db.t", options, on=["_ROW_ID"],
                           when_matched=[mr.WhenMatched.update({"a": mr.lit(-1)},
                                                               condition="t.a >= 100")])
    return first, second


@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
def test_java_reads_our_merge_results(java, tmp_path, layout):
    warehouse = str(tmp_path / "wh")
    dv.our_setup(warehouse, "t", dv.LAYOUTS[layout], options=dict(dv.DE))
    first, second = _merges(warehouse)
    assert first == {"num_matched": 3, "num_inserted": 2, "num_unchanged": 0}
    assert second["num_matched"] >= 1
    theirs = java.dump(warehouse, "db.t", projection=COLUMNS)
    ours = dv.our_read(warehouse, "db.t", COLUMNS).sort_by("_ROW_ID")
    assert theirs.names == COLUMNS
    assert [list(r.values()) for r in ours.to_pylist()] == theirs.rows
    by_id = {r["id"]: r for r in ours.to_pylist()}
    assert by_id[2]["a"] == -1 and by_id[2]["b"] == "s2"  # updated, then self-merged
    assert by_id[1]["b"] == "kept-a" and by_id[3]["b"] == "kept-a"  # NULL fell through
    assert {40, 41} <= set(by_id)
