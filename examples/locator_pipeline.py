"""The seed's "match by key -> read the matched rows -> transform -> write back by row id"
pipeline, end to end, embedded or on Ray (``--ray``):

1. ``db.images``: a data-evolution table (row tracking) of images with a caption and an empty
   ``label`` column;
2. ``db.locator``: a fixed-bucket table ``image_key -> row_id`` (16 buckets on ``image_key``),
   built once from the target's ``_ROW_ID``;
3. ``db.incoming``: new labels by business key, bucketed the same way;
4. ``bucket_join(locator, incoming, on="image_key")`` finds the row ids of the incoming keys
   bucket by bucket, without a shuffle and without touching ``db.images``;
5. ``read_by_row_id(images, joined, projection=["caption"], row_id_col="row_id")`` reads only
   the matched rows;
6. the transform makes the label from the incoming label and the caption;
7. ``update_by_row_id(images, ..., update_cols=["label"])`` rewrites only the file groups that
   own those rows, in one commit.

Run: ``python examples/locator_pipeline.py --warehouse /tmp/wh [--rows N] [--incoming M]
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

BUCKETS = 16


def _write(table: paimon_rowid.Table, data: pa.Table) -> None:
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    try:
        write.write_arrow(data)
        commit.commit(write.prepare_commit())
    finally:
        write.close()
        commit.close()


def build_tables(catalog: paimon_rowid.Catalog, rows: int, incoming: int,
                 seed: int = 1) -> pa.Table:
    """Creates and fills the three tables; returns the incoming rows."""
    catalog.create_database("db", True)
    images = pa.schema([("image_key", pa.string()), ("caption", pa.string()),
                        ("label", pa.string())])
    catalog.create_table("db.images", Schema.from_pyarrow_schema(images, options={
        "row-tracking.enabled": "true", "data-evolution.enabled": "true"}), False)
    target = catalog.get_table("db.images")
    keys = [f"img-{i:08d}" for i in range(rows)]
    _write(target, pa.table({"image_key": keys,
                             "caption": [f"a photo of thing {i % 97}" for i in range(rows)],
                             "label": pa.nulls(rows, pa.string())}, schema=images))

    # The locator: every business key with the row id the target gave it.
    rb = target.new_read_builder().with_projection(["image_key", "_ROW_ID"])
    located = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    bucketed = {"bucket": str(BUCKETS), "bucket-key": "image_key"}
    locator_schema = pa.schema([("image_key", pa.string()), ("row_id", pa.int64())])
    catalog.create_table("db.locator", Schema.from_pyarrow_schema(
        locator_schema, options=bucketed), False)
    _write(catalog.get_table("db.locator"), pa.table(
        {"image_key": located.column("image_key"), "row_id": located.column("_ROW_ID")},
        schema=locator_schema))

    rng = random.Random(seed)
    picked = rng.sample(keys, incoming)
    new = pa.table({"image_key": picked,
                    "new_label": [rng.choice(["cat", "dog", "bird"]) for _ in picked]})
    catalog.create_table("db.incoming", Schema.from_pyarrow_schema(
        new.schema, options=bucketed), False)
    _write(catalog.get_table("db.incoming"), new)
    return new


def transform(matched: pa.Table) -> pa.Table:
    """The new label: the incoming label, qualified by the caption's subject."""
    subject = pc.utf8_slice_codeunits(matched.column("caption"), 11)
    label = pc.binary_join_element_wise(matched.column("new_label"), subject, ":")
    return pa.table({"_ROW_ID": matched.column("_ROW_ID"), "label": label})


def run_embedded(options: Dict[str, str]) -> Dict[str, Any]:
    joined = paimon_rowid.bucket_join("db.locator", "db.incoming", options, on="image_key")
    print(f"bucket_join: {joined.num_rows:,} key(s) located", flush=True)
    read = paimon_rowid.read_by_row_id("db.images", joined, options, projection=["caption"],
                                       row_id_col="row_id")
    print(f"read_by_row_id: {read.num_rows:,} matched row(s) read", flush=True)
    # read_by_row_id returns (caption, _ROW_ID); bring the new labels back by row id.
    matched = read.join(joined.select(["row_id", "new_label"]), keys="_ROW_ID",
                        right_keys="row_id")
    return paimon_rowid.update_by_row_id("db.images", transform(matched), options,
                                         update_cols=["label"])


def run_ray(options: Dict[str, str]) -> Dict[str, Any]:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from seed_backfill import start_ray  # a private local Ray, never a stale one

    from paimon_rowid import ray as pray
    ray = start_ray()
    try:
        joined = pray.bucket_join("db.locator", "db.incoming", options, on="image_key")
        located = joined.materialize()
        print(f"bucket_join: {located.count():,} key(s) located", flush=True)
        read = pray.read_by_row_id("db.images", located, options, projection=["caption"],
                                   row_id_col="row_id")
        matched = pa.concat_tables(ray.get(read.to_arrow_refs())).join(
            pa.concat_tables(ray.get(located.to_arrow_refs())).select(["row_id", "new_label"]),
            keys="_ROW_ID", right_keys="row_id")
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
    parser.add_argument("--ray", action="store_true", help="run the joins and jobs on Ray")
    args = parser.parse_args()
    options = {"warehouse": args.warehouse}
    catalog = CatalogFactory.create(options)
    started = time.perf_counter()
    incoming = build_tables(catalog, args.rows, args.incoming)
    print(f"tables: {args.rows:,} images, a {BUCKETS}-bucket locator, "
          f"{incoming.num_rows:,} incoming labels", flush=True)
    metrics = run_ray(options) if args.ray else run_embedded(options)
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
