"""``merge_into``: SQL's MERGE on data-evolution tables (pypaimon 2.1.0; research memo
pypaimon-merge-into-and-joins.md §1, §2.1, §5).

(a) Same result as pypaimon: on copies of one warehouse, pypaimon's LOCAL merge
    (``new_update().merge_into``, committed) against ours, both ``BatchTableUpdate.merge_into``
    and the embedded ``paimon_rowid.merge_into``; both engines read every result identically,
    with the same snapshot id, commit kind, total record count and next row id. One case
    table (clauses in the JSON form of tests/oracle/merge_spec.py) drives both engines; the
    pypaimon side of (a) runs in two processes.
    Local and Ray differ on duplicates (memo §2.1): the duplicate cases compare the local calls
    only, and check the embedded (Ray) rule separately.
(b) Self-merge with callables (embedded only), against results computed here.
(c) Validations and our deliberate differences: test_merge_into_validation.py.
(d) The return dict (memo §1.12), one snapshot per call, none when nothing is written.
(e) Commit kind: OVERWRITE when the merge deletes, else APPEND.
"""
from __future__ import annotations

import shutil

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import dv_tables as dv
import merge_cases as mc
from oracle import OracleError
from oracle import merge_spec as ms

pytestmark = pytest.mark.native


def _case(source, on, matched=(), not_matched=(), *, deletes=None, layouts=("plain", "part"),
          writes=dv.WRITES, engines=("local", "embedded"), before=None):
    """source: a pyarrow Table; None = self-merge; ``{"table": "db.s", "writes": [...]}`` =
    another table written with those WRITES (the local calls get its table object, the
    embedded call its identifier). deletes = ids deleted (through DVs) before the merge;
    before = a merge case ours runs first (so the merge meets partial-column files)."""
    return {"source": source, "on": on, "matched": list(matched),
            "not_matched": list(not_matched), "deletes": deletes, "layouts": layouts,
            "writes": writes, "engines": engines, "before": before}


U, D, INS = ms.update, ms.delete, ms.insert

CASES = {
    "update_columns": _case(
        mc.src([1, 3, 5, 50], [-1, -3, -5, -50], ["u1", "u3", "u5", "u50"]), ["id"],
        [U({"a": "s.a", "b": {"s": "b"}})]),
    # 1, 7 pass the condition; 3 is FALSE and 5 NULL: both fall through to the second clause.
    "conditional_update_null_falls_through": _case(
        mc.src([1, 3, 5, 7], [100, 1, None, 200], ["c1", "c3", "c5", "c7"]), ["id"],
        [U({"a": "s.a", "b": "s.b"}, "s.a > t.a"), U({"b": {"lit": "fell"}})]),
    "delete": _case(mc.src([2, 4, 60]), ["id"], [D()]),
    # 1 and 5 satisfy both conditions: the delete (first) wins; 2 is updated; 3, 4 neither.
    "delete_and_update_first_true_wins": _case(
        mc.src([1, 2, 3, 4, 5], [5, 50, 500, None, -7]), ["id"],
        [D("s.a < 10"), U({"a": "s.a"}, "s.a < 100")]),
    "insert_star": _case(
        mc.src([1, 40, 41], [1, 2, 3], ["i1", "i40", "i41"], ["y", "x", "q"]), ["id"], (),
        [INS()]),
    # on keys are added to the insert; the other columns are NULL (p too: the NULL partition)
    "insert_mapping": _case(
        mc.src([2, 42], [7, 8], ["m2", "m42"], ["x", "x"]), ["id"], (), [INS({"b": "s.b"})]),
    "update_delete_insert": _case(
        mc.src([1, 2, 3, 43, 44], [100, 5, 1, 9, None], ["x1", "gone", "x3", "n43", "n44"],
               ["y", "x", "y", "x", "y"]), ["id"],
        [U({"a": "s.a", "b": "s.b"}, "s.a > t.a"), D("s.b = 'gone'")],
        [INS("*", "s.a IS NOT NULL")]),
    "renamed_key": _case(
        pa.table({"sid": pa.array([1, 4, 45], pa.int64()), "a": pa.array([-1, -4, -45], pa.int32()),
                  "b": ["r1", "r4", "r45"]}), {"id": "sid"},
        [U({"a": "s.a"}, "s.sid > 2"), U({"b": "s.b"})], [INS({"a": "s.a", "b": "s.b"})]),
    "identity_and_another_column": _case(
        mc.src([1, 2], [-1, -2], ["k1", "k2"]), ["id"], [U({"a": "t.a", "b": "s.b"})]),
    "identity_only_writes_nothing": _case(
        mc.src([1, 2], [-1, -2]), ["id"], [U({"a": {"t": "a"}})]),
    "target_ref_and_literals": _case(
        mc.src([1, 2, 3, 46], [500, 5, 600, 1], ["l1", "l2", "l3", "l46"]), ["id"],
        [U({"a": 7, "b": {"lit": "s.b"}}, "s.a > 100"), U({"b": "hello", "a": "t.id"})],
        [INS({"a": -1, "b": {"lit": "t.x"}})]),
    "deleted_rows_are_not_matched": _case(
        mc.src([1, 2, 3], [-1, -2, -3], ["d1", "d2", "d3"], ["y", "x", "y"]), ["id"],
        [U({"b": "s.b"})], [INS()], deletes=[1, 2]),
    "all_rows_deleted": _case(
        mc.src([1, 2], [-1, -2], ["e1", "e2"], ["y", "x"]), ["id"], [U({"a": "s.a"})], [INS()],
        deletes=list(range(dv.NUM_ROWS))),
    "two_keys_null_never_matches": _case(
        mc.src([1, 2, 3], [-1, -2, -3], [None, "b2", "zz"], ["y", "x", "y"]), ["id", "b"],
        [U({"a": "s.a"})], [INS()]),
    "row_id_key_in_memory": _case(
        pa.table({"_ROW_ID": pa.array([0, 5, 99], pa.int64()),
                  "id": pa.array([100, 105, 199], pa.int64()),
                  "a": pa.array([-10, -15, -99], pa.int32()), "b": ["r0", "r5", "r99"]}),
        ["_ROW_ID"], [U({"a": "s.a", "b": "s.b"})], [INS({"id": "s.id", "b": "s.b"})]),
    "self_merge_update": _case(
        None, ["_ROW_ID"],
        [U({"a": {"lit": -1}, "b": "s.p"}, "t.a > 50 AND t._ROW_ID < 11")]),
    "self_merge_delete_and_update": _case(
        None, ["_ROW_ID"],
        [D("t.a < 30"), U({"a": {"lit": 1}, "b": "t.p"}, "s.a >= 100")], deletes=[0]),
    "empty_target": _case(
        mc.src([1, 2, 3], [1, 2, 3], ["n1", "n2", "n3"], ["x", "y", "x"]), ["id"],
        [U({"a": "s.a"})], [INS()], writes=[]),
    "star_renamed_key": _case(
        pa.table({"sid": pa.array([1, 4, 48], pa.int64()), "a": pa.array([-1, -4, -48], pa.int32()),
                  "b": ["r1", "r4", "r48"], "p": ["q", "q", "x"]}), {"id": "sid"},
        [U()], [INS()], layouts=("plain",)),
    "insert_star_renamed_key": _case(
        pa.table({"sid": pa.array([1, 49], pa.int64()), "a": pa.array([-1, -49], pa.int32()),
                  "b": ["r1", "r49"], "p": ["q", "y"]}), {"id": "sid"}, (), [INS()]),
    # values of another type are cast (INT -> STRING, BIGINT -> INT)
    "cross_type_values": _case(
        mc.src([1, 2, 74], [-1, -2, 7]), ["id"], [U({"b": "t.a", "a": "s.id"})],
        [INS({"b": "s.a"})]),
    # a bare NULL condition is never TRUE: its rows fall through
    "null_condition_literal": _case(
        mc.src([1, 2, 75], [1, None, 3], ["n1", "n2", "n75"]), ["id"],
        [U({"a": 1}, "NULL"), U({"b": "s.b"}, "s.a IS NULL OR s.a > 0")],
        [INS("*", "NULL"), INS({"b": "s.b"}, "s.b = 'n75'")]),
    "table_source": _case(
        {"table": "db.s", "writes": [(1, 3), (90, 2)]}, ["id"],
        [U({"b": {"lit": "from s"}, "a": {"s": "id"}}, "s.a > 10")], [INS()]),
    # the second merge reads and rewrites groups that have partial-column files
    "over_partial_files": _case(
        mc.src([3, 4, 5, 6, 7, 8, 9, 76], [-1, -1, 0, 1, 1, 1, 1, 1],
               ["o3", "o4", "o5", "o6", "o7", "o8", "o9", "o76"], ["y"] * 8), ["id"],
        [U({"b": "s.b"}, "t.a < 0 AND s.a < 0"), D("t.a < 0"), U({"a": "s.a", "b": "t.p"})],
        [INS()], before="update_columns"),
    # one source row may match many target rows (each target row is hit once)
    "one_source_row_many_targets": _case(
        mc.src([None, None], [None, None], ["all-x", "w"], ["x", "w"]), ["p"],
        [U({"b": "s.b"})], [INS({"b": "s.b", "id": {"lit": 99}})]),
    # duplicate unmatched source rows are all inserted
    "duplicate_unmatched_all_inserted": _case(
        mc.src([40, 40, 41], [1, 2, 3], ["d1", "d2", "d3"], ["x", "x", "y"]), ["id"], (),
        [INS()]),
    "update_star": _case(
        mc.src([1, 3, 47], [-1, -3, -47], ["s1", "s3", "s47"], ["q", "q", "q"]), ["id"],
        [U()], [INS()], layouts=("plain",)),
    # Duplicates, local rule (cardinality before conditions): pypaimon and ours both raise ...
    "duplicate_filtered_by_condition_local": _case(
        mc.src([1, 1], [5, 500]), ["id"], [U({"a": "s.a"}, "s.a > t.a")], engines=("local",)),
    "duplicate_identity_only_local": _case(
        mc.src([1, 1], [5, 500]), ["id"], [U({"a": "t.a"})], engines=("local",)),
    # ... except under a sole unconditional DELETE, which collapses them.
    "duplicate_sole_delete_local": _case(
        mc.src([2, 2, 3]), ["id"], [D()], engines=("local",)),
}

RUNS = [(layout, case, engine) for case, c in CASES.items() for layout in c["layouts"]
        for engine in c["engines"]]


def _setup(wh, layout, c):
    dv.our_setup(wh, "t", dv.LAYOUTS[layout], writes=c["writes"])
    if isinstance(c["source"], dict):
        dv.our_setup(wh, "s", [], writes=c["source"]["writes"])
    if c["deletes"]:
        dv.our_delete(wh, "db.t", spec=["is_in", "id", [c["deletes"]]], by_predicate=True)
    if c["before"]:
        outcome = _run_ours(wh, "embedded", CASES[c["before"]])
        assert isinstance(outcome, dict), outcome


def _run_ours(wh, engine, c):
    """Ours' merge of case ``c`` on ``wh``: the embedded result dict (None for local), or the
    exception raised."""
    import paimon_rowid
    matched, not_matched = mc.decode(c["matched"], c["not_matched"])
    try:
        source = c["source"]
        if engine == "embedded":
            source = "db.t" if source is None else \
                source["table"] if isinstance(source, dict) else source
            return paimon_rowid.merge_into("db.t", source, {"warehouse": wh}, on=c["on"],
                                           when_matched=matched, when_not_matched=not_matched)
        table = dv.our_table(wh, "db.t")
        builder = table.new_batch_write_builder()
        source = table if source is None else \
            dv.our_table(wh, source["table"]) if isinstance(source, dict) else source
        messages = builder.new_update().merge_into(source, on=c["on"], when_matched=matched,
                                                   when_not_matched=not_matched)
        builder.new_commit().commit(messages)
        return None
    except Exception as error:  # compared with pypaimon's
        return error


@pytest.fixture(scope="module")
def same(tmp_path_factory, oracle):
    """Every RUN: pypaimon's local merge on ``theirs`` and ours on a copy per engine, then
    pypaimon's reads of ours' results (two pypaimon processes for everything)."""
    root = tmp_path_factory.mktemp("merge-same")
    runs, cmds, keys = {}, [], []
    for case, c in CASES.items():
        for layout in c["layouts"]:
            base = root / f"{layout}-{case}"
            theirs = base / "theirs"
            _setup(str(theirs), layout, c)
            for engine in c["engines"]:
                shutil.copytree(theirs, base / engine)
            cmds.append(oracle.merge_into_cmd(str(theirs), "db.t", c["source"], c["on"],
                                              c["matched"], c["not_matched"]))
            keys.append((layout, case))
    results = dict(zip(keys, oracle.run_batch(cmds)))
    reads, outs = [], {}
    for layout, case, engine in RUNS:
        base = root / f"{layout}-{case}"
        wh = str(base / engine)
        before = dv.files(wh)
        outcome = _run_ours(wh, engine, CASES[case])
        cmds_, outs[(layout, case, engine)] = dv.read_cmds(
            oracle, base, wh, "db.t", {engine: {"projection": mc.ALL_ROW_ID}})
        reads += cmds_
        runs[(layout, case, engine)] = {"ours": outcome, "theirs": results[(layout, case)],
                                        "wh": wh, "theirs_wh": str(base / "theirs"),
                                        "before": before}
    oracle.run_batch(reads)
    for key, out in outs.items():
        name, path = next(iter(out.items()))
        runs[key]["pypaimon_read"] = dv.load_reads(out)[name] if path.exists() else None
    return runs


def _snap(wh):
    snap = dv.snapshot_json(wh, "db.t")
    return None if snap is None else (snap["id"], snap["commitKind"])


@pytest.mark.parametrize("layout, case, engine", RUNS)
def test_same_result_as_pypaimon(same, layout, case, engine):
    run = same[(layout, case, engine)]
    ours, theirs = run["ours"], run["theirs"]
    context = f"{layout}/{case}/{engine}"
    if isinstance(theirs, OracleError):
        # pypaimon refused: ours refuses the same way and leaves nothing behind
        assert isinstance(ours, Exception), f"{context}: pypaimon raised {theirs}, ours did not"
        assert (type(ours).__name__, str(ours)) == (theirs.error_type, theirs.message), context
        assert dv.files(run["wh"]) == run["before"], context
        return
    if isinstance(ours, Exception):
        raise ours
    mine = dv.our_read(run["wh"], "db.t", mc.ALL_ROW_ID)
    dv.same(mine, dv.our_read(run["theirs_wh"], "db.t", mc.ALL_ROW_ID), f"{context} read by ours")
    dv.same(mine, run["pypaimon_read"], f"{context} ours read by pypaimon")
    assert _accounting(run["wh"]) == _accounting(run["theirs_wh"]), context


def _accounting(wh):
    """The latest snapshot's id, kind, record count (partial files included) and next row id."""
    snap = dv.snapshot_json(wh, "db.t")
    return None if snap is None else (snap["id"], snap["commitKind"], snap["totalRecordCount"],
                                      snap.get("nextRowId"))


def test_cases_do_what_they_say(same):
    """A few expectations spelt out, so the comparison cannot pass on two identical mistakes."""
    def rows(case, layout="plain", engine="embedded"):
        got = dv.our_read(same[(layout, case, engine)]["wh"], "db.t", mc.ALL_ROW_ID)
        return {r["id"]: r for r in got.to_pylist()}, got

    got, _ = rows("conditional_update_null_falls_through")
    assert [(got[i]["a"], got[i]["b"]) for i in (1, 3, 5, 7)] == [
        (100, "c1"), (30, "fell"), (50, "fell"), (200, "c7")]
    got, _ = rows("delete_and_update_first_true_wins")
    assert 1 not in got and 5 not in got and got[2]["a"] == 50 and got[3]["a"] == 30
    got, _ = rows("insert_mapping")
    assert got[42] == {"id": 42, "a": None, "b": "m42", "p": None, "_ROW_ID": 13}
    got, _ = rows("renamed_key")
    assert (got[1]["a"], got[1]["b"], got[4]["a"], got[4]["b"]) == (10, "r1", -4, "b4")
    assert (got[45]["a"], got[45]["b"], got[45]["_ROW_ID"]) == (-45, "r45", 13)
    got, _ = rows("target_ref_and_literals")
    assert [(got[i]["a"], got[i]["b"]) for i in (1, 2, 3, 46)] == [
        (7, "s.b"), (2, "hello"), (7, "s.b"), (-1, "t.x")]
    got, table = rows("deleted_rows_are_not_matched")
    assert table.num_rows == dv.NUM_ROWS and got[1]["_ROW_ID"] >= dv.NUM_ROWS
    assert got[3]["b"] == "d3"
    got, table = rows("empty_target")
    assert sorted(table.column("_ROW_ID").to_pylist()) == [0, 1, 2]
    got, _ = rows("duplicate_sole_delete_local", engine="local")
    assert 2 not in got and 3 not in got and len(got) == dv.NUM_ROWS - 2
    got, _ = rows("null_condition_literal")
    assert [(got[i]["a"], got[i]["b"]) for i in (1, 2, 75)] == [
        (10, "n1"), (20, "n2"), (None, "n75")]
    got, _ = rows("over_partial_files")
    assert 5 not in got and (got[3]["a"], got[3]["b"]) == (-3, "o3")
    assert (got[4]["a"], got[4]["b"], got[76]["b"]) == (-1, "x", "o76")
    got, table = rows("one_source_row_many_targets", layout="part")
    assert {r["b"] for r in table.to_pylist() if r["p"] == "x"} == {"all-x"}
    assert (got[99]["p"], got[99]["b"], got[1]["b"]) == ("w", "w", "b1")  # on key p added
    _, table = rows("duplicate_unmatched_all_inserted")
    assert table.column("id").to_pylist().count(40) == 2
    for case in ("duplicate_filtered_by_condition_local", "duplicate_identity_only_local"):
        assert str(same[("plain", case, "local")]["ours"]) == mc.DEDUPLICATE


# -- (b) self-merge with callables (embedded only) -------------------------------------------


@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
def test_self_merge_callable(warehouse, layout):
    import paimon_rowid as pr
    dv.our_setup(warehouse, "t", dv.LAYOUTS[layout])
    before = mc.rows(warehouse)
    seen = []

    def twice_plus_row_id(part: pa.Table):
        seen.append((part.column_names, part.column("a").to_pylist()))
        # a ChunkedArray of int64, cast to the column's INT by the merge
        return pc.add(pc.multiply(part.column("a"), 2), part.column("_ROW_ID"))

    result = pr.merge_into(
        "db.t", "db.t", {"warehouse": warehouse}, on=["_ROW_ID"],
        when_matched=[pr.WhenMatched.update({"a": twice_plus_row_id, "b": "s.p"},
                                            condition="t.a >= 50")],
        read_columns=["a", "b", "a"])
    hit = {rid for rid, r in before.items() if r["a"] >= 50}
    assert result == {"num_matched": len(hit), "num_inserted": 0, "num_unchanged": 0}
    assert all(names == ["a", "b", "_ROW_ID"] for names, _ in seen)  # read_columns deduplicated
    assert sorted(a for _, values in seen for a in values) == sorted(before[r]["a"] for r in hit)
    expected = {rid: ({**r, "a": 2 * r["a"] + rid, "b": r["p"]} if rid in hit else r)
                for rid, r in before.items()}
    assert mc.rows(warehouse) == expected
    assert _snap(warehouse) == (4, "APPEND")


def test_self_merge_callables_with_delete_and_two_clauses(warehouse):
    import paimon_rowid as pr
    dv.our_setup(warehouse, "t", ["p"])
    dv.our_delete(warehouse, "db.t", spec=["equal", "id", [0]], by_predicate=True)
    before = mc.rows(warehouse)

    def upper(part):
        return pc.utf8_upper(part.column("b"))

    def negate(part):
        return pa.array([-v for v in part.column("a").to_pylist()], pa.int32())

    result = pr.merge_into(
        "db.t", "db.t", {"warehouse": warehouse}, on=["_ROW_ID"],
        when_matched=[pr.WhenMatched.delete(condition="t.a < 30"),
                      pr.WhenMatched.update({"b": upper}, condition="t.a >= 100"),
                      pr.WhenMatched.update({"a": negate}, condition="t.id IN (5, 6)")],
        read_columns=["b", "a"])
    expected = {}
    for rid, r in before.items():
        if r["a"] < 30:
            continue
        if r["a"] >= 100:
            r = {**r, "b": r["b"].upper()}
        elif r["id"] in (5, 6):
            r = {**r, "a": -r["a"]}
        expected[rid] = r
    assert mc.rows(warehouse) == expected
    assert result == {"num_matched": 2 + 3 + 2, "num_inserted": 0, "num_unchanged": 0}
    assert _snap(warehouse) == (5, "OVERWRITE")


# -- (d) return values, snapshots --------------------------------------------------------------

def test_return_counts_and_one_snapshot(warehouse):
    import paimon_rowid as pr
    mc.make_table(warehouse, "part")
    src = mc.src([1, 2, 3, 60, 61, 62, 4], [100, 5, 500, 1, -1, 2, 40],
                 ["u", "gone", "u", "n", "n", "n", "same"], ["y", "x", "y", "x", "y", "z", "x"])
    result = pr.merge_into(
        "db.t", src, {"warehouse": warehouse}, on=["id"],
        when_matched=[pr.WhenMatched.update({"a": "s.a"}, condition="s.a > t.a"),
                      pr.WhenMatched.delete(condition="s.b = 'gone'"),
                      # an update writing the value the row has is counted too
                      pr.WhenMatched.update({"a": "s.a"}, condition="s.b = 'same'")],
        when_not_matched=[pr.WhenNotMatched("*", condition="s.a > 0")])
    # updated 1, 3, 4; deleted 2; inserted 60, 62
    assert result == {"num_matched": 4, "num_inserted": 2, "num_unchanged": 0}
    assert _snap(warehouse) == (4, "OVERWRITE")
    got = {r["id"]: r["a"] for r in mc.rows(warehouse).values()}
    assert (got[1], got[3], got[4], got[60], got[62], 2 in got, 61 in got) == (
        100, 500, 40, 1, 2, False, False)


def test_self_merge_counts_every_live_row(warehouse):
    import paimon_rowid as pr
    mc.make_table(warehouse, "part")
    dv.our_delete(warehouse, "db.t", spec=["is_in", "id", [[0, 7]]], by_predicate=True)
    result = pr.merge_into("db.t", "db.t", {"warehouse": warehouse}, on=["_ROW_ID"],
                           when_matched=[pr.WhenMatched.update({"b": pr.lit("all")})])
    assert result == {"num_matched": dv.NUM_ROWS - 2, "num_inserted": 0, "num_unchanged": 0}
    assert {r["b"] for r in mc.rows(warehouse).values()} == {"all"}
    assert _snap(warehouse) == (5, "APPEND")


def _nothing_cases():
    from paimon_rowid import WhenMatched as M
    from paimon_rowid import WhenNotMatched as N
    every = {"when_matched": [M.delete(condition="s.a < 0"), M.update({"a": "s.a"})],
             "when_not_matched": [N("*")]}
    return {
        "empty_source": ("part", mc.src([]), every),
        "empty_source_and_target": ("empty", mc.src([]), every),
        "delete_matching_nothing": ("part", mc.src([90, 91]), {"when_matched": [M.delete()]}),
        "identity_only": ("part", mc.src([1, 2]), {"when_matched": [M.update({"a": "t.a"})]}),
        "no_condition_true": ("part", mc.src([1, 2, 92], [1, 2, 3]), {
            "when_matched": [M.update({"a": "s.a"}, condition="s.a > 100")],
            "when_not_matched": [N("*", condition="s.a IS NULL")]}),
        "self_merge_empty_target": ("empty", "db.t", {
            "on": ["_ROW_ID"], "when_matched": [M.update({"a": 1})]}),
        "self_merge_no_condition_true": ("part", "db.t", {
            "on": ["_ROW_ID"], "when_matched": [M.delete(condition="t.a < 0")]}),
        "str_source_empty_table": ("part", "db.s", every),
    }


@pytest.mark.parametrize("case", list(_nothing_cases()))
def test_nothing_written_no_snapshot(warehouse, case):
    import paimon_rowid as pr
    kind, source, kwargs = _nothing_cases()[case]
    if kind == "empty":
        dv.our_setup(warehouse, "t", ["p"], writes=[])
    else:
        mc.make_table(warehouse, kind)
    if source == "db.s":
        dv.our_setup(warehouse, "s", [], writes=[])
    kwargs = {"on": ["id"], **kwargs}
    before = mc.state(warehouse)
    result = pr.merge_into("db.t", source, {"warehouse": warehouse}, **kwargs)
    assert result == {"num_matched": 0, "num_inserted": 0, "num_unchanged": 0}
    assert mc.state(warehouse) == before


@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
def test_empty_target_inserts_get_ids_from_zero(warehouse, layout):
    import paimon_rowid as pr
    dv.our_setup(warehouse, "t", dv.LAYOUTS[layout], writes=[])
    assert dv.latest_id(warehouse, "db.t") is None
    src = mc.src([5, 6, 7, 8], [1, 2, 3, 4], ["e5", "e6", "e7", "e8"], ["x", "y", "x", "y"])
    result = pr.merge_into("db.t", src, {"warehouse": warehouse}, on=["id"],
                           when_matched=[pr.WhenMatched.update({"a": "s.a"})],
                           when_not_matched=[pr.WhenNotMatched("*", condition="s.a < 4")])
    assert result == {"num_matched": 0, "num_inserted": 3, "num_unchanged": 0}
    assert _snap(warehouse) == (1, "APPEND")
    got = dv.our_read(warehouse, "db.t", mc.ALL_ROW_ID)
    assert sorted(got.column("_ROW_ID").to_pylist()) == [0, 1, 2]
    assert sorted(got.column("id").to_pylist()) == [5, 6, 7]


def test_str_source_reads_the_other_table(warehouse):
    import paimon_rowid as pr
    mc.make_table(warehouse, "part")
    other = dv.our_setup(warehouse, "s", [], writes=[(1, 2), (80, 1)])
    assert other is not None
    result = pr.merge_into("db.t", "db.s", {"warehouse": warehouse}, on=["id"],
                           when_matched=[pr.WhenMatched.update({"b": pr.source_col("p")})],
                           when_not_matched=[pr.WhenNotMatched({"a": "s.a"})])
    assert result == {"num_matched": 2, "num_inserted": 1, "num_unchanged": 0}
    got = {r["id"]: r for r in mc.rows(warehouse).values()}
    assert (got[1]["b"], got[2]["b"], got[80]["a"], got[80]["b"]) == ("y", "x", 800, None)


# -- (e) commit kind ----------------------------------------------------------------------------

def _kind_cases():
    from paimon_rowid import WhenMatched as M
    from paimon_rowid import WhenNotMatched as N
    return {
        "delete": ([M.delete()], [], "OVERWRITE"),
        "delete_and_insert": ([M.delete()], [N("*")], "OVERWRITE"),
        "update_and_delete": ([M.delete(condition="s.a < 0"), M.update({"a": "s.a"})], [],
                              "OVERWRITE"),
        "update": ([M.update({"a": "s.a"})], [], "APPEND"),
        "insert": ([], [N("*")], "APPEND"),
        "update_and_insert": ([M.update({"a": "s.a"})], [N("*")], "APPEND"),
        # a delete clause that deletes nothing writes no deletion vector
        "delete_clause_unused": ([M.delete(condition="s.a < -100"), M.update({"a": "s.a"})],
                                 [], "APPEND"),
    }


@pytest.mark.parametrize("engine", mc.ENGINES)
@pytest.mark.parametrize("case", list(_kind_cases()))
def test_commit_kind(warehouse, case, engine):
    matched, not_matched, kind = _kind_cases()[case]
    mc.make_table(warehouse, "part")
    src = mc.src([1, 2, 73], [-1, 2, 3], ["k1", "k2", "k73"], ["y", "x", "x"])
    mc.merge(engine, warehouse, src, on=["id"], when_matched=matched,
             when_not_matched=not_matched)
    assert _snap(warehouse) == (4, kind)


def test_merge_reruns_on_the_new_snapshot_after_losing_a_row_id_conflict(warehouse,
                                                                          monkeypatch):
    """A concurrent update of the same column of the same file group commits between our round
    and our commit: the commit loses, the whole merge re-runs on the new snapshot (its files of
    the lost round deleted), and both writers' values are kept."""
    import sys

    import paimon_rowid as mr
    from paimon_rowid.row_id_jobs import update_by_row_id

    dv.our_setup(warehouse, "t", [], options=dict(dv.DE))
    options = {"warehouse": warehouse}
    module = sys.modules["paimon_rowid.jobs.merge_into"]
    real, bases = module.run_round, []

    def racing(plan, table, snapshot, source, evaluator, **kwargs):
        result = real(plan, table, snapshot, source, evaluator, **kwargs)
        if not bases:  # another writer: column a of row 4, in the same group as row 1
            update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([4], pa.int64()),
                                               "a": pa.array([444], pa.int32())}),
                             options, update_cols=["a"])
        bases.append(snapshot.id)
        return result

    monkeypatch.setattr(module, "run_round", racing)
    before = dv.latest_id(warehouse, "db.t")
    got = mr.merge_into("db.t", pa.table({"id": pa.array([1], pa.int64()),
                                          "a": pa.array([111], pa.int32())}),
                        options, on=["id"], when_matched=[mr.WhenMatched.update({"a": "s.a"})])
    assert got == {"num_matched": 1, "num_inserted": 0, "num_unchanged": 0}
    assert bases == [before, before + 1]  # re-run on the other writer's snapshot
    assert dv.latest_id(warehouse, "db.t") == before + 2
    a = {r["id"]: r["a"] for r in dv.our_read(warehouse, "db.t", ["id", "a"]).to_pylist()}
    assert a[1] == 111 and a[4] == 444 and a[2] == 20
    # No file of the lost round stays behind: nothing is an orphan.
    import time

    from paimon_rowid import remove_orphan_files
    orphans = remove_orphan_files("db.t", options, older_than_ms=int(time.time() * 1000) + 60_000,
                                  dry_run=True)
    assert orphans["files"] == 0, orphans["paths"]
