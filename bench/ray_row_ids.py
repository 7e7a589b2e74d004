"""Where a Ray row-id job's time goes: ``python -m bench.ray_row_ids`` (ours only, no pypaimon).

Writes a table of ``--rows`` rows with our writer in 10 commits (once, in ``--work-dir``), then
per source kind runs two fresh processes, each with its own ``ray.init(num_cpus=--cpus)``
(untimed): one calls ``read_by_row_id`` first, the other ``update_by_row_id`` first, so each
op has a "first call in a fresh Ray" figure; then, in the same Ray session, one warm-up and
``--rounds`` timed calls of each op (median reported), next to the embedded call. ``--ids``
random distinct ids; the read projects (x, s); the update sets x of the same number of
other random ids (a fresh copy of the table per call, copied before the clock). The source
(pyarrow Table, ``ray.data.from_arrow`` Dataset, or pandas DataFrame) is built inside the
timed call, as a user pays it. The read is consumed with ``to_arrow_refs`` + ``ray.get``.
Also a warm ``read_paimon`` of the whole table (``scan``). Modules are imported before the
clock.

    python -m bench.ray_row_ids --sources table,dataset
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROW_ID = "_ROW_ID"
OPTS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


def _make_table(warehouse: str, rows: int, commits: int = 10) -> None:
    import pyarrow as pa

    from paimon_rowid import CatalogFactory, Schema
    if os.path.exists(os.path.join(warehouse, f"done-{rows}")):
        return
    shutil.rmtree(warehouse, ignore_errors=True)
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table("db.t", Schema.from_pyarrow_schema(pa.schema(
        [("id", pa.int64()), ("x", pa.float64()), ("y", pa.int32()), ("s", pa.string())]),
        options=OPTS), False)
    table = catalog.get_table("db.t")
    import numpy as np
    for c in range(commits):
        ids = np.arange(c * rows // commits, (c + 1) * rows // commits, dtype=np.int64)
        wb = table.new_batch_write_builder()
        w, cm = wb.new_write(), wb.new_commit()
        w.write_arrow(pa.table({"id": ids, "x": ids.astype("float64"),
                                "y": (ids % 1000).astype("int32"),
                                "s": pa.array([f"s{i}" for i in ids])}))
        cm.commit(w.prepare_commit())
    open(os.path.join(warehouse, f"done-{rows}"), "w").close()


def _child(args) -> dict:
    import numpy as np
    import pyarrow as pa
    import ray
    import ray.data  # noqa: F401 - imported before the clock

    import paimon_rowid
    from paimon_rowid import ray as pr
    from paimon_rowid import read_by_row_id as embedded_read
    from paimon_rowid import update_by_row_id as embedded_update
    rng = np.random.default_rng(5)
    read_ids = pa.table({ROW_ID: rng.choice(args.rows, args.ids, replace=False)})
    upd = pa.table({ROW_ID: rng.choice(args.rows, args.ids, replace=False),
                    "x": rng.random(args.ids)})
    t = time.perf_counter()
    ray.init(address="local", num_cpus=args.cpus, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    report: dict = {"package": paimon_rowid.__file__, "ray": ray.__version__,
                    "source": args.source, "first": args.first,
                    "ray_init_s": time.perf_counter() - t}

    def source(table):
        if args.source == "dataset":
            return ray.data.from_arrow(table)
        if args.source == "pandas":
            return table.to_pandas()
        return table

    def read() -> float:
        t = time.perf_counter()
        ds = pr.read_by_row_id("db.t", source(read_ids), {"warehouse": args.warehouse},
                               projection=["x", "s"])
        rows = sum(b.num_rows for b in ray.get(ds.to_arrow_refs()))
        elapsed = time.perf_counter() - t
        assert rows == args.ids, rows
        return elapsed

    copies = [0]

    def fresh_copy() -> str:
        copies[0] += 1
        target = os.path.join(args.scratch, f"u{copies[0]}")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(args.warehouse, target)
        return target

    def update() -> float:
        warehouse = fresh_copy()
        t = time.perf_counter()
        got = pr.update_by_row_id("db.t", source(upd), {"warehouse": warehouse},
                                  update_cols=["x"])
        elapsed = time.perf_counter() - t
        assert got == {"num_updated": args.ids}, got
        shutil.rmtree(warehouse)
        return elapsed

    def scan() -> float:
        t = time.perf_counter()
        rows = sum(b.num_rows for b in ray.get(
            pr.read_paimon("db.t", {"warehouse": args.warehouse}).to_arrow_refs()))
        elapsed = time.perf_counter() - t
        assert rows == args.rows, rows
        return elapsed

    ops = {"read": read, "update": update}
    other = "update" if args.first == "read" else "read"
    report[f"{args.first}_first_call_s"] = ops[args.first]()
    report[f"{other}_second_op_first_call_s"] = ops[other]()
    ops["scan"] = scan  # read_paimon of the whole table: warm figures only
    for name, op in ops.items():
        op()  # warm-up
        times = [op() for _ in range(args.rounds)]
        report[f"{name}_warm_median_s"] = statistics.median(times)
        report[f"{name}_warm_s"] = times
    t = time.perf_counter()
    embedded_read("db.t", read_ids, {"warehouse": args.warehouse}, projection=["x", "s"])
    report["embedded_read_s"] = time.perf_counter() - t
    warehouse = fresh_copy()
    t = time.perf_counter()
    embedded_update("db.t", upd, {"warehouse": warehouse}, update_cols=["x"])
    report["embedded_update_s"] = time.perf_counter() - t
    ray.shutdown()
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--ids", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--sources", default="table,dataset",
                        help="comma-separated: table, dataset, pandas")
    parser.add_argument("--work-dir", default=os.path.join(tempfile.gettempdir(),
                                                           "paimon-rowid-bench-ray-row-ids"))
    parser.add_argument("--out", help="write the reports as JSON lines here")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--source", default="table", help=argparse.SUPPRESS)
    parser.add_argument("--first", default="read", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.warehouse = os.path.join(args.work_dir, "warehouse")
    args.scratch = os.path.join(args.work_dir, "scratch")
    if args.child:
        print(json.dumps(_child(args)))
        return 0
    os.makedirs(args.scratch, exist_ok=True)
    _make_table(args.warehouse, args.rows)
    reports = []
    for kind in args.sources.split(","):
        for first in ("read", "update"):
            out = subprocess.run(
                [sys.executable, "-m", "bench.ray_row_ids", "--child", "--source", kind,
                 "--first", first, "--rows", str(args.rows), "--ids", str(args.ids),
                 "--rounds", str(args.rounds), "--cpus", str(args.cpus),
                 "--work-dir", args.work_dir],
                capture_output=True, text=True, check=True)
            report = json.loads(out.stdout.strip().splitlines()[-1])
            reports.append(report)
            print(json.dumps({k: (round(v, 3) if isinstance(v, float) else v)
                              for k, v in report.items() if not k.endswith("_warm_s")}),
                  flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in reports)
    return 0


if __name__ == "__main__":
    sys.exit(main())
