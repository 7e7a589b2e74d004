"""paimon_rowid.ray.backfill on the session's local Ray: the seed's embedding backfill
(examples/seed_backfill.py, its own code) and the same job written as one backfill(...) call
(the seed's EmbedImages class as fn) give the same table, which pypaimon reads identically;
a failing fn on Ray fails the same clean way as embedded and a rerun resumes."""
from __future__ import annotations

import importlib.util
import os

import pyarrow as pa
import pytest

pytestmark = [pytest.mark.native, pytest.mark.ray]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def seed():
    """examples/seed_backfill.py as a module (its CATALOG_OPTIONS are set per test)."""
    spec = importlib.util.spec_from_file_location(
        "seed_backfill", os.path.join(ROOT, "examples", "seed_backfill.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read(opts, target):
    from paimon_rowid import CatalogFactory
    t = CatalogFactory.create(opts).get_table(target)
    rb = t.new_read_builder().with_projection(["id", "embedding", "_ROW_ID"])
    return rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("_ROW_ID")


def test_ray_backfill_equals_the_seed_and_pypaimon_reads_it(ray_session, seed, tmp_path,
                                                            oracle):
    from paimon_rowid import backfill_status
    seed_opts = {"warehouse": str(tmp_path / "seed")}
    ours_opts = {"warehouse": str(tmp_path / "ours")}
    for opts in (seed_opts, ours_opts):
        seed.CATALOG_OPTIONS.clear()
        seed.CATALOG_OPTIONS.update(opts)
        seed.create_images_table(400)  # 4 commits of 100 rows, the same images in both
    seed.CATALOG_OPTIONS.update(seed_opts)
    seed.process_row_id_ranges(seed.TARGET, seed.CATALOG_OPTIONS, rows_per_commit=200,
                               processor=seed.process_ranges)

    # The seed's job, as one call:
    from paimon_rowid.ray import backfill
    result = backfill(seed.TARGET, ours_opts, column="embedding", fn=seed.EmbedImages,
                      input_columns=["image"], rows_per_commit=200, batch_size=128,
                      progress=False)

    assert (result.rows_computed, result.commits) == (400, 2)
    theirs, ours = _read(seed_opts, seed.TARGET), _read(ours_opts, seed.TARGET)
    assert ours["embedding"].null_count == 0 and ours.equals(theirs)
    for opts in (seed_opts, ours_opts):
        read = oracle.read(opts["warehouse"], seed.TARGET,
                           projection=["id", "embedding", "_ROW_ID"]).sort_by("_ROW_ID")
        assert read.column("embedding").to_pylist() == ours.column("embedding").to_pylist()
        assert read.column("_ROW_ID").to_pylist() == ours.column("_ROW_ID").to_pylist()
    assert backfill_status(seed.TARGET, ours_opts, "embedding").rows_pending == 0


def test_ray_backfill_failure_names_the_batch_and_rerun_resumes(ray_session, seed, tmp_path):
    from paimon_rowid import BackfillError, CatalogFactory, Range
    from paimon_rowid.ray import backfill
    opts = {"warehouse": str(tmp_path / "wh")}
    seed.CATALOG_OPTIONS.clear()
    seed.CATALOG_OPTIONS.update(opts)
    seed.create_images_table(400)

    class Flaky(seed.EmbedImages):
        def __call__(self, batch: pa.Table) -> pa.Table:
            if batch["_ROW_ID"].to_pylist()[0] >= 200:
                raise ZeroDivisionError("model failed")
            return super().__call__(batch)

    # The task's own exception and message, not Ray's traceback text around it.
    with pytest.raises(BackfillError, match=r"batch 2 of 2, row ids 200\.\.399: "
                       r"ZeroDivisionError: model failed\. 1 batch commit\(s\)") as info:
        backfill(seed.TARGET, opts, column="embedding", fn=Flaky, input_columns=["image"],
                 rows_per_commit=200, progress=False)
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    assert info.value.ranges == [Range(200, 299), Range(300, 399)]
    table = CatalogFactory.create(opts).get_table(seed.TARGET)
    assert table.latest_snapshot().id == 5  # 4 writes + batch 1
    rerun = backfill(seed.TARGET, opts, column="embedding", fn=seed.EmbedImages,
                     input_columns=["image"], rows_per_commit=200, progress=False)
    assert (rerun.rows_computed, rerun.ranges_skipped, rerun.commits) == (200, 2, 1)
    assert _read(opts, seed.TARGET)["embedding"].null_count == 0


def test_ray_backfill_survives_a_lost_worker(ray_session, seed, tmp_path):
    """The first actor process dies (os._exit) inside its first fn call: Ray restarts the
    actor (constructing fn again with its fn_constructor_kwargs) and re-runs its split; the
    run completes, nothing is lost or doubled."""
    from paimon_rowid.ray import backfill
    opts = {"warehouse": str(tmp_path / "wh")}
    seed.CATALOG_OPTIONS.clear()
    seed.CATALOG_OPTIONS.update(opts)
    seed.create_images_table(400)
    flag = str(tmp_path / "died")

    class DiesOnce(seed.EmbedImages):
        def __init__(self, flag_path: str) -> None:  # fn_constructor_kwargs, in each actor
            super().__init__()
            self.flag_path = flag_path

        def __call__(self, batch: pa.Table) -> pa.Table:
            if not os.path.exists(self.flag_path):
                open(self.flag_path, "w").close()
                os._exit(1)  # the worker process is lost, no exception, no cleanup
            return super().__call__(batch)

    seen = []
    result = backfill(seed.TARGET, opts, column="embedding", fn=DiesOnce,
                      fn_constructor_kwargs={"flag_path": flag}, input_columns=["image"],
                      rows_per_commit=200, progress=False, on_progress=seen.append)
    assert os.path.exists(flag)
    assert (result.rows_computed, result.commits) == (400, 2)
    assert [p.rows_done for p in seen if not p.finished][-1] == 400
    assert _read(opts, seed.TARGET)["embedding"].null_count == 0


@pytest.mark.parametrize("override,error,message", [
    (dict(concurrency=0), ValueError, "concurrency"),
    (dict(ray_remote_args="num_gpus=1"), TypeError, "ray_remote_args"),
    (dict(column="nope"), ValueError, "not in target"),
    (dict(fn=None), TypeError, "fn must be"),
])
def test_ray_backfill_checks_arguments_before_running(ray_session, seed, tmp_path, override,
                                                      error, message):
    from paimon_rowid import CatalogFactory
    from paimon_rowid.ray import backfill
    opts = {"warehouse": str(tmp_path / "wh")}
    seed.CATALOG_OPTIONS.clear()
    seed.CATALOG_OPTIONS.update(opts)
    seed.create_images_table(40, commits=1)
    kwargs = dict(column="embedding", fn=seed.EmbedImages, input_columns=["image"],
                  progress=False)
    kwargs.update(override)
    with pytest.raises(error, match=message):
        backfill(seed.TARGET, opts, **kwargs)
    assert CatalogFactory.create(opts).get_table(seed.TARGET).latest_snapshot().id == 1
