"""A randomized history of appends, updates, compactions, tags, snapshot expirations and
orphan cleaning, checked against a model of the table after every step: no row is ever lost,
no file a retained snapshot or tag needs is ever deleted, every retained snapshot and every
tag reads exactly what the model recorded for it, and pypaimon and Java read the final table
and a tag as we do."""
from __future__ import annotations

import os
import random
import time
from typing import Dict, List, Tuple

import pyarrow as pa
import pytest

import ours
from java_compat_table import assert_same_rows, our_read

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true",
      "snapshot.num-retained.min": "1"}
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("x", pa.int64()),
                    ("name", pa.string())])
Rows = Dict[int, Tuple[int, int, str]]  # _ROW_ID -> (id, x, name)


def _opts(warehouse):
    return {"warehouse": str(warehouse)}


def _table(warehouse):
    return ours.catalog(warehouse).get_table("db.m")


def _read_at(warehouse, snapshot_id=None, tag=None) -> Rows:
    table = _table(warehouse)
    if snapshot_id is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot_id)})
    if tag is not None:
        table = table.copy({"scan.tag-name": tag})
    builder = table.new_read_builder().with_projection(["_ROW_ID", "id", "x", "name"])
    got = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return {r["_ROW_ID"]: (r["id"], r["x"], r["name"]) for r in got.to_pylist()}


def _orphan(warehouse, rnd) -> List[str]:
    """Writes a file that is never committed (a crashed job of another engine); its name."""
    table = _table(warehouse)
    writer = table.new_batch_write_builder().new_write()
    writer.write_arrow(pa.table({"id": [rnd.randint(0, 9)], "x": [0], "name": ["orphan"]},
                                schema=SCHEMA))
    names = [n for m in writer.prepare_commit() for n in m.file_names]
    writer.close()
    return names


def _exists(warehouse, name: str) -> bool:
    return any(os.path.basename(p) == name for p in ours.files(warehouse))


class Model:
    def __init__(self, warehouse, rnd):
        self.warehouse = warehouse
        self.rnd = rnd
        self.rows: Rows = {}
        self.next_id = 0
        self.by_snapshot: Dict[int, Rows] = {}
        self.tags: Dict[str, Rows] = {}
        self.step = 0

    def latest(self) -> int:
        return _table(self.warehouse).latest_snapshot().id

    def record(self) -> None:
        self.by_snapshot[self.latest()] = dict(self.rows)

    def append(self) -> None:
        n = self.rnd.randint(1, 30)
        ids = list(range(self.next_id, self.next_id + n))
        data = pa.table({"id": ids, "x": [0] * n, "name": [f"n{i}" for i in ids]}, schema=SCHEMA)
        ours.write(_table(self.warehouse), data)
        first = len(self.rows)
        for k, i in enumerate(ids):
            self.rows[first + k] = (i, 0, f"n{i}")
        self.next_id += n
        self.record()

    def update(self) -> None:
        from paimon_rowid import update_by_row_id
        if not self.rows:
            return
        column = self.rnd.choice(["x", "name"])
        ids = sorted(self.rnd.sample(sorted(self.rows), min(len(self.rows),
                                                            self.rnd.randint(1, 8))))
        values = [self.step * 1000 + i for i in ids]
        col = pa.array(values if column == "x" else [f"s{v}" for v in values],
                       SCHEMA.field(column).type)
        update_by_row_id("db.m", pa.table({"_ROW_ID": pa.array(ids, pa.int64()), column: col}),
                         _opts(self.warehouse), update_cols=[column])
        for rid, v in zip(ids, col.to_pylist()):
            i, x, name = self.rows[rid]
            self.rows[rid] = (i, v, name) if column == "x" else (i, x, v)
        self.record()

    def compact(self) -> None:
        from paimon_rowid import compact
        kwargs = self.rnd.choice([{"full": True}, {"min_file_num": 2}, {"min_file_num": 3}])
        if compact("db.m", _opts(self.warehouse), **kwargs)["snapshot_id"] is not None:
            self.record()

    def tag(self) -> None:
        name = f"t{self.step}"
        _table(self.warehouse).create_tag(name)
        self.tags[name] = dict(self.rows)

    def expire(self) -> None:
        from paimon_rowid import expire_snapshots
        # Every snapshot is older than `older_than_ms`, so Java's rules keep exactly the
        # newest `retain_min` (retain_max only caps what time would keep).
        keep = self.rnd.randint(1, 4)
        expire_snapshots("db.m", _opts(self.warehouse), retain_max=keep + 2, retain_min=keep,
                         older_than_ms=int(time.time() * 1000) + 60_000, max_deletes=10_000)
        table = _table(self.warehouse)
        latest = self.latest()
        for sid in list(self.by_snapshot):
            if sid <= latest - keep:
                with pytest.raises(ValueError):
                    table.snapshot(sid)
                del self.by_snapshot[sid]
            else:
                assert table.snapshot(sid).id == sid

    def clean_orphans(self) -> None:
        """A file younger than the margin is kept (it may belong to a commit in flight); once
        the margin has passed it, it is deleted. Nothing a snapshot or tag needs goes."""
        from paimon_rowid import remove_orphan_files
        cutoff = int(time.time() * 1000) - 1000
        names = _orphan(self.warehouse, self.rnd)
        remove_orphan_files("db.m", _opts(self.warehouse), older_than_ms=cutoff)
        assert all(_exists(self.warehouse, n) for n in names)
        dry = remove_orphan_files("db.m", _opts(self.warehouse),
                                  older_than_ms=int(time.time() * 1000) + 1000, dry_run=True)
        assert all(_exists(self.warehouse, n) for n in names), dry
        remove_orphan_files("db.m", _opts(self.warehouse),
                            older_than_ms=int(time.time() * 1000) + 1000)
        assert not any(_exists(self.warehouse, n) for n in names)

    def check(self) -> None:
        assert _read_at(self.warehouse) == self.rows, f"latest after step {self.step}"
        for name, rows in self.tags.items():
            assert _read_at(self.warehouse, tag=name) == rows, f"tag {name} at {self.step}"

    def check_all_snapshots(self) -> None:
        table = _table(self.warehouse)
        latest = self.latest()
        for sid, rows in sorted(self.by_snapshot.items()):
            try:
                table.snapshot(sid)
            except ValueError:
                assert sid < latest, f"latest snapshot {sid} vanished"
                continue  # expired (older than what retain_max keeps)
            assert _read_at(self.warehouse, snapshot_id=sid) == rows, f"snapshot {sid}"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_history_matches_the_model(warehouse, seed, oracle, java):
    rnd = random.Random(seed)
    ours.create_table(warehouse, "m", SCHEMA, dict(DE))
    model = Model(warehouse, rnd)
    model.append()
    actions = [(model.append, 3), (model.update, 6), (model.compact, 2), (model.tag, 1),
               (model.expire, 2), (model.clean_orphans, 1)]
    population = [a for a, w in actions for _ in range(w)]
    for step in range(45):
        model.step = step + 1
        rnd.choice(population)()
        model.check()
        if step % 10 == 9:
            model.check_all_snapshots()
    model.check_all_snapshots()
    # Nothing outside the table's own files was touched, and no temp file was left.
    assert not [p for p in ours.files(warehouse) if os.path.basename(p).startswith(".")]
    # The other engines read the final table (and a tag, if any) as the model says.
    cols = ["_ROW_ID", "id", "x", "name"]
    theirs = oracle.read(warehouse, "db.m", projection=cols).to_pylist()
    assert {r["_ROW_ID"]: (r["id"], r["x"], r["name"]) for r in theirs} == model.rows
    if model.tags:
        name = sorted(model.tags)[-1]
        theirs = oracle.read(warehouse, "db.m", projection=cols, tag=name).to_pylist()
        assert {r["_ROW_ID"]: (r["id"], r["x"], r["name"]) for r in theirs} == model.tags[name]
    names, rows = our_read(warehouse, "db.m", projection=cols)
    assert_same_rows(names, rows, java.dump(warehouse, "db.m", projection=cols),
                     f"java, seed {seed}")
