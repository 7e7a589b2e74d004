"""``TableUpdate.update_by_predicate`` (pypaimon 2.1.0, memo §2.3): SQL's UPDATE ... WHERE.

pypaimon and ours run the same literal and array updates on copies of one warehouse; both
engines read both results identically. Callables (which cannot cross to the oracle process)
are checked against a Python model: once per file group, with the group's matched rows.
Every validation has its exception type and message, and leaves nothing behind.
"""
from __future__ import annotations

import shutil

import pyarrow as pa
import pytest

import dv_tables as dv

pytestmark = pytest.mark.native

CASES = {
    # name: (filter spec, assignments as the oracle takes them, deletes first)
    "literal": (["less_than", "id", [7]], {"b": {"literal": "new"}}, []),
    "two_columns": (["equal", "p", ["y"]], {"a": {"literal": -1}, "b": {"literal": "y!"}}, []),
    "everything": (None, {"a": {"literal": 5}}, []),
    "array": (["greater_or_equal", "id", [10]], {"a": {"array": [1, 2, 3]}}, []),
    "nothing_matches": (["greater_than", "id", [100]], {"a": {"literal": 1}}, []),
    "skips_deleted_rows": (["less_than", "id", [5]], {"b": {"literal": "kept"}}, [1, 2]),
}


def _ours_assignments(spec):
    return {c: (pa.array(v["array"]) if "array" in v else v["literal"]) for c, v in spec.items()}


@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
@pytest.mark.parametrize("case", list(CASES))
def test_same_result_as_pypaimon(oracle, tmp_path, layout, case):
    spec, assignments, deletes = CASES[case]
    theirs, ours_wh = str(tmp_path / "theirs"), str(tmp_path / "ours")
    dv.our_setup(theirs, "t", dv.LAYOUTS[layout])
    if deletes:
        dv.our_delete(theirs, "db.t", deletes)
    shutil.copytree(theirs, ours_wh)
    oracle.run(oracle.update_by_predicate_cmd(theirs, "db.t", spec, assignments))
    table = dv.our_table(ours_wh, "db.t")
    builder = table.new_batch_write_builder()
    messages = builder.new_update().update_by_predicate(dv.our_predicate(table, spec),
                                                        _ours_assignments(assignments))
    if case == "nothing_matches":
        assert messages == []
    builder.new_commit().commit(messages)
    dv.check_both_read_the_same(oracle, tmp_path, ours_wh, theirs, "db.t", f"{layout}/{case}")
    assert dv.latest_id(ours_wh, "db.t") == dv.latest_id(theirs, "db.t")


def test_callable_runs_once_per_file_group_with_its_matched_rows(warehouse):
    dv.our_setup(warehouse, "t", [])
    table = dv.our_table(warehouse, "db.t")
    seen = []

    def double(part: pa.Table) -> pa.Array:
        seen.append(sorted(part.column("_ROW_ID").to_pylist()))
        assert part.column_names == ["a", "_ROW_ID"]
        return pa.array([2 * v for v in part.column("a").to_pylist()])

    pb = table.new_read_builder().new_predicate_builder()
    builder = table.new_batch_write_builder()
    messages = builder.new_update().update_by_predicate(
        pb.not_equal("id", 6), {"a": double}, read_columns=["a"])
    assert len(messages) == 3  # one per touched file group
    builder.new_commit().commit(messages)
    assert seen == [[0, 1, 2, 3, 4], [5, 7, 8, 9], [10, 11, 12]]
    got = dv.by_row_id(dv.our_read(warehouse, "db.t", ["id", "a", "_ROW_ID"]))
    assert {r["id"]: r["a"] for r in got.values()} == {
        i: 10 * i if i == 6 else 20 * i for i in range(dv.NUM_ROWS)}


def _validation_cases():
    pa_array = pa.array([1])

    def fn(_):
        return pa.array([1])

    return {
        "no_assignments": ({}, None, "assignments must not be empty."),
        "read_columns_without_callable": ({"a": 1}, ["a"],
                                          "read_columns requires a callable assignment."),
        "callable_and_array": ({"a": fn, "b": pa_array}, ["a"],
                               "Callable assignments cannot be combined with Arrow array "
                               "assignments."),
        "callable_without_read_columns": ({"a": fn}, None,
                                          "Callable assignments require read_columns."),
        "unknown_read_column": ({"a": fn}, ["zz"], "Read column zz is not in table schema."),
        "unknown_column": ({"zz": 1}, None, "Column zz is not in table schema."),
        "partition_column": ({"p": "q"}, None,
                             "update_by_predicate does not support updating partition column "
                             "'p'."),
        "array_length": ({"a": pa.array([1, 2])}, None,
                         "Assignment array length must match matched row count: 2 != 13."),
        "callable_result": ({"a": lambda part: [1] * part.num_rows}, ["a"],
                            "Callable assignment for a must return a pyarrow.Array or "
                            "pyarrow.ChunkedArray."),
    }


@pytest.mark.parametrize("case", list(_validation_cases()))
def test_validations_raise_and_leave_nothing(warehouse, case):
    assignments, read_columns, message = _validation_cases()[case]
    dv.our_setup(warehouse, "t", ["p"])
    table = dv.our_table(warehouse, "db.t")
    before = dv.files(warehouse)
    with pytest.raises(ValueError) as raised:
        table.new_batch_write_builder().new_update().update_by_predicate(
            None, assignments, read_columns=read_columns)
    assert str(raised.value) == message
    assert dv.files(warehouse) == before


@pytest.mark.parametrize("options, message", [
    ({}, "update_by_predicate requires 'data-evolution.enabled' = 'true'."),
    ({"row-tracking.enabled": "true"},
     "update_by_predicate requires 'data-evolution.enabled' = 'true'."),
])
def test_table_options_are_checked_first(warehouse, options, message):
    dv.our_setup(warehouse, "t", [], options=options, writes=[(0, 2)])
    table = dv.our_table(warehouse, "db.t")
    with pytest.raises(ValueError, match=f"^{message}$".replace(".", r"\.")):
        table.new_batch_write_builder().new_update().update_by_predicate(None, {})
