"""Progress of the Ray doors (issue 47 §5): ``progress=True`` on ``paimon_rowid.ray``'s
``compact``, ``backfill``, ``create_global_index`` and ``create_search_index`` is drawn by
Ray's own tqdm (``ray.experimental.tqdm_ray``, in the driver's bar manager), not plain tqdm;
the bar and ``on_progress`` reach the job's totals; a text stream still gets plain lines; the
embedded doors keep plain tqdm; a hook that raises, or a failing ``fn``, on Ray commits
nothing and leaves no file and no open bar; bad progress arguments are refused by both index
doors."""
from __future__ import annotations

import builtins
import io
import re

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import ours
from test_progress import _opts, _three_groups_due

pytestmark = pytest.mark.native


class _Bars:
    """Every bar the run made: Ray's (``ray``, spied) and plain tqdm's (``plain``)."""

    def __init__(self):
        self.ray = []
        self.plain = []


@pytest.fixture
def bars(monkeypatch, ray_session):
    """Spies on ``tqdm_ray.tqdm`` and on the plain bar of ``_internal/_progress.py``; the
    process-wide state Ray's bar manager changes (its singleton, ``builtins.print``) is put
    back afterwards."""
    from ray.experimental import tqdm_ray

    from paimon_rowid._internal import _progress

    seen = _Bars()
    monkeypatch.setattr(builtins, "print", builtins.print)
    monkeypatch.setattr(tqdm_ray, "_manager", None)

    class RayBar(tqdm_ray.tqdm):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.count, self.closed, self.descs = 0, False, []
            seen.ray.append(self)

        def update(self, n=1):
            assert n >= 0
            self.count += n
            super().update(n)

        def set_description(self, desc):
            self.descs.append(desc)
            super().set_description(desc)

        def close(self):
            self.closed = True
            super().close()

    class PlainBar(_progress._Bar):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            seen.plain.append(self)

    monkeypatch.setattr(tqdm_ray, "tqdm", RayBar)
    monkeypatch.setattr(_progress, "_Bar", PlainBar)
    return seen


def _assert_reaches_total(seen, job, unit, total):
    assert seen and all(p.job == job and p.unit == unit for p in seen)
    dones = [p.done for p in seen]
    assert dones == sorted(dones) and seen[0].done == 0
    assert [p.finished for p in seen] == [False] * (len(seen) - 1) + [True]
    assert (seen[-1].done, seen[-1].total) == (total, total)


def test_ray_compact_progress_true_is_drawn_by_tqdm_ray(warehouse, bars, capsys):
    from paimon_rowid import ray as pray
    _three_groups_due(warehouse)
    seen = []
    result = pray.compact("db.t", _opts(warehouse), full=True, num_partitions=3,
                          progress=True, on_progress=seen.append)
    assert result["groups_compacted"] == 3
    _assert_reaches_total(seen, "compact", "groups", 3)
    assert bars.plain == [] and len(bars.ray) == 1
    bar = bars.ray[0]
    assert (bar.count, bar.total, bar.closed) == (3, 3, True)
    assert bar._unit == "groups" and bar._desc == "compact"
    # Ray's manager drew it (real tqdm on the driver's stderr; Ray 2.50 appends the bar's
    # position to the description) and closed it
    from ray.experimental import tqdm_ray
    assert tqdm_ray._manager is not None
    assert all(not g.bars_by_uuid for g in tqdm_ray._manager.bar_groups.values())
    assert re.search(r"compact( 0)?: 100%\|.*\| 3(\.00)?/3", capsys.readouterr().err)


def test_ray_compact_to_a_stream_keeps_plain_lines(warehouse, bars):
    from paimon_rowid import ray as pray
    _three_groups_due(warehouse)
    out = io.StringIO()
    pray.compact("db.t", _opts(warehouse), full=True, progress=out)
    assert bars.ray == [] and len(bars.plain) == 1
    assert re.match(r"compact: 100% 3/3 \[", out.getvalue().splitlines()[-1])


def test_embedded_compact_progress_true_keeps_plain_tqdm(warehouse, bars, capsys):
    from paimon_rowid import compact
    _three_groups_due(warehouse)
    compact("db.t", _opts(warehouse), full=True, progress=True)
    assert bars.ray == [] and len(bars.plain) == 1
    assert re.match(r"compact: 100% 3/3 \[", capsys.readouterr().err.splitlines()[-1])


def test_ray_backfill_progress_true_is_drawn_by_tqdm_ray(warehouse, bars):
    from paimon_rowid import ray as pray
    ours.three_commit_table(warehouse)
    seen = []
    result = pray.backfill("db.t", _opts(warehouse), column="txt", column_type=pa.string(),
                           fn=lambda batch: pc.cast(batch["id"], pa.string()),
                           input_columns=["id"], rows_per_commit=20, concurrency=1,
                           progress=True, on_progress=seen.append)
    assert (result.rows_computed, result.commits) == (30, 2)
    _assert_reaches_total(seen, "backfill", "rows", 30)
    assert (seen[-1].commits, seen[-1].batches) == (2, 2)
    assert bars.plain == [] and len(bars.ray) == 1
    bar = bars.ray[0]
    assert (bar.count, bar.total, bar.closed) == (30, 30, True)
    assert bar.descs and bar.descs[-1].startswith("backfill [30 computed, batch 2/2")
    rb = ours.catalog(warehouse).get_table("db.t").new_read_builder()
    rows = rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id")
    assert rows["txt"].to_pylist() == [str(i) for i in range(30)]


def test_ray_compact_hook_that_raises_commits_nothing_and_closes_the_bar(warehouse, bars):
    from paimon_rowid import ray as pray
    _three_groups_due(warehouse)
    before = ours.catalog(warehouse).get_table("db.t").latest_snapshot().id
    files = ours.files(warehouse)

    class Stop(Exception):
        pass

    def hook(p):
        if p.done >= 1:
            raise Stop(f"stopped at {p.done}/{p.total}")

    with pytest.raises(Stop, match=r"stopped at 1/3"):
        pray.compact("db.t", _opts(warehouse), full=True, num_partitions=3, progress=True,
                     on_progress=hook)
    assert ours.catalog(warehouse).get_table("db.t").latest_snapshot().id == before
    assert ours.files(warehouse) == files
    assert len(bars.ray) == 1 and bars.ray[0].closed


def test_ray_backfill_that_fails_closes_its_bar_and_commits_nothing(warehouse, bars):
    from paimon_rowid import BackfillError
    from paimon_rowid import ray as pray
    ours.three_commit_table(warehouse)
    before = ours.catalog(warehouse).get_table("db.t").latest_snapshot().id

    def fails(batch):
        raise ZeroDivisionError("fn failed")

    with pytest.raises(BackfillError, match="failed in batch 1 of 1.*fn failed"):
        pray.backfill("db.t", _opts(warehouse), column="name", fn=fails, input_columns=["id"],
                      only_null=False, concurrency=1, progress=True)
    assert ours.catalog(warehouse).get_table("db.t").latest_snapshot().id == before
    assert len(bars.ray) == 1 and bars.ray[0].closed and bars.ray[0].count == 0


@pytest.mark.parametrize("kind", ["btree", "bitmap"])
def test_ray_create_global_index_reports_rows_and_draws_with_tqdm_ray(warehouse, bars, kind):
    from paimon_rowid import ray as pray
    ours.three_commit_table(warehouse)
    seen = []
    added = pray.create_global_index("db.t", _opts(warehouse), "id", kind, num_tasks=3,
                                     progress=True, on_progress=seen.append)
    assert added >= 3
    _assert_reaches_total(seen, "create_global_index", "rows", 30)
    assert set(p.done for p in seen) <= {0, 10, 20, 30}  # a shard's rows per finished task
    assert bars.plain == [] and len(bars.ray) == 1
    bar = bars.ray[0]
    assert (bar.count, bar.total, bar.closed, bar._desc) == (30, 30, True, "create_global_index")
    from paimon_rowid.table.global_index import list_global_indexes
    table = ours.catalog(warehouse).get_table("db.t")
    assert sorted(e["row_range"] for e in list_global_indexes(table)) == [
        (0, 9), (10, 19), (20, 29)]
    seen.clear()  # nothing left to index: one reading before, one at the end, as embedded
    assert pray.create_global_index("db.t", _opts(warehouse), "id", kind,
                                    on_progress=seen.append) == 0
    assert [(p.done, p.total, p.finished) for p in seen] == [(0, 0, False), (0, 0, True)]


def test_ray_create_global_index_hook_that_raises_leaves_nothing(warehouse, bars):
    from paimon_rowid import ray as pray
    ours.three_commit_table(warehouse)
    before = ours.catalog(warehouse).get_table("db.t").latest_snapshot().id
    files = ours.files(warehouse)

    class Stop(Exception):
        pass

    def hook(p):
        if p.done >= 10:
            raise Stop(f"stopped at {p.done}/{p.total}")

    with pytest.raises(Stop, match=r"stopped at 10/30"):
        pray.create_global_index("db.t", _opts(warehouse), "id", num_tasks=3, progress=True,
                                 on_progress=hook)
    assert ours.catalog(warehouse).get_table("db.t").latest_snapshot().id == before
    assert ours.files(warehouse) == files  # the three shards' files deleted
    assert len(bars.ray) == 1 and bars.ray[0].closed


@pytest.mark.parametrize("index_type", ["btree", "bitmap", "full-text", "ivf-flat"])
def test_bad_progress_arguments_refused_by_both_index_doors(warehouse, ray_session,
                                                            index_type):
    from paimon_rowid import ray as pray
    table = ours.three_commit_table(warehouse)
    before, files = table.latest_snapshot().id, ours.files(warehouse)
    message = r"progress must be True, False or a text stream \(an object with write\(\)\)"
    with pytest.raises(TypeError, match=message):
        table.create_global_index("name", index_type, progress=5)
    with pytest.raises(TypeError, match="on_progress must be a callable or None, got str"):
        table.create_global_index("name", index_type, on_progress="print")
    if index_type in ("btree", "bitmap"):  # what the Ray door builds
        with pytest.raises(TypeError, match=message):
            pray.create_global_index("db.t", _opts(warehouse), "id", index_type, progress=5)
        with pytest.raises(TypeError, match="on_progress must be a callable or None"):
            pray.create_global_index("db.t", _opts(warehouse), "id", index_type,
                                     on_progress=1)
    assert ours.catalog(warehouse).get_table("db.t").latest_snapshot().id == before
    assert ours.files(warehouse) == files


def test_ray_create_search_index_progress_true_is_drawn_by_tqdm_ray(warehouse, bars):
    pytest.importorskip("paimon_vindex")
    pytest.importorskip("paimon_ftindex")
    from paimon_rowid.ray import create_search_index
    from test_search import _table
    _table(warehouse, n=1000)
    seen = []
    assert create_search_index("db.t", _opts(warehouse), "body", "full-text", num_tasks=2,
                               options={"global-index.row-count-per-shard": "500"},
                               progress=True, on_progress=seen.append) == 2
    _assert_reaches_total(seen, "create_global_index", "rows", 1000)
    assert bars.plain == [] and len(bars.ray) == 1
    assert (bars.ray[0].count, bars.ray[0].total, bars.ray[0].closed) == (1000, 1000, True)
