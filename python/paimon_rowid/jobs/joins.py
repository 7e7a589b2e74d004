"""``bucket_join`` / ``bucket_join_reader``, embedded: the buckets of ``_bucket_join_core``'s
plan joined in this process, on threads (``bucket_join``) or one after another as batches
are pulled (``bucket_join_reader``); ``paimon_rowid.ray.bucket_join`` runs the same plan as
Ray read tasks. The checks, their order, exception types and messages are pypaimon 2.1.0's
(``pypaimon.ray.bucket_join``); see ``_bucket_join_core`` for the plan and its cost.
"""
from __future__ import annotations

from typing import Dict, Iterator, List, Optional

import pyarrow as pa

from ._bucket_join_core import (
    BucketJoinPlan,
    OnSpec,
    check_schemas,
    join_one,
    join_planned,
    plan_bucket_join,
)

__all__ = ["bucket_join", "bucket_join_reader", "BucketJoinPlan", "OnSpec"]


def bucket_join_reader(left: str, right: str, catalog_options: Dict[str, str], *,
                       on: OnSpec, left_projection: Optional[List[str]] = None,
                       right_projection: Optional[List[str]] = None,
                       join_type: str = "inner") -> pa.RecordBatchReader:
    """A lazy reader of the inner join of two co-bucketed tables (see the module docstring
    for the contract). Checks and planning run here; buckets are read and joined one after
    another as batches are pulled. Output: left columns (projection order, else table
    order), then right non-key columns; keys once, with the left names. Order unspecified.

    When reading starts, both tables must still have the schemas they were planned with
    (pypaimon's worker check; ValueError otherwise). Every bucket reads the pinned snapshots,
    so a schema change after that cannot change the result."""
    plan = plan_bucket_join(left, right, catalog_options, on=on,
                            left_projection=left_projection,
                            right_projection=right_projection, join_type=join_type)
    options = dict(catalog_options)

    def batches() -> Iterator[pa.RecordBatch]:
        check_schemas(plan, options)
        for bucket in plan.buckets:
            for batch in join_one(plan, bucket):
                if batch.num_rows:
                    yield batch

    return pa.RecordBatchReader.from_batches(plan.schema, batches())


def bucket_join(left: str, right: str, catalog_options: Dict[str, str], *,
                on: OnSpec, left_projection: Optional[List[str]] = None,
                right_projection: Optional[List[str]] = None,
                join_type: str = "inner") -> pa.Table:
    """The whole join result as one table (typed and empty when nothing matches), with the
    contract of :func:`bucket_join_reader`. Buckets are joined on up to one thread per CPU
    (the native reads and joins run without the GIL), so peak memory is that many buckets'
    smaller sides plus the result."""
    plan = plan_bucket_join(left, right, catalog_options, on=on,
                            left_projection=left_projection,
                            right_projection=right_projection, join_type=join_type)
    return join_planned(plan, catalog_options)
