"""A table with 50 schema versions (docs/schema-evolution.md): 49 ``alter_table`` calls that
cycle through every change kind (add, rename, drop, widen, move, options, comments, default
values, nested ROW field add/rename/drop, NOT NULL -> NULL, batches of several), with an
append after each, read equal by us, pypaimon 2.1.0 and Java Paimon 1.4.2 -- at the latest
snapshot and by time travel to one in the middle (read with that snapshot's schema)."""
from __future__ import annotations

import decimal
from typing import Any, List

import pyarrow as pa
import pytest

from ours import catalog, create_table, write

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("b", pa.int32()),
                    ("s", pa.string()), ("f", pa.float32()),
                    ("r", pa.struct([("x", pa.int32()), ("y", pa.string())])),
                    ("p", pa.string())])
KINDS = ["add", "rename", "widen", "add_nested", "options", "position", "drop",
         "rename_nested", "column_comment", "default", "comment", "drop_nested", "batch"]
ADD_TYPES = ["INT", "BIGINT", "STRING", "FLOAT", "DECIMAL(10, 2)", "ROW<u INT, v STRING>"]
MIDDLE = 25  # the snapshot read by time travel


def _value(t: pa.DataType, i: int) -> Any:
    if pa.types.is_struct(t):
        return {f.name: _value(f.type, i + j) for j, f in enumerate(t)}
    if pa.types.is_string(t):
        return f"s{i}"
    if pa.types.is_floating(t):
        return i + 0.5
    if pa.types.is_decimal(t):
        return decimal.Decimal(i) / 4
    return i


def _rows(schema: pa.Schema, start: int, n: int = 3) -> pa.Table:
    """No NULLs: a NULL in a column with a default value is read differently by the readers
    (covered in test_java_schema_evolution)."""
    rows = []
    for i in range(start, start + n):
        row = {f.name: _value(f.type, i) for f in schema}
        row["id"] = i
        row["p"] = "x" if i % 2 else "y"
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=schema)


def _user_columns(schema: pa.Schema) -> List[pa.Field]:
    return [f for f in schema if f.name not in ("id", "p")]


def _widened(t: pa.DataType):
    if pa.types.is_int32(t):
        return "BIGINT"
    if pa.types.is_float32(t):
        return "DOUBLE"
    if pa.types.is_int64(t):
        return "STRING"
    if pa.types.is_decimal(t) and t.precision < 30:
        return f"DECIMAL({t.precision + 2}, {t.scale})"
    return None


def _change(kind: str, step: int, schema: pa.Schema) -> list:
    """The change(s) of one step on the current ``schema``; an add when nothing fits."""
    from paimon_rowid.schema.schema_change import Move
    from paimon_rowid.schema.schema_change import SchemaChange as C
    if step == 7:  # the one NOT NULL column becomes nullable once
        return [C.update_column_nullability("id", True)]
    users = _user_columns(schema)
    pick = users[step % len(users)] if users else None
    rows = [f for f in users if pa.types.is_struct(f.type)]
    row = rows[step % len(rows)] if rows else None
    if kind == "rename" and pick is not None:
        return [C.rename_column(pick.name, f"n{step}")]
    if kind == "widen":
        for f in users[step % len(users):] + users[:step % len(users)]:
            if _widened(f.type):
                return [C.update_column_type(f.name, _widened(f.type))]
    if kind == "drop" and len(users) > 4:
        return [C.drop_column(pick.name)]
    if kind == "position" and pick is not None:
        move = Move.first(pick.name) if step % 2 else Move.after(pick.name, "id")
        return [C.update_column_position(move)]
    if kind == "options":
        return [C.set_option(f"k{step}", str(step)), C.remove_option(f"k{step - 13}")]
    if kind == "comment":
        return [C.update_comment(f"comment {step}")]
    if kind == "column_comment" and pick is not None:
        return [C.update_column_comment(pick.name, f"c{step}")]
    if kind == "default":
        for f in users:
            if pa.types.is_integer(f.type):
                return [C.update_column_default_value([f.name], str(step))]
    if kind == "add_nested" and row is not None:
        return [C.add_column([row.name, f"z{step}"], "INT")]
    if kind == "rename_nested" and row is not None:
        return [C.rename_column([row.name, row.type[0].name], f"q{step}")]
    if kind == "drop_nested" and row is not None and row.type.num_fields > 1:
        return [C.drop_column([row.name, row.type[row.type.num_fields - 1].name])]
    if kind == "batch":
        return [C.add_column(f"a{step}", "BIGINT"), C.rename_column(f"a{step}", f"m{step}"),
                C.update_column_type(f"m{step}", "STRING")]
    return [C.add_column(f"c{step}", ADD_TYPES[step % len(ADD_TYPES)])]


def _build(warehouse) -> List[str]:
    table = create_table(warehouse, "t", SCHEMA, DE, partition_keys=["p"])
    write(table, _rows(table.arrow_schema, 0))
    cat = catalog(warehouse)
    applied = []
    for step in range(1, 50):
        changes = _change(KINDS[step % len(KINDS)], step, table.arrow_schema)
        cat.alter_table("db.t", changes)
        applied += [type(c).__name__ + ("(nested)" if len(getattr(c, "field_names", [])) > 1
                                        else "") for c in changes]
        table = cat.get_table("db.t")
        assert table.table_schema.id == step
        write(table, _rows(table.arrow_schema, step * 10))
    return applied


def _ours(warehouse, snapshot_id=None) -> pa.Table:
    table = catalog(warehouse).get_table("db.t")
    if snapshot_id is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot_id)})
    rb = table.new_read_builder()
    return rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id")


@pytest.mark.oracle
@pytest.mark.java
def test_fifty_schema_versions_read_equal_by_us_pypaimon_and_java(warehouse, oracle, java):
    from java import _load_dump, arrow_to_neutral
    applied = _build(warehouse)
    assert set(applied) == {
        "SetOption", "RemoveOption", "UpdateComment", "AddColumn", "RenameColumn", "DropColumn",
        "UpdateColumnType", "UpdateColumnNullability", "UpdateColumnComment",
        "UpdateColumnDefaultValue", "UpdateColumnPosition", "AddColumn(nested)",
        "RenameColumn(nested)", "DropColumn(nested)"}, applied
    schema = catalog(warehouse).get_table("db.t").table_schema
    assert schema.id == 49
    latest, middle = _ours(warehouse), _ours(warehouse, MIDDLE)
    assert latest.num_rows == 150 and middle.num_rows == 3 * MIDDLE
    assert latest.schema.names != middle.schema.names
    theirs = oracle.read_many(warehouse, "db.t", [{}, {"snapshot_id": MIDDLE}])
    for ours, pypaimon in zip((latest, middle), theirs):
        pypaimon = pypaimon.sort_by("id")
        assert ours.schema.names == pypaimon.schema.names
        assert ours.equals(pypaimon.cast(ours.schema)), (ours.to_pylist()[:3],
                                                          pypaimon.to_pylist()[:3])
    cmds = [java.dump_cmd(warehouse, "db.t"), java.dump_cmd(warehouse, "db.t",
                                                            snapshot_id=MIDDLE)]
    for ours, cmd, result in zip((latest, middle), cmds, java.run_all(cmds)):
        dump = _load_dump(cmd, result)
        assert dump.names == ours.schema.names
        id_index = dump.names.index("id")
        assert sorted(dump.rows, key=lambda r: r[id_index]) == arrow_to_neutral(ours)
