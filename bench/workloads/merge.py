"""9. merge_into (issue 19): an upsert by key (update x of existing ids, insert new ids) and the
self-merge update of 1% of the rows, ours vs pypaimon's local MERGE."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from bench import data
from bench.digest import table_digest
from bench.registry import EMBEDDED, IDENTIFIER, RAY, Target, Workload, register

FULL = ["id", "x", "y", "s", "_ROW_ID"]


@register
class MergeUpsert(Workload):
    name = "merge_upsert"
    group = "merge_into"
    mutates = True
    pairs = (EMBEDDED,)
    ray_pairs = (RAY,)
    target = Target(5.0, "issue 19: merge_into upsert >= 5x")
    description = ("merge_into ON id of `join_incoming` source rows (id, x, y, s): half of them "
                   "existing ids at random (WHEN MATCHED UPDATE SET x = s.x), half new ids "
                   "(WHEN NOT MATCHED INSERT *); one commit. pypaimon's side is its local "
                   "`new_update().merge_into(...)` + commit (its Ray call with --ray). The "
                   "check reads the whole table back.")

    def title(self, p):
        return (f"merge_into upsert of {p['join_incoming']:,} keys "
                f"(half updates, half inserts)")

    def prepare(self, ctx):
        p = ctx.params
        path = ctx.input_path(f"{self.name}.arrow")
        if not path.exists():
            n = p["join_incoming"]
            old = data.random_ids(p["rows"], n // 2, 9, 1)
            new = np.arange(p["rows"], p["rows"] + (n - n // 2), dtype=np.int64)
            ids = np.concatenate([old, new]).astype(np.int64)
            gen = data.rng(9, 2)
            source = pa.table({"id": pa.array(ids), "x": pa.array(gen.random(len(ids))),
                               "y": pa.array(gen.integers(0, data.Y_RANGE, size=len(ids),
                                                          dtype=np.int32)),
                               "s": data.random_strings(gen, len(ids))},
                              schema=data.BASE_SCHEMA)
            data.write_ipc(path, source)
        return {"warehouse": ctx.base_table(), "input": str(path), "rows": p["rows"]}

    def setup(self, engine, args):
        return {**args, "data": data.read_ipc(args["input"])}

    def run(self, engine, state):
        engine.merge_upsert(state["warehouse"], IDENTIFIER, state["data"])

    def check(self, engine, state, result):
        back = engine.scan(engine.get_table(state["warehouse"], IDENTIFIER),
                           projection=FULL).sort_by("id")
        source = state["data"].sort_by("id")
        problems = []
        expected_rows = state["rows"] + int(np.sum(source.column("id").to_numpy() >= state["rows"]))
        if back.num_rows != expected_rows:
            problems.append(f"{back.num_rows} rows after the merge, expected {expected_rows}")
        else:
            pos = np.searchsorted(back.column("id").to_numpy(), source.column("id").to_numpy())
            if not np.array_equal(back.column("x").to_numpy()[pos], source.column("x").to_numpy()):
                problems.append("some merged rows do not carry the source's x")
        # Inserted rows' _ROW_IDs depend on the writer's order: digest without them.
        return {"digest": table_digest(back.select(["id", "x", "y", "s"]), ["id"]),
                "problems": problems}


@register
class MergeSelfUpdate(Workload):
    name = "merge_self_update"
    group = "merge_into"
    mutates = True
    pairs = (EMBEDDED,)
    ray_pairs = (RAY,)
    target = Target(10.0, "issue 19: self-merge update of 1% >= 10x")
    description = ("the self-merge (source = target, ON _ROW_ID): WHEN MATCHED AND t.y < c "
                   "UPDATE SET x = -1.0, c chosen so ~1% of the rows match; one commit. "
                   "pypaimon's side is its local merge with the table as the source (its Ray "
                   "call with --ray). The check reads the whole table back.")

    def title(self, p):
        return f"merge_into self-merge update of ~1% of {p['rows']:,} rows (t.y < c)"

    def prepare(self, ctx):
        return {"warehouse": ctx.base_table(), "limit": data.Y_RANGE // 100}

    def run(self, engine, state):
        engine.merge_self_update(state["warehouse"], IDENTIFIER, "x", -1.0,
                                 f"t.y < {state['limit']}")

    def check(self, engine, state, result):
        back = engine.scan(engine.get_table(state["warehouse"], IDENTIFIER),
                           projection=FULL).sort_by("_ROW_ID")
        y, x = back.column("y").to_numpy(), back.column("x").to_numpy()
        hit = y < state["limit"]
        problems = [] if (x[hit] == -1.0).all() and (x[~hit] != -1.0).all() else [
            "x is -1.0 exactly where t.y < c does not hold, or the other way round"]
        return {"digest": table_digest(back), "problems": problems}
