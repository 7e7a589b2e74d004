"""3. update_by_row_id of x: 1% random rows, and a clustered block of rows."""
from __future__ import annotations

import numpy as np

from bench import data
from bench.digest import table_digest
from bench.registry import EMBEDDED, IDENTIFIER, RAY, Target, Workload, register

FULL = ["id", "x", "y", "s", "_ROW_ID"]


class _Update(Workload):
    group = "update_by_row_id"
    mutates = True
    target = Target(10.0, "issue 7: update >= 10x faster embedded")
    pairs = (EMBEDDED,)
    ray_pairs = (RAY,)

    def ids(self, p) -> np.ndarray:
        raise NotImplementedError

    def prepare(self, ctx):
        p = ctx.params
        ids = self.ids(p)
        path = ctx.input_path(f"{self.name}.arrow")
        data.row_id_input(path, ids, data.rng(4, len(ids)).random(len(ids)))
        return {"warehouse": ctx.base_table(), "input": str(path)}

    def setup(self, engine, args):
        return {**args, "data": data.read_ipc(args["input"])}

    def run(self, engine, state):
        engine.update_by_row_id(state["warehouse"], IDENTIFIER, state["data"], ["x"])

    def check(self, engine, state, result):
        table = engine.get_table(state["warehouse"], IDENTIFIER)
        back = engine.scan(table, projection=FULL).sort_by("_ROW_ID")
        problems = []
        row_ids = back.column("_ROW_ID").to_numpy()
        if not np.array_equal(row_ids, np.arange(len(row_ids))):
            problems.append("_ROW_IDs are not 0..n-1 after the update")
        else:
            ids = state["data"].column("_ROW_ID").to_numpy()
            new_x = state["data"].column("x").to_numpy()
            if not np.array_equal(back.column("x").to_numpy()[ids], new_x):
                problems.append("some updated rows do not carry the new x")
        return {"digest": table_digest(back), "problems": problems}


@register
class UpdateRandom(_Update):
    name = "update_random"
    description = ("update_by_row_id of x for 1% of the rows at random ids (random order), one "
                   "commit; timed from loading the table to the commit. Every file group is "
                   "touched. The check reads the whole table back.")

    def ids(self, p):
        return data.random_ids(p["rows"], int(p["rows"] * p["update_fraction"]), 3, 1)

    def title(self, p):
        return f"update_by_row_id x, {int(p['rows'] * p['update_fraction']):,} random rows (1%)"


@register
class UpdateClustered(_Update):
    name = "update_clustered"
    description = ("update_by_row_id of x for a block of consecutive ids at a random offset; "
                   "touches one or two file groups.")

    def ids(self, p):
        return data.clustered_ids(p["rows"], p["clustered"], 3, 2)

    def title(self, p):
        return f"update_by_row_id x, {p['clustered']:,} clustered rows"
