"""A backfill's progress survives whatever other writers do between its runs (issue 44 §4):
appends, updates, deletes, merges, overwrites, truncates, compactions, snapshot expiration
(down to one snapshot) and orphan cleaning. Every commit carries the progress of the snapshot
it is built on (docs/backfill.md, "Where the progress lives"), so a rerun computes exactly the
rows that appeared since the last run — counted by the calls of ``fn`` — and the column ends
right, read by us and by pypaimon."""
from __future__ import annotations

import random
import time
from typing import Dict, List

import pyarrow as pa
import pytest

import ours

pytestmark = pytest.mark.native

OPTIONS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true",
           "deletion-vectors.enabled": "true"}
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("x", pa.int64()),
                    ("d", pa.int64())])
COLS = ["_ROW_ID", "id", "x", "d"]


def _opts(warehouse) -> Dict[str, str]:
    return {"warehouse": str(warehouse)}


def _table(warehouse):
    return ours.catalog(warehouse).get_table("db.t")


def _rows(ids: List[int], x: int = 0) -> pa.Table:
    return pa.table({"id": ids, "x": [x] * len(ids), "d": pa.nulls(len(ids), pa.int64())},
                    schema=SCHEMA)


def _read(warehouse) -> Dict[int, tuple]:
    """_ROW_ID -> (id, x, d) of the latest snapshot."""
    builder = _table(warehouse).new_read_builder().with_projection(COLS)
    got = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return {r["_ROW_ID"]: (r["id"], r["x"], r["d"]) for r in got.to_pylist()}


class Backfiller:
    """Runs ``backfill(version="v1")`` of ``d = 2 * id`` and checks that a run computes
    exactly the live rows whose row ids are at or above the table's nextRowId at the end of
    the previous run (row ids only grow, so those are the rows that appeared since)."""

    def __init__(self, warehouse) -> None:
        self.warehouse = warehouse
        self.watermark = 0
        self.runs: List[int] = []
        self.last_snapshot = None  # the newest snapshot when the last run ended
        self.after_expiry = 0  # runs that started after that snapshot was expired

    def run(self, **kwargs) -> int:
        from paimon_rowid import backfill
        seen: List[int] = []

        def double(batch: pa.Table) -> pa.Array:
            seen.extend(batch["_ROW_ID"].to_pylist())
            return pa.compute.multiply(batch["id"], 2)

        if self.last_snapshot is not None:
            try:
                _table(self.warehouse).snapshot(self.last_snapshot)
            except ValueError:
                self.after_expiry += 1
        expected = sorted(rid for rid in _read(self.warehouse) if rid >= self.watermark)
        backfill("db.t", _opts(self.warehouse), column="d", fn=double, input_columns=["id"],
                 version="v1", progress=False, **kwargs)
        assert sorted(seen) == expected, f"run {len(self.runs) + 1}"
        latest = _table(self.warehouse).latest_snapshot()
        self.watermark = latest["nextRowId"] if latest is not None else 0
        self.last_snapshot = latest.id if latest is not None else None
        rows = _read(self.warehouse)
        assert all(d == 2 * i for i, _, d in rows.values()), "a row left without its value"
        self.runs.append(len(seen))
        return len(seen)


def test_progress_survives_an_append_an_update_and_expiring_all_but_one(warehouse):
    """The reproduction of issue 44 §4: 4,000 rows backfilled, 100 appended, one update, all
    snapshots but the newest expired; the rerun computes the 100 new rows, not 4,100."""
    from paimon_rowid import expire_snapshots, update_by_row_id
    ours.create_table(warehouse, "t", SCHEMA, dict(OPTIONS))
    for start in range(0, 4000, 1000):
        ours.write(_table(warehouse), _rows(list(range(start, start + 1000))))
    backfiller = Backfiller(warehouse)
    assert backfiller.run(rows_per_commit=1000) == 4000
    ours.write(_table(warehouse), _rows(list(range(4000, 4100))))
    update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([5, 3000], pa.int64()),
                                       "x": pa.array([7, 8], pa.int64())}),
                     _opts(warehouse), update_cols=["x"])
    expire_snapshots("db.t", _opts(warehouse), retain_min=1, retain_max=1,
                     older_than_ms=int(time.time() * 1000) + 60_000)
    latest = _table(warehouse).latest_snapshot()
    with pytest.raises(ValueError):
        _table(warehouse).snapshot(latest.id - 1)  # only the update's snapshot is left
    assert backfiller.run() == 100
    assert backfiller.run() == 0
    rows = _read(warehouse)
    assert len(rows) == 4100 and (rows[5][1], rows[3000][1]) == (7, 8)


class OtherWriters:
    """Random commits of other writers; ``model`` maps id -> x of the live rows."""

    def __init__(self, warehouse, rnd: random.Random) -> None:
        self.warehouse = warehouse
        self.rnd = rnd
        self.model: Dict[int, int] = {}
        self.next_id = 0

    def _fresh(self, n: int) -> List[int]:
        ids = list(range(self.next_id, self.next_id + n))
        self.next_id += n
        return ids

    def append(self) -> None:
        ids = self._fresh(self.rnd.randint(1, 40))
        ours.write(_table(self.warehouse), _rows(ids))
        self.model.update({i: 0 for i in ids})

    def _some_rows(self, at_most: int) -> Dict[int, int]:
        """row id -> id of up to ``at_most`` live rows."""
        live = {rid: r[0] for rid, r in _read(self.warehouse).items()}
        picked = self.rnd.sample(sorted(live), min(len(live), self.rnd.randint(1, at_most)))
        return {rid: live[rid] for rid in picked}

    def update(self) -> None:
        from paimon_rowid import update_by_row_id
        picked = self._some_rows(10)
        if not picked:
            return
        value = self.rnd.randint(1, 10**6)
        update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array(sorted(picked), pa.int64()),
                                           "x": pa.array([value] * len(picked), pa.int64())}),
                         _opts(self.warehouse), update_cols=["x"])
        self.model.update({i: value for i in picked.values()})

    def delete(self) -> None:
        picked = self._some_rows(5)
        if not picked:
            return
        builder = _table(self.warehouse).new_batch_write_builder()
        builder.new_commit().commit(builder.new_update().delete_by_row_id(sorted(picked)))
        for i in picked.values():
            del self.model[i]

    def merge(self) -> None:
        from paimon_rowid import WhenMatched, WhenNotMatched, merge_into
        matched = list(self._some_rows(5).values())
        new = self._fresh(self.rnd.randint(0, 5))
        value = self.rnd.randint(1, 10**6)
        source = pa.table({"id": pa.array(matched + new, pa.int64()),
                           "x": pa.array([value] * (len(matched) + len(new)), pa.int64())})
        if not source.num_rows:
            return
        merge_into("db.t", source, _opts(self.warehouse), on=["id"],
                   when_matched=[WhenMatched.update({"x": "s.x"})],
                   when_not_matched=[WhenNotMatched({"id": "s.id", "x": "s.x"})])
        self.model.update({i: value for i in matched + new})

    def overwrite(self) -> None:
        """Rewrites the whole table (new row ids for every row), dropping a few rows."""
        keep = {i: x for i, x in self.model.items() if self.rnd.random() > 0.1}
        data = pa.table({"id": pa.array(sorted(keep), pa.int64()),
                         "x": pa.array([keep[i] for i in sorted(keep)], pa.int64()),
                         "d": pa.nulls(len(keep), pa.int64())}, schema=SCHEMA)
        builder = _table(self.warehouse).new_batch_write_builder().overwrite()
        writer, committer = builder.new_write(), builder.new_commit()
        writer.write_arrow(data)
        committer.commit(writer.prepare_commit())
        self.model = keep

    def truncate(self) -> None:
        builder = _table(self.warehouse).new_batch_write_builder()
        builder.new_commit().truncate_table()
        self.model = {}

    def compact(self) -> None:
        from paimon_rowid import compact
        compact("db.t", _opts(self.warehouse), **self.rnd.choice([{"full": True},
                                                                  {"min_file_num": 2}]))

    def expire(self) -> None:
        from paimon_rowid import expire_snapshots
        keep = self.rnd.choice([1, 1, 2])
        expire_snapshots("db.t", _opts(self.warehouse), retain_min=keep, retain_max=keep,
                         older_than_ms=int(time.time() * 1000) + 60_000)

    def clean_orphans(self) -> None:
        from paimon_rowid import remove_orphan_files
        remove_orphan_files("db.t", _opts(self.warehouse),
                            older_than_ms=int(time.time() * 1000) + 1000)

    def check(self) -> None:
        assert {i: x for i, x, _ in _read(self.warehouse).values()} == self.model


@pytest.mark.parametrize("seed", [7, 8])
def test_progress_survives_a_random_history_of_other_writers(warehouse, seed, oracle):
    rnd = random.Random(seed)
    ours.create_table(warehouse, "t", SCHEMA, dict(OPTIONS))
    others = OtherWriters(warehouse, rnd)
    backfiller = Backfiller(warehouse)
    steps = [(others.append, 4), (others.update, 3), (others.delete, 2), (others.merge, 2),
             (others.overwrite, 1), (others.truncate, 1), (others.compact, 2),
             (others.expire, 4), (others.clean_orphans, 1)]
    population = [step for step, weight in steps for _ in range(weight)]
    others.append()
    for _ in range(14):
        for _ in range(rnd.randint(1, 5)):
            rnd.choice(population)()
            others.check()
        backfiller.run(rows_per_commit=rnd.choice([10, 50, 1000]))
        others.check()
    # The history did what it is for: runs after the last run's snapshot had been expired.
    assert backfiller.after_expiry >= 1, backfiller.after_expiry
    rows = _read(warehouse)
    theirs = oracle.read(warehouse, "db.t", projection=COLS).to_pylist()
    assert {r["_ROW_ID"]: (r["id"], r["x"], r["d"]) for r in theirs} == rows
    assert all(d == 2 * i for i, _, d in rows.values())
