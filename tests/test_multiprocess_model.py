"""A randomized multi-process history on one table (issue 44 §9): each step starts one to three
worker processes at once (``multiprocessing``, forked from this process after it used the
engine, or spawned) doing appends, updates, deletes, merges, backfills, compactions,
expirations and orphan cleaning (with a margin), some of them SIGKILLed at a commit fault
point or at a random moment. After every step the table is checked against a Python model:

- every data operation landed all or nothing; one that reported success landed, one that
  failed (only a commit conflict is an allowed failure) left nothing;
- the rows (``id -> x``) are exactly the model's, ids and row ids unique, below ``nextRowId``;
- the backfilled column ``d`` is null or ``2 * id``, never unset once set, set on every row a
  successful backfill saw, and on every row of the ranges the backfill progress records;

and at the end a last backfill completes ``d`` and pypaimon reads the table exactly as we do.

The CI run is one short seed. A long run: ``PAIMON_ROWID_MODEL_STEPS=400
PAIMON_ROWID_MODEL_SEEDS=1,2,3 pytest -s tests/test_multiprocess_model.py`` prints its figures
(steps, processes, kills, differences)."""
from __future__ import annotations

import collections
import dataclasses
import json
import multiprocessing
import os
import random
import signal
import time
from typing import Any, Dict, List, Optional, Set, Tuple

import pyarrow as pa
import pytest

import model_workers as workers
import ours
from test_crash import POINTS as CRASH_POINTS  # the commit fault points: SIGKILL there

pytestmark = pytest.mark.native

STEPS = int(os.environ.get("PAIMON_ROWID_MODEL_STEPS", "12"))
SEEDS = [int(s) for s in os.environ.get("PAIMON_ROWID_MODEL_SEEDS", "1").split(",")]
# How workers start, drawn with these weights (default: two in three forked).
METHODS = os.environ.get("PAIMON_ROWID_MODEL_METHODS", "fork,fork,spawn").split(",")
OPTIONS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true",
           "deletion-vectors.enabled": "true"}
COLS = ["_ROW_ID", "id", "x", "d"]
KEY = f"d@{workers.BACKFILL_VERSION}"
COMMITTING = {"append", "update", "delete", "merge", "backfill", "compact"}
DATA_OPS = {"append", "update", "delete", "merge"}
WEIGHTS = {"append": 4, "update": 4, "delete": 2, "merge": 2, "backfill": 3, "compact": 2,
           "expire": 2, "orphans": 1}
ALLOWED_ERRORS = {"CommitConflictException"}  # a lost race that cannot be rebased
ORPHAN_MARGIN_MS = 30_000  # far above a step's length: no commit in flight is that old
STEP_TIMEOUT_S = 180
Row = Tuple[int, Optional[int], Optional[int]]  # (id, x, d)


@dataclasses.dataclass
class Op:
    kind: str
    spec: Dict[str, Any]
    method: str  # "fork" or "spawn"
    kill_after: Optional[float] = None  # seconds after the start: the parent's SIGKILL
    process: Any = None
    killed: bool = False  # ended by SIGKILL (fault point or parent)
    outcome: Optional[Dict[str, Any]] = None


def _opts(warehouse) -> Dict[str, str]:
    return {"warehouse": str(warehouse)}


def _read(warehouse) -> Dict[int, Row]:
    table = ours.catalog(warehouse).get_table(workers.TABLE)
    builder = table.new_read_builder().with_projection(COLS)
    got = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return {r["_ROW_ID"]: (r["id"], r["x"], r["d"]) for r in got.to_pylist()}


class Model:
    def __init__(self, warehouse, scratch, rnd: random.Random) -> None:
        self.warehouse = str(warehouse)
        self.scratch = scratch
        self.rnd = rnd
        self.rows: Dict[int, int] = {}  # id -> x
        self.computed: Set[int] = set()  # ids whose d is set
        self.next_id = 0
        self.next_value = 1
        self.step = 0
        self.figures: collections.Counter = collections.Counter()

    # -------------------------------------------------------------------- planning a step

    def _fresh(self, n: int) -> List[int]:
        ids = list(range(self.next_id, self.next_id + n))
        self.next_id += n
        return ids

    def _value(self) -> int:
        self.next_value += 1
        return self.next_value * 1000 + self.step  # unique: an op's landing is visible

    def plan(self, live: Dict[int, Row]) -> List[Op]:
        """One to three operations on disjoint rows (so each one's landing is decidable)."""
        pool = sorted(live.items())
        self.rnd.shuffle(pool)
        kinds = self.rnd.choices(list(WEIGHTS), list(WEIGHTS.values()),
                                 k=self.rnd.choice([1, 2, 2, 3]))
        ops = []
        for k, kind in enumerate(kinds):
            spec: Dict[str, Any] = {
                "warehouse": self.warehouse, "op": kind,
                "result": os.path.join(self.scratch, f"{self.step}-{k}.json")}
            take = min(len(pool), self.rnd.randint(1, 6))
            picked, pool = pool[:take], pool[take:]
            if kind in ("update", "delete", "merge") and not picked:
                kind = spec["op"] = "append"
            if kind == "append":
                spec["ids"] = self._fresh(self.rnd.randint(1, 30))
            elif kind in ("update", "delete"):
                spec["row_ids"] = sorted(rid for rid, _ in picked)
                spec["ids"] = [row[0] for _, row in picked]
                spec["value"] = self._value()
            elif kind == "merge":
                spec["matched"] = [row[0] for _, row in picked]
                spec["new"] = self._fresh(self.rnd.randint(0, 4))
                spec["value"] = self._value()
            elif kind == "backfill":
                spec["rows_per_commit"] = self.rnd.choice([10, 25, 100])
            elif kind == "compact":
                spec["kwargs"] = self.rnd.choice([{"full": True}, {"min_file_num": 2}])
            elif kind == "expire":
                spec["keep"] = self.rnd.randint(1, 3)
            elif kind == "orphans":
                spec["margin_ms"] = ORPHAN_MARGIN_MS
            op = Op(kind, spec, self.rnd.choice(METHODS))
            if self.rnd.random() < 0.25:
                if kind in COMMITTING and self.rnd.random() < 0.5:
                    spec["crash_at"] = self.rnd.choice(CRASH_POINTS)
                else:
                    op.kill_after = self.rnd.uniform(0.02, 1.5)
            ops.append(op)
        return ops

    # -------------------------------------------------------------------- running a step

    def run(self, ops: List[Op]) -> None:
        for op in ops:
            op.process = multiprocessing.get_context(op.method).Process(
                target=workers.run, args=(op.spec,), daemon=True)
            op.process.start()
            self.figures[f"processes ({op.method})"] += 1
        started = time.monotonic()
        while any(op.process.is_alive() for op in ops):
            elapsed = time.monotonic() - started
            for op in ops:
                if op.kill_after is not None and elapsed >= op.kill_after \
                        and op.process.is_alive():
                    os.kill(op.process.pid, signal.SIGKILL)
                    op.kill_after = None
            if elapsed > STEP_TIMEOUT_S:
                for op in ops:
                    if op.process.is_alive():
                        os.kill(op.process.pid, signal.SIGKILL)
                pytest.fail(f"step {self.step}: {[(o.kind, o.method) for o in ops]} hung")
            time.sleep(0.01)
        for op in ops:
            op.process.join()
            if os.path.exists(op.spec["result"]):
                with open(op.spec["result"]) as f:
                    op.outcome = json.load(f)
            elif op.process.exitcode == -signal.SIGKILL:
                op.killed = True
                self.figures["kills"] += 1
            else:
                pytest.fail(f"step {self.step}: {op.kind} ({op.method}) died with exit code "
                            f"{op.process.exitcode} and no outcome")

    # -------------------------------------------------------------------- judging a step

    def _landed(self, op: Op, by_id: Dict[int, Row]) -> Optional[bool]:
        """Whether a data operation's commit is in the table (asserting all or nothing)."""
        spec = op.spec
        if op.kind == "append":
            marks = [i in by_id for i in spec["ids"]]
        elif op.kind == "update":
            marks = [by_id[i][1] == spec["value"] for i in spec["ids"]]
        elif op.kind == "delete":
            marks = [i not in by_id for i in spec["ids"]]
        elif op.kind == "merge":
            marks = [by_id[i][1] == spec["value"] for i in spec["matched"]] + [
                i in by_id and by_id[i][1] == spec["value"] for i in spec["new"]]
        else:
            return None
        assert all(marks) or not any(marks), (
            f"step {self.step}: {op.kind} landed partly: {marks} ({spec})")
        return all(marks)

    def judge(self, ops: List[Op], before: Dict[int, Row]) -> None:
        after = _read(self.warehouse)
        by_id = {row[0]: (rid, row[1], row[2]) for rid, row in after.items()}
        assert len(by_id) == len(after), f"step {self.step}: an id appears twice"
        by_id_row = {i: (i, x, d) for i, (_, x, d) in by_id.items()}
        for op in ops:
            landed = self._landed(op, by_id_row)
            if op.outcome is not None and not op.outcome["ok"]:
                error = op.outcome["error"]
                if error == "BackfillError":  # a failed batch: what failed it decides
                    error = op.outcome["cause"]
                assert error in ALLOWED_ERRORS, (
                    f"step {self.step}: {op.kind} ({op.method}) failed: {op.outcome}")
                assert landed is not True, f"step {self.step}: failed {op.kind} landed"
                self.figures["conflicts"] += 1
            elif op.outcome is not None:
                assert landed is not False, (
                    f"step {self.step}: {op.kind} reported success but did not land")
            if op.outcome == {"ok": True}:
                self.figures[f"ok {op.kind}"] += 1
            if landed:
                self._apply(op)
                self.figures["landed data ops"] += 1
        got = {i: x for i, (_, x, _) in by_id.items()}
        assert got == self.rows, f"step {self.step}: rows differ from the model " \
                                 f"({self._diff(got)})"
        for i, (_, _, d) in by_id.items():
            assert d is None or d == 2 * i, f"step {self.step}: id {i} has d={d}"
        now_set = {i for i, (_, _, d) in by_id.items() if d is not None}
        lost = (self.computed & set(by_id)) - now_set
        assert not lost, f"step {self.step}: d of ids {sorted(lost)[:10]} was unset"
        for op in ops:
            if op.kind == "backfill" and op.outcome == {"ok": True}:
                missing = {row[0] for row in before.values()} & set(by_id) - now_set
                assert not missing, (f"step {self.step}: a finished backfill left ids "
                                     f"{sorted(missing)[:10]} without d")
        self.computed = now_set
        self._check_progress(after)
        latest = ours.catalog(self.warehouse).get_table(workers.TABLE).latest_snapshot()
        assert not after or max(after) < latest["nextRowId"]

    def _check_progress(self, after: Dict[int, Row]) -> None:
        """Every live row inside the ranges recorded as done for the key has its value."""
        from paimon_rowid.row_id_ranges import completed_ranges
        done = completed_ranges(ours.catalog(self.warehouse).get_table(workers.TABLE), KEY)
        for rid, (i, _, d) in after.items():
            if any(r.from_ <= rid <= r.to for r in done):
                assert d == 2 * i, (f"step {self.step}: row {rid} (id {i}) is recorded as "
                                    f"done for {KEY} but d={d}")

    def _apply(self, op: Op) -> None:
        spec = op.spec
        if op.kind == "append":
            self.rows.update({i: 0 for i in spec["ids"]})
        elif op.kind == "update":
            self.rows.update({i: spec["value"] for i in spec["ids"]})
        elif op.kind == "delete":
            for i in spec["ids"]:
                del self.rows[i]
        elif op.kind == "merge":
            self.rows.update({i: spec["value"] for i in spec["matched"] + spec["new"]})

    def _diff(self, got: Dict[int, int]) -> str:
        missing = sorted(set(self.rows) - set(got))[:10]
        extra = sorted(set(got) - set(self.rows))[:10]
        wrong = sorted(i for i in set(got) & set(self.rows) if got[i] != self.rows[i])[:10]
        return f"missing {missing}, extra {extra}, wrong x {wrong}"

    def step_once(self) -> None:
        self.step += 1
        before = _read(self.warehouse)
        ops = self.plan(before)
        self.run(ops)
        self.judge(ops, before)
        self.figures["steps"] += 1


@pytest.mark.parametrize("seed", SEEDS)
def test_processes_racing_with_kills_match_the_model(warehouse, tmp_path, seed, oracle):
    rnd = random.Random(seed)
    ours.create_table(warehouse, "m", workers.SCHEMA, dict(OPTIONS))
    scratch = tmp_path / "outcomes"
    scratch.mkdir()
    model = Model(warehouse, str(scratch), rnd)
    ids = model._fresh(20)
    ours.write(ours.catalog(warehouse).get_table(workers.TABLE),
               pa.table({"id": ids, "x": [0] * 20, "d": pa.nulls(20, pa.int64())},
                        schema=workers.SCHEMA))
    model.rows.update({i: 0 for i in ids})
    started = time.monotonic()
    for _ in range(STEPS):
        model.step_once()
    # A last backfill, in this process, completes the column.
    from paimon_rowid import backfill
    backfill(workers.TABLE, _opts(warehouse), column="d", fn=workers.derive,
             input_columns=["id"], version=workers.BACKFILL_VERSION, progress=False)
    rows = _read(warehouse)
    assert {i: x for i, x, _ in rows.values()} == model.rows
    assert all(d == 2 * i for i, _, d in rows.values())
    theirs = oracle.read(warehouse, workers.TABLE, projection=COLS).to_pylist()
    assert {r["_ROW_ID"]: (r["id"], r["x"], r["d"]) for r in theirs} == rows
    model.figures["rows"] = len(rows)
    model.figures["seconds"] = round(time.monotonic() - started)
    print(f"\nseed {seed}: {dict(sorted(model.figures.items()))}, 0 differences")
