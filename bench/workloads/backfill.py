"""6. The seed's resumable embedding backfill (docs "Ray Row IDs and Backfills"), embedded.

A table (id, image BLOB, embedding VECTOR<FLOAT, 64> NULL) of ``image_commits`` commits; the
"model" is trivial (the first 256 bytes of each image as float32[64]) so the figures are the
engine's. Per batch of ``process_row_id_ranges`` the processor does what the seed does, minus
Ray: a fresh table with ``blob-as-descriptor=false``; a read of (image, embedding, _ROW_ID)
with ``with_row_ranges(ranges)`` and ``embedding IS NULL`` pushed down; the model; one
update-by-row-id commit of ``embedding``.

- ours: ``paimon_rowid.row_id_ranges.process_row_id_ranges`` + our table read +
  ``paimon_rowid.row_id_jobs.update_by_row_id``;
- pypaimon: ``pypaimon.ray.process_row_id_ranges`` (needs no Ray) + its table read + its
  table-level ``update_by_arrow_with_row_id`` + commit (``pypaimon.ray.update_by_row_id``
  needs Ray, which pypaimon's virtualenv lacks).

``backfill_resume`` starts from the table a killed run left behind — the backfill ran with a
processor that died in batch 3 after reading and embedding it, before its commit (2 batches
committed) — and times the rerun to completion. The issue's target is that the rerun reads no
BLOB bytes of the finished ranges; per-batch ``rchar`` shows it.
"""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from bench import data, measure
from bench.digest import table_digest
from bench.registry import EMBEDDED, IDENTIFIER, Target, Workload, register

PROJECTION = ["image", "embedding", "_ROW_ID"]
NULL_FILTER = ["is_null", "embedding"]
READ_OPTIONS = {"blob-as-descriptor": "false"}  # payloads, not descriptors (as the seed)
KILLED_AFTER = 2  # committed batches before the simulated kill
DATA_SUFFIXES = (".parquet", ".blob", ".orc", ".avro")


class Killed(Exception):
    """The simulated kill of the fixture's first run."""


def link_warehouse(src: str, dst: Path) -> str:
    """A copy of a warehouse whose data files are hard links (Paimon never rewrites a data
    file; new snapshots add files), metadata copied: ~1 s instead of copying GiBs per round."""
    def copy(s, d):
        if s.endswith(DATA_SUFFIXES):
            try:
                os.link(s, d)
                return d
            except OSError:
                pass
        return shutil.copy2(s, d)
    shutil.copytree(src, dst, copy_function=copy)
    return str(dst)


def _data_dirs(warehouse: str):
    return [root for root, _dirs, files in os.walk(warehouse)
            if any(f.endswith(DATA_SUFFIXES) for f in files)]


def backfill(engine, warehouse: str, rows_per_commit: int, kill_in_batch: int = 0):
    """The seed's loop with ``engine``; returns per-batch figures. ``kill_in_batch`` (1-based):
    that batch reads and embeds, then dies before its commit (Killed is swallowed)."""
    batches = []
    watch = measure.FileAccessWatch(_data_dirs(warehouse))  # which .blob files each batch read

    def process(ranges):
        number = len(batches) + 1
        watch.drain()
        io_before, started = measure.proc_io(), time.perf_counter()
        table = engine.get_table(warehouse, IDENTIFIER, READ_OPTIONS)
        pending = engine.scan(table, projection=PROJECTION, filter=NULL_FILTER,
                              row_ranges=ranges)
        read_s = time.perf_counter() - started
        rows = pending.num_rows
        if rows:
            vectors = data.image_headers(pending.column("image"))
            updates = pa.table({"_ROW_ID": pending.column("_ROW_ID"),
                                "embedding": data.embedding_array(vectors)})
            del pending
            if number == kill_in_batch:
                raise Killed(number)
            engine.update_by_row_id(warehouse, IDENTIFIER, updates, ["embedding"])
        io = measure.io_delta(io_before, measure.proc_io())
        access = watch.drain()
        blob_read = [p for p in access["read"] if p.endswith(".blob")]
        blob_opened = [p for p in access["opened"] if p.endswith(".blob")]
        batches.append({"ranges": [[r.from_, r.to] for r in ranges], "pending": rows,
                        "read_s": read_s, "s": time.perf_counter() - started,
                        "rchar": io.get("rchar", 0), "wchar": io.get("wchar", 0),
                        "blob_files_read": len(blob_read) if watch.available else None,
                        "blob_files_opened": len(blob_opened) if watch.available else None,
                        "watch_overflow": bool(access["overflow"])})

    try:
        engine.process_row_id_ranges(warehouse, IDENTIFIER, rows_per_commit, process)
    except Killed:
        pass
    finally:
        watch.close()
    return batches


class _Backfill(Workload):
    group = "backfill"
    mutates = True
    pairs = (EMBEDDED,)

    def params(self, p):
        return p["image_rows"], p["image_commits"], p["image_bytes"]

    def rounds(self, p):
        return p.get("backfill_rounds")

    def base_warehouse(self, ctx) -> str:
        return ctx.image_table(*self.params(ctx.params))

    def prepare(self, ctx):
        rows, commits, image_bytes = self.params(ctx.params)
        return {"warehouse": self.base_warehouse(ctx),
                "inputs": ctx.image_inputs(rows, commits, image_bytes),
                "rows_per_commit": rows // commits, "image_bytes": image_bytes}

    def round_args(self, ctx, args, round_dir):
        return {**args, "warehouse": link_warehouse(args["warehouse"], round_dir / "wh")}

    def run(self, engine, state):
        return backfill(engine, state["warehouse"], state["rows_per_commit"],
                        state.get("kill_in_batch", 0))

    def metrics(self, engine, state, result):
        blob = state["image_bytes"]
        out = {"batches": len(result), "rows_embedded": sum(b["pending"] for b in result),
               "read_s": sum(b["read_s"] for b in result)}
        done = result[:KILLED_AFTER]  # the ranges the killed run had committed
        done_rows = sum(r[1] - r[0] + 1 for b in done for r in b["ranges"])
        out["finished_rchar"] = sum(b["rchar"] for b in done)
        out["finished_fraction"] = out["finished_rchar"] / max(1, done_rows * blob)
        out["todo_rchar"] = sum(b["rchar"] for b in result[KILLED_AFTER:])
        if all(b["blob_files_read"] is not None for b in result):
            out["finished_blob_files_read"] = sum(b["blob_files_read"] for b in done)
            out["finished_blob_files_opened"] = sum(b["blob_files_opened"] for b in done)
            out["todo_blob_files_read"] = sum(b["blob_files_read"] for b in result[KILLED_AFTER:])
            # 1 when the kernel dropped events in a batch: its counts are lower bounds
            out["finished_watch_overflow"] = int(any(b["watch_overflow"] for b in done))
            out["finished_blob_files_unreliable_or_read"] = (
                out["finished_blob_files_read"] + out["finished_watch_overflow"])
            out["todo_watch_overflow"] = int(any(b["watch_overflow"]
                                                 for b in result[KILLED_AFTER:]))
        return out

    def check(self, engine, state, result):
        table = engine.get_table(state["warehouse"], IDENTIFIER)
        back = engine.scan(table, projection=["id", "embedding", "_ROW_ID"]).sort_by("_ROW_ID")
        vectors, valid = data.embedding_matrix(back.column("embedding"))
        problems = []
        if not valid.all():
            problems.append(f"{int((~valid).sum())} rows still have no embedding")
        expected = np.concatenate([
            data.image_headers(data.read_ipc(path).column("image"))
            for path in state["inputs"]])
        ids = back.column("id").to_numpy()
        if len(ids) != len(expected) or not np.array_equal(vectors, expected[ids]):
            problems.append("some embeddings differ from their image's header")
        n = len(vectors)
        flat = pa.Array.from_buffers(pa.large_binary(), n, [
            None, pa.py_buffer(np.arange(n + 1, dtype=np.int64) * data.HEADER_BYTES),
            pa.py_buffer(vectors.tobytes())])
        digest_table = pa.table({"_ROW_ID": back.column("_ROW_ID"), "id": back.column("id"),
                                 "embedding": flat, "valid": pa.array(valid)})
        return {"digest": table_digest(digest_table), "problems": problems}

    metric_labels = {
        "batches": ("batches", "count"), "rows_embedded": ("rows embedded", "count"),
        "read_s": ("time in reads", "s"),
        "finished_rchar": ("rchar of batches 1-2", "bytes"),
        "todo_rchar": ("rchar of batches 3+", "bytes"),
        "finished_blob_files_read": (".blob files read in batches 1-2", "count"),
        "finished_blob_files_opened": (".blob files opened in batches 1-2", "count"),
        "todo_blob_files_read": (".blob files read in batches 3+", "count"),
        "finished_watch_overflow": ("inotify overflow in batches 1-2 (counts are lower bounds)",
                                    "count"),
        "todo_watch_overflow": ("inotify overflow in batches 3+ (counts are lower bounds)",
                                "count"),
    }


@register
class Backfill(_Backfill):
    name = "backfill"
    target = Target(1.0, "our bar: no slower than pypaimon (issue 7 sets no speedup)")
    peer_target = Target(3.0, "issue 18: vs pypaimon + Rust, embedded backfill >= 3x")
    description = ("the seed's embedding backfill, embedded: process_row_id_ranges with "
                   "rows_per_commit = one commit's rows; per batch a fresh table "
                   "(blob-as-descriptor=false), a read of (image, embedding, _ROW_ID) with "
                   "with_row_ranges + `embedding IS NULL`, the first 256 B of each image as "
                   "float32[64], one update-by-row-id commit of embedding. Each round starts "
                   "from the all-NULL table (hard-linked copy). The check reads the table "
                   "back: every embedding set and equal to its image's header.")

    def title(self, p):
        rows, commits, image_bytes = self.params(p)
        return (f"backfill {rows:,} embeddings ({commits} batches) from {image_bytes:,} B "
                f"BLOBs")


@register
class BackfillResume(_Backfill):
    name = "backfill_resume"
    target = Target(0.0, "issue 7: resume reads 0 bytes of finished ranges",
                    metric="finished_blob_files_unreliable_or_read", limit=0,
                    limit_text="no .blob file read in batches 1-2 (finished ranges)")
    description = ("rerun of the backfill after a kill in commit 3: the table a first run "
                   "left (pypaimon's, the neutral writer: batches 1-2 committed, batch 3 read "
                   "and embedded, then killed before its commit) is backfilled to completion; "
                   "timed: the whole rerun. Batches 1-2 find no NULL embedding and must read "
                   "no BLOB payload: inotify (IN_ACCESS) counts the .blob files each batch "
                   "read, rchar its bytes (metadata and the embedding column included, which "
                   "`embedding IS NULL` has to see unless statistics prune the group). Same "
                   "final table as `backfill`.")
    metric_labels = {**_Backfill.metric_labels,
                     "finished_fraction": ("batches 1-2 rchar / their BLOB bytes", "fraction")}

    def title(self, p):
        rows, commits, image_bytes = self.params(p)
        return (f"backfill resume after a kill in commit 3 of {commits} ({rows:,} x "
                f"{image_bytes:,} B)")

    def base_warehouse(self, ctx):
        rows, commits, image_bytes = self.params(ctx.params)
        source = ctx.image_table(rows, commits, image_bytes)

        def build(directory):
            wh = link_warehouse(source, directory / "wh")
            ctx.run_fixture_job("pypaimon", self.name, {
                "warehouse": wh, "rows_per_commit": rows // commits,
                "kill_in_batch": KILLED_AFTER + 1, "image_bytes": image_bytes,
                "inputs": []}, "backfill_killed")

        key = {"rows": rows, "commits": commits, "image_bytes": image_bytes,
               "killed_after": KILLED_AFTER, "source": source,
               "source_key": (Path(source).parent / ".key").read_text(),
               "writer": ctx.sides["pypaimon"].python}
        return str(ctx.fixture("backfill_killed", key, build) / "wh")


def _model(batch: pa.Table) -> pa.Array:
    """The seed's stand-in model as a backfill fn (the hand-written loop's, per batch)."""
    return data.embedding_array(data.image_headers(batch.column("image")))


@register
class BackfillCall(_Backfill):
    name = "backfill_call"
    pairs = (("ours-backfill", "ours"),)
    target = Target(1.0, "issue 16: backfill(...) no slower than the hand-written seed code")
    description = ("the `backfill` job on ours both ways: candidate = one "
                   "`paimon_rowid.backfill(column='embedding', fn=model, "
                   "input_columns=['image'], rows_per_commit=<one commit's rows>, "
                   "batch_size=4096)` call; baseline = the hand-written seed loop of `backfill` "
                   "(process_row_id_ranges + read with `embedding IS NULL` + model + "
                   "update_by_row_id) on ours. Same table, same model, same check; peak RSS is "
                   "the operation's high-water mark (the seed loop materializes a batch's "
                   "pending rows, BLOB payloads included; the call streams them "
                   "batch_size rows at a time and holds only the new values until the commit).")
    metric_labels = {"rows_embedded": ("rows embedded", "count"),
                     "commits": ("commits", "count")}

    def title(self, p):
        rows, commits, image_bytes = self.params(p)
        return (f"backfill(...) vs the seed loop on ours: {rows:,} embeddings ({commits} "
                f"batches) from {image_bytes:,} B BLOBs")

    def run(self, engine, state):
        if hasattr(engine, "backfill_call"):
            return engine.backfill_call(state["warehouse"], IDENTIFIER, column="embedding",
                                        fn=_model, input_columns=["image"],
                                        rows_per_commit=state["rows_per_commit"],
                                        batch_size=4096)
        return backfill(engine, state["warehouse"], state["rows_per_commit"])

    def metrics(self, engine, state, result):
        if isinstance(result, list):  # the seed loop's per-batch figures
            return {"rows_embedded": sum(b["pending"] for b in result),
                    "commits": sum(1 for b in result if b["pending"])}
        return {"rows_embedded": result.rows_computed, "commits": result.commits}
