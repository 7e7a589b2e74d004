"""``paimon_rowid.ray.merge_into`` on a real local Ray: the same result as the embedded call for
every way a merge runs there (a source merged on the driver, a Dataset hash-joined by tasks,
the self-merge by group-slice tasks), pypaimon.ray's Ray-side validations, and no files left
behind by a failed merge.

The embedded call's semantics are checked against pypaimon in test_merge_into.py; here the
reference is the embedded call on a copy of the same warehouse."""
from __future__ import annotations

import shutil
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import dv_tables as dv

pytestmark = [pytest.mark.native, pytest.mark.ray]

SOURCE = pa.table({"id": pa.array([1, 3, 4, 50, 51, 52], pa.int64()),
                   "a": pa.array([7, 100, None, 9, 10, 11], pa.int32()),
                   "b": ["u1", "u3", "u4", "n50", "n51", "n52"],
                   "p": ["y", "y", "x", "x", "y", "z"]})


def _clauses(mr):
    return dict(
        on=["id"],
        when_matched=[mr.WhenMatched.update({"a": "s.a", "b": "s.b"}, condition="s.a > t.a"),
                      mr.WhenMatched.delete(condition="s.b = 'u1'")],
        when_not_matched=[mr.WhenNotMatched(insert="*", condition="s.id <> 52")])


def _rows(warehouse):
    """Live rows by id (insert row ids depend on the order inserts are written)."""
    table = dv.our_read(warehouse, "db.t", ["id", "a", "b", "p"])
    return sorted(table.to_pylist(), key=lambda r: r["id"])


def _embedded_reference(tmp_path, layout):
    import paimon_rowid as mr
    ref = str(tmp_path / "ref")
    dv.our_setup(ref, "t", dv.LAYOUTS[layout])
    result = mr.merge_into("db.t", SOURCE, {"warehouse": ref}, **_clauses(mr))
    return ref, result


@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
@pytest.mark.parametrize("mode", ["driver", "tasks"])
def test_ray_merge_matches_the_embedded_merge(ray_session, tmp_path, layout, mode, monkeypatch):
    import paimon_rowid.ray as mr
    module = sys.modules["paimon_rowid.ray.merge_into"]  # the name is the function's too
    ref, expected = _embedded_reference(tmp_path, layout)
    if mode == "tasks":  # the driver-side round must not run
        monkeypatch.setattr(module, "run_round", None)
    wh = str(tmp_path / "ray")
    dv.our_setup(wh, "t", dv.LAYOUTS[layout])
    before = dv.latest_id(wh, "db.t")
    source = ray_session.data.from_arrow(SOURCE) if mode == "tasks" else SOURCE
    got = mr.merge_into("db.t", source, {"warehouse": wh}, num_partitions=3,
                        driver_max_bytes=0 if mode == "tasks" else None, **_clauses(mr))
    assert got == expected == {"num_matched": 2, "num_inserted": 2, "num_unchanged": 0}
    assert dv.latest_id(wh, "db.t") == before + 1  # one commit
    assert _rows(wh) == _rows(ref)


@pytest.mark.parametrize("key", ["id", "_ROW_ID"])
def test_ray_task_merge_reads_only_the_target_within_the_source_key_range(
        ray_session, tmp_path, monkeypatch, key):
    """The task-joined path plans the target read within the source's key range (as the
    driver path does): the files of the groups [0, 4] and [10, 12] are never read when every
    source key lies in [5, 9]. Keys come as int32 with a NULL (cast, and never matched) in the
    same block as a matching key (pandas hashed that block's keys as floats, so key 6 once
    landed in another part than the target's 6 and was silently not matched)."""
    import paimon_rowid as embedded
    import paimon_rowid.ray as mr
    module = sys.modules["paimon_rowid.ray.merge_into"]
    planned = []
    real = module.prune_target_scan

    def spy(pinned, builder, column, bounds):
        builder, scan = real(pinned, builder, column, bounds)
        planned.append((column, bounds, scan.plan().splits()))
        return builder, scan

    monkeypatch.setattr(module, "prune_target_scan", spy)
    source = pa.table({key: pa.array([6, None, 8, 5], pa.int32()),
                       "a": pa.array([1, 2, 3, 4], pa.int32())})
    clauses = dict(on=[key], when_matched=[mr.WhenMatched.update({"a": "s.a"})])
    ref, wh = str(tmp_path / "ref"), str(tmp_path / "ray")
    dv.our_setup(ref, "t", [])  # groups [0, 4], [5, 9], [10, 12]; id == _ROW_ID
    shutil.copytree(ref, wh)
    expected = embedded.merge_into("db.t", source, {"warehouse": ref}, **clauses)
    got = mr.merge_into("db.t", ray_session.data.from_arrow(source).repartition(2),
                        {"warehouse": wh}, driver_max_bytes=0, **clauses)
    assert got == expected == {"num_matched": 3, "num_inserted": 0, "num_unchanged": 0}
    assert dv.by_row_id(dv.our_read(wh, "db.t", ["_ROW_ID", "id", "a"])) == \
        dv.by_row_id(dv.our_read(ref, "db.t", ["_ROW_ID", "id", "a"]))
    [(column, bounds, splits)] = planned
    assert (column, bounds) == (key, (5, 8))
    # The group [5, 9] only; by _ROW_ID just the rows [5, 8] of it.
    assert sum(split.row_count for split in splits) == (5 if key == "id" else 4)


def test_ray_merge_from_a_table_identifier(ray_session, tmp_path):
    import ours
    import paimon_rowid.ray as mr
    ref, expected = _embedded_reference(tmp_path, "plain")
    wh = str(tmp_path / "ray")
    dv.our_setup(wh, "t", [])
    src = ours.create_table(wh, "src", SOURCE.schema, dict(dv.DE))
    ours.write(src, SOURCE)
    got = mr.merge_into("db.t", "db.src", {"warehouse": wh}, driver_max_bytes=0,
                        **_clauses(mr))
    assert got == expected
    assert _rows(wh) == _rows(ref)


def test_ray_merge_into_an_empty_target_inserts(ray_session, tmp_path):
    import ours
    import paimon_rowid.ray as mr
    wh = str(tmp_path / "wh")
    ours.create_table(wh, "t", dv.SCHEMA, dict(dv.DV))
    got = mr.merge_into("db.t", ray_session.data.from_arrow(SOURCE), {"warehouse": wh},
                        driver_max_bytes=0, **_clauses(mr))
    assert got == {"num_matched": 0, "num_inserted": 5, "num_unchanged": 0}
    ids = dv.our_read(wh, "db.t", ["_ROW_ID"]).column("_ROW_ID").to_pylist()
    assert sorted(ids) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("num_partitions, driver_max_bytes", [(1, 0), (3, 0), (None, None)])
def test_ray_self_merge_with_a_callable_and_a_delete(ray_session, tmp_path, num_partitions,
                                                      driver_max_bytes):
    import paimon_rowid as embedded
    import paimon_rowid.ray as mr

    def upper(batch):
        return pc.utf8_upper(batch["b"])

    clauses = dict(on=["_ROW_ID"], read_columns=["b"],
                   when_matched=[mr.WhenMatched.delete(condition="t.a = 40"),
                                 mr.WhenMatched.update({"b": upper}, condition="t.a >= 80")])
    ref, wh = str(tmp_path / "ref"), str(tmp_path / "ray")
    dv.our_setup(ref, "t", ["p"])
    shutil.copytree(ref, wh)
    expected = embedded.merge_into("db.t", "db.t", {"warehouse": ref}, **clauses)
    got = mr.merge_into("db.t", "db.t", {"warehouse": wh}, num_partitions=num_partitions,
                        driver_max_bytes=driver_max_bytes, **clauses)
    assert got == expected == {"num_matched": 1 + 5, "num_inserted": 0, "num_unchanged": 0}
    assert dv.by_row_id(dv.our_read(wh, "db.t", ["_ROW_ID", "id", "a", "b"])) == \
        dv.by_row_id(dv.our_read(ref, "db.t", ["_ROW_ID", "id", "a", "b"]))
    rows = {r["id"]: r["b"] for r in dv.our_read(wh, "db.t", ["id", "b"]).to_pylist()}
    assert 4 not in rows and rows[8] == "B8" and rows[12] == "B12" and rows[7] == "b7"


def test_ray_duplicates_after_conditions_raise_and_leave_nothing(ray_session, tmp_path):
    import paimon_rowid.ray as mr
    wh = str(tmp_path / "wh")
    dv.our_setup(wh, "t", [])
    before, latest = dv.files(wh), dv.latest_id(wh, "db.t")
    twice = pa.table({"id": pa.array([2, 2, 60], pa.int64()), "a": pa.array([1, 2, 3], pa.int32()),
                      "b": ["x", "y", "z"], "p": ["x", "x", "x"]})
    for source, max_bytes in ((twice, None), (ray_session.data.from_arrow(twice), 0)):
        with pytest.raises(ValueError, match="Deduplicate the source before merging"):
            mr.merge_into("db.t", source, {"warehouse": wh}, on=["id"],
                          driver_max_bytes=max_bytes,
                          when_matched=[mr.WhenMatched.update({"a": "s.a"})],
                          when_not_matched=[mr.WhenNotMatched(insert="*")])
        assert dv.files(wh) == before and dv.latest_id(wh, "db.t") == latest
    # A condition that leaves one of the two acting is fine (pypaimon.ray's rule).
    got = mr.merge_into("db.t", ray_session.data.from_arrow(twice), {"warehouse": wh},
                        on=["id"], driver_max_bytes=0,
                        when_matched=[mr.WhenMatched.update({"a": "s.a"}, condition="s.a = 2")])
    assert got["num_matched"] == 1


def test_ray_failed_insert_leaves_nothing(ray_session, tmp_path):
    import paimon_rowid.ray as mr
    wh = str(tmp_path / "wh")
    dv.our_setup(wh, "t", [])
    before, latest = dv.files(wh), dv.latest_id(wh, "db.t")
    bad = pa.table({"id": pa.array([1, None], pa.int64()), "a": pa.array([5, 6], pa.int32()),
                    "b": ["x", "y"], "p": ["x", "x"]})  # a NULL id: inserted into NOT NULL id
    with pytest.raises(ValueError, match="NOT NULL"):
        mr.merge_into("db.t", ray_session.data.from_arrow(bad), {"warehouse": wh}, on=["id"],
                      driver_max_bytes=0, num_partitions=2,
                      when_matched=[mr.WhenMatched.update({"a": "s.a"})],
                      when_not_matched=[mr.WhenNotMatched(insert="*")])
    assert dv.files(wh) == before and dv.latest_id(wh, "db.t") == latest


def test_ray_empty_lazy_source_merges_nothing(ray_session, tmp_path):
    """pypaimon's join fails on it (memo §5.3 bug 1)."""
    import paimon_rowid.ray as mr
    wh = str(tmp_path / "wh")
    dv.our_setup(wh, "t", [])
    latest = dv.latest_id(wh, "db.t")
    lazy = ray_session.data.from_arrow(SOURCE).filter(lambda row: False)
    got = mr.merge_into("db.t", lazy, {"warehouse": wh}, **_clauses(mr))
    assert got == {"num_matched": 0, "num_inserted": 0, "num_unchanged": 0}
    assert dv.latest_id(wh, "db.t") == latest


def test_ray_source_validations(ray_session, tmp_path):
    import paimon_rowid.ray as mr
    wh = str(tmp_path / "wh")
    dv.our_setup(wh, "t", [])
    latest = dv.latest_id(wh, "db.t")
    with pytest.raises(TypeError, match=r"^source must be a ray\.data\.Dataset, a Paimon table "
                                        r"identifier string, a pyarrow\.Table, or a "
                                        r"pandas\.DataFrame; got list\.$"):
        mr.merge_into("db.t", [1, 2], {"warehouse": wh}, **_clauses(mr))
    # pypaimon raises "could not infer the source schema" for it; an empty source merges
    # nothing here, whatever its kind.
    assert mr.merge_into("db.t", ray_session.data.from_items([]), {"warehouse": wh},
                         **_clauses(mr))["num_inserted"] == 0
    with pytest.raises(ValueError, match=r"^'on' columns \['zz'\] missing from source schema"):
        mr.merge_into("db.t", ray_session.data.from_arrow(SOURCE), {"warehouse": wh},
                      on=["zz"], when_matched=[mr.WhenMatched.delete()])
    with pytest.raises(ValueError, match="driver_max_bytes must be a non-negative integer"):
        mr.merge_into("db.t", SOURCE, {"warehouse": wh}, driver_max_bytes=-1, **_clauses(mr))
    assert dv.latest_id(wh, "db.t") == latest


@pytest.mark.parametrize("mode", ["driver", "tasks"])
def test_ray_merge_sets_blob_columns(ray_session, tmp_path, mode, monkeypatch):
    """BLOB columns set by the Ray merge (the Ray row-id update pipeline when hash-joined by
    tasks): the same rows, payloads and _ROW_IDs as the embedded merge."""
    import paimon_rowid as pr
    import paimon_rowid.ray as mr
    from test_merge_into_blob import _setup, _src
    module = sys.modules["paimon_rowid.ray.merge_into"]
    source = _src([3, 29, 30, 44, 70])
    clauses = dict(on=["id"], when_matched=[pr.WhenMatched.update({"pic": "s.pic",
                                                                   "name": "s.name"})],
                   when_not_matched=[pr.WhenNotMatched(insert="*")])
    ref, wh = str(tmp_path / "ref"), str(tmp_path / "ray")
    _setup(ref)
    _setup(wh)
    expected = pr.merge_into("db.t", source, {"warehouse": ref}, **clauses)
    if mode == "tasks":  # the driver-side round must not run
        monkeypatch.setattr(module, "run_round", None)
    got = mr.merge_into("db.t", ray_session.data.from_arrow(source) if mode == "tasks" else source,
                        {"warehouse": wh}, driver_max_bytes=0 if mode == "tasks" else None,
                        **clauses)
    assert got == expected == {"num_matched": 4, "num_inserted": 1, "num_unchanged": 0}

    def rows(w):
        table = dv.our_read(w, "db.t", ["id", "name", "pic", "_ROW_ID"])
        return sorted(table.to_pylist(), key=lambda r: r["id"])

    assert rows(wh) == rows(ref)
    assert [r["pic"] for r in rows(wh) if r["id"] in (3, 29)] == \
        source.filter(pc.is_in(source["id"], pa.array([3, 29]))).column("pic").to_pylist()
