"""``paimon_rowid.ray.range_join``: the embedded join's results on Ray, lazily, one block per
range; validations raise at the call with pypaimon's types and words."""
from __future__ import annotations

import pyarrow as pa
import pytest

from ours import create_table, write

pytestmark = pytest.mark.native

APPEND = {"bucket": "-1"}


def _opts(warehouse):
    return {"warehouse": str(warehouse)}


def _rows(table: pa.Table):
    cols = [table[name].to_pylist() for name in table.column_names]
    return sorted(zip(*cols), key=repr) if cols else []


def _dataset_table(ds) -> pa.Table:
    import ray
    return pa.concat_tables(ray.get(ds.to_arrow_refs()))


@pytest.fixture
def tables(warehouse):
    ls = pa.schema([("k", pa.int64()), ("a", pa.string())])
    rs = pa.schema([("rk", pa.int64()), ("b", pa.float64())])
    left = create_table(warehouse, "l", ls, APPEND)
    right = create_table(warehouse, "r", rs, APPEND)
    for i in range(4):
        ks = list(range(i * 50, i * 50 + 50))
        write(left, pa.table({"k": ks, "a": [f"a{k}" for k in ks]}, schema=ls))
        rks = ks[::2] + ks[:3]
        write(right, pa.table({"rk": rks, "b": [k / 2 for k in rks]}, schema=rs))
    return warehouse


def test_ray_matches_embedded(ray_session, tables):
    import paimon_rowid
    import paimon_rowid.ray as pray
    expected = _rows(paimon_rowid.range_join("db.l", "db.r", _opts(tables), left_on="k",
                                             right_on="rk", num_ranges=1))
    assert len(expected) == 112
    for n in (None, 1, 3):
        ds = pray.range_join("db.l", "db.r", _opts(tables), left_on="k", right_on="rk",
                             num_ranges=n, ray_remote_args={"num_cpus": 1})
        assert isinstance(ds, ray_session.data.Dataset)
        out = _dataset_table(ds)
        assert out.column_names == ["k", "a", "b"]
        assert _rows(out) == expected
    # One block per range (default: four splits per side -> several ranges).
    ds = pray.range_join("db.l", "db.r", _opts(tables), left_on="k", right_on="rk")
    assert ds.materialize().num_blocks() > 1


def test_ray_empty_is_typed(ray_session, warehouse):
    import paimon_rowid.ray as pray
    create_table(warehouse, "l", pa.schema([("k", pa.int64()), ("a", pa.string())]), APPEND)
    create_table(warehouse, "r", pa.schema([("k", pa.int64()), ("b", pa.int32())]), APPEND)
    ds = pray.range_join("db.l", "db.r", _opts(warehouse), on="k")
    assert ds.count() == 0
    assert ds.schema().names == ["k", "a", "b"]


def test_ray_validation_raises_at_the_call(ray_session, tables):
    import paimon_rowid.ray as pray
    with pytest.raises(ValueError) as info:
        pray.range_join("db.l", "db.r", _opts(tables), on="k", join_type="outer")
    assert str(info.value) == "range_join currently supports only join_type='inner'; got 'outer'."
    with pytest.raises(ValueError) as info:
        pray.range_join("db.l", "db.r", _opts(tables), left_on="k", right_on="rk", num_ranges=0)
    assert str(info.value) == "num_ranges must be an int >= 1; got 0."
    with pytest.raises(ValueError, match="keys not found in table schema: \\['k'\\]"):
        pray.range_join("db.l", "db.r", _opts(tables), on="k")


def test_ray_is_lazy_and_worker_errors_keep_their_type(ray_session, tables):
    """Nothing is read at the call; a schema that moves before the Dataset is consumed fails
    the range tasks with pypaimon's "schema changed" ValueError (a ValueError on Ray too)."""
    import json
    import os

    import paimon_rowid.ray as pray
    ds = pray.range_join("db.l", "db.r", _opts(tables), left_on="k", right_on="rk",
                         num_ranges=2)
    schema_dir = os.path.join(tables, "db.db", "l", "schema")
    with open(os.path.join(schema_dir, "schema-0")) as f:
        schema = json.load(f)
    schema["id"] = 1
    with open(os.path.join(schema_dir, "schema-1"), "w") as f:
        json.dump(schema, f)
    with pytest.raises(ValueError) as info:
        ds.materialize()
    assert "db.l schema changed during range_join (planned 0, now 1); retry." in str(info.value)


def test_ray_needs_from_arrow_refs(ray_session, tables, monkeypatch):
    import ray.data

    import paimon_rowid.ray as pray
    monkeypatch.delattr(ray.data, "from_arrow_refs")
    with pytest.raises(RuntimeError) as info:
        pray.range_join("db.l", "db.r", _opts(tables), on="k", join_type="outer")
    assert str(info.value) == ("range_join needs a Ray version with ray.data.from_arrow_refs; "
                               f"installed ray is {ray_session.__version__}.")
