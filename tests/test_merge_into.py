"""``merge_into``: SQL's MERGE on data-evolution tables (pypaimon 2.1.0; research memo
pypaimon-merge-into-and-joins.md §1, §2.1, §5).

(a) Same result as pypaimon: on copies of one warehouse, pypaimon's LOCAL merge
    (``new_update().merge_into``, committed) against ours, both ``BatchTableUpdate.merge_into``
    and the embedded ``paimon_rowid.merge_into``; both engines read every result identically,
    with the same snapshot id, commit kind, total record count and next row id. One case
    table (clauses in the JSON form of tests/oracle/merge_spec.py) drives both engines; the
    pypaimon side of (a) runs in two processes, its local validations (c) in one.
    Local and Ray differ on duplicates (memo §2.1): the duplicate cases compare the local calls
    only, and check the embedded (Ray) rule separately.
(b) Self-merge with callables (embedded only), against results computed here.
(c) Every validation (memo §1.8 rows 2-12, 14-17, 20-22; §2.1's local wording and source
    types): exception type, exact message, nothing committed and no file left. The local
    messages are also compared with pypaimon's. Our deliberate differences (§5): a bare-string
    ``on`` is one key, target keys are checked, ``update("*")`` skips partition keys, failed
    merges (NOT NULL violations, condition errors, callable errors, duplicates) leave no files;
    DataFusion missing is an ImportError.
(d) The return dict (memo §1.12), one snapshot per call, none when nothing is written.
(e) Commit kind: OVERWRITE when the merge deletes, else APPEND.
"""
from __future__ import annotations

import json
import shutil

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import dv_tables as dv
from oracle import OracleError
from oracle import merge_spec as ms

pytestmark = pytest.mark.native

ALL_ROW_ID = dv.ALL + ["_ROW_ID"]
DEDUPLICATE = ("MERGE matched multiple source rows to the same target _ROW_ID. Deduplicate the "
               "source before merging.")


def _src(ids, a=None, b=None, p=None) -> pa.Table:
    n = len(ids)
    return pa.table({"id": pa.array(ids, pa.int64()),
                     "a": pa.array(a if a is not None else [None] * n, pa.int32()),
                     "b": pa.array(b if b is not None else [None] * n, pa.string()),
                     "p": pa.array(p if p is not None else [None] * n, pa.string())})


def _api():
    import paimon_rowid
    return paimon_rowid


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
        _src([1, 3, 5, 50], [-1, -3, -5, -50], ["u1", "u3", "u5", "u50"]), ["id"],
        [U({"a": "s.a", "b": {"s": "b"}})]),
    # 1, 7 pass the condition; 3 is FALSE and 5 NULL: both fall through to the second clause.
    "conditional_update_null_falls_through": _case(
        _src([1, 3, 5, 7], [100, 1, None, 200], ["c1", "c3", "c5", "c7"]), ["id"],
        [U({"a": "s.a", "b": "s.b"}, "s.a > t.a"), U({"b": {"lit": "fell"}})]),
    "delete": _case(_src([2, 4, 60]), ["id"], [D()]),
    # 1 and 5 satisfy both conditions: the delete (first) wins; 2 is updated; 3, 4 neither.
    "delete_and_update_first_true_wins": _case(
        _src([1, 2, 3, 4, 5], [5, 50, 500, None, -7]), ["id"],
        [D("s.a < 10"), U({"a": "s.a"}, "s.a < 100")]),
    "insert_star": _case(
        _src([1, 40, 41], [1, 2, 3], ["i1", "i40", "i41"], ["y", "x", "q"]), ["id"], (),
        [INS()]),
    # on keys are added to the insert; the other columns are NULL (p too: the NULL partition)
    "insert_mapping": _case(
        _src([2, 42], [7, 8], ["m2", "m42"], ["x", "x"]), ["id"], (), [INS({"b": "s.b"})]),
    "update_delete_insert": _case(
        _src([1, 2, 3, 43, 44], [100, 5, 1, 9, None], ["x1", "gone", "x3", "n43", "n44"],
             ["y", "x", "y", "x", "y"]), ["id"],
        [U({"a": "s.a", "b": "s.b"}, "s.a > t.a"), D("s.b = 'gone'")],
        [INS("*", "s.a IS NOT NULL")]),
    "renamed_key": _case(
        pa.table({"sid": pa.array([1, 4, 45], pa.int64()), "a": pa.array([-1, -4, -45], pa.int32()),
                  "b": ["r1", "r4", "r45"]}), {"id": "sid"},
        [U({"a": "s.a"}, "s.sid > 2"), U({"b": "s.b"})], [INS({"a": "s.a", "b": "s.b"})]),
    "identity_and_another_column": _case(
        _src([1, 2], [-1, -2], ["k1", "k2"]), ["id"], [U({"a": "t.a", "b": "s.b"})]),
    "identity_only_writes_nothing": _case(
        _src([1, 2], [-1, -2]), ["id"], [U({"a": {"t": "a"}})]),
    "target_ref_and_literals": _case(
        _src([1, 2, 3, 46], [500, 5, 600, 1], ["l1", "l2", "l3", "l46"]), ["id"],
        [U({"a": 7, "b": {"lit": "s.b"}}, "s.a > 100"), U({"b": "hello", "a": "t.id"})],
        [INS({"a": -1, "b": {"lit": "t.x"}})]),
    "deleted_rows_are_not_matched": _case(
        _src([1, 2, 3], [-1, -2, -3], ["d1", "d2", "d3"], ["y", "x", "y"]), ["id"],
        [U({"b": "s.b"})], [INS()], deletes=[1, 2]),
    "all_rows_deleted": _case(
        _src([1, 2], [-1, -2], ["e1", "e2"], ["y", "x"]), ["id"], [U({"a": "s.a"})], [INS()],
        deletes=list(range(dv.NUM_ROWS))),
    "two_keys_null_never_matches": _case(
        _src([1, 2, 3], [-1, -2, -3], [None, "b2", "zz"], ["y", "x", "y"]), ["id", "b"],
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
        _src([1, 2, 3], [1, 2, 3], ["n1", "n2", "n3"], ["x", "y", "x"]), ["id"],
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
        _src([1, 2, 74], [-1, -2, 7]), ["id"], [U({"b": "t.a", "a": "s.id"})],
        [INS({"b": "s.a"})]),
    # a bare NULL condition is never TRUE: its rows fall through
    "null_condition_literal": _case(
        _src([1, 2, 75], [1, None, 3], ["n1", "n2", "n75"]), ["id"],
        [U({"a": 1}, "NULL"), U({"b": "s.b"}, "s.a IS NULL OR s.a > 0")],
        [INS("*", "NULL"), INS({"b": "s.b"}, "s.b = 'n75'")]),
    "table_source": _case(
        {"table": "db.s", "writes": [(1, 3), (90, 2)]}, ["id"],
        [U({"b": {"lit": "from s"}, "a": {"s": "id"}}, "s.a > 10")], [INS()]),
    # the second merge reads and rewrites groups that have partial-column files
    "over_partial_files": _case(
        _src([3, 4, 5, 6, 7, 8, 9, 76], [-1, -1, 0, 1, 1, 1, 1, 1],
             ["o3", "o4", "o5", "o6", "o7", "o8", "o9", "o76"], ["y"] * 8), ["id"],
        [U({"b": "s.b"}, "t.a < 0 AND s.a < 0"), D("t.a < 0"), U({"a": "s.a", "b": "t.p"})],
        [INS()], before="update_columns"),
    # one source row may match many target rows (each target row is hit once)
    "one_source_row_many_targets": _case(
        _src([None, None], [None, None], ["all-x", "w"], ["x", "w"]), ["p"],
        [U({"b": "s.b"})], [INS({"b": "s.b", "id": {"lit": 99}})]),
    # duplicate unmatched source rows are all inserted
    "duplicate_unmatched_all_inserted": _case(
        _src([40, 40, 41], [1, 2, 3], ["d1", "d2", "d3"], ["x", "x", "y"]), ["id"], (),
        [INS()]),
    "update_star": _case(
        _src([1, 3, 47], [-1, -3, -47], ["s1", "s3", "s47"], ["q", "q", "q"]), ["id"],
        [U()], [INS()], layouts=("plain",)),
    # Duplicates, local rule (cardinality before conditions): pypaimon and ours both raise ...
    "duplicate_filtered_by_condition_local": _case(
        _src([1, 1], [5, 500]), ["id"], [U({"a": "s.a"}, "s.a > t.a")], engines=("local",)),
    "duplicate_identity_only_local": _case(
        _src([1, 1], [5, 500]), ["id"], [U({"a": "t.a"})], engines=("local",)),
    # ... except under a sole unconditional DELETE, which collapses them.
    "duplicate_sole_delete_local": _case(
        _src([2, 2, 3]), ["id"], [D()], engines=("local",)),
}

RUNS = [(layout, case, engine) for case, c in CASES.items() for layout in c["layouts"]
        for engine in c["engines"]]


def _decode(clauses_m, clauses_nm):
    api = _api()
    return ms.decode_matched(api, clauses_m), ms.decode_not_matched(api, clauses_nm)


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
    matched, not_matched = _decode(c["matched"], c["not_matched"])
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
            oracle, base, wh, "db.t", {engine: {"projection": ALL_ROW_ID}})
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
    mine = dv.our_read(run["wh"], "db.t", ALL_ROW_ID)
    dv.same(mine, dv.our_read(run["theirs_wh"], "db.t", ALL_ROW_ID), f"{context} read by ours")
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
        got = dv.our_read(same[(layout, case, engine)]["wh"], "db.t", ALL_ROW_ID)
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
        assert str(same[("plain", case, "local")]["ours"]) == DEDUPLICATE




# -- (b) self-merge with callables (embedded only) -------------------------------------------

def _rows(wh):
    return dv.by_row_id(dv.our_read(wh, "db.t", ALL_ROW_ID))


@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
def test_self_merge_callable(warehouse, layout):
    import paimon_rowid as pr
    dv.our_setup(warehouse, "t", dv.LAYOUTS[layout])
    before = _rows(warehouse)
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
    assert _rows(warehouse) == expected
    assert _snap(warehouse) == (4, "APPEND")


def test_self_merge_callables_with_delete_and_two_clauses(warehouse):
    import paimon_rowid as pr
    dv.our_setup(warehouse, "t", ["p"])
    dv.our_delete(warehouse, "db.t", spec=["equal", "id", [0]], by_predicate=True)
    before = _rows(warehouse)

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
    assert _rows(warehouse) == expected
    assert result == {"num_matched": 2 + 3 + 2, "num_inserted": 0, "num_unchanged": 0}
    assert _snap(warehouse) == (5, "OVERWRITE")


# -- (c) validations ---------------------------------------------------------------------------

SRC = _src([1, 50], [1, 2], ["x", "y"], ["y", "x"])


def _make_table(wh, kind):
    """kind: "part" (DVs, partitioned by p), "plain", "de_off" (no data evolution),
    "rt_off" (data evolution without row tracking: only reachable by editing the schema
    file, since both engines refuse to create it), "dv_off" (no deletion vectors)."""
    if kind in ("part", "plain"):
        dv.our_setup(wh, "t", dv.LAYOUTS[kind])
    elif kind == "de_off":
        dv.our_setup(wh, "t", [], options={}, writes=[(0, 2)])
    elif kind == "dv_off":
        dv.our_setup(wh, "t", [], options=dict(dv.DE), writes=[(0, 2)])
    else:
        dv.our_setup(wh, "t", [], writes=[(0, 2)])
        path = dv.table_dir(wh, "db.t") / "schema" / "schema-0"
        schema = json.loads(path.read_text())
        schema["options"]["row-tracking.enabled"] = "false"
        path.write_text(json.dumps(schema))


def _state(wh):
    return dv.files(wh), dv.latest_id(wh, "db.t")


def _fn(part):
    return part.column("a")


ROW_11 = ("SET values must be source_col(), target_col(), lit(), or literals; callables are only "
          "supported for self-merge")


def _embedded_errors():
    """name -> (table kind, merge_into keyword arguments (source defaults to SRC), exception
    type, exact message). Memo §1.8, in its order."""
    from paimon_rowid import WhenMatched as M
    from paimon_rowid import WhenNotMatched as N
    from paimon_rowid import lit, source_col, target_col
    self_merge = {"source": "db.t", "on": ["_ROW_ID"]}
    return {
        # row 2
        "no_clauses": ("part", {"on": ["id"]}, ValueError,
                       "At least one of when_matched or when_not_matched must be non-empty."),
        # row 3
        "matched_clause_unreachable": (
            "part", {"on": ["id"], "when_matched": [M.update({"a": 1}),
                                                    M.update({"a": 2}, condition="s.a > 0")]},
            ValueError, "Only the last when_matched clause may omit its condition. Clause at "
            "index 0 has no condition, making subsequent clauses unreachable."),
        "not_matched_clause_unreachable": (
            "part", {"on": ["id"], "when_not_matched": [N("*", "s.a > 0"), N("*"), N("*")]},
            ValueError, "Only the last when_not_matched clause may omit its condition. Clause "
            "at index 1 has no condition, making subsequent clauses unreachable."),
        # row 4
        "empty_on": ("part", {"on": [], "when_matched": [M.update({"a": 1})]}, ValueError,
                     "'on' must be non-empty."),
        "empty_on_mapping": ("part", {"on": {}, "when_matched": [M.update({"a": 1})]},
                             ValueError, "'on' must be non-empty."),
        "empty_on_string": ("part", {"on": "", "when_matched": [M.update({"a": 1})]},
                            ValueError, "'on' must be non-empty."),
        # rows 5-7
        "data_evolution_off": ("de_off", {"on": ["id"], "when_matched": [M.update({"a": 1})]},
                               ValueError, "merge_into requires 'data-evolution.enabled' = "
                               "'true' on 'db.t'."),
        "row_tracking_off": ("rt_off", {"on": ["id"], "when_matched": [M.update({"a": 1})]},
                             ValueError, "merge_into requires 'row-tracking.enabled' = 'true' "
                             "on 'db.t'."),
        "delete_without_dvs": ("dv_off", {"on": ["id"], "when_matched": [M.delete()]},
                               ValueError, "merge_into DELETE requires "
                               "'deletion-vectors.enabled' = 'true' on 'db.t'."),
        # rows 8-11
        "spec_not_a_mapping": ("part", {"on": ["id"], "when_matched": [M.update(["a"])]},
                               TypeError, "SET spec must be '*' or a mapping, got list"),
        "spec_a_string": ("part", {"on": ["id"], "when_matched": [M.update("a")]}, TypeError,
                          "SET spec must be '*' or a mapping, got str"),
        "spec_empty": ("part", {"on": ["id"], "when_matched": [M.update({})]}, ValueError,
                       "SET spec must not be empty"),
        "unknown_set_column": ("part", {"on": ["id"], "when_matched": [M.update({"zz": 1})]},
                               ValueError, "SET spec references unknown target column 'zz'"),
        "unknown_target_ref": ("part", {"on": ["id"], "when_matched": [M.update({"a": "t.zz"})]},
                               ValueError, "SET spec references unknown target column 'zz'"),
        "unknown_target_col": ("part", {"on": ["id"],
                                        "when_matched": [M.update({"a": target_col("zz")})]},
                               ValueError, "SET spec references unknown target column 'zz'"),
        # every key is checked before any value
        "keys_before_values": ("part", {"on": ["id"], "when_matched": [
            M.update({"a": target_col("qq"), "zz": 1})]}, ValueError,
            "SET spec references unknown target column 'zz'"),
        "keys_before_callables": ("part", {"on": ["id"], "when_matched": [
            M.update({"a": _fn, "zz": 1})]}, ValueError,
            "SET spec references unknown target column 'zz'"),
        "callable_outside_self_merge": ("part", {"on": ["id"],
                                                 "when_matched": [M.update({"a": _fn})]},
                                        TypeError, ROW_11),
        "callable_self_merge_other_key": ("part", {"source": "db.t", "on": {"_ROW_ID": "id"},
                                                   "when_matched": [M.update({"a": _fn})]},
                                          TypeError, ROW_11),
        # row 12
        "partition_column": ("part", {"on": ["id"], "when_matched": [
            M.update({"a": 1}, condition="s.a > 1"), M.update({"p": source_col("p")})]},
            ValueError, "merge_into does not support updating partition columns ['p']; "
            "cross-partition row movement is not implemented."),
        # row 14
        "insert_condition_on_target": ("part", {"on": ["id"], "when_not_matched": [
            N("*", condition="t.b = 'x' AND t.a > s.a")]}, ValueError,
            "WhenNotMatched condition must not reference target columns (t.*), but found: "
            "['a', 'b']"),
        # row 15
        "insert_target_col": ("part", {"on": ["id"], "when_not_matched": [
            N({"a": target_col("a")})]}, ValueError,
            "INSERT spec must not reference target columns (t.*), but found: 't.a'"),
        "insert_target_string": ("part", {"on": ["id"], "when_not_matched": [N({"a": "t.b"})]},
                                 ValueError, "INSERT spec must not reference target columns "
                                 "(t.*), but found: 't.b'"),
        "insert_callable_in_self_merge": ("part", {**self_merge, "when_not_matched": [
            N({"a": _fn})]}, TypeError, ROW_11),
        "insert_literal_is_fine_then_unknown": ("part", {"on": ["id"], "when_not_matched": [
            N({"a": lit("t.a"), "zz": 1})]}, ValueError,
            "SET spec references unknown target column 'zz'"),
        # row 16
        "self_merge_not_matched": ("part", {**self_merge, "when_matched": [M.update({"a": 1})],
                                            "when_not_matched": [N("*")]}, ValueError,
                                   "Self-merge (source == target with ON _ROW_ID) does not "
                                   "support WHEN NOT MATCHED clauses."),
        # row 17
        "read_columns_without_callable": ("part", {**self_merge, "read_columns": ["a"],
                                                   "when_matched": [M.update({"a": 1})]},
                                          ValueError, "read_columns requires a callable SET "
                                          "value."),
        "callable_without_read_columns": ("part", {**self_merge,
                                                   "when_matched": [M.update({"a": _fn})]},
                                          ValueError, "Callable SET values require "
                                          "read_columns."),
        "unknown_read_column": ("part", {**self_merge, "read_columns": ["a", "zz"],
                                         "when_matched": [M.update({"a": _fn})]},
                                ValueError, "Read column 'zz' is not in target 'db.t'."),
        # row 18 (ours: no Ray Dataset; other Arrow streams are fine)
        "source_type": ("part", {"source": [1, 2], "on": ["id"],
                                 "when_matched": [M.update({"a": 1})]}, TypeError,
                        "source must be a Paimon table identifier string, a pyarrow.Table, a "
                        "pandas.DataFrame, or an Arrow stream (pyarrow.RecordBatchReader, "
                        "polars, ...); got list."),
        # row 20
        "source_lacks_on_column": ("part", {"source": pa.table({"a": [1]}), "on": ["id"],
                                            "when_matched": [M.update({"a": 1})]},
                                   ValueError, "'on' columns ['id'] missing from source schema "
                                   "['a']."),
        "source_lacks_renamed_on_column": ("part", {"on": {"id": "sid"},
                                                    "when_matched": [M.update({"a": 1})]},
                                           ValueError, "'on' columns ['sid'] missing from "
                                           "source schema ['id', 'a', 'b', 'p']."),
        # row 21
        "source_lacks_set_column": ("part", {"source": pa.table({"id": [1]}), "on": ["id"],
                                             "when_matched": [M.update({"a": "s.a"})]},
                                    ValueError, "source is missing columns ['a'] referenced by "
                                    "SET spec"),
        "source_lacks_star_columns": ("part", {"source": SRC.select(["id", "a"]), "on": ["id"],
                                               "when_not_matched": [N("*")]},
                                      ValueError, "source is missing columns ['b', 'p'] "
                                      "referenced by SET spec"),
        # row 22
        "condition_unknown_source_column": ("part", {"on": ["id"], "when_matched": [
            M.update({"a": 1}, condition="s.zz > 0")]}, ValueError,
            "condition references unknown source column 'zz'"),
        "condition_unknown_target_column": ("part", {"on": ["id"], "when_matched": [
            M.update({"a": 1}, condition="t.zz > 0 AND s.a = 'it''s t.qq'")]}, ValueError,
            "condition references unknown target column 'zz'"),
        "condition_row_id_outside_self_merge": ("part", {"on": ["id"], "when_matched": [
            M.delete(condition="t._ROW_ID > 0")]}, ValueError,
            "condition references unknown target column '_ROW_ID'"),
        # ours: target keys are checked (pypaimon fails inside its join with a KeyError)
        "unknown_target_key": ("part", {"on": {"zz": "id"}, "when_matched": [M.update({"a": 1})]},
                               ValueError, "'on' columns ['zz'] missing from target 'db.t' "
                               "fields ['id', 'a', 'b', 'p']."),
    }


@pytest.mark.parametrize("case", list(_embedded_errors()))
def test_embedded_validation(warehouse, case):
    import paimon_rowid as pr
    kind, kwargs, error, message = _embedded_errors()[case]
    _make_table(warehouse, kind)
    kwargs = dict(kwargs)
    source = kwargs.pop("source", SRC)
    before = _state(warehouse)
    with pytest.raises(Exception) as raised:
        pr.merge_into("db.t", source, {"warehouse": warehouse}, **kwargs)
    assert (type(raised.value), str(raised.value)) == (error, message)
    assert _state(warehouse) == before


def test_embedded_table_not_found(warehouse):
    import paimon_rowid as pr
    _make_table(warehouse, "plain")
    with pytest.raises(Exception) as raised:
        pr.merge_into("db.nope", SRC, {"warehouse": warehouse}, on=["id"],
                      when_matched=[pr.WhenMatched.update({"a": 1})])
    assert type(raised.value).__name__ == "TableNotExistException"


# Local (BatchTableUpdate.merge_into) validations, in JSON form, checked against pypaimon's
# local call: (table kind, source (None: the table itself), on, matched, not_matched, type,
# message).
LOCAL_ERRORS = {
    "no_clauses": ("part", SRC, ["id"], [], [], "ValueError",
                   "At least one of when_matched or when_not_matched must be non-empty."),
    "matched_clause_unreachable": (
        "part", SRC, ["id"], [U({"a": 1}), U({"a": 2}, "s.a > 0")], [], "ValueError",
        "Only the last when_matched clause may omit its condition. Clause at index 0 has no "
        "condition, making subsequent clauses unreachable."),
    "empty_on": ("part", SRC, [], [U({"a": 1})], [], "ValueError", "'on' must be non-empty."),
    "data_evolution_off": ("de_off", SRC, ["id"], [U({"a": 1})], [], "ValueError",
                           "merge_into requires 'data-evolution.enabled' = 'true' on target "
                           "table."),
    "row_tracking_off": ("rt_off", SRC, ["id"], [U({"a": 1})], [], "ValueError",
                         "merge_into requires 'row-tracking.enabled' = 'true' on target table."),
    "delete_without_dvs": ("dv_off", SRC, ["id"], [D()], [], "ValueError",
                           "merge_into DELETE requires 'deletion-vectors.enabled' = 'true' on "
                           "target table."),
    "spec_not_a_mapping": ("part", SRC, ["id"], [U(["a"])], [], "TypeError",
                           "SET spec must be '*' or a mapping, got list"),
    "spec_empty": ("part", SRC, ["id"], [U({})], [], "ValueError", "SET spec must not be empty"),
    "unknown_target_ref": ("part", SRC, ["id"], [U({"a": "t.zz"})], [], "ValueError",
                           "SET spec references unknown target column 'zz'"),
    "keys_before_values": ("part", SRC, ["id"], [U({"a": {"t": "qq"}, "zz": 1})], [],
                           "ValueError", "SET spec references unknown target column 'zz'"),
    "partition_column": ("part", SRC, ["id"], [U({"p": {"s": "p"}})], [], "ValueError",
                         "merge_into does not support updating partition columns ['p']; "
                         "cross-partition row movement is not implemented."),
    "insert_condition_on_target": ("part", SRC, ["id"], [], [INS("*", "t.a > 0")], "ValueError",
                                   "WhenNotMatched condition must not reference target columns "
                                   "(t.*), but found: ['a']"),
    "insert_target_col": ("part", SRC, ["id"], [], [INS({"a": {"t": "a"}})], "ValueError",
                          "INSERT spec must not reference target columns (t.*), but found: "
                          "'t.a'"),
    "self_merge_not_matched": ("part", None, ["_ROW_ID"], [U({"a": 1})], [INS()], "ValueError",
                               "Self-merge (source == target with ON _ROW_ID) does not support "
                               "WHEN NOT MATCHED clauses."),
    "str_source": ("part", "db.t", ["_ROW_ID"], [U({"a": 1})], [], "TypeError",
                   "source must be a pyarrow.Table, a pandas.DataFrame, or a Paimon table; got "
                   "str."),
    "source_lacks_on_column": ("part", pa.table({"a": [1]}), ["id"], [U({"a": 1})], [],
                               "ValueError", "'on' columns ['id'] missing from source schema "
                               "['a']."),
    "source_lacks_set_column": ("part", pa.table({"id": [1]}), ["id"], [U({"a": "s.a"})], [],
                                "ValueError", "source is missing columns ['a'] referenced by "
                                "SET spec"),
    "condition_unknown_source_column": ("part", SRC, ["id"], [U({"a": 1}, "s.zz > 0")], [],
                                        "ValueError", "condition references unknown source "
                                        "column 'zz'"),
    "condition_unknown_target_column": ("part", SRC, ["id"], [D("t.zz > 0")], [], "ValueError",
                                        "condition references unknown target column 'zz'"),
    # pypaimon's "*" names the partition key, so it always fails here (memo §5.3 4; ours
    # leaves the key alone: test_update_star_leaves_partition_keys_alone)
    "update_star_partitioned_pypaimon": ("part", SRC, ["id"], [U()], [], "ValueError",
                                         "merge_into does not support updating partition "
                                         "columns ['p']; cross-partition row movement is not "
                                         "implemented."),
}
OURS_DIFFER = {"update_star_partitioned_pypaimon"}


@pytest.fixture(scope="module")
def local_errors(tmp_path_factory, oracle):
    """pypaimon's local call for every LOCAL_ERRORS case (one process), each on a table of its
    own; ours on another copy."""
    root = tmp_path_factory.mktemp("merge-local-errors")
    cmds, runs = [], {}
    for case, (kind, source, on, matched, not_matched, _, _) in LOCAL_ERRORS.items():
        theirs, ours = str(root / case / "theirs"), str(root / case / "ours")
        _make_table(theirs, kind)
        shutil.copytree(theirs, ours)
        cmds.append(oracle.merge_into_cmd(theirs, "db.t", source, on, matched, not_matched))
        runs[case] = {"theirs_wh": theirs, "wh": ours, "theirs_before": _state(theirs)}
    for case, reply in zip(LOCAL_ERRORS, oracle.run_batch(cmds)):
        runs[case]["theirs"] = reply
    return runs


@pytest.mark.parametrize("case", list(LOCAL_ERRORS))
def test_local_validation(local_errors, case):
    kind, source, on, matched, not_matched, error, message = LOCAL_ERRORS[case]
    run = local_errors[case]
    theirs = run["theirs"]
    assert isinstance(theirs, OracleError), f"pypaimon did not raise: {theirs}"
    assert (theirs.error_type, theirs.message) == (error, message)
    assert _state(run["theirs_wh"]) == run["theirs_before"]  # pypaimon left nothing either
    if case in OURS_DIFFER:
        return
    table = dv.our_table(run["wh"], "db.t")
    matched, not_matched = _decode(matched, not_matched)
    before = _state(run["wh"])
    with pytest.raises(Exception) as raised:
        table.new_batch_write_builder().new_update().merge_into(
            table if source is None else source, on=on, when_matched=matched,
            when_not_matched=not_matched)
    assert (type(raised.value).__name__, str(raised.value)) == (error, message)
    assert _state(run["wh"]) == before


def test_local_refuses_callables_even_in_self_merge(warehouse):
    import paimon_rowid as pr
    _make_table(warehouse, "plain")
    table = dv.our_table(warehouse, "db.t")
    before = _state(warehouse)
    with pytest.raises(TypeError) as raised:
        table.new_batch_write_builder().new_update().merge_into(
            table, on=["_ROW_ID"], when_matched=[pr.WhenMatched.update({"a": _fn})])
    assert str(raised.value) == ROW_11
    assert _state(warehouse) == before


def test_local_unknown_target_key(warehouse):
    import paimon_rowid as pr
    _make_table(warehouse, "part")
    table = dv.our_table(warehouse, "db.t")
    before = _state(warehouse)
    with pytest.raises(ValueError) as raised:
        table.new_batch_write_builder().new_update().merge_into(
            SRC, on={"zz": "id"}, when_matched=[pr.WhenMatched.update({"a": 1})])
    assert str(raised.value) == ("'on' columns ['zz'] missing from target 'db.t' fields "
                                 "['id', 'a', 'b', 'p'].")
    assert _state(warehouse) == before


# -- ours' deliberate differences --------------------------------------------------------------

def _merge(engine, wh, source, **kwargs):
    """Ours' merge, embedded (returns the dict) or local (commits; returns None)."""
    import paimon_rowid as pr
    if engine == "embedded":
        return pr.merge_into("db.t", source, {"warehouse": wh}, **kwargs)
    table = dv.our_table(wh, "db.t")
    builder = table.new_batch_write_builder()
    builder.new_commit().commit(builder.new_update().merge_into(
        table if isinstance(source, str) and source == "db.t" else source, **kwargs))
    return None


ENGINES = ["embedded", "local"]


@pytest.mark.parametrize("engine", ENGINES)
def test_bare_string_on_is_one_key(tmp_path, engine):
    import paimon_rowid as pr
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    _make_table(a, "part")
    shutil.copytree(a, b)
    src = _src([1, 2, 70], [-1, -2, -70], ["o1", "o2", "o70"], ["y", "x", "x"])
    clauses = {"when_matched": [pr.WhenMatched.update({"a": "s.a"})],
               "when_not_matched": [pr.WhenNotMatched("*")]}
    _merge(engine, a, src, on="id", **clauses)
    _merge(engine, b, src, on=["id"], **clauses)
    got = dv.our_read(a, "db.t", ALL_ROW_ID)
    dv.same(got, dv.our_read(b, "db.t", ALL_ROW_ID), "on='id' vs on=['id']")
    assert {r["id"]: r["a"] for r in got.to_pylist()}[70] == -70


@pytest.mark.parametrize("engine", ENGINES)
def test_update_star_leaves_partition_keys_alone(warehouse, engine):
    import paimon_rowid as pr
    _make_table(warehouse, "part")
    before = _rows(warehouse)
    src = _src([1, 2, 71], [-1, -2, -71], ["s1", "s2", "s71"], ["moved", "moved", "new"])
    result = _merge(engine, warehouse, src, on=["id"],
                    when_matched=[pr.WhenMatched.update("*")],
                    when_not_matched=[pr.WhenNotMatched("*")])
    if engine == "embedded":
        assert result == {"num_matched": 2, "num_inserted": 1, "num_unchanged": 0}
    got = {r["id"]: r for r in _rows(warehouse).values()}
    olds = {r["id"]: r for r in before.values()}
    for i in (1, 2):
        assert got[i] == {**olds[i], "a": -i, "b": f"s{i}"}  # p (and _ROW_ID) kept
    assert got[71]["p"] == "new" and len(got) == dv.NUM_ROWS + 1
    assert {i: r for i, r in got.items() if i not in (1, 2, 71)} == {
        i: r for i, r in olds.items() if i not in (1, 2)}


@pytest.mark.parametrize("engine", ENGINES)
def test_null_into_not_null_on_insert_leaves_nothing(warehouse, engine):
    import paimon_rowid as pr
    _make_table(warehouse, "part")
    before = _state(warehouse)
    # the update of id 1 is written before the insert of the NULL id fails
    src = _src([1, None], [-1, -2], ["n1", "n2"], ["y", "x"])
    with pytest.raises(ValueError) as raised:
        _merge(engine, warehouse, src, on=["id"],
               when_matched=[pr.WhenMatched.update({"a": "s.a"})],
               when_not_matched=[pr.WhenNotMatched("*")])
    assert "id" in str(raised.value)
    assert _state(warehouse) == before


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("where", ["matched", "not_matched"])
def test_condition_error_names_it_and_leaves_nothing(warehouse, engine, where):
    import paimon_rowid as pr
    _make_table(warehouse, "part")
    before = _state(warehouse)
    bad = "no_such_function(s.a) > 0"
    src = _src([1, 2, 72], [-1, -2, -72], ["c1", "c2", "c72"], ["y", "x", "x"])
    matched = [pr.WhenMatched.update({"a": "s.a"}, condition=bad if where == "matched" else None)]
    not_matched = [pr.WhenNotMatched("*", condition=bad if where == "not_matched" else None)]
    with pytest.raises(ValueError) as raised:
        _merge(engine, warehouse, src, on=["id"], when_matched=matched,
               when_not_matched=not_matched)
    assert str(raised.value).startswith(f"merge_into condition {bad!r} failed: ")
    assert _state(warehouse) == before


@pytest.mark.parametrize("engine", ENGINES)
def test_missing_datafusion_is_an_import_error(warehouse, engine, monkeypatch):
    import paimon_rowid as pr
    import paimon_rowid._merge_condition as mc
    monkeypatch.setattr(mc, "_datafusion", None)
    _make_table(warehouse, "part")
    before = _state(warehouse)
    with pytest.raises(ImportError) as raised:
        _merge(engine, warehouse, SRC, on=["id"],
               when_not_matched=[pr.WhenNotMatched("*", condition="s.a > 0")])
    assert str(raised.value).startswith("merge_into condition expressions require DataFusion.")
    assert _state(warehouse) == before
    # merges without conditions do not need it
    _merge(engine, warehouse, SRC, on=["id"], when_not_matched=[pr.WhenNotMatched("*")])
    assert dv.latest_id(warehouse, "db.t") == 4


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("condition, gives", [("s.a", "int32"), ("'true'", "string"),
                                              ("s.a + 1", "int64")])
def test_non_boolean_condition_is_an_error(warehouse, engine, condition, gives):
    """pypaimon filters with WHERE, which DataFusion refuses for a non-boolean predicate."""
    import paimon_rowid as pr
    _make_table(warehouse, "part")
    before = _state(warehouse)
    with pytest.raises(ValueError) as raised:
        _merge(engine, warehouse, SRC, on=["id"],
               when_matched=[pr.WhenMatched.update({"a": "s.a"}, condition=condition)])
    assert str(raised.value) == (f"merge_into condition {condition!r} is not boolean: it gives "
                                 f"{gives}")
    assert _state(warehouse) == before


def _write_errors():
    from paimon_rowid import WhenMatched as M
    from paimon_rowid import WhenNotMatched as N
    from paimon_rowid import lit
    # each merge also updates id 1 (written first) before it fails
    update = M.update({"b": "s.b"}, condition="s.id = 1")
    return {
        "null_into_not_null_update": (_src([1, 2]), [update, M.update({"id": lit(None)})], []),
        "null_source_into_not_null_update": (_src([1, 2]), [update, M.update({"id": "s.a"})],
                                             []),
        "literal_cast_update": (_src([1, 2]), [update, M.update({"a": lit("abc")})], []),
        "literal_cast_insert": (_src([1, 70]), [update], [N({"a": "abc"})]),
        "source_cast_insert": (pa.table({"id": pa.array([1, 70], pa.int64()), "a": ["1", "zz"],
                                         "b": ["w", "v"]}), [update], [N({"a": "s.a"})]),
    }


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", list(_write_errors()))
def test_value_errors_leave_nothing(warehouse, engine, case):
    source, matched, not_matched = _write_errors()[case]
    _make_table(warehouse, "part")
    before = _state(warehouse)
    with pytest.raises((ValueError, pa.ArrowInvalid)):
        _merge(engine, warehouse, source, on=["id"], when_matched=matched,
               when_not_matched=not_matched)
    assert _state(warehouse) == before


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kind", ["pandas", "reader"])
def test_other_source_types(tmp_path, engine, kind):
    import paimon_rowid as pr
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    _make_table(a, "part")
    shutil.copytree(a, b)
    src = _src([1, 77], [-1, -77], ["t1", "t77"], ["y", "x"])
    other = src.to_pandas() if kind == "pandas" else src.to_reader()
    clauses = {"on": ["id"], "when_matched": [pr.WhenMatched.update({"a": "s.a"})],
               "when_not_matched": [pr.WhenNotMatched("*")]}
    if engine == "local" and kind == "reader":  # pypaimon's local call: Table, DataFrame, table
        before = _state(a)
        with pytest.raises(TypeError) as raised:
            _merge(engine, a, other, **clauses)
        assert str(raised.value) == ("source must be a pyarrow.Table, a pandas.DataFrame, or a "
                                     "Paimon table; got RecordBatchReader.")
        assert _state(a) == before
        return
    _merge(engine, a, other, **clauses)
    _merge(engine, b, src, **clauses)
    dv.same(dv.our_read(a, "db.t", ALL_ROW_ID), dv.our_read(b, "db.t", ALL_ROW_ID), kind)


@pytest.mark.parametrize("case", ["not_an_array", "wrong_length"])
def test_self_merge_callable_errors_leave_nothing(warehouse, case):
    import paimon_rowid as pr
    _make_table(warehouse, "plain")
    before = _state(warehouse)

    def bad(part):
        return [1] * part.num_rows if case == "not_an_array" else pa.array([1, 2, 3])

    with pytest.raises(ValueError) as raised:
        pr.merge_into("db.t", "db.t", {"warehouse": warehouse}, on=["_ROW_ID"],
                      when_matched=[pr.WhenMatched.update({"a": bad, "b": "x"},
                                                          condition="t.id < 2")],
                      read_columns=["a"])
    assert str(raised.value) == (
        "Callable SET values must return a pyarrow.Array or pyarrow.ChunkedArray."
        if case == "not_an_array" else
        "Callable SET result length must match matched row count: 3 != 2.")
    assert _state(warehouse) == before


# Duplicates, Ray's rule (the embedded call): only source rows that a clause acts on count.

def test_embedded_duplicate_filtered_by_condition_is_fine(warehouse):
    import paimon_rowid as pr
    _make_table(warehouse, "part")
    result = pr.merge_into("db.t", _src([1, 1], [5, 500]), {"warehouse": warehouse}, on=["id"],
                           when_matched=[pr.WhenMatched.update({"a": "s.a"},
                                                               condition="s.a > t.a")])
    assert result == {"num_matched": 1, "num_inserted": 0, "num_unchanged": 0}
    assert {r["id"]: r["a"] for r in _rows(warehouse).values()}[1] == 500


@pytest.mark.parametrize("clauses", ["two_updates", "update_and_delete", "sole_delete"])
def test_embedded_duplicates_acted_on_raise_and_leave_nothing(warehouse, clauses):
    import paimon_rowid as pr
    M = pr.WhenMatched
    _make_table(warehouse, "part")
    before = _state(warehouse)
    matched = {"two_updates": [M.update({"a": "s.a"})],
               "update_and_delete": [M.delete(condition="s.a < 10"), M.update({"a": "s.a"})],
               "sole_delete": [M.delete()]}[clauses]
    # ids 3 (updated, written before the check) and 1 (twice)
    with pytest.raises(ValueError) as raised:
        pr.merge_into("db.t", _src([3, 1, 1], [300, 5, 500]), {"warehouse": warehouse},
                      on=["id"], when_matched=matched)
    assert str(raised.value) == DEDUPLICATE
    assert _state(warehouse) == before


# -- (d) return values, snapshots --------------------------------------------------------------

def test_return_counts_and_one_snapshot(warehouse):
    import paimon_rowid as pr
    _make_table(warehouse, "part")
    src = _src([1, 2, 3, 60, 61, 62, 4], [100, 5, 500, 1, -1, 2, 40],
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
    got = {r["id"]: r["a"] for r in _rows(warehouse).values()}
    assert (got[1], got[3], got[4], got[60], got[62], 2 in got, 61 in got) == (
        100, 500, 40, 1, 2, False, False)


def test_self_merge_counts_every_live_row(warehouse):
    import paimon_rowid as pr
    _make_table(warehouse, "part")
    dv.our_delete(warehouse, "db.t", spec=["is_in", "id", [[0, 7]]], by_predicate=True)
    result = pr.merge_into("db.t", "db.t", {"warehouse": warehouse}, on=["_ROW_ID"],
                           when_matched=[pr.WhenMatched.update({"b": pr.lit("all")})])
    assert result == {"num_matched": dv.NUM_ROWS - 2, "num_inserted": 0, "num_unchanged": 0}
    assert {r["b"] for r in _rows(warehouse).values()} == {"all"}
    assert _snap(warehouse) == (5, "APPEND")


def _nothing_cases():
    from paimon_rowid import WhenMatched as M
    from paimon_rowid import WhenNotMatched as N
    every = {"when_matched": [M.delete(condition="s.a < 0"), M.update({"a": "s.a"})],
             "when_not_matched": [N("*")]}
    return {
        "empty_source": ("part", _src([]), every),
        "empty_source_and_target": ("empty", _src([]), every),
        "delete_matching_nothing": ("part", _src([90, 91]), {"when_matched": [M.delete()]}),
        "identity_only": ("part", _src([1, 2]), {"when_matched": [M.update({"a": "t.a"})]}),
        "no_condition_true": ("part", _src([1, 2, 92], [1, 2, 3]), {
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
        _make_table(warehouse, kind)
    if source == "db.s":
        dv.our_setup(warehouse, "s", [], writes=[])
    kwargs = {"on": ["id"], **kwargs}
    before = _state(warehouse)
    result = pr.merge_into("db.t", source, {"warehouse": warehouse}, **kwargs)
    assert result == {"num_matched": 0, "num_inserted": 0, "num_unchanged": 0}
    assert _state(warehouse) == before


@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
def test_empty_target_inserts_get_ids_from_zero(warehouse, layout):
    import paimon_rowid as pr
    dv.our_setup(warehouse, "t", dv.LAYOUTS[layout], writes=[])
    assert dv.latest_id(warehouse, "db.t") is None
    src = _src([5, 6, 7, 8], [1, 2, 3, 4], ["e5", "e6", "e7", "e8"], ["x", "y", "x", "y"])
    result = pr.merge_into("db.t", src, {"warehouse": warehouse}, on=["id"],
                           when_matched=[pr.WhenMatched.update({"a": "s.a"})],
                           when_not_matched=[pr.WhenNotMatched("*", condition="s.a < 4")])
    assert result == {"num_matched": 0, "num_inserted": 3, "num_unchanged": 0}
    assert _snap(warehouse) == (1, "APPEND")
    got = dv.our_read(warehouse, "db.t", ALL_ROW_ID)
    assert sorted(got.column("_ROW_ID").to_pylist()) == [0, 1, 2]
    assert sorted(got.column("id").to_pylist()) == [5, 6, 7]


def test_str_source_reads_the_other_table(warehouse):
    import paimon_rowid as pr
    _make_table(warehouse, "part")
    other = dv.our_setup(warehouse, "s", [], writes=[(1, 2), (80, 1)])
    assert other is not None
    result = pr.merge_into("db.t", "db.s", {"warehouse": warehouse}, on=["id"],
                           when_matched=[pr.WhenMatched.update({"b": pr.source_col("p")})],
                           when_not_matched=[pr.WhenNotMatched({"a": "s.a"})])
    assert result == {"num_matched": 2, "num_inserted": 1, "num_unchanged": 0}
    got = {r["id"]: r for r in _rows(warehouse).values()}
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


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", list(_kind_cases()))
def test_commit_kind(warehouse, case, engine):
    matched, not_matched, kind = _kind_cases()[case]
    _make_table(warehouse, "part")
    src = _src([1, 2, 73], [-1, 2, 3], ["k1", "k2", "k73"], ["y", "x", "x"])
    _merge(engine, warehouse, src, on=["id"], when_matched=matched,
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
    module = sys.modules["paimon_rowid.merge_into"]
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
