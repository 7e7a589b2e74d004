"""Progress of the long jobs (issue 47 §5): ``compact`` (embedded and on Ray),
``expire_snapshots``, ``remove_orphan_files`` and ``create_global_index`` share backfill's
``progress=`` / ``on_progress=`` interface (python/paimon_rowid/_internal/_progress.py): the
figures only go up and end at their totals, ``on_progress`` gets a ``JobProgress`` per change,
the bar is tqdm's (a terminal) or plain tqdm-format lines (anything else), ``--progress`` on
the CLI's long verbs, bad arguments are refused before anything is touched, and a hook that
raises stops the job with nothing committed."""
from __future__ import annotations

import io
import re

import pyarrow as pa
import pytest

import ours
from test_cli import _cli, _run

pytestmark = pytest.mark.native

FAR_FUTURE_MS = 2 ** 62


def _opts(warehouse):
    return {"warehouse": str(warehouse)}


def _three_groups_due(warehouse):
    """db.t: three file groups of 10 rows, each with one update (two normal files each)."""
    from paimon_rowid import update_by_row_id
    table = ours.three_commit_table(warehouse)
    update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([1, 11, 21], pa.int64()),
                                       "name": ["u1", "u11", "u21"]}),
                     _opts(warehouse), update_cols=["name"])
    return table


def _latest_id(warehouse):
    return ours.catalog(warehouse).get_table("db.t").latest_snapshot().id


def _assert_well_formed(seen, job, unit):
    assert seen, "on_progress was never called"
    assert all(p.job == job and p.unit == unit for p in seen)
    dones = [p.done for p in seen]
    totals = [p.total for p in seen]
    assert dones == sorted(dones) and totals == sorted(totals)  # never back
    assert all(0 <= p.done <= p.total or p.total == 0 == p.done for p in seen)
    assert [p.finished for p in seen] == [False] * (len(seen) - 1) + [True]
    last = seen[-1]
    assert last.done == last.total and last.fraction == 1.0 and last.eta_s == 0.0
    assert seen[0].done == 0  # the reading before the job starts
    return last


def test_compact_reports_groups_to_on_progress(warehouse):
    from paimon_rowid import JobProgress, compact
    _three_groups_due(warehouse)
    seen = []
    result = compact("db.t", _opts(warehouse), full=True, on_progress=seen.append)
    assert result["groups_compacted"] == 3
    last = _assert_well_formed(seen, "compact", "groups")
    assert isinstance(last, JobProgress) and last.total == 3 and last.seconds > 0


def test_expire_snapshots_counts_three_steps_per_expired_snapshot(warehouse):
    from paimon_rowid import expire_snapshots
    _three_groups_due(warehouse)  # snapshots 1..4
    seen = []
    result = expire_snapshots("db.t", _opts(warehouse), retain_max=1, retain_min=1,
                              older_than_ms=FAR_FUTURE_MS, on_progress=seen.append)
    assert result["snapshots_expired"] == 3
    assert _assert_well_formed(seen, "expire_snapshots", "steps").total == 3 * 3


def test_remove_orphan_files_counts_files_read_and_checked(warehouse):
    from paimon_rowid import remove_orphan_files
    _three_groups_due(warehouse)
    with open(f"{warehouse}/db.db/t/bucket-0/data-orphan.parquet", "wb") as f:
        f.write(b"x")
    seen = []
    result = remove_orphan_files("db.t", _opts(warehouse), older_than_ms=FAR_FUTURE_MS,
                                 dry_run=True, on_progress=seen.append)
    assert result["files"] == 1
    last = _assert_well_formed(seen, "remove_orphan_files", "files")
    data_files = len(ours.files(f"{warehouse}/db.db/t/bucket-0"))
    # 4 snapshots, their manifests, and every candidate (the data files among them)
    assert last.total >= 4 + data_files


@pytest.mark.parametrize("kind", ["btree", "bitmap"])
def test_create_global_index_counts_rows(warehouse, kind):
    table = _three_groups_due(warehouse)
    seen = []
    assert table.create_global_index("id", kind, on_progress=seen.append) >= 1
    assert _assert_well_formed(seen, "create_global_index", "rows").total == 30
    seen.clear()  # nothing left to index: one reading before, one at the end
    assert table.create_global_index("id", kind, on_progress=seen.append) == 0
    assert [(p.done, p.total, p.finished) for p in seen] == [(0, 0, False), (0, 0, True)]


def test_plain_lines_off_a_terminal_and_a_tqdm_bar_on_one(warehouse):
    from paimon_rowid import compact
    _three_groups_due(warehouse)
    out = io.StringIO()
    compact("db.t", _opts(warehouse), full=True, progress=out)
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue() and 1 <= len(lines) <= 3
    assert lines[0].startswith("compact: 0groups") or lines[0].startswith("compact:   0%")
    assert re.match(r"compact: 100% 3/3 \[[\d:]+<00:00, [\d.]+groups/s\]$",
                    lines[-1]), lines[-1]

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    _update_all(warehouse)
    bar = Terminal()
    compact("db.t", _opts(warehouse), full=True, progress=bar)
    text = bar.getvalue()
    assert text.startswith("\r") and text.endswith("\n") and "\x1b" not in text[:2]
    assert re.search(r"compact: 100%\|.*\| 3/3 \[", text.splitlines()[-1])


def _update_all(warehouse):
    from paimon_rowid import update_by_row_id
    update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([2, 12, 22], pa.int64()),
                                       "name": ["v2", "v12", "v22"]}),
                     _opts(warehouse), update_cols=["name"])


@pytest.mark.parametrize("job", ["compact", "expire_snapshots", "remove_orphan_files",
                                 "create_global_index", "backfill"])
def test_bad_progress_arguments_are_refused_before_anything_happens(warehouse, job):
    import paimon_rowid
    table = _three_groups_due(warehouse)
    before, files = _latest_id(warehouse), ours.files(warehouse)

    def call(**kwargs):
        if job == "create_global_index":
            return table.create_global_index("id", **kwargs)
        if job == "backfill":
            return paimon_rowid.backfill("db.t", _opts(warehouse), column="name",
                                         fn=lambda t: t["id"], input_columns=["id"],
                                         version="v", **kwargs)
        extra = {"older_than_ms": FAR_FUTURE_MS}
        if job == "compact":
            extra = {"full": True}
        return getattr(paimon_rowid, job)("db.t", _opts(warehouse), **extra, **kwargs)

    with pytest.raises(TypeError, match=r"progress must be True, False or a text stream "
                                        r"\(an object with write\(\)\), got int"):
        call(progress=5)
    with pytest.raises(TypeError, match="on_progress must be a callable or None, got str"):
        call(progress=False, on_progress="print")
    assert _latest_id(warehouse) == before and ours.files(warehouse) == files


def test_a_hook_that_raises_stops_the_job_with_nothing_committed(warehouse):
    from paimon_rowid import compact
    _three_groups_due(warehouse)
    before, files = _latest_id(warehouse), ours.files(warehouse)

    class Stop(Exception):
        pass

    def hook(p):
        raise Stop(f"stopped at {p.done}/{p.total}")

    with pytest.raises(Stop, match="stopped at 0/0"):
        compact("db.t", _opts(warehouse), full=True, on_progress=hook)
    assert _latest_id(warehouse) == before and ours.files(warehouse) == files
    # a pre-cancelled native counter: the C++ job's own check, before any group
    from paimon_rowid._internal._lib import native
    counter = native().ProgressCounter()
    counter.cancel()
    t = ours.catalog(warehouse).get_table("db.t")
    with pytest.raises(RuntimeError, match="compact was cancelled"):
        native().compact(t._native, True, None, 0, "user", counter)
    assert counter.total == 3 and counter.done == 0
    assert _latest_id(warehouse) == before and ours.files(warehouse) == files


def test_cli_progress_goes_to_stderr_and_leaves_stdout_alone(warehouse):
    _three_groups_due(warehouse)
    r = _cli(warehouse, "compact", "db.t", "--full", "--json", "--progress")
    assert r.returncode == 0 and '"groups_compacted": 3' in r.stdout, r.stderr
    assert re.match(r"compact: 100% 3/3 \[", r.stderr.splitlines()[-1])
    r = _cli(warehouse, "expire-snapshots", "db.t", "--retain-max", "1", "--retain-min", "1",
             "--older-than-ms", str(FAR_FUTURE_MS), "--progress")
    assert r.returncode == 0 and "snapshots expired" in r.stdout, r.stderr
    assert re.match(r"expire_snapshots: 100% 12/12 \[", r.stderr.splitlines()[-1])
    r = _cli(warehouse, "remove-orphan-files", "db.t", "--dry-run", "--progress")
    assert r.returncode == 0 and "remove_orphan_files: 100%" in r.stderr, r.stderr
    r = _run("index", "create", warehouse, "db.t", "--column", "id", "--progress")
    assert r.returncode == 0 and "index file(s) on id" in r.stdout, r.stderr
    assert re.match(r"create_global_index: 100% 30/30 \[", r.stderr.splitlines()[-1])
    r = _cli(warehouse, "compact", "db.t")
    assert r.returncode == 0 and r.stderr == ""  # no flag, no progress


def test_ray_compact_feeds_the_driver_bar_from_task_completions(warehouse, ray_session):
    from paimon_rowid import ray as pray
    _three_groups_due(warehouse)
    seen, out = [], io.StringIO()
    result = pray.compact("db.t", _opts(warehouse), full=True, num_partitions=3,
                          progress=out, on_progress=seen.append)
    assert result["groups_compacted"] == 3
    last = _assert_well_formed(seen, "compact", "groups")
    assert last.total == 3
    assert set(p.done for p in seen) <= {0, 1, 2, 3}  # one step per finished task
    assert re.match(r"compact: 100% 3/3 \[", out.getvalue().splitlines()[-1])
