"""``bucket_join`` on Ray: the common buckets spread over read tasks, no shuffle. The checks,
the plan, the packing of buckets into tasks and a task's join loop are
``jobs/_bucket_join_core``'s, as for the embedded call; this door only runs them on Ray.

pypaimon's checks (same order, types and messages; ``paimon_rowid.joins``) and planning run on
the driver when this is called. The result is LAZY: a Ray Data datasource whose read tasks each
join a few of the buckets present on both sides (the buckets are spread over twice the
cluster's CPUs, largest first); nothing is read until the Dataset is consumed (pypaimon
runs every bucket join eagerly and pins all results in the object store). When Ray plans the
read (on the driver, as the Dataset is consumed) and again in each task, both schema ids are
compared with the planned ones (the driver-side check raises the plain ValueError). Each task
reads the smaller side of its bucket (by planned split row counts) into memory and streams
the other through the C++ hash join, yielding blocks of about 64K rows, so a task holds
one bucket's smaller side plus a block. Nested payload columns work.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from ..jobs import _bucket_join_core as core
from ..jobs._bucket_join_core import OnSpec, assign_buckets
from ._compat import read_datasource
from ._runtime import cluster_cpus, require_ray

__all__ = ["bucket_join", "assign_buckets"]


# Joins of at most this many planned rows (both sides, all buckets) run on the driver, in
# process, on its threads (the embedded join), and the result becomes the Dataset: starting
# Ray workers and importing the engine in them costs seconds, the join itself ~0.1 s per
# million rows.
DRIVER_JOIN_MAX_ROWS = 2_000_000

# Output blocks of a task are at least this many rows (the last one of a task may be
# smaller): one bucket's probe batches can each match only a few rows.
_BLOCK_ROWS = 64 * 1024


def _make_datasource(plan: core.BucketJoinPlan, catalog_options: Dict[str, str],
                     num_tasks: int):
    from ray.data.block import BlockMetadata
    from ray.data.datasource import Datasource, ReadTask

    schema, on, sides = plan.schema, list(plan.on), core.task_sides(plan)
    tasks_args = [core.task_buckets(plan, buckets)
                  for buckets in assign_buckets(plan, num_tasks)]

    class BucketJoinDatasource(Datasource):
        def estimate_inmemory_data_size(self) -> Optional[int]:
            return None

        # Ray 2.60 added a ``data_context`` keyword (and may add more): accepted, unused
        # (see _compat.py). The tasks were sized when the join was planned (buckets spread
        # over twice the cluster's CPUs), whatever the parallelism asked for.
        def get_read_tasks(  # type: ignore[override]  # its signature moves between Rays
                self, parallelism: int, per_task_row_limit: Optional[int] = None, **_: Any):
            # Ray plans the read on the driver when the Dataset is consumed: a schema that
            # moved by then fails here, as the plain ValueError (the tasks check again).
            core.check_task_schemas(sides, catalog_options)
            tasks = []
            for buckets in tasks_args:
                def read_fn(buckets=buckets):
                    yield from core.join_task_buckets(on, sides, schema, catalog_options,
                                                      buckets, _BLOCK_ROWS)
                meta = BlockMetadata(num_rows=None, size_bytes=None, exec_stats=None,
                                     input_files=None)
                tasks.append(ReadTask(read_fn, meta, schema=schema,
                                      per_task_row_limit=per_task_row_limit))
            return tasks

    return BucketJoinDatasource()


def bucket_join(left: str, right: str, catalog_options: Dict[str, str], *, on: OnSpec,
                left_projection: Optional[List[str]] = None,
                right_projection: Optional[List[str]] = None, join_type: str = "inner",
                ray_remote_args: Optional[Dict[str, Any]] = None) -> Any:
    """Join two co-bucketed tables (same bucket count, bucket-key and bucket function,
    joined on the bucket-key) with no global shuffle; returns a lazy ``ray.data.Dataset``.
    ``ray_remote_args`` apply to every read task. Validation errors are raised
    here with pypaimon's types and messages; an empty result is a typed empty Dataset."""
    ray = require_ray()
    plan = core.plan_bucket_join(left, right, catalog_options, on=on,
                                  left_projection=left_projection,
                                  right_projection=right_projection, join_type=join_type)
    if not plan.buckets:
        return ray.data.from_arrow(plan.schema.empty_table())
    planned = sum(plan.left.rows(b) + plan.right.rows(b) for b in plan.buckets)
    if planned <= DRIVER_JOIN_MAX_ROWS and not ray_remote_args:
        return ray.data.from_arrow(core.join_planned(plan, catalog_options))
    cpus = int(cluster_cpus(ray, 1))
    num_tasks = len(assign_buckets(plan, 2 * max(1, cpus)))
    source = _make_datasource(plan, dict(catalog_options), num_tasks=num_tasks)
    # One block count per task: otherwise Ray splits each task's output to reach its default
    # parallelism (200), hundreds of tiny blocks for a join that found few rows.
    return read_datasource(source, ray_remote_args=ray_remote_args,
                           override_num_blocks=num_tasks)
