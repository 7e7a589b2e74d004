"""The small value objects the catalog's tag and partition calls return, shaped as pypaimon's
(``pypaimon.api.api_response``): ``PagedList``, ``GetTagResponse``, ``Partition``. A leaf
module: it imports nothing of the package."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Generic, List, Optional, TypeVar

__all__ = ["PagedList", "GetTagResponse", "Partition"]

T = TypeVar("T")


@dataclass
class PagedList(Generic[T]):
    """One page of a listing; ``next_page_token`` (None on the last page) asks for the next."""

    elements: List[T]
    next_page_token: Optional[str] = None


@dataclass
class GetTagResponse:
    """A tag: its name, the tagged snapshot, the creation time (epoch ms in the host's time
    zone, as Java's REST catalog converts Java's LocalDateTime) and the retention as an
    ISO-8601 duration ("PT24H"); both None for a tag created without ``time_retained``."""

    tag_name: Optional[str] = None
    snapshot: Any = None
    tag_create_time: Optional[int] = None
    tag_time_retained: Optional[str] = None


@dataclass
class Partition:
    """A partition's statistics in the latest snapshot (Java's ``Partition``)."""

    spec: Dict[str, str] = field(default_factory=dict)
    record_count: int = 0
    file_size_in_bytes: int = 0
    file_count: int = 0
    last_file_creation_time: int = 0
    total_buckets: int = 0
    done: bool = False
    created_at: Optional[int] = None
    created_by: Optional[str] = None
    updated_at: Optional[int] = None
    updated_by: Optional[str] = None
    options: Optional[Dict[str, str]] = None
