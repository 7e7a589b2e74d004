"""The catalog's partition calls (pypaimon's filesystem catalog): ``list_partitions_paged``
over the native partition statistics of the latest snapshot, ``drop_partitions`` as one
truncate commit. Used by ``catalog.Catalog``; docs/tags.md ("The catalog's calls")."""
from __future__ import annotations

import re
from typing import Any, List, Mapping, Optional, Sequence

from .catalog_objects import PagedList, Partition


def _name(spec: Mapping[str, str], sort_keys: bool) -> str:
    items = sorted(spec.items()) if sort_keys else list(spec.items())
    return ",".join(f"{k}={v}" for k, v in items)


def list_partitions_paged(table: Any, max_results: Optional[int], page_token: Optional[str],
                          partition_name_pattern: Optional[str]) -> PagedList:
    """Partitions sorted by name; the pattern's ``*`` matches anything (the rest literally)
    against "k1=v1,k2=v2" in key order; the token is the index of the page's first entry."""
    partitions: List[Partition] = [Partition(**p) for p in table._native.partition_stats()]
    return page(partitions, max_results, page_token, partition_name_pattern)


def page(partitions: List[Partition], max_results: Optional[int], page_token: Optional[str],
         partition_name_pattern: Optional[str]) -> PagedList:
    """``partitions`` filtered by the pattern, sorted by name, one page of them."""
    if partition_name_pattern:
        regex = re.compile(re.escape(partition_name_pattern).replace(r"\*", ".*"))
        partitions = [p for p in partitions if regex.fullmatch(_name(p.spec, False))]
    partitions.sort(key=lambda p: _name(p.spec, True))
    start = 0
    if page_token is not None:
        try:
            start = int(page_token)
        except ValueError:
            start = 0  # an unusable token starts over, as pypaimon
    end = len(partitions)
    if max_results is not None and max_results > 0:
        end = min(start + max_results, len(partitions))
    token = str(end) if max_results is not None and end < len(partitions) else None
    return PagedList(elements=partitions[start:end], next_page_token=token)


def drop_partitions(table: Any, partitions: Sequence[Mapping[str, Any]]) -> None:
    """One OVERWRITE snapshot deleting the partitions (none when they hold no file)."""
    if not partitions:
        raise ValueError("Partitions list cannot be empty.")
    commit = table.new_batch_write_builder().new_commit()
    try:
        commit.truncate_partitions(partitions)
    finally:
        commit.close()
