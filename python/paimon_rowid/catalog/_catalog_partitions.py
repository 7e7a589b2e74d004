"""The catalog's partition calls (pypaimon's filesystem catalog): ``list_partitions_paged``
over the native partition statistics of the latest snapshot, ``drop_partitions`` as one
truncate commit (on a REST table a commit through the server, which then drops the emptied
partitions from its list); ``specs`` checks the partition specs the REST catalog sends.
Used by ``catalog.Catalog`` and ``catalog.RESTCatalog``; docs/tags.md ("The catalog's
calls"), docs/rest-catalog.md."""
from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence

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


def specs(partitions: Any) -> List[Dict[str, str]]:
    """``partitions`` (a list of ``{key: value}`` dicts) as the JSON-ready list the REST
    calls send: keys and values as strings (a None value as pypaimon sends it: refused here,
    the protocol's specs are string maps). TypeError for anything else."""
    if isinstance(partitions, Mapping) or not isinstance(partitions, Sequence) or isinstance(
            partitions, (str, bytes)):
        raise TypeError(f"partitions must be a list of dicts, got {type(partitions).__name__}")
    out: List[Dict[str, str]] = []
    for spec in partitions:
        if not isinstance(spec, Mapping):
            raise TypeError(f"each partition must be a dict, got {type(spec).__name__}")
        if any(v is None for v in spec.values()):
            raise ValueError(f"partition {dict(spec)} has a None value: the REST protocol's "
                             "partition specs are strings")
        out.append({str(k): str(v) for k, v in spec.items()})
    return out


def drop_partitions(table: Any, partitions: Sequence[Mapping[str, Any]]) -> None:
    """One OVERWRITE snapshot deleting the partitions (none when they hold no file)."""
    if not partitions:
        raise ValueError("Partitions list cannot be empty.")
    commit = table.new_batch_write_builder().new_commit()
    try:
        commit.truncate_partitions(partitions)
    finally:
        commit.close()
