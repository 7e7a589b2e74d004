"""The main job: a resumable embedding backfill from an image BLOB column, embedded (no Ray).

1. create a data-evolution table (id, text, image BLOB, embedding VECTOR<FLOAT, 8> NULL)
   and append rows in a few commits (images go to .blob files beside the Parquet files);
2. plan it into row-id ranges with process_row_id_ranges and, per batch, read only the rows
   whose embedding is still NULL (the filter runs before any image payload is fetched),
   compute embeddings from the image bytes, and write them back with update_by_row_id (one
   commit per batch);
3. fix one row's text with update_by_row_id and read a few rows back by row id, with the
   image as a small BlobDescriptor.

A rerun on the same warehouse skips every finished batch without reading it
(``resume_key``) and commits nothing. The seed's
Ray version of the same job is examples/seed_backfill.py.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import tempfile
import time
from typing import List

import numpy as np
import pyarrow as pa

from paimon_rowid import BlobDescriptor, CatalogFactory, Range, Schema
from paimon_rowid.row_id_jobs import read_by_row_id, update_by_row_id
from paimon_rowid.row_id_ranges import plan_row_id_ranges, process_row_id_ranges

DIM = 8
TARGET = "demo.docs"


def embed(images: List[bytes]) -> pa.Array:
    """A stand-in model: a deterministic unit vector per image."""
    out = []
    for img in images:
        v = np.frombuffer(hashlib.sha256(img).digest()[: DIM * 4], dtype=np.uint32)
        v = v.astype(np.float32)
        out.append((v / np.linalg.norm(v)).tolist())
    return pa.array(out, type=pa.list_(pa.float32(), DIM))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", help="warehouse directory (default: a temp dir)")
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--rows-per-commit", type=int,
                        help="backfill commit size (default: a quarter of --rows)")
    parser.add_argument("--keep", action="store_true", help="keep the warehouse")
    parser.add_argument("--summary", help="append this run's figures, as one JSON line, here")
    args = parser.parse_args()
    warehouse = args.warehouse or tempfile.mkdtemp(prefix="paimon-rowid-demo-")
    options = {"warehouse": warehouse}

    catalog = CatalogFactory.create(options)
    catalog.create_database("demo", True)
    schema = Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("text", pa.string()), ("image", pa.large_binary()),
                   ("embedding", pa.list_(pa.float32(), DIM))]),
        options={"row-tracking.enabled": "true", "data-evolution.enabled": "true"})
    catalog.create_table(TARGET, schema, True)
    table = catalog.get_table(TARGET)

    if table.latest_snapshot() is None:
        rng = np.random.default_rng(7)
        step = max(1, args.rows // 4)
        for start in range(0, args.rows, step):
            ids = list(range(start, min(args.rows, start + step)))
            wb = table.new_batch_write_builder()
            write, commit = wb.new_write(), wb.new_commit()
            write.write_arrow(pa.table({
                "id": pa.array(ids, pa.int64()),
                "text": [f"document number {i}" for i in ids],
                "image": pa.array([rng.bytes(512) for _ in ids], pa.large_binary()),
                "embedding": pa.nulls(len(ids), pa.list_(pa.float32(), DIM)),
            }))
            commit.commit(write.prepare_commit())
        print(f"wrote {args.rows} rows in 4 commits to {warehouse}")

    commits: List[int] = []
    total = sum(r.count() for r in plan_row_id_ranges(table))
    started = time.perf_counter()

    def process(ranges: List[Range]) -> None:
        t = CatalogFactory.create(options).get_table(TARGET).copy({"blob-as-descriptor": "false"})
        rb = t.new_read_builder().with_projection(["image", "embedding", "_ROW_ID"])
        rb.with_filter(rb.new_predicate_builder().is_null("embedding"))
        splits = rb.new_scan().with_row_ranges(ranges).plan().splits()
        pending = rb.new_read().to_arrow(splits)
        if pending.num_rows == 0:
            return
        updates = pa.table({"_ROW_ID": pending["_ROW_ID"],
                            "embedding": embed(pending["image"].to_pylist())})
        result = update_by_row_id(TARGET, updates, options, update_cols=["embedding"])
        commits.append(result["num_updated"])
        elapsed = time.perf_counter() - started
        print(f"  batch {len(commits)}: row ids {ranges[0].from_}..{ranges[-1].to} "
              f"({100 * (ranges[-1].to + 1) / max(1, total):.0f}% of {total:,}), "
              f"{result['num_updated']:,} embedded, {elapsed:.2f}s, "
              f"{sum(commits) / elapsed:,.0f} rows/s", flush=True)

    # resume_key: progress goes into the snapshots; a rerun skips finished batches unread.
    process_row_id_ranges(TARGET, options,
                          rows_per_commit=args.rows_per_commit or max(1, args.rows // 4),
                          processor=process, resume_key="embedding-v1")
    seconds = time.perf_counter() - started
    print(f"backfill: {len(commits)} commit(s), {sum(commits)} embeddings written in "
          f"{seconds:.2f}s")

    update_by_row_id(TARGET, pa.table({"_ROW_ID": [3], "text": ["document three, fixed"]}),
                     options, update_cols=["text"])
    rows = read_by_row_id(TARGET, pa.table({"_ROW_ID": [3, 4, 3]}), options,
                          projection=["id", "text", "image", "embedding"],
                          dynamic_options={"blob-as-descriptor": "true"})
    descriptors = [BlobDescriptor.deserialize(b) for b in rows["image"].to_pylist()]
    rows = rows.drop_columns(["image"]).append_column(
        "image",
        pa.array([f"{os.path.basename(d.uri)}@{d.offset}+{d.length}" for d in descriptors]))
    print(rows.to_pandas().to_string())

    rb = table.new_read_builder().with_projection(["_ROW_ID", "embedding"])
    rb.with_filter(rb.new_predicate_builder().is_null("embedding"))
    missing = rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows
    print(f"rows still without an embedding: {missing}")
    if args.summary:
        with open(args.summary, "a") as out:
            out.write(json.dumps({"phase": "embedded (examples/demo.py)",
                                  "rows_embedded": sum(commits), "commits": len(commits),
                                  "seconds": seconds, "rows_left": missing}) + "\n")
    if not args.keep and not args.warehouse:
        shutil.rmtree(warehouse, ignore_errors=True)


if __name__ == "__main__":
    main()
