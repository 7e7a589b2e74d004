"""Schema evolution against Java Paimon (tests/java/, docs/schema-evolution.md): each change
kind both ways. We alter and write before and after, Java reads equal rows (and row ids); Java
alters (``Catalog.alterTable``, its SchemaManager rules) and writes, we read equal rows. Each
direction is two JVM batches over one warehouse holding a table per case. Plus: default values
are not filled into files older than the column (Java 1.4.2 reads NULL, so do we), Java
refuses what we refuse, and the two changes Java 1.4.2 accepts where we refuse as pypaimon."""
from __future__ import annotations

import decimal
import os
from typing import Dict, List

import pyarrow as pa
import pytest

from java import JavaOracleError, arrow_to_neutral
from java_compat_table import assert_same_rows, our_read
from ours import catalog, create_table, write

pytestmark = [pytest.mark.native, pytest.mark.java]

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("b", pa.int32()),
                    ("s", pa.string()), ("f", pa.float32()), ("d", pa.decimal128(10, 2)),
                    ("p", pa.string())])
# The same columns as Java's create_table takes them (schema-file type JSON).
JAVA_FIELDS = [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "b", "type": "INT"},
               {"name": "s", "type": "STRING"}, {"name": "f", "type": "FLOAT"},
               {"name": "d", "type": "DECIMAL(10, 2)"}, {"name": "p", "type": "STRING"}]


def _data(start: int, n: int) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({"id": pa.array(ids, pa.int64()),
                     "b": pa.array([i * 10 for i in ids], pa.int32()),
                     "s": [f"s{i}" for i in ids],
                     "f": pa.array([i + 0.5 for i in ids], pa.float32()),
                     "d": pa.array([decimal.Decimal(i) / 4 for i in ids], pa.decimal128(10, 2)),
                     "p": ["x" if i % 2 else "y" for i in ids]}, schema=SCHEMA)


def _cases():
    """name -> (changes, {new name: old name} for renamed columns)."""
    from paimon_rowid.schema.schema_change import Move
    from paimon_rowid.schema.schema_change import SchemaChange as C
    return {
        "add_column": ([C.add_column("c", "BIGINT", "new")], {}),
        "add_first": ([C.add_column("c", "DOUBLE", move=Move.first("c"))], {}),
        "add_after": ([C.add_column("c", "STRING", move=Move.after("c", "id"))], {}),
        "add_before": ([C.add_column("c", "INT", move=Move.before("c", "s"))], {}),
        "rename": ([C.rename_column("b", "b2")], {"b2": "b"}),
        "drop": ([C.drop_column("s")], {}),
        "drop_and_re_add": ([C.drop_column("s"), C.add_column("s", "STRING")], {}),
        "int_to_bigint": ([C.update_column_type("b", "BIGINT")], {}),
        "int_to_string": ([C.update_column_type("b", "STRING")], {}),
        "float_to_double": ([C.update_column_type("f", "DOUBLE")], {}),
        "decimal_widen": ([C.update_column_type("d", "DECIMAL(12, 2)")], {}),
        "nullability": ([C.update_column_nullability("id", True)], {}),
        "column_comment": ([C.update_column_comment("s", "the s")], {}),
        "position": ([C.update_column_position(Move.first("s"))], {}),
        "options": ([C.set_option("k", "v"), C.remove_option("k2")], {}),
        "comment": ([C.update_comment("table comment")], {}),
        "default_value": ([C.add_column("c", "BIGINT"),
                           C.update_column_default_value(["c"], "7")], {}),
        "mixed": ([C.add_column("c", "BIGINT"), C.rename_column("s", "s2"), C.drop_column("b"),
                   C.update_column_type("f", "DOUBLE"),
                   C.update_column_position(Move.after("c", "id"))], {"s2": "s"}),
    }


CASES = list(_cases())


def _after_alter_rows(table, renamed: Dict[str, str], start: int) -> pa.Table:
    """Rows for the evolved table: old columns (by their new names) cast to the new types,
    added columns filled by type."""
    base = _data(start, 4)
    cols = {}
    for f in table.arrow_schema:
        old = renamed.get(f.name, f.name)
        if old in base.column_names:
            cols[f.name] = base[old].cast(f.type)
        elif pa.types.is_floating(f.type):
            cols[f.name] = pa.array([i * 1.5 for i in range(4)], f.type)
        else:
            cols[f.name] = pa.array([str(i + start) for i in range(4)]).cast(f.type)
    return pa.table(cols, schema=table.arrow_schema)


def _neutral_dicts(data: pa.Table) -> List[Dict]:
    return [dict(zip(data.column_names, row)) for row in arrow_to_neutral(data)]


def _projection(warehouse, identifier: str) -> List[str]:
    return catalog(warehouse).get_table(identifier).field_names + ["_ROW_ID"]


def test_java_reads_tables_we_evolved(java, warehouse):
    cat = catalog(warehouse)
    for case, (changes, renamed) in _cases().items():
        table = create_table(warehouse, case, SCHEMA, DE, partition_keys=["p"])
        write(table, _data(0, 6))
        cat.alter_table(f"db.{case}", changes)
        table = cat.get_table(f"db.{case}")
        write(table, _after_alter_rows(table, renamed, 100))
    from java import _load_dump
    cmds = [java.dump_cmd(warehouse, f"db.{case}", projection=_projection(warehouse, f"db.{case}"))
            for case in CASES]
    cmds += [{"cmd": "schema", "warehouse": warehouse, "identifier": f"db.{case}"}
             for case in CASES]
    results = java.run_all(cmds)
    for case, cmd, result, schema in zip(CASES, cmds, results, results[len(CASES):]):
        dump = _load_dump(cmd, result)
        names, ours = our_read(warehouse, f"db.{case}", projection=cmd["projection"])
        assert_same_rows(names, ours, dump, f"case {case}")
        assert len(ours) == 10
        # Java loads the schema we wrote: same names, ids, highest id, options and comment.
        mine = cat.get_table(f"db.{case}").table_schema
        assert [(f["id"], f["name"]) for f in schema["fields"]] == \
            [(f.id, f.name) for f in mine.fields], case
        assert schema["highestFieldId"] == mine.highest_field_id
        assert schema["id"] == mine.id == 1
        assert schema.get("comment") == mine.comment


def test_we_read_tables_java_evolved(java, warehouse):
    from paimon_rowid.schema.schema_change import changes_json
    setup = []
    for case, (changes, _) in _cases().items():
        setup += [java.create_table_cmd(warehouse, f"db.{case}", JAVA_FIELDS,
                                        partition_keys=["p"], options=DE),
                  java.write_cmd(warehouse, f"db.{case}", _neutral_dicts(_data(0, 6))),
                  java.alter_cmd(warehouse, f"db.{case}", changes_json(changes))]
    java.run_all(setup)
    cat = catalog(warehouse)
    writes = []
    for case, (_, renamed) in _cases().items():
        table = cat.get_table(f"db.{case}")
        assert table.table_schema.id == 1, case
        writes.append(java.write_cmd(warehouse, f"db.{case}",
                                     _neutral_dicts(_after_alter_rows(table, renamed, 100))))
    dumps = [java.dump_cmd(warehouse, f"db.{case}", projection=_projection(warehouse, f"db.{case}"))
             for case in CASES]
    from java import _load_dump
    results = java.run_all(writes + dumps)[len(writes):]
    for case, cmd, result in zip(CASES, dumps, results):
        dump = _load_dump(cmd, result)
        names, ours = our_read(warehouse, f"db.{case}", projection=cmd["projection"])
        assert_same_rows(names, ours, dump, f"case {case}")
        assert len(ours) == 10


def test_default_value_is_not_filled_into_old_files(java, warehouse):
    """Java 1.4.2 reads NULL, not the default value, for rows of files written before the
    column was added (pypaimon cannot set a default); we read the same."""
    from paimon_rowid.schema.schema_change import SchemaChange as C
    changes = [C.add_column("c", "BIGINT"), C.update_column_default_value(["c"], "7")]
    table = create_table(warehouse, "ours", SCHEMA, DE, partition_keys=["p"])
    write(table, _data(0, 4))
    catalog(warehouse).alter_table("db.ours", changes)
    java.run_all([java.create_table_cmd(warehouse, "db.java", JAVA_FIELDS, partition_keys=["p"],
                                        options=DE),
                  java.write_cmd(warehouse, "db.java", _neutral_dicts(_data(0, 4))),
                  java.alter_cmd(warehouse, "db.java", changes)])
    for name in ("ours", "java"):
        table = catalog(warehouse).get_table(f"db.{name}")
        assert table.table_schema.fields[-1].default_value == "7"
        projection = ["id", "c", "_ROW_ID"]
        dump = java.dump(warehouse, f"db.{name}", projection=projection)
        names, ours = our_read(warehouse, f"db.{name}", projection=projection)
        assert_same_rows(names, ours, dump, name)
        assert [row[1] for row in ours] == [None] * 4


def _refusals():
    from paimon_rowid.schema.schema_change import Move
    from paimon_rowid.schema.schema_change import SchemaChange as C
    # (changes, words of our message, words of Java's)
    return [
        ([C.add_column("c", "INT NOT NULL")], "cannot specify NOT NULL", "cannot specify NOT NULL"),
        ([C.add_column("b", "INT")], "Column b already exists", "Column b already exists"),
        ([C.rename_column("p", "q")], "Cannot rename partition column: [p]",
         "Cannot rename partition column: [p]"),
        ([C.drop_column("p")], "Cannot drop partition key or primary key: [p]",
         "Cannot drop partition key or primary key: [p]"),
        ([C.drop_column("zzz")], "Column zzz does not exist", "Column zzz does not exist"),
        ([C.update_column_type("p", "INT")], "Cannot update partition column: [p]",
         "Cannot update partition column: [p]"),
        ([C.update_column_type("s", "DATE"), C.update_column_type("s", "BYTES")],
         "cannot be converted to BYTES", "cannot be converted to BYTES"),
        ([C.update_column_nullability("b", False)], "from nullable to non nullable",
         "from nullable to non nullable"),
        ([C.set_option("row-tracking.enabled", "false")],
         "Change 'row-tracking.enabled' is not supported yet.",
         "Change 'row-tracking.enabled' is not supported yet."),
        ([C.set_option("bucket", "2")], "Cannot change bucket when it is -1.",
         "Cannot change bucket when it is -1."),
        ([C.add_column("_ROW_ID", "BIGINT")], "_ROW_ID", "_ROW_ID"),
        ([C.update_column_position(Move.after("b", "b"))], "Cannot move itself for column b",
         "Cannot move itself for column b"),
    ]


def _schema_files(warehouse, name):
    return sorted(os.listdir(os.path.join(str(warehouse), "db.db", name, "schema")))


def test_java_refuses_what_we_refuse(java, warehouse):
    """Every refusal of ours on a table with a snapshot is a refusal in Java too, neither
    writes a schema file."""
    table = create_table(warehouse, "ours", SCHEMA, DE, partition_keys=["p"])
    write(table, _data(0, 2))
    cat = catalog(warehouse)
    java.run_all([java.create_table_cmd(warehouse, "db.java", JAVA_FIELDS, partition_keys=["p"],
                                        options=DE),
                  java.write_cmd(warehouse, "db.java", _neutral_dicts(_data(0, 2)))])
    refusals = _refusals()
    results = java.run_batch([java.alter_cmd(warehouse, "db.java", changes)
                              for changes, _, _ in refusals])
    for (changes, ours_words, java_words), result in zip(refusals, results):
        with pytest.raises(RuntimeError) as info:
            cat.alter_table("db.ours", changes)
        assert ours_words in str(info.value)
        assert isinstance(result, JavaOracleError), (changes, result)
        assert java_words in result.message, (changes, result.message)
    assert _schema_files(warehouse, "ours") == ["schema-0"]
    assert _schema_files(warehouse, "java") == ["schema-0"]


def test_changes_java_accepts_and_we_refuse_as_pypaimon(java, warehouse):
    """Java 1.4.2 takes ``target-file-row-num = 0`` and changing or removing ``type`` (the
    table becomes a format table) even with snapshots; we refuse them with pypaimon's
    messages (docs/schema-evolution.md)."""
    from paimon_rowid.schema.schema_change import SchemaChange as C
    table = create_table(warehouse, "ours", SCHEMA, DE, partition_keys=["p"])
    write(table, _data(0, 2))
    cat = catalog(warehouse)
    cases = [(C.set_option("target-file-row-num", "0"), "target-file-row-num should be at least 1"),
             (C.set_option("type", "format-table"), "Change 'type' is not supported yet."),
             (C.remove_option("type"), "Change 'type' is not supported yet.")]
    setup = [java.create_table_cmd(warehouse, "db.java", JAVA_FIELDS, partition_keys=["p"],
                                   options=DE),
             java.write_cmd(warehouse, "db.java", _neutral_dicts(_data(0, 2)))]
    results = java.run_all(setup + [java.alter_cmd(warehouse, "db.java", [change])
                                    for change, _ in cases])[len(setup):]
    assert [r["schema_id"] for r in results] == [1, 2, 3]
    for change, message in cases:
        with pytest.raises(RuntimeError, match=message):
            cat.alter_table("db.ours", [change])
    assert _schema_files(warehouse, "ours") == ["schema-0"]
