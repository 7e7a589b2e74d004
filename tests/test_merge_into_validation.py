"""``merge_into``'s validations and our deliberate differences from pypaimon 2.1.0 (research
memo pypaimon-merge-into-and-joins.md §1.8, §2.1, §5); results are in test_merge_into.py.

Every validation (memo §1.8 rows 2-12, 14-17, 20-22; §2.1's local wording and source types):
exception type, exact message, nothing committed and no file left. The local messages are also
compared with pypaimon's local call (one pypaimon process). Our deliberate differences (§5): a
bare-string ``on`` is one key, target keys are checked, ``update("*")`` skips partition keys,
failed merges (NOT NULL violations, condition errors, callable errors, duplicates) leave no
files; DataFusion missing is an ImportError.
"""
from __future__ import annotations

import shutil

import pyarrow as pa
import pytest

import dv_tables as dv
import merge_cases as mc
from oracle import OracleError
from oracle import merge_spec as ms

pytestmark = pytest.mark.native

U, D, INS = ms.update, ms.delete, ms.insert


# -- validations ---------------------------------------------------------------------------


def _fn(part):
    return part.column("a")


ROW_11 = ("SET values must be source_col(), target_col(), lit(), or literals; callables are only "
          "supported for self-merge")


def _embedded_errors():
    """name -> (table kind, merge_into keyword arguments (source defaults to mc.SRC), exception
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
        "source_lacks_star_columns": ("part", {"source": mc.SRC.select(["id", "a"]), "on": ["id"],
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
    mc.make_table(warehouse, kind)
    kwargs = dict(kwargs)
    source = kwargs.pop("source", mc.SRC)
    before = mc.state(warehouse)
    with pytest.raises(Exception) as raised:
        pr.merge_into("db.t", source, {"warehouse": warehouse}, **kwargs)
    assert (type(raised.value), str(raised.value)) == (error, message)
    assert mc.state(warehouse) == before


def test_embedded_table_not_found(warehouse):
    import paimon_rowid as pr
    mc.make_table(warehouse, "plain")
    with pytest.raises(Exception) as raised:
        pr.merge_into("db.nope", mc.SRC, {"warehouse": warehouse}, on=["id"],
                      when_matched=[pr.WhenMatched.update({"a": 1})])
    assert type(raised.value).__name__ == "TableNotExistException"


# Local (BatchTableUpdate.merge_into) validations, in JSON form, checked against pypaimon's
# local call: (table kind, source (None: the table itself), on, matched, not_matched, type,
# message).
LOCAL_ERRORS = {
    "no_clauses": ("part", mc.SRC, ["id"], [], [], "ValueError",
                   "At least one of when_matched or when_not_matched must be non-empty."),
    "matched_clause_unreachable": (
        "part", mc.SRC, ["id"], [U({"a": 1}), U({"a": 2}, "s.a > 0")], [], "ValueError",
        "Only the last when_matched clause may omit its condition. Clause at index 0 has no "
        "condition, making subsequent clauses unreachable."),
    "empty_on": ("part", mc.SRC, [], [U({"a": 1})], [], "ValueError", "'on' must be non-empty."),
    "data_evolution_off": ("de_off", mc.SRC, ["id"], [U({"a": 1})], [], "ValueError",
                           "merge_into requires 'data-evolution.enabled' = 'true' on target "
                           "table."),
    "row_tracking_off": ("rt_off", mc.SRC, ["id"], [U({"a": 1})], [], "ValueError",
                         "merge_into requires 'row-tracking.enabled' = 'true' on target table."),
    "delete_without_dvs": ("dv_off", mc.SRC, ["id"], [D()], [], "ValueError",
                           "merge_into DELETE requires 'deletion-vectors.enabled' = 'true' on "
                           "target table."),
    "spec_not_a_mapping": ("part", mc.SRC, ["id"], [U(["a"])], [], "TypeError",
                           "SET spec must be '*' or a mapping, got list"),
    "spec_empty": ("part", mc.SRC, ["id"], [U({})], [], "ValueError", "SET spec must not be empty"),
    "unknown_target_ref": ("part", mc.SRC, ["id"], [U({"a": "t.zz"})], [], "ValueError",
                           "SET spec references unknown target column 'zz'"),
    "keys_before_values": ("part", mc.SRC, ["id"], [U({"a": {"t": "qq"}, "zz": 1})], [],
                           "ValueError", "SET spec references unknown target column 'zz'"),
    "partition_column": ("part", mc.SRC, ["id"], [U({"p": {"s": "p"}})], [], "ValueError",
                         "merge_into does not support updating partition columns ['p']; "
                         "cross-partition row movement is not implemented."),
    "insert_condition_on_target": ("part", mc.SRC, ["id"], [], [INS("*", "t.a > 0")], "ValueError",
                                   "WhenNotMatched condition must not reference target columns "
                                   "(t.*), but found: ['a']"),
    "insert_target_col": ("part", mc.SRC, ["id"], [], [INS({"a": {"t": "a"}})], "ValueError",
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
    "condition_unknown_source_column": ("part", mc.SRC, ["id"], [U({"a": 1}, "s.zz > 0")], [],
                                        "ValueError", "condition references unknown source "
                                        "column 'zz'"),
    "condition_unknown_target_column": ("part", mc.SRC, ["id"], [D("t.zz > 0")], [], "ValueError",
                                        "condition references unknown target column 'zz'"),
    # pypaimon's "*" names the partition key, so it always fails here (memo §5.3 4; ours
    # leaves the key alone: test_update_star_leaves_partition_keys_alone)
    "update_star_partitioned_pypaimon": ("part", mc.SRC, ["id"], [U()], [], "ValueError",
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
        mc.make_table(theirs, kind)
        shutil.copytree(theirs, ours)
        cmds.append(oracle.merge_into_cmd(theirs, "db.t", source, on, matched, not_matched))
        runs[case] = {"theirs_wh": theirs, "wh": ours, "theirs_before": mc.state(theirs)}
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
    assert mc.state(run["theirs_wh"]) == run["theirs_before"]  # pypaimon left nothing either
    if case in OURS_DIFFER:
        return
    table = dv.our_table(run["wh"], "db.t")
    matched, not_matched = mc.decode(matched, not_matched)
    before = mc.state(run["wh"])
    with pytest.raises(Exception) as raised:
        table.new_batch_write_builder().new_update().merge_into(
            table if source is None else source, on=on, when_matched=matched,
            when_not_matched=not_matched)
    assert (type(raised.value).__name__, str(raised.value)) == (error, message)
    assert mc.state(run["wh"]) == before


def test_local_refuses_callables_even_in_self_merge(warehouse):
    import paimon_rowid as pr
    mc.make_table(warehouse, "plain")
    table = dv.our_table(warehouse, "db.t")
    before = mc.state(warehouse)
    with pytest.raises(TypeError) as raised:
        table.new_batch_write_builder().new_update().merge_into(
            table, on=["_ROW_ID"], when_matched=[pr.WhenMatched.update({"a": _fn})])
    assert str(raised.value) == ROW_11
    assert mc.state(warehouse) == before


def test_local_unknown_target_key(warehouse):
    import paimon_rowid as pr
    mc.make_table(warehouse, "part")
    table = dv.our_table(warehouse, "db.t")
    before = mc.state(warehouse)
    with pytest.raises(ValueError) as raised:
        table.new_batch_write_builder().new_update().merge_into(
            mc.SRC, on={"zz": "id"}, when_matched=[pr.WhenMatched.update({"a": 1})])
    assert str(raised.value) == ("'on' columns ['zz'] missing from target 'db.t' fields "
                                 "['id', 'a', 'b', 'p'].")
    assert mc.state(warehouse) == before


# -- ours' deliberate differences --------------------------------------------------------------


@pytest.mark.parametrize("engine", mc.ENGINES)
def test_bare_string_on_is_one_key(tmp_path, engine):
    import paimon_rowid as pr
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    mc.make_table(a, "part")
    shutil.copytree(a, b)
    src = mc.src([1, 2, 70], [-1, -2, -70], ["o1", "o2", "o70"], ["y", "x", "x"])
    clauses = {"when_matched": [pr.WhenMatched.update({"a": "s.a"})],
               "when_not_matched": [pr.WhenNotMatched("*")]}
    mc.merge(engine, a, src, on="id", **clauses)
    mc.merge(engine, b, src, on=["id"], **clauses)
    got = dv.our_read(a, "db.t", mc.ALL_ROW_ID)
    dv.same(got, dv.our_read(b, "db.t", mc.ALL_ROW_ID), "on='id' vs on=['id']")
    assert {r["id"]: r["a"] for r in got.to_pylist()}[70] == -70


@pytest.mark.parametrize("engine", mc.ENGINES)
def test_update_star_leaves_partition_keys_alone(warehouse, engine):
    import paimon_rowid as pr
    mc.make_table(warehouse, "part")
    before = mc.rows(warehouse)
    src = mc.src([1, 2, 71], [-1, -2, -71], ["s1", "s2", "s71"], ["moved", "moved", "new"])
    result = mc.merge(engine, warehouse, src, on=["id"],
                      when_matched=[pr.WhenMatched.update("*")],
                      when_not_matched=[pr.WhenNotMatched("*")])
    if engine == "embedded":
        assert result == {"num_matched": 2, "num_inserted": 1, "num_unchanged": 0}
    got = {r["id"]: r for r in mc.rows(warehouse).values()}
    olds = {r["id"]: r for r in before.values()}
    for i in (1, 2):
        assert got[i] == {**olds[i], "a": -i, "b": f"s{i}"}  # p (and _ROW_ID) kept
    assert got[71]["p"] == "new" and len(got) == dv.NUM_ROWS + 1
    assert {i: r for i, r in got.items() if i not in (1, 2, 71)} == {
        i: r for i, r in olds.items() if i not in (1, 2)}


@pytest.mark.parametrize("engine", mc.ENGINES)
def test_null_into_not_null_on_insert_leaves_nothing(warehouse, engine):
    import paimon_rowid as pr
    mc.make_table(warehouse, "part")
    before = mc.state(warehouse)
    # the update of id 1 is written before the insert of the NULL id fails
    src = mc.src([1, None], [-1, -2], ["n1", "n2"], ["y", "x"])
    with pytest.raises(ValueError) as raised:
        mc.merge(engine, warehouse, src, on=["id"],
                 when_matched=[pr.WhenMatched.update({"a": "s.a"})],
                 when_not_matched=[pr.WhenNotMatched("*")])
    assert "id" in str(raised.value)
    assert mc.state(warehouse) == before


@pytest.mark.parametrize("engine", mc.ENGINES)
@pytest.mark.parametrize("where", ["matched", "not_matched"])
def test_condition_error_names_it_and_leaves_nothing(warehouse, engine, where):
    import paimon_rowid as pr
    mc.make_table(warehouse, "part")
    before = mc.state(warehouse)
    bad = "no_such_function(s.a) > 0"
    src = mc.src([1, 2, 72], [-1, -2, -72], ["c1", "c2", "c72"], ["y", "x", "x"])
    matched = [pr.WhenMatched.update({"a": "s.a"}, condition=bad if where == "matched" else None)]
    not_matched = [pr.WhenNotMatched("*", condition=bad if where == "not_matched" else None)]
    with pytest.raises(ValueError) as raised:
        mc.merge(engine, warehouse, src, on=["id"], when_matched=matched,
                 when_not_matched=not_matched)
    assert str(raised.value).startswith(f"merge_into condition {bad!r} failed: ")
    assert mc.state(warehouse) == before


@pytest.mark.parametrize("engine", mc.ENGINES)
def test_missing_datafusion_is_an_import_error(warehouse, engine, monkeypatch):
    import paimon_rowid as pr
    import paimon_rowid.table._merge_condition as condition_module
    monkeypatch.setattr(condition_module, "_datafusion", None)
    mc.make_table(warehouse, "part")
    before = mc.state(warehouse)
    with pytest.raises(ImportError) as raised:
        mc.merge(engine, warehouse, mc.SRC, on=["id"],
                 when_not_matched=[pr.WhenNotMatched("*", condition="s.a > 0")])
    assert str(raised.value).startswith("merge_into condition expressions require DataFusion.")
    assert mc.state(warehouse) == before
    # merges without conditions do not need it
    mc.merge(engine, warehouse, mc.SRC, on=["id"], when_not_matched=[pr.WhenNotMatched("*")])
    assert dv.latest_id(warehouse, "db.t") == 4


@pytest.mark.parametrize("engine", mc.ENGINES)
@pytest.mark.parametrize("condition, gives", [("s.a", "int32"), ("'true'", "string"),
                                              ("s.a + 1", "int64")])
def test_non_boolean_condition_is_an_error(warehouse, engine, condition, gives):
    """pypaimon filters with WHERE, which DataFusion refuses for a non-boolean predicate."""
    import paimon_rowid as pr
    mc.make_table(warehouse, "part")
    before = mc.state(warehouse)
    with pytest.raises(ValueError) as raised:
        mc.merge(engine, warehouse, mc.SRC, on=["id"],
                 when_matched=[pr.WhenMatched.update({"a": "s.a"}, condition=condition)])
    assert str(raised.value) == (f"merge_into condition {condition!r} is not boolean: it gives "
                                 f"{gives}")
    assert mc.state(warehouse) == before


def _write_errors():
    from paimon_rowid import WhenMatched as M
    from paimon_rowid import WhenNotMatched as N
    from paimon_rowid import lit
    # each merge also updates id 1 (written first) before it fails
    update = M.update({"b": "s.b"}, condition="s.id = 1")
    return {
        "null_into_not_null_update": (mc.src([1, 2]), [update, M.update({"id": lit(None)})], []),
        "null_source_into_not_null_update": (mc.src([1, 2]), [update, M.update({"id": "s.a"})],
                                             []),
        "literal_cast_update": (mc.src([1, 2]), [update, M.update({"a": lit("abc")})], []),
        "literal_cast_insert": (mc.src([1, 70]), [update], [N({"a": "abc"})]),
        "source_cast_insert": (pa.table({"id": pa.array([1, 70], pa.int64()), "a": ["1", "zz"],
                                         "b": ["w", "v"]}), [update], [N({"a": "s.a"})]),
    }


@pytest.mark.parametrize("engine", mc.ENGINES)
@pytest.mark.parametrize("case", list(_write_errors()))
def test_value_errors_leave_nothing(warehouse, engine, case):
    source, matched, not_matched = _write_errors()[case]
    mc.make_table(warehouse, "part")
    before = mc.state(warehouse)
    with pytest.raises((ValueError, pa.ArrowInvalid)):
        mc.merge(engine, warehouse, source, on=["id"], when_matched=matched,
                 when_not_matched=not_matched)
    assert mc.state(warehouse) == before


@pytest.mark.parametrize("engine", mc.ENGINES)
@pytest.mark.parametrize("kind", ["pandas", "reader"])
def test_other_source_types(tmp_path, engine, kind):
    import paimon_rowid as pr
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    mc.make_table(a, "part")
    shutil.copytree(a, b)
    src = mc.src([1, 77], [-1, -77], ["t1", "t77"], ["y", "x"])
    other = src.to_pandas() if kind == "pandas" else src.to_reader()
    clauses = {"on": ["id"], "when_matched": [pr.WhenMatched.update({"a": "s.a"})],
               "when_not_matched": [pr.WhenNotMatched("*")]}
    if engine == "local" and kind == "reader":  # pypaimon's local call: Table, DataFrame, table
        before = mc.state(a)
        with pytest.raises(TypeError) as raised:
            mc.merge(engine, a, other, **clauses)
        assert str(raised.value) == ("source must be a pyarrow.Table, a pandas.DataFrame, or a "
                                     "Paimon table; got RecordBatchReader.")
        assert mc.state(a) == before
        return
    mc.merge(engine, a, other, **clauses)
    mc.merge(engine, b, src, **clauses)
    dv.same(dv.our_read(a, "db.t", mc.ALL_ROW_ID), dv.our_read(b, "db.t", mc.ALL_ROW_ID), kind)


@pytest.mark.parametrize("case", ["not_an_array", "wrong_length"])
def test_self_merge_callable_errors_leave_nothing(warehouse, case):
    import paimon_rowid as pr
    mc.make_table(warehouse, "plain")
    before = mc.state(warehouse)

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
    assert mc.state(warehouse) == before


# Duplicates, Ray's rule (the embedded call): only source rows that a clause acts on count.

def test_embedded_duplicate_filtered_by_condition_is_fine(warehouse):
    import paimon_rowid as pr
    mc.make_table(warehouse, "part")
    result = pr.merge_into("db.t", mc.src([1, 1], [5, 500]), {"warehouse": warehouse}, on=["id"],
                           when_matched=[pr.WhenMatched.update({"a": "s.a"},
                                                               condition="s.a > t.a")])
    assert result == {"num_matched": 1, "num_inserted": 0, "num_unchanged": 0}
    assert {r["id"]: r["a"] for r in mc.rows(warehouse).values()}[1] == 500


@pytest.mark.parametrize("clauses", ["two_updates", "update_and_delete", "sole_delete"])
def test_embedded_duplicates_acted_on_raise_and_leave_nothing(warehouse, clauses):
    import paimon_rowid as pr
    M = pr.WhenMatched
    mc.make_table(warehouse, "part")
    before = mc.state(warehouse)
    matched = {"two_updates": [M.update({"a": "s.a"})],
               "update_and_delete": [M.delete(condition="s.a < 10"), M.update({"a": "s.a"})],
               "sole_delete": [M.delete()]}[clauses]
    # ids 3 (updated, written before the check) and 1 (twice)
    with pytest.raises(ValueError) as raised:
        pr.merge_into("db.t", mc.src([3, 1, 1], [300, 5, 500]), {"warehouse": warehouse},
                      on=["id"], when_matched=matched)
    assert str(raised.value) == mc.DEDUPLICATE
    assert mc.state(warehouse) == before
