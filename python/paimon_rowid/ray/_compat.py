"""Calls into Ray Data whose signatures moved between the Ray releases we support (2.50 up to
the newest): one place that adapts, so the rest of the package calls one shape.

- Ray 2.60 passes ``data_context=`` to ``Datasource.get_read_tasks`` (our datasources take
  ``**_`` for it and for whatever comes next);
- Ray 2.51+ name the common remote options (``num_cpus``, ``memory``, ``resources``...) as
  parameters of ``read_datasource`` and deprecate ``ray_remote_args`` there (a warning on
  every call, removal announced for 2.64): ``read_datasource`` below passes each option by
  its own name where the installed Ray has one, the rest as ``ray_remote_args``.
"""
from __future__ import annotations

import inspect
from typing import Any, Dict, Mapping, Optional


def _named_remote_kwargs(fn: Any, remote_args: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    params = inspect.signature(fn).parameters
    named = {k: v for k, v in (remote_args or {}).items()
             if k in params and params[k].kind == inspect.Parameter.KEYWORD_ONLY
             and k != "ray_remote_args"}
    rest = {k: v for k, v in (remote_args or {}).items() if k not in named}
    if rest:
        named["ray_remote_args"] = rest
    return named


def read_datasource(source: Any, *, ray_remote_args: Optional[Mapping[str, Any]] = None,
                    **kwargs: Any):
    """``ray.data.read_datasource`` with remote options passed the installed Ray's way."""
    import ray.data
    kwargs.update(_named_remote_kwargs(ray.data.read_datasource, ray_remote_args))
    return ray.data.read_datasource(source, **kwargs)
