"""What every Ray entry point shares: the supported Ray versions, starting Ray when the caller
has not, and unwrapping the errors Ray wraps around a task's own exception."""
from __future__ import annotations

import os
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


def start_ray(ray: Any) -> None:
    """Ray started in this process when it is not initialized, exactly as Ray's own auto-init
    does it for ``ray.get``, ``ray.put``, a task or a Ray Data read: a bare ``ray.init()``
    (which connects to ``RAY_ADDRESS``, else to the cluster this machine runs, else starts a
    local Ray), under Ray's own lock, and not at all when ``RAY_ENABLE_AUTO_CONNECT=0``.
    Needed before the calls Ray does not auto-init for (``ray.cluster_resources``)."""
    try:
        from ray._private.auto_init_hook import auto_init_ray
    except ImportError:  # a Ray that moved its hook: the same steps, without Ray's lock
        if os.environ.get("RAY_ENABLE_AUTO_CONNECT", "") != "0" and not ray.is_initialized():
            ray.init()
        return
    auto_init_ray()


def cluster_cpus(ray: Any, default: float) -> float:
    """The CPUs of the Ray cluster (``default`` when it reports none), Ray started first
    (``start_ray``): the default task count of a job the caller did not size."""
    start_ray(ray)
    return float(ray.cluster_resources().get("CPU", default))


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
