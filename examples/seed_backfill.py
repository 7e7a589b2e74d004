"""The seed's "Resumable embedding backfill from a BLOB column", run on Ray against
paimon_rowid: the code below `process_ranges` is the seed example with only the imports
changed and the resources sized for one 2-CPU machine (no GPU: `num_gpus=0`, actor pool of 1,
half a CPU per task so readers and the actor can run together); the model is a stand-in.

    python examples/seed_backfill.py --warehouse /tmp/wh   # creates db.images if missing

`main` drives it and reports progress: it wraps the seed's processor and its
`update_by_row_id` to print one line per committed batch, without changing either.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import time
from typing import Any, Dict, List, Optional

import numpy as np
import pyarrow as pa

from paimon_rowid import CatalogFactory, Range, Schema
from paimon_rowid.ray import process_row_id_ranges, update_by_row_id

TARGET = "database_name.images"
EMBEDDING_DIM = 64
CATALOG_OPTIONS: Dict[str, str] = {}


def start_ray(address: Optional[str] = None) -> Any:
    """Starts Ray for the examples: joins the cluster at ``address`` (or ``$RAY_ADDRESS``) when
    one is named, else starts a private local Ray with 2 CPUs. Never a bare ``ray.init()``: that
    joins whatever cluster ``/tmp/ray/ray_current_cluster`` names, even one another process
    started and left running, and then refuses ``num_cpus``."""
    import ray
    import ray.data
    address = address or os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address, log_to_driver=False, configure_logging=False)
    else:
        print(f"starting a local Ray {ray.__version__} (2 CPUs)...", flush=True)
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    # One progress line per batch instead of Ray Data's per-operator bars and logs.
    ray.data.DataContext.get_current().enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    return ray


def load_model() -> Any:
    class FirstBytes:
        """Stand-in model: the first 256 bytes of the image as float32[64]."""

        def encode(self, images: List[bytes]) -> Any:
            out = np.zeros((len(images), EMBEDDING_DIM), dtype=np.float32)
            for i, img in enumerate(images):
                head = np.frombuffer(img[:256].ljust(256, b"\0"), dtype=np.uint8)
                out[i] = head.reshape(EMBEDDING_DIM, 4).astype(np.float32).mean(axis=1)
            return out
    return FirstBytes()


class EmbedImages:
    def __init__(self) -> None:
        # Constructed once in every Ray actor, not once per Arrow batch.
        self.model = load_model()

    def __call__(self, batch: pa.Table) -> pa.Table:
        vectors = self.model.encode(batch["image"].to_pylist())
        return pa.table({
            "_ROW_ID": batch["_ROW_ID"],
            "embedding": pa.array(
                vectors.tolist(),
                type=pa.list_(pa.float32(), EMBEDDING_DIM),
            ),
        })


def process_ranges(ranges: List[Range]) -> None:
    # Resolve a fresh table for every batch so this scan sees embeddings
    # committed by earlier callbacks. Force BLOB payloads rather than descriptors.
    table = (
        CatalogFactory.create(CATALOG_OPTIONS)
        .get_table(TARGET)
        .copy({"blob-as-descriptor": "false"})
    )
    read_builder = table.new_read_builder().with_projection(
        ["image", "embedding", "_ROW_ID"]
    )
    read_builder.with_filter(
        read_builder.new_predicate_builder().is_null("embedding")
    )
    splits = (
        read_builder.new_scan()
        .with_row_ranges(ranges)
        .plan()
        .splits()
    )
    pending = read_builder.new_read().to_ray(
        splits,
        concurrency=2,
        ray_remote_args={"num_cpus": 0.5},
    )
    if pending.limit(1).count() == 0:
        return

    updates = pending.map_batches(
        EmbedImages,
        batch_format="pyarrow",
        batch_size=128,
        concurrency=1,       # required for a callable-class Ray actor pool
        num_gpus=0,
        num_cpus=0.5,
    )

    # update_by_row_id executes the Ray pipeline and makes one Paimon commit.
    update_by_row_id(
        target=TARGET,
        source=updates,
        catalog_options=CATALOG_OPTIONS,
        update_cols=["embedding"],
        num_partitions=4,
    )


def create_images_table(rows: int, image_bytes: int = 2048, commits: int = 4) -> None:
    catalog = CatalogFactory.create(CATALOG_OPTIONS)
    catalog.create_database("database_name", True)
    schema = Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("image", pa.large_binary()),
                   ("embedding", pa.list_(pa.float32(), EMBEDDING_DIM))]),
        options={"row-tracking.enabled": "true", "data-evolution.enabled": "true"})
    catalog.create_table(TARGET, schema, True)
    table = catalog.get_table(TARGET)
    if table.latest_snapshot() is not None:
        return
    rng = np.random.default_rng(7)
    step = max(1, rows // commits)
    for start in range(0, rows, step):
        n = min(step, rows - start)
        wb = table.new_batch_write_builder()
        write, commit = wb.new_write(), wb.new_commit()
        write.write_arrow(pa.table({
            "id": pa.array(range(start, start + n), pa.int64()),
            "image": pa.array([rng.bytes(image_bytes) for _ in range(n)], pa.large_binary()),
            "embedding": pa.nulls(n, pa.list_(pa.float32(), EMBEDDING_DIM)),
        }))
        commit.commit(write.prepare_commit())


def main() -> None:
    global update_by_row_id
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--rows", type=int, default=4000)
    parser.add_argument("--rows-per-commit", type=int, default=1000)
    parser.add_argument("--summary", help="append this run's figures, as one JSON line, here")
    args = parser.parse_args()
    CATALOG_OPTIONS["warehouse"] = args.warehouse
    create_images_table(args.rows)
    start_ray()

    from paimon_rowid.row_id_ranges import plan_row_id_ranges
    total = sum(r.count() for r in plan_row_id_ranges(
        CatalogFactory.create(CATALOG_OPTIONS).get_table(TARGET)))
    embedded, batches = [], []
    started = time.perf_counter()
    seed_update = update_by_row_id

    # the seed's update, counting what it writes
    def counted_update(*a: Any, **kw: Any) -> Dict[str, int]:
        result = seed_update(*a, **kw)
        embedded.append(result["num_updated"])
        return result

    def processor_with_progress(ranges: List[Range]) -> None:
        before = len(embedded)
        process_ranges(ranges)
        batches.append(ranges)
        n = sum(embedded[before:])
        elapsed = time.perf_counter() - started
        print(f"  batch {len(batches)}: row ids {ranges[0].from_}..{ranges[-1].to} "
              f"({100 * (ranges[-1].to + 1) / max(1, total):.0f}% of {total:,}), "
              f"{n:,} embedded in {len(embedded) - before} commit(s), {elapsed:.1f}s, "
              f"{sum(embedded) / elapsed:,.0f} rows/s", flush=True)

    update_by_row_id = counted_update
    try:
        process_row_id_ranges(
            TARGET,
            CATALOG_OPTIONS,
            rows_per_commit=args.rows_per_commit,
            processor=processor_with_progress,
        )
    finally:
        update_by_row_id = seed_update
    seconds = time.perf_counter() - started
    table = CatalogFactory.create(CATALOG_OPTIONS).get_table(TARGET)
    rb = table.new_read_builder().with_projection(["embedding", "_ROW_ID"])
    rb.with_filter(rb.new_predicate_builder().is_null("embedding"))
    left = rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows
    latest = table.latest_snapshot()
    print(f"seed backfill on Ray: {sum(embedded):,} embeddings in {len(embedded)} commit(s), "
          f"{seconds:.1f}s; snapshot {latest.id if latest else None}, "
          f"rows still without an embedding: {left}")
    if args.summary:
        with open(args.summary, "a") as out:
            out.write(json.dumps({"phase": "Ray (examples/seed_backfill.py)",
                                  "rows_embedded": sum(embedded), "commits": len(embedded),
                                  "seconds": seconds, "rows_left": left}) + "\n")


if __name__ == "__main__":
    main()
