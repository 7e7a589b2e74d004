"""``range_join``, embedded: the ranges of ``_range_join_core``'s plan run on up to one
thread per core in this process, and the result is one ``pyarrow.Table``
(``paimon_rowid.ray.range_join`` runs the same ranges as Ray read tasks). See
``_range_join_core`` for the plan and docs/range-join.md for the contract.

Cost: one manifest read per side plus one Parquet footer per file without usable stats; each
range in flight holds its overlapping splits of both sides and its join output in memory; the
call materialises the whole result.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional

import pyarrow as pa

from ._range_join_core import OnSpec, empty_result, plan_range_join, run_planned_range

# The planner under its former name (tests import it from paimon_rowid.range_join).
_plan = plan_range_join

__all__ = ["range_join", "OnSpec"]


def range_join(left: str, right: str, catalog_options: Dict[str, str], *,
               on: Optional[OnSpec] = None, left_on: Optional[OnSpec] = None,
               right_on: Optional[OnSpec] = None, num_ranges: Optional[int] = None,
               left_projection: Optional[List[str]] = None,
               right_projection: Optional[List[str]] = None,
               left_partitions: Optional[Dict[str, Any]] = None,
               right_partitions: Optional[Dict[str, Any]] = None,
               join_type: str = "inner") -> pa.Table:
    """Inner-joins tables ``left`` and ``right`` on positionally paired keys (``on`` when
    both sides name them alike, else ``left_on``/``right_on``), in-process; the first pair is
    the range key. ``left_partitions``/``right_partitions`` ({partition column: value}, None
    for the null partition) prune each side first; ``num_ranges`` (default: the larger split
    count, capped to 512) is how many key ranges to cut. Each side reads its latest snapshot.

    Returns a ``pyarrow.Table``: the left columns (projection order, else table order), then
    the right non-key columns; typed and empty when nothing can match. Raises ValueError
    (pypaimon's messages) for bad keys, types, projections, collisions or ``num_ranges``.
    Ranges run on up to one thread per core. Memory: the whole result, plus the splits of
    both sides of the ranges in flight."""
    plan = plan_range_join(left, right, catalog_options, on=on, left_on=left_on,
                           right_on=right_on, num_ranges=num_ranges,
                           left_projection=left_projection, right_projection=right_projection,
                           left_partitions=left_partitions, right_partitions=right_partitions,
                           join_type=join_type)
    if not plan.tasks:
        return empty_result(plan)
    # Ranges are independent; reading and joining run in C++ without the GIL, so a few run
    # at once (each holds its splits and its output: memory grows with the worker count).
    workers = min(len(plan.tasks), os.cpu_count() or 1)
    if workers <= 1:
        results = [run_planned_range(plan, task) for task in plan.tasks]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(lambda task: run_planned_range(plan, task), plan.tasks))
    return pa.concat_tables(results)
