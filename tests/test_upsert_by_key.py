"""``TableUpdate.upsert_by_arrow_with_key`` (pypaimon 2.1.0, memo §2.6): update rows whose key
exists (every such row), append the others, last duplicate wins, per partition.

pypaimon and ours run the same upserts on copies of one warehouse; both engines then read
both results identically. Validations have their types and messages and leave nothing.
"""
from __future__ import annotations

import shutil

import pyarrow as pa
import pytest

import dv_tables as dv

pytestmark = pytest.mark.native


def _input(ids, a, b, p):
    return pa.table({"id": pa.array(ids, pa.int64()), "a": pa.array(a, pa.int32()),
                     "b": pa.array(b, pa.string()), "p": pa.array(p, pa.string())})


CASES = {
    # name: (input, keys, update_cols, deletes first)
    "update_and_insert": (_input([1, 3, 50, 51], [7, 7, 7, 7], ["u1", "u3", "n50", "n51"],
                                 ["x", "y", "x", "z"]), ["id"], None, []),
    "duplicates_last_wins": (_input([2, 2, 60, 60], [1, 2, 3, 4], ["first", "last", "a", "b"],
                                    ["x", "x", "y", "y"]), ["id"], None, []),
    "fan_out_on_a_shared_key": (_input([0], [-5], ["all-x"], ["x"]), ["p"], ["a", "b"], []),
    "some_columns": (_input([4, 70], [-4, -70], ["ignored", "n70"], ["x", "y"]), ["id"], ["a"],
                     []),
    "deleted_rows_do_not_match": (_input([1, 2], [11, 12], ["d1", "d2"], ["y", "x"]), ["id"],
                                  None, [1]),
}


@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
@pytest.mark.parametrize("case", list(CASES))
def test_same_result_as_pypaimon(oracle, tmp_path, layout, case):
    data, keys, update_cols, deletes = CASES[case]
    if layout == "part":
        # rows keep their partition: p of existing ids is derived from the id
        data = data.set_column(3, "p", pa.array([dv.partition_of(i) for i in
                                                 data["id"].to_pylist()], pa.string()))
        if keys == ["p"]:
            keys = ["p", "id"] if case != "fan_out_on_a_shared_key" else keys
    theirs, ours_wh = str(tmp_path / "theirs"), str(tmp_path / "ours")
    dv.our_setup(theirs, "t", dv.LAYOUTS[layout])
    if deletes:
        dv.our_delete(theirs, "db.t", deletes)
    shutil.copytree(theirs, ours_wh)
    oracle.run(oracle.upsert_cmd(theirs, "db.t", data, keys, update_cols))
    table = dv.our_table(ours_wh, "db.t")
    builder = table.new_batch_write_builder()
    update = builder.new_update()
    if update_cols:
        update.with_update_type(update_cols)
    builder.new_commit().commit(update.upsert_by_arrow_with_key(data, keys))
    dv.check_both_read_the_same(oracle, tmp_path, ours_wh, theirs, "db.t", f"{layout}/{case}")


@pytest.mark.parametrize("case, keys, data, message", [
    ("no_keys", [], _input([1], [1], ["b"], ["x"]), "upsert_keys must not be empty."),
    ("unknown_key", ["zz"], _input([1], [1], ["b"], ["x"]),
     "upsert_key 'zz' is not in table schema fields: ['id', 'a', 'b', 'p']"),
    ("key_not_in_input", ["id"], pa.table({"a": pa.array([1], pa.int32())}),
     "upsert_key 'id' is not in input data columns: ['a']"),
    ("partition_not_in_input", ["id"], pa.table({"id": pa.array([1], pa.int64())}),
     "For partitioned tables, input data must contain all partition key columns. "
     "Missing: ['p']"),
    ("empty", ["id"], _input([], [], [], []), "Input data is empty."),
])
def test_validations_raise_and_leave_nothing(warehouse, case, keys, data, message):
    dv.our_setup(warehouse, "t", ["p"])
    table = dv.our_table(warehouse, "db.t")
    before = dv.files(warehouse)
    with pytest.raises(ValueError) as raised:
        table.new_batch_write_builder().new_update().upsert_by_arrow_with_key(data, keys)
    assert str(raised.value) == message
    assert dv.files(warehouse) == before


def test_data_evolution_is_required(warehouse):
    dv.our_setup(warehouse, "t", [], options={}, writes=[(0, 2)])
    table = dv.our_table(warehouse, "db.t")
    with pytest.raises(ValueError, match="^upsert_by_arrow_with_key requires "
                                         "'data-evolution.enabled' = 'true'.$"):
        table.new_batch_write_builder().new_update().upsert_by_arrow_with_key(
            _input([1], [1], ["b"], ["x"]), ["id"])
