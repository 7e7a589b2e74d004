"""Schema: Arrow <-> Paimon type mapping, field ids, TableSchema JSON (pure Python), plus one
oracle check that pypaimon assigns the same ids and types to the same Arrow schema."""
import json
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_rowid import DataType, Schema, TableSchema
from paimon_rowid.schema import highest_field_id


def _types(pa_schema):
    return [f.type.json for f in Schema.from_pyarrow_schema(pa_schema).fields]


@pytest.mark.parametrize("arrow_type,paimon", [
    (pa.bool_(), "BOOLEAN"), (pa.int8(), "TINYINT"), (pa.int16(), "SMALLINT"),
    (pa.int32(), "INT"), (pa.int64(), "BIGINT"), (pa.float32(), "FLOAT"),
    (pa.float64(), "DOUBLE"), (pa.string(), "STRING"), (pa.large_string(), "STRING"),
    (pa.binary(), "BYTES"), (pa.large_binary(), "BLOB"), (pa.binary(16), "BINARY(16)"),
    (pa.decimal128(10, 2), "DECIMAL(10, 2)"), (pa.decimal128(38, 18), "DECIMAL(38, 18)"),
    (pa.date32(), "DATE"), (pa.time32("ms"), "TIME(0)"), (pa.time64("us"), "TIME(0)"),
    (pa.timestamp("s"), "TIMESTAMP(0)"), (pa.timestamp("ms"), "TIMESTAMP(3)"),
    (pa.timestamp("us"), "TIMESTAMP(6)"), (pa.timestamp("ns"), "TIMESTAMP(9)"),
    (pa.timestamp("ms", tz="UTC"), "TIMESTAMP(3) WITH LOCAL TIME ZONE"),
    (pa.timestamp("us", tz="Europe/Paris"), "TIMESTAMP(6) WITH LOCAL TIME ZONE"),
])
def test_atomic_mapping(arrow_type, paimon):
    nullable, not_null = _types(pa.schema([pa.field("a", arrow_type),
                                           pa.field("b", arrow_type, nullable=False)]))
    assert nullable == paimon
    assert not_null == paimon + " NOT NULL"


def test_nested_mapping_java_json_form():
    got = _types(pa.schema([
        ("arr", pa.list_(pa.field("item", pa.int32(), nullable=False))),
        ("big", pa.large_list(pa.string())),
        ("m", pa.map_(pa.string(), pa.float64())),
        pa.field("vec", pa.list_(pa.float32(), 8), nullable=False),
        ("variant", pa.struct([pa.field("value", pa.binary(), nullable=False),
                               pa.field("metadata", pa.binary(), nullable=False)])),
    ]))
    assert got[0] == {"type": "ARRAY", "element": "INT NOT NULL"}
    assert got[1] == {"type": "ARRAY", "element": "STRING"}
    assert got[2] == {"type": "MAP", "key": "STRING NOT NULL", "value": "DOUBLE"}
    assert got[3] == {"type": "VECTOR NOT NULL", "element": "FLOAT", "length": 8}
    assert got[4] == "VARIANT"


@pytest.mark.parametrize("arrow_type", [pa.uint8(), pa.uint64(), pa.date64(), pa.null(),
                                        pa.dictionary(pa.int32(), pa.string())])
def test_unsupported_types(arrow_type):
    with pytest.raises(ValueError, match="Unsupported pyarrow type"):
        Schema.from_pyarrow_schema(pa.schema([("a", arrow_type)]))


def test_field_ids_nested_depth_first_children_first():
    schema = Schema.from_pyarrow_schema(pa.schema([
        ("a", pa.int32()),
        ("s", pa.struct([("x", pa.int32()), ("y", pa.struct([("z", pa.string())]))])),
        ("l", pa.list_(pa.struct([("q", pa.int8())]))),
        ("b", pa.int64()),
    ]))
    assert [f.id for f in schema.fields] == [0, 1, 5, 7]
    s_type = schema.fields[1].type.json
    assert [(f["name"], f["id"]) for f in s_type["fields"]] == [("x", 2), ("y", 4)]
    assert s_type["fields"][1]["type"]["fields"][0]["id"] == 3
    assert schema.fields[2].type.json["element"]["fields"][0]["id"] == 6
    assert highest_field_id(schema.fields) == 7
    assert str(schema.fields[1].type) == "ROW<x INT, y ROW<z STRING>>"


def test_table_schema_json():
    pa_schema = pa.schema([pa.field("id", pa.int64(), nullable=False,
                                    metadata={b"description": b"primary id"}),
                           ("p", pa.string()), ("v", pa.list_(pa.float32(), 4))])
    schema = Schema.from_pyarrow_schema(pa_schema, partition_keys=["p"],
                                        options={"row-tracking.enabled": True, "bucket": -1},
                                        comment="hello")
    data = json.loads(schema.to_table_schema_json())
    assert data["version"] == 3 and data["id"] == 0
    assert data["fields"][0] == {"id": 0, "name": "id", "type": "BIGINT NOT NULL",
                                 "description": "primary id"}
    assert data["fields"][2]["type"] == {"type": "VECTOR", "element": "FLOAT", "length": 4}
    assert data["highestFieldId"] == 2
    assert data["partitionKeys"] == ["p"] and data["primaryKeys"] == []
    assert data["options"] == {"row-tracking.enabled": "true", "bucket": "-1"}
    assert data["comment"] == "hello" and isinstance(data["timeMillis"], int)
    no_comment = json.loads(Schema.from_pyarrow_schema(pa_schema).to_table_schema_json())
    assert "comment" not in no_comment

    parsed = TableSchema.from_json(schema.to_table_schema_json())
    assert parsed.fields == schema.fields
    assert parsed.partition_keys == ["p"] and parsed.comment == "hello"
    assert parsed.to_schema().to_arrow() == schema.to_arrow()


def test_schema_validation():
    with pytest.raises(ValueError, match="duplicate"):
        Schema.from_pyarrow_schema(pa.schema([("a", pa.int32()), ("a", pa.int64())]))
    with pytest.raises(ValueError, match="partition key"):
        Schema.from_pyarrow_schema(pa.schema([("a", pa.int32())]), partition_keys=["b"])
    with pytest.raises(TypeError):
        Schema.from_pyarrow_schema({"a": "int"})
    with pytest.raises(ValueError, match="has no value"):
        Schema.from_pyarrow_schema(pa.schema([("a", pa.int32())]), options={"x": None})


@pytest.mark.parametrize("paimon,arrow_type", [
    ("BOOLEAN", pa.bool_()), ("INTEGER", pa.int32()), ("VARCHAR(10)", pa.string()),
    ("CHAR(3)", pa.string()), ("VARBINARY(9)", pa.binary()), ("BINARY(4)", pa.binary()),
    ("DECIMAL", pa.decimal128(10, 0)), ("DECIMAL(20)", pa.decimal128(20, 0)),
    ("DECIMAL(38, 9) NOT NULL", pa.decimal128(38, 9)), ("TIMESTAMP", pa.timestamp("us")),
    ("TIMESTAMP(2)", pa.timestamp("ms")), ("TIMESTAMP(7)", pa.timestamp("ns")),
    ("TIMESTAMP(0)", pa.timestamp("s")),
    ("TIMESTAMP(3) WITH LOCAL TIME ZONE", pa.timestamp("ms", tz="UTC")),
    ("TIMESTAMP_LTZ(6)", pa.timestamp("us", tz="UTC")), ("TIME", pa.time32("ms")),
    ("TIME(3)", pa.time32("ms")), ("DATE", pa.date32()), ("BLOB", pa.large_binary()),
    ({"type": "MAP<STRING, INT>", "key": "STRING NOT NULL", "value": "INT", "nullable": True},
     pa.map_(pa.field("key", pa.string(), nullable=False), pa.int32())),
    ({"type": "ARRAY NOT NULL", "element": "BIGINT NOT NULL"},
     pa.list_(pa.field("item", pa.int64(), nullable=False))),
    ({"type": "VECTOR", "element": "FLOAT", "length": 3}, pa.list_(pa.float32(), 3)),
    ({"type": "ROW", "fields": [{"id": 5, "name": "x", "type": "INT NOT NULL"}]},
     pa.struct([pa.field("x", pa.int32(), nullable=False)])),
])
def test_paimon_to_arrow(paimon, arrow_type):
    assert DataType(paimon).to_arrow() == arrow_type


def test_data_type_properties():
    assert DataType("BIGINT NOT NULL").nullable is False
    assert DataType({"type": "ARRAY NOT NULL", "element": "INT"}).nullable is False
    assert DataType("TIMESTAMP(3) WITH LOCAL TIME ZONE").root == "TIMESTAMP_LTZ"
    assert DataType("DECIMAL(5, 2)").root == "DECIMAL"
    assert DataType("INT").copy(nullable=False) == DataType("INT NOT NULL")
    assert str(DataType({"type": "MAP", "key": "STRING NOT NULL", "value": "INT"})) == \
        "MAP<STRING NOT NULL, INT>"


def test_to_json_is_a_deep_copy():
    nested = {"type": "ROW", "fields": [{"id": 0, "name": "a", "type": {
        "type": "ARRAY", "element": "INT"}}]}
    dt = DataType(nested)
    out = dt.to_json()
    assert out == nested
    out["fields"][0]["type"]["element"] = "STRING"  # the copy's innermost level
    assert dt.json["fields"][0]["type"]["element"] == "INT"
    assert DataType("INT").to_json() == "INT"


def test_round_trip_arrow_paimon_arrow():
    pa_schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False), ("f", pa.float32()),
        ("dec", pa.decimal128(30, 4)), ("ts", pa.timestamp("ns")),
        ("ltz", pa.timestamp("us", tz="UTC")), ("d", pa.date32()), ("t", pa.time32("ms")),
        ("arr", pa.list_(pa.string())), ("m", pa.map_(pa.int32(), pa.list_(pa.int64()))),
        ("row", pa.struct([("a", pa.int8()), pa.field("b", pa.binary(), nullable=False)])),
        ("blob", pa.large_binary()), ("vec", pa.list_(pa.float32(), 2)),
    ])
    assert Schema.from_pyarrow_schema(pa_schema).to_arrow() == pa_schema


ORACLE_SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False), ("i8", pa.int8()), ("dec", pa.decimal128(20, 3)),
    ("ts", pa.timestamp("ms")), ("ltz", pa.timestamp("us", tz="UTC")), ("t", pa.time32("ms")),
    ("s", pa.struct([("x", pa.int32()), ("y", pa.struct([("z", pa.string())]))])),
    ("arr", pa.list_(pa.struct([("q", pa.int8())]))), ("m", pa.map_(pa.string(), pa.int64())),
    ("vec", pa.list_(pa.float32(), 3)), ("blob", pa.large_binary()), ("p", pa.string()),
])


@pytest.mark.oracle
def test_same_schema_as_pypaimon(oracle, warehouse):
    """pypaimon's schema-0 for the same Arrow schema has the same ids, names and types (its
    JSON differs only in spelling: 'nullable' keys, 'MAP<K, V>' heads, TIMESTAMP_LTZ(p))."""
    oracle.create_table(warehouse, "db.t", ORACLE_SCHEMA, partition_keys=["p"],
                        options={"row-tracking.enabled": "true",
                                 "data-evolution.enabled": "true"})
    theirs = TableSchema.from_json(
        (Path(warehouse) / "db.db" / "t" / "schema" / "schema-0").read_text())
    ours = Schema.from_pyarrow_schema(ORACLE_SCHEMA, partition_keys=["p"]).to_table_schema()

    def norm(fields):
        return [(f.id, f.name, f.nullable, f.type.to_arrow(), _nested_ids(f.type.json))
                for f in fields]

    assert norm(ours.fields) == norm(theirs.fields)
    assert ours.highest_field_id == theirs.highest_field_id
    assert ours.partition_keys == theirs.partition_keys
    assert [str(f.type).replace("TIMESTAMP_LTZ(6)", "TIMESTAMP(6) WITH LOCAL TIME ZONE")
            for f in theirs.fields if isinstance(f.type.json, str)] == \
        [str(f.type) for f in ours.fields if isinstance(f.type.json, str)]


def _nested_ids(type_json):
    if not isinstance(type_json, dict):
        return []
    out = []
    for f in type_json.get("fields", []) or []:
        out.append((f["id"], f["name"]))
        out.extend(_nested_ids(f["type"]))
    for key in ("element", "key", "value"):
        if key in type_json:
            out.extend(_nested_ids(type_json[key]))
    return out


def test_unsupported_types_name_the_innermost_type():
    with pytest.raises(ValueError, match=r"^Unsupported pyarrow type: uint16$"):
        Schema.from_pyarrow_schema(pa.schema([("a", pa.struct([("x", pa.list_(pa.uint16()))]))]))
    with pytest.raises(ValueError, match=r"^Unsupported pyarrow type: extension<arrow.uuid>$"):
        Schema.from_pyarrow_schema(pa.schema([("u", pa.uuid())]))

    class Tensor(pa.ExtensionType):  # unknown to C++: crosses as storage + field metadata
        def __init__(self):
            super().__init__(pa.list_(pa.float32()), "test.tensor")

        def __arrow_ext_serialize__(self):
            return b""

        @classmethod
        def __arrow_ext_deserialize__(cls, storage_type, serialized):
            return Tensor()

    with pytest.raises(ValueError, match=r"^Unsupported pyarrow type: extension<test.tensor>$"):
        Schema.from_pyarrow_schema(pa.schema([("t", pa.map_(pa.string(), Tensor()))]))


def test_paimon_to_arrow_errors():
    with pytest.raises(ValueError, match="^Unsupported data type: 'NOPE'$"):
        DataType("NOPE").to_arrow()
    # Heads of nested types are matched in any case.
    assert DataType({"type": "array not null", "element": "int"}).to_arrow() == \
        pa.list_(pa.int32())


def test_names_cross_to_the_native_mapping_intact():
    # Names keep NUL bytes (the catalog refuses them later, naming the problem).
    schema = Schema.from_pyarrow_schema(pa.schema([("a\0b", pa.struct([("x\0y", pa.int8())]))]))
    assert schema.fields[0].name == "a\0b"
    assert schema.fields[0].type.json["fields"][0]["name"] == "x\0y"
