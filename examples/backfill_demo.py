"""The seed's embedding backfill as one ``backfill(...)`` call: progress, a kill and a resume,
then an incremental run after an append. Embedded by default; ``--ray`` runs the same calls
with ``paimon_rowid.ray.backfill`` on a local Ray (2 CPUs).

    python examples/backfill_demo.py --warehouse /tmp/wh [--ray]

The table, the model (``EmbedImages``) and the sizes are the seed's (examples/seed_backfill.py,
imported from there); the job itself is this call:

    backfill(TARGET, CATALOG_OPTIONS, column="embedding", fn=EmbedImages,
             input_columns=["image"], rows_per_commit=..., batch_size=128)

1. a first run in a child process that is killed (SIGKILL) during batch 3 of 5;
2. the rerun: batches 1-2 are skipped without being read, 3-5 are computed;
3. rows appended afterwards: the next run computes exactly those.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import seed_backfill  # noqa: E402  (the seed's table, model and Ray start)
from seed_backfill import (  # noqa: E402
    CATALOG_OPTIONS,
    EMBEDDING_DIM,
    TARGET,
    EmbedImages,
    create_images_table,
)

from paimon_rowid import (  # noqa: E402
    BackfillProgress,
    BackfillResult,
    CatalogFactory,
    backfill_status,
)

BATCHES = 5


def job(args: argparse.Namespace, **extra: Any) -> BackfillResult:
    """The seed's backfill, as one call."""
    if args.ray:
        from paimon_rowid.ray import backfill
    else:
        from paimon_rowid import backfill
    return backfill(TARGET, CATALOG_OPTIONS, column="embedding", fn=EmbedImages,
                    input_columns=["image"], rows_per_commit=args.rows // BATCHES,
                    batch_size=128, **extra)


def start_ray(address: Optional[str] = None) -> Any:
    import logging

    ray = seed_backfill.start_ray(address)
    logging.getLogger("ray.data").setLevel(logging.ERROR)  # our progress lines, not its logs
    return ray


def child(args: argparse.Namespace) -> None:
    """The run that gets killed: SIGKILL (no cleanup of any kind) during batch 3."""
    if args.ray:
        start_ray(args.ray_address)

    def kill_in_batch_3(p: BackfillProgress) -> None:
        if p.batch == 3 and (args.ray or p.rows_done > 2 * (args.rows // BATCHES)):
            print(f"  -- killing the run (SIGKILL) in batch 3 of {p.batches}, "
                  f"{p.commits} commit(s) made", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

    job(args, progress=sys.stdout, on_progress=kill_in_batch_3)


def summary(args: argparse.Namespace, phase: str, result: BackfillResult,
            started: float) -> int:
    table = CatalogFactory.create(CATALOG_OPTIONS).get_table(TARGET)
    rb = table.new_read_builder().with_projection(["embedding", "_ROW_ID"])
    rb.with_filter(rb.new_predicate_builder().is_null("embedding"))
    left: int = rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows
    print(f"  {phase}: {result.rows_computed:,} rows computed, {result.rows_skipped:,} rows in "
          f"{result.ranges_skipped} finished range(s) skipped unread, {result.commits} "
          f"commit(s) (snapshots {result.snapshot_ids}), {result.bytes_read / 1e6:.1f} MB "
          f"read, {result.seconds:.1f}s; rows without an embedding: {left}", flush=True)
    if args.summary:
        with open(args.summary, "a") as out:
            where = "Ray" if args.ray else "embedded"
            out.write(json.dumps({"phase": f"backfill(), {where}: {phase}",
                                  "rows_embedded": result.rows_computed,
                                  "commits": result.commits,
                                  "seconds": time.perf_counter() - started,
                                  "rows_left": left}) + "\n")
    return left


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--append", type=int, default=1000)
    parser.add_argument("--ray", action="store_true", help="run on a local Ray")
    parser.add_argument("--summary", help="append each phase's figures, as JSON lines, here")
    parser.add_argument("--ray-address", help=argparse.SUPPRESS)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    CATALOG_OPTIONS["warehouse"] = args.warehouse
    if args.child:
        return child(args)
    create_images_table(args.rows, commits=BATCHES)
    where = "on a local Ray" if args.ray else "embedded"
    ray = start_ray() if args.ray else None

    print(f"-- 1. backfill {where} ({args.rows:,} rows, {BATCHES} batches), killed in batch 3",
          flush=True)
    command = [sys.executable, os.path.abspath(__file__), "--child", "--warehouse",
               args.warehouse, "--rows", str(args.rows)]
    if ray is not None:
        command += ["--ray", "--ray-address", ray.get_runtime_context().gcs_address]
    killed = subprocess.run(command)
    status = backfill_status(TARGET, CATALOG_OPTIONS, "embedding")
    print(f"  the run died (exit {killed.returncode}); backfill_status: "
          f"{len(status.done)} range(s) done ({status.rows_done:,} rows, snapshots "
          f"{sorted({r.snapshot_id for r in status.done if r.snapshot_id is not None})}), "
          f"{len(status.pending)} pending "
          f"({status.rows_pending:,} rows)", flush=True)

    print("-- 2. the same call again: batches 1-2 skipped unread, the 3 pending ones run",
          flush=True)
    started = time.perf_counter()
    result = job(args, progress=sys.stdout)
    left = summary(args, "resume after a kill", result, started)

    print(f"-- 3. {args.append:,} rows appended, the same call again: computes exactly those",
          flush=True)
    _append(args.append)
    started = time.perf_counter()
    result = job(args, progress=sys.stdout)
    left += summary(args, f"after appending {args.append:,} rows", result, started)
    if left:
        sys.exit(f"backfill demo: FAILED, {left} rows without an embedding")


def _append(n: int) -> None:
    import numpy as np
    import pyarrow as pa
    table = CatalogFactory.create(CATALOG_OPTIONS).get_table(TARGET)
    snapshot = table.latest_snapshot()
    assert snapshot is not None, "the demo table has rows"
    first = snapshot["nextRowId"]
    rng = np.random.default_rng(11)
    wb = table.new_batch_write_builder()
    write, commit = wb.new_write(), wb.new_commit()
    write.write_arrow(pa.table({
        "id": pa.array(range(first, first + n), pa.int64()),
        "image": pa.array([rng.bytes(2048) for _ in range(n)], pa.large_binary()),
        "embedding": pa.nulls(n, pa.list_(pa.float32(), EMBEDDING_DIM)),
    }))
    commit.commit(write.prepare_commit())


if __name__ == "__main__":
    main()
