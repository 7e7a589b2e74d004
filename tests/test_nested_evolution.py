"""Nested schema evolution (docs/schema-evolution.md): changes to fields of ROW columns and of
the ROWs inside ARRAY (``element``) and MAP (``value``) columns, by path. Files written
before the change read by field id: a renamed nested field under its new name, an added one
NULL, a dropped one gone, a widened one cast. Each case both ways with pypaimon (we alter
and write, pypaimon reads equal; pypaimon alters and writes, we read equal) and read equal by
Java Paimon; refused paths keep pypaimon's words."""
from __future__ import annotations

import os
from typing import Any, Dict, List

import pyarrow as pa
import pytest

from ours import catalog, create_table, write

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([
    ("id", pa.int64()),
    ("r", pa.struct([("x", pa.int32()), ("y", pa.string()),
                     ("q", pa.struct([("k", pa.int32())]))])),
    ("a", pa.list_(pa.struct([("u", pa.int32()), ("v", pa.string())]))),
    ("m", pa.map_(pa.string(), pa.struct([("k", pa.int32()), ("w", pa.string())]))),
])


def _cases():
    from paimon_rowid.schema.schema_change import Move
    from paimon_rowid.schema.schema_change import SchemaChange as C
    return {
        "row_rename": [C.rename_column(["r", "x"], "xx")],
        "row_add": [C.add_column(["r", "z"], "INT")],
        "row_add_first": [C.add_column(["r", "z"], "STRING", move=Move.first("z"))],
        "row_drop": [C.drop_column(["r", "y"])],
        "row_widen": [C.update_column_type(["r", "x"], "BIGINT")],
        "row_deep": [C.rename_column(["r", "q", "k"], "kk"), C.add_column(["r", "q", "j"], "INT")],
        "array_rename": [C.rename_column(["a", "element", "u"], "uu")],
        "array_add": [C.add_column(["a", "element", "n"], "BIGINT")],
        "array_drop": [C.drop_column(["a", "element", "v"])],
        "array_widen": [C.update_column_type(["a", "element", "u"], "BIGINT")],
        "map_rename": [C.rename_column(["m", "value", "k"], "kk")],
        "map_add": [C.add_column(["m", "value", "n"], "DOUBLE")],
        "map_drop": [C.drop_column(["m", "value", "w"])],
        "mixed": [C.rename_column(["r", "x"], "xx"), C.drop_column(["r", "y"]),
                  C.add_column(["a", "element", "n"], "INT"),
                  C.rename_column(["m", "value", "w"], "ww"),
                  C.update_column_type(["m", "value", "k"], "BIGINT")],
    }


CASES = list(_cases())


def _value(t: pa.DataType, i: int) -> Any:
    if pa.types.is_struct(t):
        return {f.name: _value(f.type, i + j) for j, f in enumerate(t)}
    if pa.types.is_map(t):
        return [(f"k{i}", _value(t.item_type, i))]
    if pa.types.is_list(t):
        return [_value(t.value_type, i), _value(t.value_type, i + 1)]
    if pa.types.is_string(t):
        return f"s{i}"
    if pa.types.is_floating(t):
        return i + 0.5
    return i


def _data(schema: pa.Schema, start: int, n: int = 4) -> pa.Table:
    """Rows of ``schema``: row i's values derive from i; the last row's nested columns NULL."""
    rows = []
    for i in range(start, start + n):
        row = {f.name: _value(f.type, i) for f in schema}
        if i == start + n - 1:
            row.update({f.name: None for f in schema if f.name != "id"})
        row["id"] = i
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=schema)


def _ours(warehouse, identifier: str) -> pa.Table:
    rb = catalog(warehouse).get_table(identifier).new_read_builder()
    return rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id")


def _pypaimon_reads(oracle, warehouse, identifiers: List[str]) -> Dict[str, pa.Table]:
    from oracle import read_ipc
    outs = [oracle._path(".arrow") for _ in identifiers]
    results = oracle.run_all([oracle._read_cmd(warehouse, ident, out)
                              for ident, out in zip(identifiers, outs)])
    assert len(results) == len(identifiers)
    tables = {ident: read_ipc(out).sort_by("id") for ident, out in zip(identifiers, outs)}
    for out in outs:
        out.unlink(missing_ok=True)
    return tables


def _assert_equal(ours: pa.Table, theirs: pa.Table, case: str) -> None:
    assert ours.schema.names == theirs.schema.names, case
    assert ours.num_rows == 8, case
    assert ours.equals(theirs.cast(ours.schema)), (case, ours.to_pylist(), theirs.to_pylist())


@pytest.mark.oracle
def test_pypaimon_reads_nested_changes_we_made(warehouse, oracle):
    cat = catalog(warehouse)
    for case, changes in _cases().items():
        table = create_table(warehouse, case, SCHEMA, DE)
        write(table, _data(SCHEMA, 0))
        cat.alter_table(f"db.{case}", changes)
        table = cat.get_table(f"db.{case}")
        write(table, _data(table.arrow_schema, 100))
    theirs = _pypaimon_reads(oracle, warehouse, [f"db.{case}" for case in CASES])
    for case in CASES:
        _assert_equal(_ours(warehouse, f"db.{case}"), theirs[f"db.{case}"], case)


@pytest.mark.oracle
def test_we_read_nested_changes_pypaimon_made(warehouse, oracle):
    from paimon_rowid.schema.schema_change import changes_json
    setup = []
    for case, changes in _cases().items():
        setup += [oracle.create_table_cmd(warehouse, f"db.{case}", SCHEMA, options=DE),
                  oracle.write_cmd(warehouse, f"db.{case}", _data(SCHEMA, 0)),
                  {"cmd": "alter_table", "warehouse": str(warehouse),
                   "identifier": f"db.{case}", "changes": changes_json(changes)}]
    oracle.run_all(setup)
    cat = catalog(warehouse)
    writes = []
    for case in CASES:
        table = cat.get_table(f"db.{case}")
        assert table.table_schema.id == 1
        writes.append(oracle.write_cmd(warehouse, f"db.{case}", _data(table.arrow_schema, 100)))
    oracle.run_all(writes)
    theirs = _pypaimon_reads(oracle, warehouse, [f"db.{case}" for case in CASES])
    for case in CASES:
        _assert_equal(_ours(warehouse, f"db.{case}"), theirs[f"db.{case}"], case)


def test_old_files_read_by_nested_field_id(warehouse):
    """The values, spelled out: old rows keep their values under renamed nested names, read
    NULL for added nested fields, lose dropped ones."""
    from paimon_rowid.schema.schema_change import SchemaChange as C
    table = create_table(warehouse, "t", SCHEMA, DE)
    write(table, _data(SCHEMA, 0, 2))
    catalog(warehouse).alter_table("db.t", _cases()["mixed"])
    row = _ours(warehouse, "db.t").to_pylist()[0]
    assert row["r"] == {"xx": 0, "q": {"k": 2}}
    assert row["a"] == [{"u": 0, "v": "s1", "n": None}, {"u": 1, "v": "s2", "n": None}]
    assert row["m"] == [("k0", {"k": 0, "ww": "s1"})]
    # A dropped and re-added nested field is a new field: old values do not come back.
    catalog(warehouse).alter_table("db.t", [C.drop_column(["a", "element", "v"])])
    catalog(warehouse).alter_table("db.t", [C.add_column(["a", "element", "v"], "STRING")])
    assert _ours(warehouse, "db.t").to_pylist()[0]["a"][0] == {"u": 0, "n": None, "v": None}


@pytest.mark.oracle
def test_wrapper_paths_refused_as_pypaimon(warehouse, oracle):
    """A wrong wrapper token, a field missing inside the element ROW, dropping the element
    ROW's last field: refused with pypaimon's words, nothing written."""
    from paimon_rowid.schema.schema_change import SchemaChange as C
    from paimon_rowid.schema.schema_change import changes_json
    table = create_table(warehouse, "t", SCHEMA, DE)
    write(table, _data(SCHEMA, 0, 2))
    oracle.create_table(warehouse, "db.o", SCHEMA, options=DE)
    cat = catalog(warehouse)
    cases = [([C.rename_column(["a", "value", "u"], "q")], "Column a.value.u does not exist"),
             ([C.rename_column(["m", "element", "k"], "q")], "Column m.element.k does not exist"),
             ([C.drop_column(["a", "element", "zzz"])], "Column zzz does not exist"),
             ([C.add_column(["a", "element", "u"], "INT")], "Column u already exists"),
             ([C.drop_column(["m", "value", "k"]), C.drop_column(["m", "value", "w"])],
              "Cannot drop all fields in table")]
    for changes, message in cases:
        with pytest.raises(RuntimeError) as info:
            cat.alter_table("db.t", changes)
        assert str(info.value) == f"Failed to alter table db.t: {message}"
        with pytest.raises(Exception) as theirs:
            oracle.run({"cmd": "alter_table", "warehouse": str(warehouse), "identifier": "db.o",
                        "changes": changes_json(changes)})
        assert message in str(theirs.value)
    for name in ("t", "o"):
        assert os.listdir(os.path.join(warehouse, "db.db", name, "schema")) == ["schema-0"]


def test_element_type_paths(warehouse):
    """A path ending in ``element`` / ``value`` changes the wrapped type itself (pypaimon's
    rule): ARRAY<INT> -> ARRAY<BIGINT>, MAP<STRING, INT> -> MAP<STRING, STRING>; old files
    are cast on read."""
    from paimon_rowid.schema.schema_change import SchemaChange as C
    schema = pa.schema([("id", pa.int64()), ("l", pa.list_(pa.int32())),
                        ("m", pa.map_(pa.string(), pa.int32()))])
    table = create_table(warehouse, "t", schema, DE)
    write(table, pa.table({"id": [1], "l": [[1, 2]], "m": [[("a", 3)]]}, schema=schema))
    cat = catalog(warehouse)
    cat.alter_table("db.t", [C.update_column_type(["l", "element"], "BIGINT"),
                             C.update_column_type(["m", "value"], "STRING")])
    table = cat.get_table("db.t")
    assert [str(f.type) for f in table.fields[1:]] == ["ARRAY<BIGINT>",
                                                       "MAP<STRING NOT NULL, STRING>"]
    assert _ours(warehouse, "db.t").to_pylist() == [{"id": 1, "l": [1, 2], "m": [("a", "3")]}]


@pytest.mark.java
def test_java_reads_nested_changes_we_made(warehouse, java):
    from java import _load_dump, arrow_to_neutral
    cat = catalog(warehouse)
    for case, changes in _cases().items():
        table = create_table(warehouse, case, SCHEMA, DE)
        write(table, _data(SCHEMA, 0))
        cat.alter_table(f"db.{case}", changes)
        table = cat.get_table(f"db.{case}")
        write(table, _data(table.arrow_schema, 100))
    cmds = [java.dump_cmd(warehouse, f"db.{case}") for case in CASES]
    for case, cmd, result in zip(CASES, cmds, java.run_all(cmds)):
        dump = _load_dump(cmd, result)
        ours = _ours(warehouse, f"db.{case}")
        assert dump.names == ours.schema.names, case
        assert sorted(dump.rows, key=lambda r: r[0]) == arrow_to_neutral(ours), case


@pytest.mark.oracle
@pytest.mark.java
def test_nested_moves_refused_as_pypaimon_and_java(warehouse, oracle, java):
    """``update_column_position`` moves top-level columns only: pypaimon 2.1.0's ``Move`` and
    Java 1.4.2's (``SchemaManager.applyMove`` looks the name up among the top-level fields)
    name no path. A dotted name inside a ROW column is refused by all three (we raise
    pypaimon's RuntimeError with its exact words, Java an IllegalArgumentException), with no
    schema file written; the same tables still take a top-level move."""
    from java import JavaOracleError
    from paimon_rowid.schema.schema_change import Move, changes_json
    from paimon_rowid.schema.schema_change import SchemaChange as C
    table = create_table(warehouse, "t", SCHEMA, DE)
    write(table, _data(SCHEMA, 0, 2))
    oracle.create_table(warehouse, "db.o", SCHEMA, options=DE)
    cat = catalog(warehouse)
    cases = [(Move.first("r.y"), "Column r.y does not exist", "Field name not found: r.y"),
             (Move.after("r.y", "r.x"), "Column r.y does not exist",
              "Field name not found: r.y"),
             (Move.before("r.q.k", "r.x"), "Column r.q.k does not exist",
              "Field name not found: r.q.k"),
             (Move.last("a.element.u"), "Column a.element.u does not exist",
              "Field name not found: a.element.u"),
             (Move.after("id", "r.x"), "Column r.x does not exist",
              "Reference field name not found: r.x")]
    java_results = java.run_batch([java.alter_cmd(warehouse, "db.t",
                                                  [C.update_column_position(move)])
                                   for move, _, _ in cases])
    for (move, message, java_message), java_result in zip(cases, java_results):
        changes = [C.update_column_position(move)]
        with pytest.raises(RuntimeError) as info:
            cat.alter_table("db.t", changes)
        assert str(info.value) == f"Failed to alter table db.t: {message}"
        with pytest.raises(Exception) as theirs:
            oracle.run({"cmd": "alter_table", "warehouse": str(warehouse), "identifier": "db.o",
                        "changes": changes_json(changes)})
        assert message in str(theirs.value)
        assert isinstance(java_result, JavaOracleError), (move, java_result)
        assert java_result.error_type.endswith("IllegalArgumentException"), java_result
        assert java_message in java_result.message, java_result.message
    for name in ("t", "o"):
        assert os.listdir(os.path.join(warehouse, "db.db", name, "schema")) == ["schema-0"]
    cat.alter_table("db.t", [C.update_column_position(Move.first("r"))])
    assert catalog(warehouse).get_table("db.t").field_names[:2] == ["r", "id"]
