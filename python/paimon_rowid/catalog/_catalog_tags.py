"""The catalog's tag calls (pypaimon's filesystem catalog: thin wrappers over the table's tag
calls that raise the typed catalog exceptions) and the conversions of a tag's Java time
fields. Used by ``catalog.Catalog``; docs/tags.md."""
from __future__ import annotations

from typing import Any, List, Optional

from .._internal.exceptions import TagAlreadyExistException, TagNotExistException
from .catalog_objects import GetTagResponse, PagedList


def create_tag(table: Any, tag_name: str, snapshot_id: Optional[int],
               time_retained: Optional[str], ignore_if_exists: bool) -> None:
    try:
        table.create_tag(tag_name, snapshot_id, ignore_if_exists=ignore_if_exists,
                         time_retained=time_retained)
    except ValueError as e:
        if "already exists" in str(e):
            raise TagAlreadyExistException(tag_name) from e
        raise


def delete_tag(table: Any, tag_name: str) -> None:
    if not table.delete_tag(tag_name):
        raise TagNotExistException(tag_name)


def _iso_duration(nanos: Optional[int]) -> Optional[str]:
    """Nanoseconds -> ``java.time.Duration.toString()`` ("PT24H", "PT1M30S", "PT0.5S")."""
    if nanos is None:
        return None
    if nanos <= 0:
        return "PT0S"
    seconds, frac = divmod(nanos, 1_000_000_000)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    out = "PT"
    if hours:
        out += f"{hours}H"
    if minutes:
        out += f"{minutes}M"
    if secs or frac:
        out += f"{secs}" + (f".{frac:09d}".rstrip("0") if frac else "") + "S"
    return out


def get_tag(table: Any, tag_name: str) -> GetTagResponse:
    found = table._native.get_tag(tag_name)
    if found is None:
        raise TagNotExistException(tag_name)
    snapshot, create_time_millis, retained_nanos = found
    return GetTagResponse(tag_name=tag_name, snapshot=snapshot,
                          tag_create_time=create_time_millis,
                          tag_time_retained=_iso_duration(retained_nanos))


def list_tags_paged(table: Any, max_results: Optional[int], page_token: Optional[str],
                    tag_name_prefix: Optional[str]) -> PagedList:
    """Sorted names; ``page_token`` is the previous page's last name."""
    tags: List[str] = sorted(table.list_tags())
    if tag_name_prefix:
        tags = [t for t in tags if t.startswith(tag_name_prefix)]
    if page_token:
        tags = [t for t in tags if t > page_token]
    if max_results is not None and max_results > 0 and len(tags) > max_results:
        page = tags[:max_results]
        return PagedList(elements=page, next_page_token=page[-1])
    return PagedList(elements=tags, next_page_token=None)
