"""4. read_by_row_id of (x, s) for a few random ids and for many."""
from __future__ import annotations

from bench import data
from bench.digest import table_digest
from bench.registry import EMBEDDED, IDENTIFIER, RAY, Target, Workload, register

PROJECTION = ["x", "s"]


class _ReadIds(Workload):
    group = "read_by_row_id"
    pairs = (EMBEDDED,)
    ray_pairs = (RAY,)
    count_key = ""

    def prepare(self, ctx):
        p = ctx.params
        path = ctx.input_path(f"{self.name}.arrow")
        data.row_id_input(path, data.random_ids(p["rows"], p[self.count_key], 5,
                                                p[self.count_key]))
        return {"warehouse": ctx.base_table(), "input": str(path), "projection": PROJECTION}

    def setup(self, engine, args):
        return {**args, "ids": data.read_ipc(args["input"])}

    def run(self, engine, state):
        return engine.read_by_row_id(state["warehouse"], IDENTIFIER, state["ids"],
                                     state["projection"])

    def check(self, engine, state, result):
        problems = [] if result.num_rows == state["ids"].num_rows else [
            f"{result.num_rows} rows for {state['ids'].num_rows} ids"]
        return {"digest": table_digest(result, ["_ROW_ID"]), "problems": problems}

    def title(self, p):
        return f"read_by_row_id (x, s), {p[self.count_key]:,} random ids"


@register
class ReadIdsFew(_ReadIds):
    name = "read_ids_few"
    count_key = "read_few"
    target = Target(20.0, "issue 7: read by row id >= 20x at 10k ids")
    peer_target = Target(5.0, "issue 18: vs pypaimon + Rust, read by row id >= 5x")
    ray_peer_target = Target(5.0, "issue 18: Ray read by row id vs pypaimon.ray + Rust >= 5x")
    description = ("read_by_row_id of (x, s) for random distinct ids; pypaimon's baseline is a "
                   "read with with_row_ranges(Range.to_ranges(ids)).")


@register
class ReadIdsMany(_ReadIds):
    name = "read_ids_many"

    def rounds(self, p):
        return p.get("read_many_rounds")  # pypaimon takes minutes per round at large
    count_key = "read_many"
    target = Target(1.0, "no slower than pypaimon (our bar; issue 7 sets none)")
    description = "as read_ids_few, with 100x more ids (10% of the table at every size)."
