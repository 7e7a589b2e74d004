"""paimon_rowid.ray.compact on the session's local Ray: the same result as the embedded call,
one COMPACT commit from the driver, and a failed task leaves no file behind (cleanup by the
names the job's files are derived from, no listing)."""
from __future__ import annotations

import os

import pytest

from test_compact import _make, _normal_files_per_group, _opts, _read, _snapshot, _update

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.native


def _updated(warehouse):
    _make(warehouse, groups=3, partition_keys=["p"])
    for u in range(5):
        _update(warehouse, [1, 25, 45, 65, 90, 110], "x", [float(u)] * 6)
    return _read(warehouse)


def test_ray_compact_matches_embedded(ray_session, warehouse):
    from paimon_rowid.ray import compact
    before = _updated(warehouse)
    result = compact("db.t", _opts(warehouse), num_partitions=2)
    assert result["snapshot_id"] == 9 and result["groups_compacted"] == 6
    assert result["files_removed"] == 36 and result["files_written"] == 6
    assert _snapshot(warehouse).commit_kind == "COMPACT"
    assert _normal_files_per_group(warehouse) == [1] * 6
    assert _read(warehouse).equals(before)
    nothing = compact("db.t", _opts(warehouse))
    assert nothing["snapshot_id"] is None and nothing["groups_total"] == 6


def test_ray_compact_failed_task_leaves_nothing(ray_session, warehouse, monkeypatch):
    import sys

    import paimon_rowid.ray  # noqa: F401 - loads the module the function shadows
    from ours import files
    ray_compact = sys.modules["paimon_rowid.ray.compact"]
    before = _updated(warehouse)
    files_before = files(warehouse)
    real = ray_compact.native
    moved = []

    class HidesOneInput:
        """plan_compaction, then one planned group's base file disappears (its task fails
        while the others write their files)."""

        def __getattr__(self, name):
            return getattr(real(), name)

        def plan_compaction(self, *args):
            out = real().plan_compaction(*args)
            if out[1] and not moved:
                victim = [p for p in out[1][0].file_paths if not p.endswith(".blob")][0]
                os.rename(victim, victim + ".aside")
                moved.append(victim)
            return out

    monkeypatch.setattr(ray_compact, "native", lambda: HidesOneInput())
    with pytest.raises(Exception) as raised:
        ray_compact.compact("db.t", _opts(warehouse), num_partitions=3)
    assert "ray" not in type(raised.value).__module__  # the task's own error, unwrapped
    os.rename(moved[0] + ".aside", moved[0])
    assert files(warehouse) == files_before
    assert _snapshot(warehouse).id == 8
    assert _read(warehouse).equals(before)


def test_ray_compact_losing_to_another_compaction_replans(ray_session, warehouse, monkeypatch):
    """Another compaction commits the same groups between this job's plan and its commit (then
    an update makes three groups due again): the commit is refused, this attempt's files are
    deleted, and the next attempt re-plans and commits. When every attempt loses,
    CommitConflictException after the last one, nothing of any attempt left behind."""
    import sys

    import paimon_rowid.ray  # noqa: F401 - loads the module the function shadows
    from ours import files
    from paimon_rowid import CommitConflictException
    from paimon_rowid import compact as embedded_compact
    ray_compact = sys.modules["paimon_rowid.ray.compact"]
    _updated(warehouse)
    real = ray_compact.native
    races, planned = [], []

    class AnotherCompactionFirst:
        def __getattr__(self, name):
            return getattr(real(), name)

        def plan_compaction(self, *args):
            planned[:] = files(warehouse)
            return real().plan_compaction(*args)

        def commit_compaction(self, *args):
            if len(races) < limit:
                written = set(files(warehouse)) - set(planned)  # by this attempt's tasks
                won = embedded_compact("db.t", _opts(warehouse), full=True)
                _update(warehouse, [1, 45, 90], "x", [float(len(races))] * 3)
                races.append((won["snapshot_id"], written, files(warehouse)))
            return real().commit_compaction(*args)

    monkeypatch.setattr(ray_compact, "native", lambda: AnotherCompactionFirst())
    limit = 1
    values = _read(warehouse).select(["_ROW_ID", "x"])
    result = ray_compact.compact("db.t", _opts(warehouse), full=True, num_partitions=2)
    assert races[0][0] is not None
    assert result["attempts"] == 2 and result["groups_compacted"] == 3
    assert _snapshot(warehouse).commit_kind == "COMPACT"
    assert _normal_files_per_group(warehouse) == [1] * 6
    expected = {r["_ROW_ID"]: r["x"] for r in values.to_pylist()}
    expected.update({1: 0.0, 45: 0.0, 90: 0.0})
    assert {r["_ROW_ID"]: r["x"] for r in _read(warehouse).to_pylist()} == expected

    races.clear()
    limit = ray_compact.MAX_ATTEMPTS
    _update(warehouse, [1, 45, 90], "x", [9.0] * 3)
    with pytest.raises(CommitConflictException):
        ray_compact.compact("db.t", _opts(warehouse), full=True, num_partitions=2)
    assert len(races) == ray_compact.MAX_ATTEMPTS
    assert all(won is not None and written for won, written, _ in races)
    # Each losing attempt's files are gone; everything else the races left is there.
    assert files(warehouse) == sorted(set(races[-1][2]) - races[-1][1])


def test_ray_compact_refuses_like_embedded(ray_session, warehouse):
    from paimon_rowid.ray import compact
    _make(warehouse, groups=1, options={"row-tracking.enabled": "true"})
    with pytest.raises(ValueError, match="data-evolution.enabled"):
        compact("db.t", _opts(warehouse))
    with pytest.raises(ValueError, match="at least 2"):
        compact("db.t", _opts(warehouse), min_file_num=0)
