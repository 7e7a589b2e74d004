"""Deletion vectors (DVs) on data-evolution tables, against pypaimon 2.1.0 (issue 19).

(a) pypaimon writes and deletes (delete_by_row_id and delete_by_predicate, DVs merged over
    several delete commits, a partial-column update in between, the partition fast path):
    ours reads identically (full scan, projections incl. one served only by a partial file,
    a filter, row ranges, time travel, read_by_row_id with deleted ids), and
    process_row_id_ranges still spans deleted rows.
(b) ours deletes the same way: pypaimon reads identically; pypaimon parses our index manifest
    and DV index files, which are byte-level what pypaimon writes (one ADD entry per bucket,
    bitmaps sorted by data-file name, framing, offsets, cardinalities, bitmap bytes); the
    snapshots are OVERWRITE with an empty delta, and an APPEND carries the index manifest on.
(c) mixed: pypaimon deletes, then ours, then pypaimon again (and the reverse).
(d) updates on DV tables: ours update_by_row_id (rejects deleted ids like pypaimon.ray),
    pypaimon's local update on ours' table (writes deleted ids silently); the DV stays keyed
    to the group's anchor.
Facts behind the expectations: FINDINGS.md of issue 19 (pypaimon file:line cites).
Validations and concurrent deletes: test_deletion_vectors_validation.py.
"""
from __future__ import annotations

import pyarrow as pa
import pytest

import dv_tables as dv
from dv_tables import ALL, SYS

pytestmark = pytest.mark.oracle

UPDATE_IDS, UPDATE_A = [0, 1, 7], [-100, -101, -107]  # 1 is deleted by then (silently written)
READ_IDS = [0, 1, 2, 4, 7, 9, 12]

# pypaimon's steps after the three appends (snapshots 1-3), per layout.
STEPS = [("delete", [1, 3, 6, 3]),                    # 4
         ("delete_by_predicate", ["equal", "b", ["b11"]]),  # 5 (non-partition predicate)
         ("update", None),                            # 6 (a partial file in two groups)
         ("delete", [2, 7, 1])]                       # 7 (merges; 1 already deleted)
PARTITION_DELETE = ("delete_by_predicate", ["equal", "p", ["z"]])  # 8, "part" only

CASES = {
    "full": {"projection": ALL + SYS},
    "a_only": {"projection": ["a"]},  # for the updated groups only the partial file has it
    "b_row_id": {"projection": ["b", "_ROW_ID"]},
    "filter": {"projection": ALL + ["_ROW_ID"], "filter": ["less_than", "a", [60]]},
    "ranges": {"projection": ALL + ["_ROW_ID"], "row_ranges": [[0, 3], [6, 8], [11, 12]]},
    "at_first_delete": {"projection": ALL + ["_ROW_ID"], "snapshot_id": 4},
    "before_deletes": {"projection": ALL + ["_ROW_ID"], "snapshot_id": 3},
    "by_ids": {"projection": ["b", "a", "_ROW_ID"], "row_ranges": [[i, i] for i in READ_IDS]},
}


def _step_cmd(oracle, wh, ident, step):
    kind, arg = step
    if kind == "delete":
        return oracle.delete_cmd(wh, ident, arg)
    if kind == "delete_by_predicate":
        return oracle.delete_cmd(wh, ident, filter=arg, by_predicate=True)
    return oracle.update_cmd(wh, ident, pa.table({
        "_ROW_ID": pa.array(UPDATE_IDS, pa.int64()), "a": pa.array(UPDATE_A, pa.int32())}), ["a"])


def _deleted(before: pa.Table, layout: str, upto: int) -> set:
    """Row ids deleted by the steps up to snapshot ``upto`` (DV deletes only, and the rows of
    the partition fast path, separately)."""
    rows = dv.by_row_id(before)
    out = set()
    for number, (kind, arg) in enumerate(STEPS, start=4):
        if number > upto:
            break
        if kind == "delete":
            out |= set(arg)
        elif kind == "delete_by_predicate":
            out |= {i for i, r in rows.items() if r["b"] == arg[2][0]}
    return out


@pytest.fixture(scope="module")
def pp(tmp_path_factory, oracle):
    """Per layout: pypaimon writes, deletes, updates (one pypaimon process for all), plus every
    pypaimon read of CASES and the final index manifest and live files."""
    root = tmp_path_factory.mktemp("dv-pypaimon")
    runs, cmds, outs = {}, [], {}
    for layout, keys in dv.LAYOUTS.items():
        wh, ident = str(root / layout), f"db.{layout}"
        steps = STEPS + ([PARTITION_DELETE] if keys else [])
        cmds += dv.pypaimon_setup(oracle, wh, ident, keys)
        cmds += [_step_cmd(oracle, wh, ident, s) for s in steps]
        reads, outs[layout] = dv.read_cmds(oracle, root, wh, ident, CASES)
        cmds += reads
        cmds += [{"cmd": "entries", "warehouse": wh, "identifier": ident},
                 oracle.index_manifest_cmd(wh, ident)]
        runs[layout] = {"wh": wh, "ident": ident, "keys": keys, "last": 3 + len(steps)}
    replies = oracle.run_all(cmds)
    at = 0
    for layout, run in runs.items():
        at += 4 + run["last"] - 3 + len(CASES)
        run["entries"], run["index_manifest"] = replies[at], replies[at + 1]
        at += 2
        run["reads"] = dv.load_reads(outs[layout])
        before = run["reads"]["before_deletes"]
        run["dv_deleted"] = _deleted(before, layout, 7)
        run["dropped"] = ({i for i, r in dv.by_row_id(before).items() if r["p"] == "z"}
                          if run["keys"] else set())
        run["live"] = set(range(dv.NUM_ROWS)) - run["dv_deleted"] - run["dropped"]
    return runs


@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
def test_pypaimon_reference(pp, layout):
    """What the other tests rely on, in pypaimon alone (passes without our DV support)."""
    run = pp[layout]
    reads = run["reads"]
    assert sorted(dv.by_row_id(reads["before_deletes"])) == list(range(dv.NUM_ROWS))
    assert set(dv.by_row_id(reads["at_first_delete"])) == set(range(dv.NUM_ROWS)) - {1, 3, 6}
    assert set(dv.by_row_id(reads["full"])) == run["live"]
    assert set(dv.by_row_id(reads["by_ids"])) == run["live"] & set(READ_IDS)
    assert reads["a_only"].num_rows == len(run["live"])
    full = dv.by_row_id(reads["full"])
    assert (full[0]["a"], full[0]["_SEQUENCE_NUMBER"]) == (-100, 6)  # from the partial file
    expected = dv.expected_dvs(run["entries"], run["dv_deleted"] - run["dropped"])
    dv.check_index_manifest(run["index_manifest"], expected, f"pypaimon {layout}")
    snap = dv.snapshot_json(run["wh"], run["ident"])
    assert snap["id"] == run["last"] and snap["commitKind"] == "OVERWRITE"


@pytest.mark.native
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
def test_ours_reads_pypaimon_deletes(pp, layout, case):
    run = pp[layout]
    ours = dv.our_read(run["wh"], run["ident"], **CASES[case])
    dv.same(ours, run["reads"][case], f"{layout}/{case}")


@pytest.mark.native
@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
def test_ours_read_by_row_id_omits_deleted_ids(pp, layout):
    """pypaimon.ray.read_by_row_id reads through the DV: deleted ids are silently missing."""
    from paimon_rowid import read_by_row_id
    run = pp[layout]
    # Ids of a dropped partition are in no live file: pypaimon.ray refuses them (foreign ids).
    ids = [i for i in READ_IDS if i not in run.get("dropped", ())]
    got = read_by_row_id(run["ident"], pa.table({"_ROW_ID": pa.array(ids, pa.int64())}),
                         {"warehouse": run["wh"]}, projection=["b", "a"])
    assert got.column_names == ["b", "a", "_ROW_ID"]
    assert set(got["_ROW_ID"].to_pylist()) == run["live"] & set(READ_IDS)
    dv.same(got, run["reads"]["by_ids"], f"{layout} read_by_row_id")
    for dropped in sorted(run.get("dropped", ()))[:1]:
        with pytest.raises(ValueError, match=f"_ROW_ID {dropped} does not belong to any valid"):
            read_by_row_id(run["ident"], pa.table({"_ROW_ID": pa.array([dropped], pa.int64())}),
                           {"warehouse": run["wh"]}, projection=["b"])


@pytest.mark.native
@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
def test_process_row_id_ranges_spans_deleted_rows(pp, layout):
    """Groups are planned from the live files: deleted rows still count (pypaimon
    ray/process_row_id_ranges.py:60-103)."""
    from paimon_rowid import process_row_id_ranges
    run = pp[layout]
    batches = []

    def processor(ranges):
        batches.append([(r.from_, r.to) for r in ranges])

    process_row_id_ranges(run["ident"], {"warehouse": run["wh"]}, rows_per_commit=1,
                          processor=processor)
    groups = sorted((e["first_row_id"], e["first_row_id"] + e["row_count"] - 1)
                    for e in dv.anchors(run["entries"]).values())
    assert batches == [[g] for g in groups]


# -- (b) ours deletes, pypaimon reads ---------------------------------------------------------

MINE = [("delete", [1, 3, 6, 3]),                              # 4
        ("delete_by_predicate", ["equal", "b", ["b11"]]),      # 5
        ("delete", [2, 7, 1])]                                 # 6 (merges)
MINE_CASES = {k: CASES[k] for k in ("full", "b_row_id", "filter", "ranges", "at_first_delete")}


def _mine_step(wh, ident, step):
    kind, arg = step
    if kind == "delete":
        return dv.our_delete(wh, ident, arg)
    return dv.our_delete(wh, ident, spec=arg, by_predicate=True)


@pytest.fixture(scope="module")
def mine(tmp_path_factory, oracle, native):
    """Per layout: ours writes and deletes (partitioned: then the partition fast path), then
    appends once; one pypaimon process reads everything back."""
    import ours
    root = tmp_path_factory.mktemp("dv-ours")
    runs, cmds, outs = {}, [], {}
    for layout, keys in dv.LAYOUTS.items():
        wh, ident = str(root / layout), f"db.{layout}"
        table = dv.our_setup(wh, layout, keys)
        before = dv.our_read(wh, ident, ALL + ["_ROW_ID"])
        steps = MINE + ([PARTITION_DELETE] if keys else [])
        sids = [_mine_step(wh, ident, s) for s in steps]
        assert sids == list(range(4, 4 + len(steps)))
        ours.write(table, dv.rows(13, 2))
        last = 4 + len(steps)
        reads, outs[layout] = dv.read_cmds(oracle, root, wh, ident, MINE_CASES)
        cmds += reads
        cmds += [{"cmd": "entries", "warehouse": wh, "identifier": ident, "snapshot_id": s}
                 for s in range(4, last + 1)]
        cmds += [oracle.index_manifest_cmd(wh, ident, s) for s in range(4, last + 1)]
        cmds += dv.snapshot_files_cmds(oracle, wh, ident, range(3, last + 1))
        rows = dv.by_row_id(before)
        deleted = {4: {1, 3, 6}}
        deleted[5] = deleted[4] | {i for i, r in rows.items() if r["b"] == "b11"}
        deleted[6] = deleted[5] | {2, 7}
        dropped = {i for i, r in rows.items() if r["p"] == "z"} if keys else set()
        runs[layout] = {"wh": wh, "ident": ident, "keys": keys, "last": last, "rows": rows,
                        "deleted": deleted, "dropped": dropped, "n": len(steps)}
    replies = oracle.run_all(cmds)
    at = 0
    for layout, run in runs.items():
        k = run["last"] - 3
        at += len(MINE_CASES)
        run["entries"] = dict(zip(range(4, run["last"] + 1), replies[at:at + k]))
        run["index_manifests"] = dict(zip(range(4, run["last"] + 1), replies[at + k:at + 2 * k]))
        run["files"] = dict(zip(range(3, run["last"] + 1), replies[at + 2 * k:at + 3 * k + 1]))
        at += 3 * k + 1
        run["reads"] = dv.load_reads(outs[layout])
    return runs


@pytest.mark.native
@pytest.mark.parametrize("case", list(MINE_CASES))
@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
def test_pypaimon_reads_our_deletes(mine, layout, case):
    run = mine[layout]
    theirs = run["reads"][case]
    dv.same(dv.our_read(run["wh"], run["ident"], **MINE_CASES[case]), theirs, f"{layout}/{case}")
    if case == "full":
        live = set(range(15)) - run["deleted"][6] - run["dropped"]
        assert set(dv.by_row_id(theirs)) == live


@pytest.mark.native
@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
def test_our_dv_index_files(mine, layout):
    """Every DV snapshot's index manifest and index files, as pypaimon parses them."""
    run = mine[layout]
    for sid in range(4, 7):
        expected = dv.expected_dvs(run["entries"][sid], run["deleted"][sid])
        dv.check_index_manifest(run["index_manifests"][sid], expected, f"{layout}@{sid}")
    def names(sid):
        return {tuple(e["partition"]): e["file_name"]
                for e in run["index_manifests"][sid]["entries"]}

    part = (lambda rid: (run["rows"][rid]["p"],)) if run["keys"] else (lambda rid: ())
    for sid in (5, 6):  # a bucket with new deletions got a new (merged) file, others kept theirs
        touched = {part(i) for i in run["deleted"][sid] - run["deleted"][sid - 1]}
        for partition, name in names(sid).items():
            old = names(sid - 1).get(partition)
            assert (name != old) == (partition in touched), (layout, sid, partition)
    if run["keys"]:  # the fast path dropped z's DV entry; the rest is unchanged
        assert names(7) == {k: v for k, v in names(6).items() if k != ("z",)}


@pytest.mark.native
@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
def test_our_delete_snapshots(mine, layout):
    run = mine[layout]
    wh, ident = run["wh"], run["ident"]
    snaps = {sid: dv.snapshot_json(wh, ident, sid) for sid in range(3, run["last"] + 1)}
    for sid in range(4, 7):  # DV commits
        snap, prev, files = snaps[sid], snaps[sid - 1], run["files"][sid]
        context = f"{layout}@{sid}"
        assert snap["commitKind"] == "OVERWRITE", context
        assert snap["commitIdentifier"] == dv.BATCH_ID, context
        assert snap["deltaRecordCount"] == 0, context
        assert snap["totalRecordCount"] == prev["totalRecordCount"] == dv.NUM_ROWS, context
        assert snap["nextRowId"] == prev["nextRowId"] == dv.NUM_ROWS, context
        assert files["delta_manifests"] == [], context
        prev_files = run["files"][sid - 1]
        assert sorted(files["base_manifests"]) == sorted(
            prev_files["base_manifests"] + prev_files["delta_manifests"]), context
        assert snap["indexManifest"] != prev.get("indexManifest"), context
        assert dv.INDEX_MANIFEST.match(snap["indexManifest"]), context
    if run["keys"]:  # partition fast path
        snap, prev = snaps[7], snaps[6]
        assert snap["commitKind"] == "OVERWRITE"
        assert snap["deltaRecordCount"] == -len(run["dropped"])
        assert snap["totalRecordCount"] == dv.NUM_ROWS - len(run["dropped"])
        assert run["files"][7]["delta_manifests"]
    append, prev = snaps[run["last"]], snaps[run["last"] - 1]
    assert append["commitKind"] == "APPEND"
    assert append["indexManifest"] == prev["indexManifest"]
    assert append["nextRowId"] == dv.NUM_ROWS + 2


# -- (c) mixed writers ------------------------------------------------------------------------

@pytest.mark.native
def test_pypaimon_then_ours_then_pypaimon_deletes(warehouse, oracle, tmp_path):
    ident = "db.part"
    oracle.run_all(dv.pypaimon_setup(oracle, warehouse, ident, ["p"])
                   + [oracle.delete_cmd(warehouse, ident, [1, 6])])
    assert dv.our_delete(warehouse, ident, [2, 7, 11]) == 5  # buckets with and without DVs
    reads, outs = dv.read_cmds(oracle, tmp_path, warehouse, ident, {"full": CASES["full"]})
    replies = oracle.run_all([oracle.delete_cmd(warehouse, ident, [3])] + reads + [
        {"cmd": "entries", "warehouse": warehouse, "identifier": ident},
        oracle.index_manifest_cmd(warehouse, ident)])
    theirs = dv.load_reads(outs)["full"]
    assert set(dv.by_row_id(theirs)) == set(range(dv.NUM_ROWS)) - {1, 2, 3, 6, 7, 11}
    dv.same(dv.our_read(warehouse, ident, CASES["full"]["projection"]), theirs, "mixed")
    dv.check_index_manifest(replies[-1], dv.expected_dvs(replies[-2], {1, 2, 3, 6, 7, 11}),
                            "mixed")


@pytest.mark.native
def test_ours_then_pypaimon_then_ours_deletes(warehouse, oracle, tmp_path):
    ident = "db.plain"
    dv.our_setup(warehouse, "plain", [])
    assert dv.our_delete(warehouse, ident, [0, 12]) == 4
    oracle.run_all([oracle.delete_cmd(warehouse, ident, [5, 12, 4])])
    assert dv.our_delete(warehouse, ident, spec=["greater_than", "a", [85]],
                         by_predicate=True) == 6  # ids 9, 10, 11
    deleted = {0, 4, 5, 9, 10, 11, 12}
    reads, outs = dv.read_cmds(oracle, tmp_path, warehouse, ident, {"full": CASES["full"]})
    replies = oracle.run_all(reads + [
        {"cmd": "entries", "warehouse": warehouse, "identifier": ident},
        oracle.index_manifest_cmd(warehouse, ident)])
    theirs = dv.load_reads(outs)["full"]
    assert set(dv.by_row_id(theirs)) == set(range(dv.NUM_ROWS)) - deleted
    dv.same(dv.our_read(warehouse, ident, CASES["full"]["projection"]), theirs, "mixed")
    dv.check_index_manifest(replies[-1], dv.expected_dvs(replies[-2], deleted), "mixed")


# -- (d) updates on DV tables -----------------------------------------------------------------

@pytest.mark.native
def test_our_update_by_row_id_on_a_pypaimon_dv_table(warehouse, oracle, tmp_path):
    """Live ids update (one APPEND, index manifest untouched); a deleted id is rejected like
    pypaimon.ray (ray/data_evolution_merge_join.py:1278-1296) with nothing left behind; a
    later delete still keys the DV to the group's original (anchor) file."""
    from paimon_rowid import update_by_row_id
    ident, options = "db.plain", {"warehouse": warehouse}
    oracle.run_all(dv.pypaimon_setup(oracle, warehouse, ident, [])
                   + [oracle.delete_cmd(warehouse, ident, [1, 6])])
    index_manifest = dv.snapshot_json(warehouse, ident)["indexManifest"]
    source = pa.table({"_ROW_ID": pa.array([0, 7], pa.int64()), "b": ["u0", "u7"]})
    assert update_by_row_id(ident, source, options, update_cols=["b"]) == {"num_updated": 2}
    snap = dv.snapshot_json(warehouse, ident)
    assert (snap["id"], snap["commitKind"], snap["indexManifest"]) == (5, "APPEND", index_manifest)
    before = dv.files(warehouse)
    with pytest.raises(ValueError, match=r"^Cannot update deleted _ROW_ID 6\.$"):
        update_by_row_id(ident, pa.table({"_ROW_ID": pa.array([2, 6], pa.int64()),
                                          "b": ["u2", "u6"]}), options, update_cols=["b"])
    assert dv.files(warehouse) == before and dv.latest_id(warehouse, ident) == 5
    assert dv.our_delete(warehouse, ident, [0, 8]) == 6
    reads, outs = dv.read_cmds(oracle, tmp_path, warehouse, ident, {"full": CASES["full"]})
    replies = oracle.run_all(reads + [
        {"cmd": "entries", "warehouse": warehouse, "identifier": ident},
        oracle.index_manifest_cmd(warehouse, ident)])
    theirs = dv.load_reads(outs)["full"]
    rows = dv.by_row_id(theirs)
    assert set(rows) == set(range(dv.NUM_ROWS)) - {0, 1, 6, 8} and rows[7]["b"] == "u7"
    dv.same(dv.our_read(warehouse, ident, CASES["full"]["projection"]), theirs, "update")
    # expected_dvs keys by the oldest normal file (the anchor), not the partial update file.
    dv.check_index_manifest(replies[-1], dv.expected_dvs(replies[-2], {0, 1, 6, 8}), "update")


@pytest.mark.native
def test_pypaimon_update_on_our_dv_table(warehouse, oracle, tmp_path):
    """pypaimon's local update (and ours' table-level update, which mirrors it) writes
    deleted ids silently; the rows stay deleted in both readers."""
    ident = "db.plain"
    dv.our_setup(warehouse, "plain", [])
    assert dv.our_delete(warehouse, ident, [1, 6]) == 4
    oracle.update_by_row_id(warehouse, ident, pa.table({
        "_ROW_ID": pa.array(UPDATE_IDS, pa.int64()), "a": pa.array(UPDATE_A, pa.int32())}), ["a"])
    builder = dv.our_table(warehouse, ident).new_batch_write_builder()
    messages = builder.new_update().with_update_type(["b"]).update_by_arrow_with_row_id(
        pa.table({"_ROW_ID": pa.array([6, 8], pa.int64()), "b": ["u6", "u8"]}))
    assert builder.new_commit().commit(messages) == 6
    assert dv.our_delete(warehouse, ident, [7]) == 7
    specs = {"full": CASES["full"], "a_only": CASES["a_only"]}
    reads, outs = dv.read_cmds(oracle, tmp_path, warehouse, ident, specs)
    replies = oracle.run_all(reads + [
        {"cmd": "entries", "warehouse": warehouse, "identifier": ident},
        oracle.index_manifest_cmd(warehouse, ident)])
    theirs = dv.load_reads(outs)
    rows = dv.by_row_id(theirs["full"])
    assert set(rows) == set(range(dv.NUM_ROWS)) - {1, 6, 7}
    assert rows[0]["a"] == -100 and rows[8]["b"] == "u8"
    for name, spec in specs.items():
        dv.same(dv.our_read(warehouse, ident, **spec), theirs[name], f"update/{name}")
    dv.check_index_manifest(replies[-1], dv.expected_dvs(replies[-2], {1, 6, 7}), "update")


# -- Java -------------------------------------------------------------------------------------

@pytest.mark.java
@pytest.mark.native
def test_java_1_4_refuses_de_dv_tables(warehouse, java):
    """Java Paimon 1.4.2 cannot load a DE+DV table at all (SchemaValidation
    .validateRowTracking), pypaimon-written or ours; it is no oracle for DV reads."""
    from java import JavaOracleError
    dv.our_setup(warehouse, "plain", [], writes=[(0, 5)])
    dv.our_delete(warehouse, "db.plain", [1])
    result = java.dump(warehouse, "db.plain", projection=["id", "_ROW_ID"])  # errors returned
    assert isinstance(result, JavaOracleError), result
    assert "Data evolution config must disabled with deletion-vectors.enabled" in str(result)

