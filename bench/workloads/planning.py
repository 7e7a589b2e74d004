"""7. process_row_id_ranges planning on a table of very many data files."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from bench.digest import table_digest
from bench.registry import IDENTIFIER, Target, Workload, register


@register
class PlanManyFiles(Workload):
    name = "plan_many_files"
    group = "planning"
    target = Target(1.0, "our bar: no slower than pypaimon (issue 7 sets no speedup)")
    peer_target = Target(2.0, "issue 18: vs pypaimon + Rust, planning 100k files >= 2x")
    description = ("process_row_id_ranges on an (id, x) table of many tiny data files, with a "
                   "processor that only collects its ranges: times the planning (snapshot + "
                   "manifest read, grouping of the files into row-id ranges, batching). The "
                   "table is written once by ours with a small target-file-size, "
                   "`plan_commits` commits of many files each (pypaimon writes ~100 files/s). "
                   "The check compares the ranges handed to the processor.")

    def title(self, p):
        return (f"process_row_id_ranges planning, ~{p['plan_files']:,} files "
                f"({p['plan_rows']:,} rows, {p['plan_commits']} commits)")

    def rounds(self, p):
        return p.get("plan_rounds")

    def prepare(self, ctx):
        p = ctx.params
        return {"warehouse": ctx.many_files_table(p["plan_rows"], p["plan_commits"],
                                                  p["plan_target_file_size"]),
                "rows_per_commit": p["plan_rows_per_commit"]}

    def run(self, engine, state):
        batches = []
        engine.process_row_id_ranges(state["warehouse"], IDENTIFIER,
                                     state["rows_per_commit"], batches.append)
        return batches

    def metrics(self, engine, state, result):
        return {"ranges": sum(len(b) for b in result), "batches": len(result)}

    metric_labels = {"ranges": ("file groups (ranges)", "count"),
                     "batches": ("processor calls", "count")}

    def check(self, engine, state, result):
        lo = np.array([r.from_ for b in result for r in b], dtype=np.int64)
        hi = np.array([r.to for b in result for r in b], dtype=np.int64)
        batch = np.concatenate([np.full(len(b), i, dtype=np.int64)
                                for i, b in enumerate(result)]) if result else np.empty(0)
        problems = []
        if len(lo) and (lo[0] != 0 or not np.array_equal(lo[1:], hi[:-1] + 1)):
            problems.append("the ranges do not tile 0..n-1 in order")
        return {"digest": table_digest(pa.table({"batch": batch, "from": lo, "to": hi})),
                "problems": problems}
