"""The Python layer's wiring over a stand-in native module (catalogs, tables, plans and reads
are faked; the pure type-mapping and row-range functions are the real module's): option
normalisation, projection rules, how predicates and row ranges reach
``_native.plan`` / ``_native.read``, and the Arrow stream / iterator / pandas outputs."""
from __future__ import annotations

import importlib
import json
import pickle
import types

import pyarrow as pa
import pytest

import paimon_rowid
from paimon_rowid import CatalogFactory, Range, Schema, _lib

SCHEMA = Schema.from_pyarrow_schema(pa.schema([
    pa.field("id", pa.int64(), nullable=False), ("s", pa.string()), ("p", pa.int32())]),
    partition_keys=["p"], options={"row-tracking.enabled": "true",
                                   "data-evolution.enabled": "true"})
DATA = pa.table({"id": pa.array([0, 1, 2, 3], pa.int64()), "s": ["a", None, "c", "d"],
                 "p": pa.array([1, 1, 2, 2], pa.int32()),
                 "_ROW_ID": pa.array([0, 1, 2, 3], pa.int64()),
                 "_SEQUENCE_NUMBER": pa.array([1, 1, 1, 1], pa.int64())})


class FakeSplit:
    def __init__(self, rows, row_ranges=None):
        self.rows, self.row_ranges = rows, row_ranges
        self.row_count, self.file_paths, self.partition = len(rows), ["f.parquet"], {"p": 1}

    def serialize(self):
        return json.dumps([self.rows, self.row_ranges]).encode()

    @staticmethod
    def deserialize(data):
        rows, ranges = json.loads(data)
        return FakeSplit(rows, ranges and [tuple(r) for r in ranges])


def make_fake(calls):
    fake = types.ModuleType("paimon_rowid._native")
    fake.registered = None
    # Pure functions the Python layer delegates to (the type mapping, predicate -> row
    # ranges) come from the real module; the fake stands in for tables, plans and reads.
    real = importlib.import_module("paimon_rowid._native")
    fake.__getattr__ = lambda name: getattr(real, name)

    def register_error_classes(classes):
        fake.registered = classes

    class Table:
        def __init__(self, identifier, options):
            self.identifier, self.path, self._options = identifier, "/wh/db.db/t", options

        def schema_json(self):
            return SCHEMA.to_table_schema_json()

        def options(self):
            return dict(self._options)

        def copy(self, overrides):
            calls.append(("copy", overrides))
            options = dict(self._options)
            for key, value in overrides.items():
                if value is None:
                    options.pop(key, None)
                else:
                    options[key] = value
            return Table(self.identifier, options)

        def latest_snapshot(self):
            return {"id": 3}

        def resolve_snapshot(self):
            return {"id": int(self._options.get("scan.snapshot-id", 3))}

    class Catalog:
        def __init__(self, options):
            calls.append(("catalog", options))
            self.warehouse = options["warehouse"]

        def get_table(self, identifier):
            return Table(identifier, dict(SCHEMA.options))

        def create_table(self, identifier, schema_json, ignore):
            calls.append(("create_table", identifier, json.loads(schema_json), ignore))

    class Plan:
        def __init__(self, splits):
            self._splits, self.snapshot_id = splits, 3

        def splits(self):
            return list(self._splits)

    def plan(table, predicate, row_ranges):
        calls.append(("plan", predicate, row_ranges))
        return Plan([FakeSplit([0, 1], row_ranges), FakeSplit([2, 3])])

    def read(table, splits, read_fields, predicate, limit, threads=1, whole=False):
        # A stream capsule also for ``whole``: _arrow.whole_table reads one like a stream.
        calls.append(("read", list(read_fields), predicate, limit, threads))
        rows = sorted(r for s in splits for r in s.rows)
        data = DATA.take(pa.array(rows, pa.int64())).select(list(read_fields))
        if limit is not None:
            data = data.slice(0, limit)
        return data.__arrow_c_stream__()

    def read_schema(table, read_fields):
        return DATA.select(list(read_fields)).schema.__arrow_c_schema__()

    fake.register_error_classes, fake.Table, fake.Catalog = register_error_classes, Table, Catalog
    fake.plan, fake.read, fake.read_schema, fake.Split = plan, read, read_schema, FakeSplit
    return fake


@pytest.fixture
def calls(monkeypatch):
    log = []
    fake = make_fake(log)
    monkeypatch.setitem(__import__("sys").modules, "paimon_rowid._native", fake)
    monkeypatch.setattr(paimon_rowid, "_native", fake, raising=False)
    monkeypatch.setattr(_lib, "_module", None)
    yield log
    assert fake.registered["TableNotExist"] is paimon_rowid.TableNotExistException


@pytest.fixture
def table(calls):
    return CatalogFactory.create({"warehouse": "/wh", "x": 1, "flag": True}).get_table("db.t")


def test_catalog_options_and_create_table(calls):
    catalog = CatalogFactory.create({"warehouse": "/wh", "x": 1, "flag": True})
    assert calls[0] == ("catalog", {"warehouse": "/wh", "x": "1", "flag": "true"})
    catalog.create_table("db.t", SCHEMA, True)
    _, identifier, schema_json, ignore = calls[-1]
    assert identifier == "db.t" and ignore is True
    assert schema_json["fields"][0] == {"id": 0, "name": "id", "type": "BIGINT NOT NULL"}
    with pytest.raises(TypeError):
        catalog.create_table("db.t", SCHEMA.to_arrow(), True)


def test_table_properties(table):
    assert table.field_names == ["id", "s", "p"] and table.partition_keys == ["p"]
    assert table.data_evolution_enabled and table.row_tracking_enabled
    assert table.arrow_schema == DATA.select(["id", "s", "p"]).schema
    assert table.latest_snapshot() == {"id": 3}


def test_copy_normalises_values(table, calls):
    copied = table.copy({"scan.snapshot-id": 2, "a": None, "b": False})
    assert calls[-1] == ("copy", {"scan.snapshot-id": "2", "a": None, "b": "false"})
    assert copied.resolve_snapshot() == {"id": 2}


def test_projection_rules(table):
    rb = table.new_read_builder()
    assert [f.name for f in rb.read_type()] == ["id", "s", "p"]
    # Unknown names are refused (pypaimon drops them silently; docs/python-api.md).
    with pytest.raises(ValueError, match=r"unknown column\(s\) \['nope'\]"):
        rb.with_projection(["_SEQUENCE_NUMBER", "nope", "s"])
    rb.with_projection(["_SEQUENCE_NUMBER", "s", "_ROW_ID", "s"])
    assert [f.name for f in rb.read_type()] == ["_SEQUENCE_NUMBER", "s", "_ROW_ID"]
    with pytest.raises(ValueError, match=r"The field id is not in field list"):
        rb.new_predicate_builder().equal("id", 1)
    assert rb.with_projection(None).read_type()[0].name == "id"


def test_filter_and_row_ranges_reach_native(table, calls):
    rb = table.new_read_builder().with_projection(["id", "_ROW_ID"])
    pb = rb.new_predicate_builder()
    same = rb.with_filter(pb.and_predicates([pb.between("_ROW_ID", 0, 10),
                                             pb.greater_than("id", 0)]))
    assert same is rb
    scan = rb.new_scan().with_row_ranges([Range(5, 6), (0, 3), (4, 4), (20, 30)])
    plan = scan.plan()
    kind, predicate, ranges = calls[-1]
    assert ranges == [(0, 6)]  # explicit ranges (merged) AND the _ROW_ID predicate's [0, 10]
    assert predicate[0] == "and" and predicate[1][1][:3] == ("leaf", "greater_than", "id")
    literals = pa.array(predicate[1][1][3])
    assert literals.type == pa.int64() and literals.to_pylist() == [0]
    assert plan.snapshot_id == 3 and plan.splits()[0].row_ranges == [Range(0, 6)]
    result = rb.new_read().to_arrow(plan.splits())
    kind, fields, predicate, limit, threads = calls[-1]
    assert kind == "read" and fields == ["id", "_ROW_ID"] and predicate[0] == "and"
    assert result.column_names == ["id", "_ROW_ID"] and result.num_rows == 4
    # to_arrow materializes: groups on one thread per core; streaming reads one at a time.
    assert threads == 0
    rb.new_read().to_arrow_batch_reader(plan.splits()).read_all()
    assert calls[-1][-1] == 1


def test_row_id_predicate_alone_becomes_ranges(table, calls):
    rb = table.new_read_builder()
    pb = rb.with_projection(["_ROW_ID"]).new_predicate_builder()
    rb.with_filter(pb.is_in("_ROW_ID", [3, 1, 2])).new_scan().plan()
    assert calls[-1][2] == [(1, 3)]
    rb.with_filter(pb.greater_than("_ROW_ID", 1)).new_scan().plan()
    assert calls[-1][2] is None


def test_row_range_errors(table):
    scan = table.new_read_builder().new_scan()
    with pytest.raises(ValueError, match="^row_ranges cannot be None$"):
        scan.with_row_ranges(None)
    with pytest.raises(ValueError, match=r"^Invalid range: from \(3\) > to \(2\)$"):
        scan.with_row_ranges([(3, 2)])
    plain = table.copy({"data-evolution.enabled": None})
    with pytest.raises(ValueError, match="^Row ranges are only supported for data evolution "
                                         "tables$"):
        plain.new_read_builder().new_scan().with_row_ranges([])


def test_outputs(table, calls):
    rb = table.new_read_builder().with_projection(["id", "s"]).with_limit(3)
    splits = rb.new_scan().plan().splits()
    read = rb.new_read()
    assert read.to_arrow(splits).to_pydict() == {"id": [0, 1, 2], "s": ["a", None, "c"]}
    assert calls[-1][3] == 3
    reader = read.to_arrow_batch_reader(splits)
    assert isinstance(reader, pa.RecordBatchReader) and reader.read_all().num_rows == 3
    assert read.to_pandas(splits)["id"].tolist() == [0, 1, 2]
    rows = list(read.to_iterator(splits))
    assert rows == [(0, "a"), (1, None), (2, "c")]
    assert rows[1].get_field(1) is None and rows[2].as_dict() == {"id": 2, "s": "c"}
    with pytest.raises(TypeError):
        read.to_arrow([object()])
    with pytest.raises(ValueError):
        rb.with_limit(-1)


def test_split_pickles(table):
    split = table.new_read_builder().new_scan().plan().splits()[1]
    copy = pickle.loads(pickle.dumps(split))
    assert copy.row_count == 2 and copy.file_paths == ["f.parquet"] and copy.partition == {"p": 1}
