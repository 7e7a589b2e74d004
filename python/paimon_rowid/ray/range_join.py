"""``paimon_rowid.ray.range_join``: the range join of ``paimon_rowid.range_join`` on Ray,
with pypaimon 2.1.0's signature (``pypaimon.ray.range_join``). The checks, the plan and the
work of a range are ``jobs/_range_join_core``'s, as for the embedded call; this door only runs
the ranges as Ray read tasks.

The driver validates and plans (native: one manifest read per side, Parquet footers where
stats are missing) at call time, so every validation error is raised by the call. Execution
is lazy: a Ray Data datasource with one read task per key range; each task reloads the tables
(failing with pypaimon's "schema changed" error when a schema moved since planning), reads the
range's splits of each side, clips them to the range and joins. Workers never read manifests.
Errors of a task keep their Python type (Ray raises them when the Dataset is consumed).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import pyarrow as pa

from ..jobs import _range_join_core as core
from ..jobs._range_join_core import OnSpec
from ._compat import read_datasource

__all__ = ["range_join"]


def _make_datasource(specs: List[Dict[str, Any]], schema: pa.Schema):
    from ray.data.block import BlockMetadata
    from ray.data.datasource import Datasource, ReadTask

    class PaimonRangeJoinDatasource(Datasource):
        def estimate_inmemory_data_size(self) -> Optional[int]:
            return None

        # One task per range, whatever parallelism Ray asks for: a range is the unit of work.
        def get_read_tasks(  # type: ignore[override]  # its signature moves between Rays
                self, parallelism: int, per_task_row_limit: Optional[int] = None, **_: Any):
            tasks = []
            for spec in specs:
                def read_fn(spec=spec):
                    yield core.run_range_spec(spec)

                meta = BlockMetadata(num_rows=None, size_bytes=None, exec_stats=None,
                                     input_files=None)
                tasks.append(ReadTask(read_fn, meta, schema=schema,
                                      per_task_row_limit=per_task_row_limit))
            return tasks

    return PaimonRangeJoinDatasource()


def range_join(left: str, right: str, catalog_options: Dict[str, str], *,
               on: Optional[OnSpec] = None, left_on: Optional[OnSpec] = None,
               right_on: Optional[OnSpec] = None, num_ranges: Optional[int] = None,
               left_projection: Optional[List[str]] = None,
               right_projection: Optional[List[str]] = None,
               left_partitions: Optional[Dict[str, Any]] = None,
               right_partitions: Optional[Dict[str, Any]] = None,
               join_type: str = "inner",
               ray_remote_args: Optional[Dict[str, Any]] = None) -> Any:
    """``paimon_rowid.range_join`` on Ray: a lazy ``ray.data.Dataset`` with one block per key
    range (``ray_remote_args`` apply to the range tasks). Validation and planning happen at
    the call; nothing is read until the Dataset is consumed. With nothing to match, a typed
    empty Dataset. Memory per task: the range's splits of both sides plus its output."""
    import ray
    import ray.data

    if not hasattr(ray.data, "from_arrow_refs"):
        raise RuntimeError("range_join needs a Ray version with ray.data.from_arrow_refs; "
                           f"installed ray is {ray.__version__}.")
    plan = core.plan_range_join(left, right, catalog_options, on=on, left_on=left_on,
                                right_on=right_on, num_ranges=num_ranges,
                                left_projection=left_projection,
                                right_projection=right_projection,
                                left_partitions=left_partitions,
                                right_partitions=right_partitions, join_type=join_type)
    empty = core.empty_result(plan)
    if not plan.tasks:
        return ray.data.from_arrow(empty)
    specs = core.range_specs(plan, left, right, catalog_options)
    source = _make_datasource(specs, empty.schema)
    return read_datasource(source, ray_remote_args=ray_remote_args,
                           override_num_blocks=len(specs))
