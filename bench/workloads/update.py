"""3. update_by_row_id of x: 1% random rows, and a clustered block of rows; of s: every row,
from a source streamed off disk (peak memory)."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from bench import data
from bench.digest import table_digest
from bench.registry import EMBEDDED, IDENTIFIER, RAY, Target, Workload, register

FULL = ["id", "x", "y", "s", "_ROW_ID"]


class _Update(Workload):
    group = "update_by_row_id"
    mutates = True
    target = Target(10.0, "issue 7: update >= 10x faster embedded")
    peer_target = Target(4.0, "issue 18: vs pypaimon + Rust, embedded update >= 4x")
    ray_peer_target = Target(8.0, "issue 18: Ray update vs pypaimon.ray + Rust >= 8x")
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
        engine.prepare_target(args["warehouse"], IDENTIFIER)
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
    ray_peer_target = None  # issue 18 sets the Ray target for the 1% random update
    description = ("update_by_row_id of x for a block of consecutive ids at a random offset; "
                   "touches one or two file groups.")

    def ids(self, p):
        return data.clustered_ids(p["rows"], p["clustered"], 3, 2)

    def title(self, p):
        return f"update_by_row_id x, {p['clustered']:,} clustered rows"


@register
class UpdateStreamed(Workload):
    """Peak memory of an update whose source is larger than what should be held at once."""
    name = "update_streamed"
    group = "update_by_row_id"
    mutates = True
    pairs = (EMBEDDED,)
    description = ("update_by_row_id of s (new random strings) for EVERY row, the source an "
                   "Arrow IPC file on disk read as a stream of 64k-row batches in row-id order. "
                   "Ours takes the RecordBatchReader (memory bounded by the routing budget, "
                   "`paimon-rowid.update.memory-budget`, plus the groups being written); "
                   "pypaimon's API takes a pyarrow Table, so its side reads the file whole. "
                   "Compare the op peak RSS; the check reads the whole table back.")

    def title(self, p):
        return f"update_by_row_id s, all {p['rows']:,} rows, streamed source"

    def prepare(self, ctx):
        p = ctx.params
        path = ctx.input_path(f"{self.name}.arrow")
        if not path.exists():
            n = p["rows"]
            table = pa.table({"_ROW_ID": pa.array(np.arange(n, dtype=np.int64)),
                              "s": data.random_strings(data.rng(6, n), n)})
            with pa.OSFile(str(path), "wb") as sink:
                with pa.ipc.new_file(sink, table.schema) as writer:
                    writer.write_table(table, max_chunksize=1 << 16)
        return {"warehouse": ctx.base_table(), "input": str(path)}

    def run(self, engine, state):
        with pa.OSFile(state["input"], "rb") as source:
            file = pa.ipc.open_file(source)
            reader = pa.RecordBatchReader.from_batches(
                file.schema, (file.get_batch(i) for i in range(file.num_record_batches)))
            engine.update_by_row_id_stream(state["warehouse"], IDENTIFIER, reader, ["s"])

    def check(self, engine, state, result):
        table = engine.get_table(state["warehouse"], IDENTIFIER)
        back = engine.scan(table, projection=FULL).sort_by("_ROW_ID")
        expected = data.read_ipc(state["input"]).column("s")
        problems = [] if back.column("s").equals(expected) else [
            "the table's s differs from the streamed source"]
        return {"digest": table_digest(back), "problems": problems}
