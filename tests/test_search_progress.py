"""``progress=`` / ``on_progress=`` of search index builds (docs/search.md, "Building"), embedded
(``create_global_index``) and on Ray (``paimon_rowid.ray.create_search_index``): the jobs'
progress interface (``JobProgress``, unit rows); a hook that raises stops the build before its
commit and leaves no file; bad arguments are refused before anything is read."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from ours import catalog
from test_search import _table

pytest.importorskip("paimon_vindex")
pytest.importorskip("paimon_ftindex")

ROWS = 1200
SHARDS = {"global-index.row-count-per-shard": "300"}  # four shards


class Stop(Exception):
    pass


def _files(warehouse):
    return sorted(str(p) for p in Path(warehouse).rglob("*") if p.is_file())


def _check_readings(readings, total):
    assert readings[0].done == 0 and not readings[0].finished
    assert all(r.job == "create_global_index" and r.unit == "rows" for r in readings)
    assert [r.done for r in readings] == sorted(r.done for r in readings)
    assert all(r.done <= r.total for r in readings)
    last = readings[-1]
    assert last.finished and last.done == last.total == total
    assert sum(1 for r in readings if 0 < r.done < total) >= 1  # shard by shard


@pytest.mark.parametrize("parallelism", ["1", "2"])
@pytest.mark.parametrize("index_type", ["ivf-flat", "full-text"])
def test_embedded_build_reports_rows(warehouse, parallelism, index_type):
    table, _ = _table(warehouse, n=ROWS)
    readings = []
    stream = io.StringIO()
    column = "body" if index_type == "full-text" else "emb"
    added = table.create_global_index(
        column, index_type=index_type,
        options={**SHARDS, "global-index.build.parallelism": parallelism},
        progress=stream, on_progress=readings.append)
    assert added == 4
    _check_readings(readings, ROWS)
    assert "create_global_index" in stream.getvalue() and "1200/1200" in stream.getvalue()
    # Nothing left to build: one reading of nothing, finished.
    readings.clear()
    assert catalog(warehouse).get_table("db.t").create_global_index(
        column, index_type=index_type, on_progress=readings.append) == 0
    assert readings[-1].finished and readings[-1].total == 0


@pytest.mark.parametrize("parallelism", ["1", "2"])
@pytest.mark.parametrize("stop_at", [0, 1])
def test_a_raising_hook_stops_the_build_and_leaves_nothing(warehouse, parallelism, stop_at):
    """stop_at 0: the first reading (before anything is read); 1: after the first shard."""
    table, _ = _table(warehouse, n=ROWS)
    before, snapshot = _files(warehouse), table.latest_snapshot().id
    calls = []

    def hook(p):
        calls.append(p)
        if len(calls) > stop_at:
            raise Stop("stop")

    with pytest.raises(Stop):
        table.create_global_index("emb", index_type="ivf-flat", on_progress=hook,
                                  options={**SHARDS,
                                           "global-index.build.parallelism": parallelism})
    assert _files(warehouse) == before
    assert catalog(warehouse).get_table("db.t").latest_snapshot().id == snapshot


@pytest.mark.parametrize("kwargs, kind", [({"progress": 5}, TypeError),
                                          ({"on_progress": "no"}, TypeError)])
def test_bad_progress_arguments_are_refused_first(warehouse, kwargs, kind):
    table, _ = _table(warehouse, n=300)
    before = _files(warehouse)
    with pytest.raises(kind):
        table.create_global_index("emb", index_type="ivf-flat", **kwargs)
    assert _files(warehouse) == before


def test_ray_build_reports_rows_and_a_raising_hook_leaves_nothing(ray_session, warehouse):
    from paimon_rowid.ray import create_search_index
    _table(warehouse, n=ROWS)
    opts = {"warehouse": warehouse}
    before, snapshot = _files(warehouse), catalog(warehouse).get_table("db.t").latest_snapshot().id
    calls = []

    def hook(p):
        calls.append(p)
        if p.done > 0:
            raise Stop("stop")

    with pytest.raises(Stop):
        create_search_index("db.t", opts, "emb", "ivf-flat", options=SHARDS, num_tasks=2,
                            on_progress=hook)
    assert _files(warehouse) == before
    assert catalog(warehouse).get_table("db.t").latest_snapshot().id == snapshot
    with pytest.raises(TypeError):
        create_search_index("db.t", opts, "emb", "ivf-flat", progress=3)
    readings = []
    assert create_search_index("db.t", opts, "emb", "ivf-flat", options=SHARDS, num_tasks=2,
                               on_progress=readings.append) == 4
    _check_readings(readings, ROWS)
