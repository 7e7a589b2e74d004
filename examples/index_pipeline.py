"""The seed's "match by key -> read the matched rows -> transform -> write back by row id"
pipeline with a global index instead of a locator table (compare locator_pipeline.py),
embedded or on Ray (``--ray``):

1. ``db.images``: a data-evolution table (row tracking) of images with a caption and an empty
   ``label`` column;
2. ``create_global_index("image_key")``: a btree index of the business key, built once (a
   second call after appends indexes only the new rows);
3. the incoming labels by business key (a pyarrow table; no table of their own needed);
4. ``lookup_row_ids(images, incoming, key_column="image_key")`` finds the row ids of the
   incoming keys through the index, without reading ``db.images``' data files;
5. ``read_by_row_id(images, located, projection=["caption"])`` reads only the matched rows;
6. the transform makes the label from the incoming label and the caption;
7. ``update_by_row_id(images, ..., update_cols=["label"])`` rewrites only the file groups that
   own those rows, in one commit.

Run: ``python examples/index_pipeline.py --warehouse /tmp/wh [--rows N] [--incoming M]
[--ray]``.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from typing import Any, Dict

import pyarrow as pa
import pyarrow.compute as pc

import paimon_rowid
from paimon_rowid import CatalogFactory, Schema


def build_table(catalog: paimon_rowid.Catalog, rows: int, incoming: int,
                seed: int = 1) -> pa.Table:
    """Creates and fills db.images, indexes image_key; returns the incoming rows."""
    catalog.create_database("db", True)
    images = pa.schema([("image_key", pa.string()), ("caption", pa.string()),
                        ("label", pa.string())])
    catalog.create_table("db.images", Schema.from_pyarrow_schema(images, options={
        "row-tracking.enabled": "true", "data-evolution.enabled": "true"}), False)
    target = catalog.get_table("db.images")
    keys = [f"img-{i:08d}" for i in range(rows)]
    builder = target.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    try:
        write.write_arrow(pa.table({"image_key": keys,
                                    "caption": [f"a photo of thing {i % 97}" for i in range(rows)],
                                    "label": pa.nulls(rows, pa.string())}, schema=images))
        commit.commit(write.prepare_commit())
    finally:
        write.close()
        commit.close()
    files = target.create_global_index("image_key")
    print(f"create_global_index: {files} btree file(s) on image_key", flush=True)
    rng = random.Random(seed)
    picked = rng.sample(keys, incoming)
    return pa.table({"image_key": picked,
                     "new_label": [rng.choice(["cat", "dog", "bird"]) for _ in picked]})


def transform(matched: pa.Table) -> pa.Table:
    """The new label: the incoming label, qualified by the caption's subject."""
    subject = pc.utf8_slice_codeunits(matched.column("caption"), 11)
    label = pc.binary_join_element_wise(matched.column("new_label"), subject, ":")
    return pa.table({"_ROW_ID": matched.column("_ROW_ID"), "label": label})


def run_embedded(options: Dict[str, str], incoming: pa.Table) -> Dict[str, Any]:
    located = paimon_rowid.lookup_row_ids("db.images", incoming, "image_key", options)
    print(f"lookup_row_ids: {located.num_rows:,} key(s) located", flush=True)
    read = paimon_rowid.read_by_row_id("db.images", located, options, projection=["caption"],
                                       row_id_col="_ROW_ID")
    print(f"read_by_row_id: {read.num_rows:,} matched row(s) read", flush=True)
    # Bring the new labels to the rows: key -> row id (located), key -> label (incoming).
    labels = located.join(incoming, keys="image_key").select(["_ROW_ID", "new_label"])
    return paimon_rowid.update_by_row_id("db.images", transform(read.join(labels, "_ROW_ID")),
                                         options, update_cols=["label"])


def run_ray(options: Dict[str, str], incoming: pa.Table) -> Dict[str, Any]:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from seed_backfill import start_ray  # a private local Ray, never a stale one

    from paimon_rowid import ray as pray
    ray = start_ray()
    try:
        located = pray.lookup_row_ids("db.images", incoming, "image_key", options,
                                      num_partitions=2).materialize()
        print(f"lookup_row_ids: {located.count():,} key(s) located", flush=True)
        read = pray.read_by_row_id("db.images", located, options, projection=["caption"],
                                   row_id_col="_ROW_ID")
        labels = pa.concat_tables(ray.get(located.to_arrow_refs())).join(
            incoming, keys="image_key").select(["_ROW_ID", "new_label"])
        matched = pa.concat_tables(ray.get(read.to_arrow_refs())).join(labels, "_ROW_ID")
        print(f"read_by_row_id: {matched.num_rows:,} matched row(s) read", flush=True)
        return pray.update_by_row_id("db.images", ray.data.from_arrow(transform(matched)),
                                     options, update_cols=["label"])
    finally:
        ray.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--incoming", type=int, default=5_000)
    parser.add_argument("--ray", action="store_true", help="run the lookup and jobs on Ray")
    args = parser.parse_args()
    options = {"warehouse": args.warehouse}
    catalog = CatalogFactory.create(options)
    started = time.perf_counter()
    incoming = build_table(catalog, args.rows, args.incoming)
    print(f"tables: {args.rows:,} images, {incoming.num_rows:,} incoming labels", flush=True)
    metrics = run_ray(options, incoming) if args.ray else run_embedded(options, incoming)
    print(f"update_by_row_id: {metrics}", flush=True)

    target = catalog.get_table("db.images")
    rb = target.new_read_builder().with_projection(["image_key", "label"])
    result = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    labelled = result.filter(pc.is_valid(result.column("label")))
    expected = {k: v for k, v in zip(incoming.column("image_key").to_pylist(),
                                     incoming.column("new_label").to_pylist())}
    wrong = sum(1 for k, v in zip(labelled.column("image_key").to_pylist(),
                                  labelled.column("label").to_pylist())
                if not v.startswith(expected.get(k, "?") + ":"))
    print(f"labelled rows: {labelled.num_rows:,} of {result.num_rows:,}; wrong labels: {wrong}; "
          f"{time.perf_counter() - started:.1f} s", flush=True)
    if labelled.num_rows != incoming.num_rows or wrong:
        raise SystemExit("the pipeline did not label exactly the incoming keys")


if __name__ == "__main__":
    main()
