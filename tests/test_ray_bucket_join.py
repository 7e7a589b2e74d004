"""paimon_rowid.ray.bucket_join: lazy read tasks (and small joins on the driver); results
against pypaimon's reads joined with pyarrow; pypaimon's checks; empties; nested payloads;
worker errors keep their type."""
from __future__ import annotations

import pyarrow as pa
import pytest

from bucket_tables import (
    LEFT_SCHEMA,
    NESTED_LEFT,
    NESTED_RIGHT,
    RIGHT_SCHEMA,
    left_rows,
    make_table,
    nested_rows,
    pyarrow_join,
    reference_join,
    right_rows,
    row_set,
)
from test_bucket_join import CASES, make_validation_tables, validation_call

pytestmark = pytest.mark.native


@pytest.fixture(autouse=True)
def _distributed(monkeypatch):
    """These tests exercise the read tasks: no join is small enough for the driver."""
    from paimon_rowid.ray import joins
    monkeypatch.setattr(joins, "DRIVER_JOIN_MAX_ROWS", -1)


def _collect(ds) -> pa.Table:
    import ray
    blocks = [b for b in ray.get(ds.to_arrow_refs()) if b.num_rows]
    schema = ds.schema()
    if not blocks:
        return pa.schema(list(zip(schema.names, schema.types))).empty_table()
    return pa.concat_tables(blocks)


@pytest.fixture
def pair(oracle, warehouse):
    make_table(oracle, warehouse, "db.l", LEFT_SCHEMA, [left_rows(), left_rows(20, offset=3)])
    make_table(oracle, warehouse, "db.r", RIGHT_SCHEMA, [right_rows()])
    return warehouse


def test_ray_matches_pypaimon_reads_joined(ray_session, oracle, pair):
    from paimon_rowid import bucket_join as embedded
    from paimon_rowid.ray import bucket_join
    ds = bucket_join("db.l", "db.r", {"warehouse": pair}, on="k",
                     ray_remote_args={"num_cpus": 1})
    out = _collect(ds)
    lt, rt = oracle.read(pair, "db.l"), oracle.read(pair, "db.r")
    assert out.column_names == ["k", "a", "b"]
    assert row_set(out) == pyarrow_join(lt, rt, ["k"]) == reference_join(lt, rt, ["k"])
    assert row_set(out) == row_set(embedded("db.l", "db.r", {"warehouse": pair}, on="k"))
    assert ds.count() == out.num_rows


def test_ray_projection_and_nested_payloads(ray_session, oracle, warehouse):
    from paimon_rowid.ray import bucket_join
    lrows, rrows = nested_rows()
    make_table(oracle, warehouse, "db.l", NESTED_LEFT, [lrows])
    make_table(oracle, warehouse, "db.r", NESTED_RIGHT, [rrows])
    lt, rt = oracle.read(warehouse, "db.l"), oracle.read(warehouse, "db.r")
    out = _collect(bucket_join("db.l", "db.r", {"warehouse": warehouse}, on="k"))
    assert out.column_names == ["k", "arr", "m", "row", "vec", "blobish"]
    assert row_set(out) == reference_join(lt, rt, ["k"])
    out = _collect(bucket_join("db.l", "db.r", {"warehouse": warehouse}, on="k",
                               left_projection=["row", "k"], right_projection=["k", "vec"]))
    assert out.column_names == ["row", "k", "vec"]
    assert row_set(out) == reference_join(lt.select(["row", "k"]), rt.select(["k", "vec"]),
                                          ["k"])


def test_ray_empty_results_are_typed(ray_session, oracle, warehouse):
    from paimon_rowid.ray import bucket_join
    make_table(oracle, warehouse, "db.l", LEFT_SCHEMA, [left_rows()])
    make_table(oracle, warehouse, "db.e", RIGHT_SCHEMA, [])
    ds = bucket_join("db.l", "db.e", {"warehouse": warehouse}, on="k")
    assert ds.count() == 0
    assert ds.schema().names == ["k", "a", "b"]
    # Buckets on both sides but no equal key: every task yields a typed empty block.
    make_table(oracle, warehouse, "db.n", RIGHT_SCHEMA,
               [pa.table({"b": [1, 2, 3], "k": [1000, 1001, 1002]}, schema=RIGHT_SCHEMA)])
    ds = bucket_join("db.l", "db.n", {"warehouse": warehouse}, on="k")
    assert ds.count() == 0
    assert ds.schema().names == ["k", "a", "b"]


def test_ray_schema_change_keeps_its_type(ray_session, oracle, pair):
    """The Dataset is lazy (created before the schema change, it fails only when consumed)
    and the schema-drift check raises a plain ValueError with pypaimon's message (pypaimon
    raises it from the call, wrapped in a RayTaskError)."""
    from paimon_rowid.ray import bucket_join
    from test_bucket_join import _schema_ipc
    ds = bucket_join("db.l", "db.r", {"warehouse": pair}, on="k")
    oracle.run({"cmd": "add_columns", "warehouse": pair, "identifier": "db.l",
                "schema_ipc": _schema_ipc(oracle, pa.schema([("extra", pa.string())]))})
    with pytest.raises(ValueError, match=r"db\.l schema changed during bucket_join "
                                         r"\(planned 0, now 1\); retry\.") as info:
        ds.take_all()
    # Ray plans the read on the driver when the Dataset is consumed; the check runs there
    # first, so the caller gets the plain ValueError (Ray Data chains its own cause to it).
    assert type(info.value) is ValueError
    assert str(info.value) == "db.l schema changed during bucket_join (planned 0, now 1); retry."


@pytest.fixture(scope="module")
def validation_warehouse(oracle, tmp_path_factory):
    warehouse = str(tmp_path_factory.mktemp("ray-bucket-join-checks"))
    make_validation_tables(oracle, warehouse)
    return warehouse


@pytest.mark.parametrize("case", list(CASES))
def test_ray_checks(ray_session, validation_warehouse, case):
    from paimon_rowid.ray import bucket_join
    left, right, kwargs = validation_call(case)
    with pytest.raises(ValueError) as info:
        bucket_join(left, right, {"warehouse": validation_warehouse}, **kwargs)
    assert type(info.value) is ValueError
    assert str(info.value) == CASES[case]


def test_buckets_are_spread_over_the_tasks_largest_first():
    """The Ray join packs the common buckets into at most num_tasks read tasks, balancing
    the planned rows (largest bucket first, to the least loaded task)."""
    from types import SimpleNamespace

    from paimon_rowid.ray.joins import assign_buckets
    sizes = {0: 100, 1: 10, 2: 60, 3: 50, 5: 40}
    side = SimpleNamespace(rows=lambda b: sizes[b])
    plan = SimpleNamespace(buckets=sorted(sizes), left=side, right=side)
    tasks = assign_buckets(plan, 2)
    assert sorted(b for t in tasks for b in t) == sorted(sizes)
    assert len(tasks) == 2
    # 100 | 60, 50 | 40 (to the 100) | 10 (to the 110): loads 140 and 120.
    assert tasks == [[0, 5], [1, 2, 3]]
    # More tasks than buckets: one bucket per task.
    assert sorted(assign_buckets(plan, 50)) == [[0], [1], [2], [3], [5]]


def test_small_join_runs_on_the_driver(ray_session, oracle, pair, monkeypatch):
    """Below DRIVER_JOIN_MAX_ROWS planned rows the join runs in the driver process (no read
    task, so no worker start-up): same rows as the distributed path."""
    from paimon_rowid.ray import bucket_join, joins
    monkeypatch.setattr(joins, "_make_datasource", None)  # any task path would fail
    monkeypatch.setattr(joins, "DRIVER_JOIN_MAX_ROWS", 2_000_000)
    small = _collect(bucket_join("db.l", "db.r", {"warehouse": pair}, on="k"))
    lt, rt = oracle.read(pair, "db.l"), oracle.read(pair, "db.r")
    assert row_set(small) == pyarrow_join(lt, rt, ["k"])
    # ray_remote_args ask for tasks: the distributed path (here: the disabled one) is taken.
    with pytest.raises(TypeError):
        bucket_join("db.l", "db.r", {"warehouse": pair}, on="k",
                    ray_remote_args={"num_cpus": 1})
