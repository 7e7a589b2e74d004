"""Search on Ray (docs/search.md): ``paimon_rowid.ray.create_search_index`` builds the same
files as the embedded build, in tasks, with one commit; a failing task leaves nothing;
``batch_vector_search`` equals the embedded batch search."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ours import catalog
from test_search import _rows, _table, _vectors

pytest.importorskip("paimon_vindex")
pytest.importorskip("paimon_ftindex")

SHARDS = {"global-index.row-count-per-shard": "500"}


def _files(warehouse):
    return sorted((Path(warehouse) / "db.db" / "t" / "index").glob("*global-index*"))


def test_create_search_index_on_ray_equals_embedded(ray_session, tmp_path):
    import shutil

    from paimon_rowid.ray import create_search_index
    ray_wh, local_wh = tmp_path / "ray", tmp_path / "local"
    ray_wh.mkdir()
    _table(ray_wh, n=2000)
    shutil.copytree(ray_wh, local_wh)
    options = {"warehouse": str(ray_wh)}
    assert create_search_index("db.t", options, "emb", "ivf-flat", options=SHARDS) == 4
    assert create_search_index("db.t", options, "body", "full-text", options=SHARDS) == 4
    assert create_search_index("db.t", options, "emb", "ivf-flat", options=SHARDS) == 0
    catalog(local_wh).get_table("db.t").create_global_index("emb", "ivf-flat", options=SHARDS)
    assert sorted(f.read_bytes() for f in _files(ray_wh) if "vector" in f.name) == \
        sorted(f.read_bytes() for f in _files(local_wh))
    table = catalog(ray_wh).get_table("db.t")
    assert len(table.latest_snapshot().index_manifest or "") > 0
    hits = (table.new_full_text_search_builder().with_query("body", "doc1234").with_limit(3)
            .execute_local())
    assert hits.row_ids == [1234]


def test_failing_task_leaves_nothing(ray_session, warehouse):
    """Shards 0-499 and 500-999 are written by their tasks, shard 1000-1299 holds a NaN: the
    task that wrote shard 0 deletes it, the driver deletes the other task's file."""
    from paimon_rowid.ray import create_search_index
    from test_search import write
    table, _ = _table(warehouse, n=1200)
    bad = _vectors(100, seed=4)
    bad[50, 3] = np.nan
    write(table, _rows(1200, bad))
    table = catalog(warehouse).get_table("db.t")
    before = sorted(str(p) for p in Path(warehouse).rglob("*") if p.is_file())
    with pytest.raises(ValueError, match="not supported for index type"):
        create_search_index("db.t", {"warehouse": warehouse}, "emb", "diskann",
                            options={**SHARDS, "ivf.coarse-assignment": "x"})
    with pytest.raises(RuntimeError):  # paimon-vindex refuses pq.m 5 inside the tasks
        create_search_index("db.t", {"warehouse": warehouse}, "emb", "ivf-pq",
                            options={**SHARDS, "ivf-pq.pq.m": "5"})
    with pytest.raises(ValueError, match="is nan"):
        create_search_index("db.t", {"warehouse": warehouse}, "emb", "ivf-flat",
                            options=SHARDS, num_tasks=2)
    assert sorted(str(p) for p in Path(warehouse).rglob("*") if p.is_file()) == before
    assert catalog(warehouse).get_table("db.t").latest_snapshot().id == \
        table.latest_snapshot().id


def test_batch_vector_search_on_ray(ray_session, warehouse):
    from paimon_rowid.ray import batch_vector_search
    table, _ = _table(warehouse, n=1500)
    table.create_global_index("emb", index_type="ivf-flat")
    from test_search import write
    write(table, _rows(1500, _vectors(50, seed=3)))  # appended: scored directly
    table = catalog(warehouse).get_table("db.t")
    queries = _vectors(9, seed=17)
    pb = table.new_read_builder().new_predicate_builder()
    flt = pb.less_than("id", 1520)
    got = batch_vector_search("db.t", {"warehouse": warehouse}, "emb", queries, 5, filter=flt,
                              options={"ivf.nprobe": "8"}, num_tasks=3)
    want = (table.new_batch_vector_search_builder().with_vector_column("emb")
            .with_query_vectors(queries).with_limit(5).with_filter(flt)
            .with_option("ivf.nprobe", "8").execute_batch_local())
    assert [r.row_ids for r in got] == [r.row_ids for r in want]
    assert [s for r in got for s in r.scores] == pytest.approx([s for r in want for s in r.scores])
    assert all(i < 1520 for r in got for i in r.row_ids)
    assert np.asarray([len(r) for r in got]).min() == 5


def test_ray_build_and_search_by_a_column_renamed_after_the_snapshot(ray_session, warehouse):
    """No commit since the rename: the tasks pin the driver's snapshot with the driver's
    schema, so the new name works in the build and in the search tasks."""
    from paimon_rowid.ray import batch_vector_search, create_search_index
    from paimon_rowid.schema.schema_change import SchemaChange
    _, vectors = _table(warehouse, n=1000)
    opts = {"warehouse": warehouse}
    catalog(warehouse).alter_table("db.t", [SchemaChange.rename_column("emb", "vec")], False)
    queries = _vectors(2, seed=31)
    want = [[int(i) for i in np.argsort(-(vectors @ q), kind="stable")[:3]] for q in queries]
    got = batch_vector_search("db.t", opts, "vec", queries, 3, num_tasks=2)
    assert [r.row_ids for r in got] == want  # no index yet: scored directly
    assert create_search_index("db.t", opts, "vec", "ivf-flat", options=SHARDS,
                               num_tasks=2) == 2
    catalog(warehouse).alter_table("db.t", [SchemaChange.rename_column("vec", "v2")], False)
    got = batch_vector_search("db.t", opts, "v2", queries, 3, num_tasks=2,
                              options={"ivf.nprobe": "64"})
    assert [r.row_ids for r in got] == want
