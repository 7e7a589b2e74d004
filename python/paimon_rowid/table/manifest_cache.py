"""The process-wide cache of decoded manifests.

Every read of a table's live files (a scan's plan, ``update_by_row_id``'s row-id index, a
commit's checks) decodes the manifests of a snapshot. The engine keeps each manifest's bytes and
decoded entries and reuses them while the file holds the same bytes: a manifest is still read
on every use (so a replaced or damaged file is seen), but decoded once per process. On a table
of 100,000 data files this takes an ``update_by_row_id`` of a few rows from ~2.2 s to ~0.6 s
after the first call, and each batch of a backfill no longer decodes the whole table.

The cache holds at most 256 MiB (the bytes count the file bytes plus an estimate of the
decoded records) and drops the least recently used manifests beyond that. Lower it, or set
it to 0 to turn the cache off, in processes short of memory.
"""
from __future__ import annotations

from typing import Dict

from .._internal._lib import native


def manifest_cache_stats() -> Dict[str, int]:
    """``{"hits", "misses", "manifests", "bytes", "capacity"}`` of this process's cache:
    lookups served from it, manifests decoded (first use, evicted, or changed bytes), and what
    it holds now against its capacity (bytes)."""
    return dict(native().manifest_cache_stats())


def set_manifest_cache_capacity(capacity_bytes: int) -> None:
    """Sets how many bytes the cache may hold in this process (default 256 MiB; 0 turns it
    off). Shrinking it evicts at once. Raises ``TypeError`` for a non-int and ``ValueError``
    for a negative value."""
    if isinstance(capacity_bytes, bool) or not isinstance(capacity_bytes, int):
        raise TypeError(
            f"capacity_bytes must be an int, got {type(capacity_bytes).__name__}.")
    if capacity_bytes < 0:
        raise ValueError(f"capacity_bytes must be >= 0, got {capacity_bytes}.")
    native().set_manifest_cache_capacity(capacity_bytes)
