"""What every Ray entry point shares: the supported Ray versions, and unwrapping the errors
Ray wraps around a task's own exception."""
from __future__ import annotations

from typing import Any

MIN_RAY = (2, 50)


def require_ray() -> Any:
    """The ``ray`` module; RuntimeError when it is older than the oldest supported Ray."""
    import ray
    version = tuple(int(p) for p in ray.__version__.split(".")[:2] if p.isdigit())
    if version < MIN_RAY:
        raise RuntimeError(
            f"this Ray operation requires ray>=2.50; installed ray is {ray.__version__}.")
    return ray


def innermost(error: BaseException) -> BaseException:
    """The exception a task raised, under the ``RayTaskError`` / ``cause`` layers Ray adds
    (callers see it as pypaimon's callers do)."""
    seen = set()
    while id(error) not in seen:
        seen.add(id(error))
        nxt = getattr(error, "cause", None) or error.__cause__
        if nxt is None or not isinstance(nxt, BaseException):
            break
        error = nxt
    return error
