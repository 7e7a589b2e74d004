"""8. bucket_join: find the row ids of incoming business keys through a co-bucketed locator
table (the seed's "match by key" step), ours vs pypaimon."""
from __future__ import annotations

from bench.digest import table_digest
from bench.registry import EMBEDDED, RAY, Target, Workload, register

LOCATOR, INCOMING = "bench.locator", "bench.incoming"


@register
class BucketJoin(Workload):
    name = "bucket_join"
    group = "joins"
    pairs = (EMBEDDED,)
    ray_pairs = (RAY,)
    target = Target(5.0, "issue 15: bucket_join >= 5x, with lower peak memory")
    description = ("bucket_join of a (k, row_id) locator with (k, label) incoming keys, both "
                   "plain append tables with 16 fixed buckets on k, written by pypaimon. "
                   "Ours: paimon_rowid.bucket_join (the smaller side of each bucket built, the "
                   "other streamed through the C++ hash join). pypaimon has no embedded "
                   "bucket_join: its baseline does what each pypaimon.ray task does (both "
                   "sides of a bucket read whole, pyarrow join), bucket after bucket. The "
                   "check compares the joined (k, row_id, label) rows.")

    def title(self, p):
        return (f"bucket_join, {p['join_rows']:,}-row locator x {p['join_incoming']:,} "
                f"incoming keys, {p['join_buckets']} buckets")

    def prepare(self, ctx):
        p = ctx.params
        return {"warehouse": ctx.join_tables(p["join_rows"], p["commits"], p["join_incoming"],
                                             p["join_buckets"]),
                "incoming": p["join_incoming"]}

    def run(self, engine, state):
        return engine.bucket_join(state["warehouse"], LOCATOR, INCOMING, ["k"])

    def check(self, engine, state, result):
        problems = [] if result.num_rows == state["incoming"] else [
            f"{result.num_rows} rows joined for {state['incoming']} incoming keys"]
        if result.schema.names != ["k", "row_id", "label"]:
            problems.append(f"columns {result.schema.names}")
        return {"digest": table_digest(result.select(["k", "row_id", "label"]), ["k"]),
                "problems": problems}
