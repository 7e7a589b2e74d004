"""``merge_into`` setting BLOB columns (pypaimon 2.1.0's MERGE can; memo §1.9).

Same script, copies of one warehouse: pypaimon's local merge (``new_update().merge_into``,
committed) on one copy, ours (embedded ``paimon_rowid.merge_into`` and the local
``BatchTableUpdate.merge_into``) on the others. Then both engines read every result: payload
bytes and ``_ROW_ID``s equal, and the same snapshot id, commit kind and next row id.
``update_by_row_id`` still refuses BLOB columns (as pypaimon's does), and a failed merge
leaves nothing behind."""
from __future__ import annotations

import shutil

import pyarrow as pa
import pytest

import dv_tables as dv
import ours
from oracle import merge_spec as ms

pytestmark = pytest.mark.native

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("name", pa.string()),
                    ("pic", pa.large_binary())])
# Small .blob files: every group rolls several, so do the updates.
OPTIONS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true",
           "deletion-vectors.enabled": "true", "blob.target-file-size": "48 kb"}
PROJECTION = ["id", "name", "pic", "_ROW_ID"]


def _payload(i: int, tag: str) -> bytes:
    return (tag + str(i)).encode() * (1 + (i * 37) % 900)


def _rows(start: int, count: int) -> pa.Table:
    ids = list(range(start, start + count))
    return pa.table({"id": ids, "name": [f"n{i}" for i in ids],
                     "pic": pa.array([None if i % 11 == 5 else b"" if i % 13 == 0
                                      else _payload(i, "old") for i in ids], pa.large_binary())},
                    schema=SCHEMA)


def _src(ids, names=None) -> pa.Table:
    return pa.table({"id": pa.array(ids, pa.int64()),
                     "name": names if names is not None else [f"s{i}" for i in ids],
                     "pic": pa.array([None if i % 7 == 3 else _payload(i, "new") for i in ids],
                                     pa.large_binary())})


U, D, INS = ms.update, ms.delete, ms.insert
# name -> (source, matched clauses, not-matched clauses)
CASES = {
    "first_and_last_rows": (_src([0, 29, 30]), [U({"pic": "s.pic"})], []),
    "some_rows": (_src([3, 7, 11]), [U({"pic": "s.pic"})], []),
    "whole_group": (_src(list(range(0, 30))), [U({"pic": "s.pic"})], []),
    "groups_and_a_normal_column": (_src([5, 29, 30, 31, 44]),
                                   [U({"pic": "s.pic", "name": "s.name"})], []),
    "with_inserts_and_deletes": (_src([2, 4, 33, 40, 90, 91], ["s2", "del", "s33", "del", "s90",
                                                               "s91"]),
                                 [D("s.name = 'del'"), U({"pic": "s.pic"})], [INS()]),
}


def _setup(wh: str) -> None:
    table = ours.create_table(wh, "t", SCHEMA, OPTIONS)
    ours.write(table, _rows(0, 30))
    ours.write(table, _rows(30, 20))


def _run_ours(wh, engine, source, matched, not_matched):
    import paimon_rowid
    m, n = ms.decode_matched(paimon_rowid, matched), ms.decode_not_matched(paimon_rowid,
                                                                           not_matched)
    if engine == "embedded":
        return paimon_rowid.merge_into("db.t", source, {"warehouse": wh}, on=["id"],
                                       when_matched=m, when_not_matched=n)
    table = dv.our_table(wh, "db.t")
    builder = table.new_batch_write_builder()
    messages = builder.new_update().merge_into(source, on=["id"], when_matched=m,
                                               when_not_matched=n)
    builder.new_commit().commit(messages)
    return None


def _ours_read(wh):
    table = dv.our_table(wh, "db.t")
    builder = table.new_read_builder().with_projection(PROJECTION)
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("_ROW_ID")


def _snap(wh):
    """Not totalRecordCount: it counts .blob rows, and pypaimon's blob update files stop at the
    last updated row (placeholders before it) where ours cover the whole group."""
    snap = dv.snapshot_json(wh, "db.t")
    return snap["id"], snap["commitKind"], snap.get("nextRowId")


@pytest.fixture(scope="module")
def results(tmp_path_factory, oracle):
    root = tmp_path_factory.mktemp("merge-blob")
    out, cmds = {}, []
    for case, (source, matched, not_matched) in CASES.items():
        base = root / case
        _setup(str(base / "theirs"))
        for engine in ("embedded", "local"):
            shutil.copytree(base / "theirs", base / engine)
        cmds.append(oracle.merge_into_cmd(str(base / "theirs"), "db.t", source, ["id"],
                                          matched, not_matched))
    for case, result in zip(CASES, oracle.run_batch(cmds)):
        out[case] = {"theirs": result}
    for case, (source, matched, not_matched) in CASES.items():
        base = root / case
        for engine in ("embedded", "local"):
            out[case][engine] = _run_ours(str(base / engine), engine, source, matched,
                                          not_matched)
        out[case]["wh"] = {name: str(base / name) for name in ("theirs", "embedded", "local")}
    return out


@pytest.mark.parametrize("engine", ["embedded", "local"])
@pytest.mark.parametrize("case", list(CASES))
def test_blob_merge_same_result_as_pypaimon(oracle, results, case, engine):
    run = results[case]
    theirs_wh, wh = run["wh"]["theirs"], run["wh"][engine]
    assert isinstance(run["theirs"], dict) and run["theirs"]["snapshot_id"] == 3, run["theirs"]
    if engine == "embedded":  # pypaimon's local call returns messages, not the counts
        source, matched, not_matched = CASES[case]
        assert run[engine]["num_matched"] == sum(i < 50 for i in source.column("id").to_pylist())
    assert _snap(wh) == _snap(theirs_wh)
    # Both engines read both results identically.
    theirs_on_theirs = oracle.read(theirs_wh, "db.t", projection=PROJECTION).sort_by("_ROW_ID")
    theirs_on_ours = oracle.read(wh, "db.t", projection=PROJECTION).sort_by("_ROW_ID")
    ours_on_theirs, ours_on_ours = _ours_read(theirs_wh), _ours_read(wh)
    assert ours_on_ours.equals(ours_on_theirs)
    assert ours_on_ours.equals(theirs_on_ours.cast(ours_on_ours.schema))
    assert ours_on_ours.equals(theirs_on_theirs.cast(ours_on_ours.schema))
    # And the merge did what it says (against the data written and the source).
    source, matched, _ = CASES[case]
    got = {r["id"]: r["pic"] for r in ours_on_ours.to_pylist()}
    new = {r["id"]: r["pic"] for r in source.to_pylist()}
    old = {r["id"]: r["pic"] for r in pa.concat_tables([_rows(0, 30), _rows(30, 20)]).to_pylist()}
    deleted = {r["id"] for r in source.to_pylist() if r["name"] == "del"}
    for i in range(50):
        if i in deleted:
            assert i not in got
        else:
            assert got[i] == (new[i] if i in new else old[i]), i


def test_blob_update_files_are_added(results):
    """The merge adds .blob files (rolled at 48 kb) and deletes none."""
    def blobs(wh):
        return {p.name for p in dv.table_dir(wh, "db.t").rglob("*.blob")}
    wh = results["some_rows"]["wh"]
    before, after = blobs(wh["theirs"]), blobs(wh["embedded"])
    assert len(after - before) >= 1


def test_blob_merge_reads_by_row_id_and_ranges(results):
    import paimon_rowid
    wh = results["groups_and_a_normal_column"]["wh"]["embedded"]
    got = paimon_rowid.read_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([29, 4, 31],
                                                                            pa.int64())}),
                                      {"warehouse": wh}, projection=["pic", "name"])
    got = {r["_ROW_ID"]: (r["pic"], r["name"]) for r in got.to_pylist()}
    assert got == {29: (_payload(29, "new"), "s29"), 4: (_payload(4, "old"), "n4"),
                   31: (None, "s31")}
    seen = {}

    def processor(ranges):
        ids = [i for r in ranges for i in range(r.from_, r.to + 1)]
        batch = paimon_rowid.read_by_row_id(
            "db.t", pa.table({"_ROW_ID": pa.array(ids, pa.int64())}), {"warehouse": wh},
            projection=["pic"])
        seen.update({r["_ROW_ID"]: r["pic"] for r in batch.to_pylist()})

    paimon_rowid.process_row_id_ranges("db.t", {"warehouse": wh}, rows_per_commit=10,
                                       processor=processor)
    assert seen[29] == _payload(29, "new") and seen[30] == _payload(30, "new")
    assert seen[6] == _payload(6, "old") and seen[16] is None and len(seen) == 50


def test_update_by_row_id_still_refuses_blob_columns(tmp_path):
    import paimon_rowid
    wh = str(tmp_path)
    _setup(wh)
    before = dv.files(wh)
    source = pa.table({"_ROW_ID": pa.array([1], pa.int64()),
                       "pic": pa.array([b"x"], pa.large_binary())})
    with pytest.raises(ValueError, match=r"^update_by_row_id cannot update blob column 'pic'\.$"):
        paimon_rowid.update_by_row_id("db.t", source, {"warehouse": wh}, update_cols=["pic"])
    assert dv.files(wh) == before


def test_failed_blob_merge_leaves_nothing(tmp_path):
    import paimon_rowid
    wh = str(tmp_path)
    _setup(wh)
    before = dv.files(wh)
    with pytest.raises(ValueError, match="Deduplicate the source"):
        paimon_rowid.merge_into("db.t", _src([3, 3, 40]), {"warehouse": wh}, on=["id"],
                                when_matched=[paimon_rowid.WhenMatched.update({"pic": "s.pic"})])
    assert dv.files(wh) == before


def test_merge_refuses_nested_blob_columns_and_leaves_nothing(tmp_path):
    """ARRAY<BLOB> / MAP<K, BLOB> hold several payloads per row: a merge setting one is
    refused before anything is written (plain BLOB columns only)."""
    import paimon_rowid
    wh = str(tmp_path)
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False),
                        ("arr", pa.list_(pa.large_binary()))])
    table = ours.create_table(wh, "n", schema, {"row-tracking.enabled": "true",
                                                "data-evolution.enabled": "true"})
    ours.write(table, pa.table({"id": [1, 2], "arr": pa.array([[b"a"], [b"b", b"c"]],
                                                               pa.list_(pa.large_binary()))},
                               schema=schema))
    before = dv.files(wh)
    source = pa.table({"id": pa.array([1], pa.int64()),
                       "arr": pa.array([[b"z"]], pa.list_(pa.large_binary()))})
    with pytest.raises(NotImplementedError, match=r"cannot update nested blob column 'arr'"):
        paimon_rowid.merge_into("db.n", source, {"warehouse": wh}, on=["id"],
                                when_matched=[paimon_rowid.WhenMatched.update({"arr": "s.arr"})])
    assert dv.files(wh) == before
