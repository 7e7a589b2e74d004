"""1. Bulk write: the base rows appended in ``commits`` commits to an empty table."""
from __future__ import annotations

from bench import data
from bench.digest import table_digest
from bench.registry import IDENTIFIER, TABLE_OPTIONS, Target, Workload, register

FULL = ["id", "x", "y", "s", "_ROW_ID"]


@register
class BulkWrite(Workload):
    name = "bulk_write"
    group = "write"
    peer_target = Target(1.5, "issue 18: vs pypaimon + Rust, bulk write >= 1.5x")
    description = ("write_arrow + commit of the (id int64, x float64, y int32, s string) rows, "
                   "one commit per input file, into a new table; timed from get_table to the "
                   "last commit. The check reads the table back (incl. _ROW_ID).")

    def title(self, p):
        return f"bulk write {p['rows']:,} rows in {p['commits']} commits"

    def prepare(self, ctx):
        return {"inputs": ctx.base_inputs()}

    def round_args(self, ctx, args, round_dir):
        return {**args, "warehouse": str(round_dir / "wh")}

    def setup(self, engine, args):
        schema = data.SCHEMAS[args.get("schema", "base")]  # fixtures write other schemas
        options = {**TABLE_OPTIONS, **args.get("options", {})}  # fixtures may add options
        engine.create_table(args["warehouse"], args.get("identifier", IDENTIFIER), schema,
                            options)
        return {**args, "batches": [data.read_ipc(p) for p in args["inputs"]]}

    def run(self, engine, state):
        table = engine.get_table(state["warehouse"], state.get("identifier", IDENTIFIER))
        engine.write_commits(table, state["batches"])

    def check(self, engine, state, result):
        table = engine.get_table(state["warehouse"], IDENTIFIER)
        back = engine.scan(table, projection=FULL)
        expected = sum(b.num_rows for b in state["batches"])
        problems = [] if back.num_rows == expected else [
            f"read back {back.num_rows} rows, wrote {expected}"]
        return {"digest": table_digest(back, ["id"]), "problems": problems}
