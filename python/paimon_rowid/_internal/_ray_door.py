"""The door from the table layer to the optional Ray layer, which sits above it.

``TableRead.to_ray`` and ``BatchTableWrite.write_ray`` are methods of pypaimon's table classes
whose work is Ray's (``paimon_rowid/ray/datasource.py``, ``paimon_rowid/ray/io.py``). The table
layer does not import the Ray layer (that would be an import circle: the Ray layer builds on the
table classes). Instead the Ray modules register those two functions here when they are
imported, and :func:`ray_function` loads the registering module by name on the first call that
needs it (Ray is an optional extra, so the package never loads it otherwise), exactly the
module the method imported before the package was layered. This is the package's only import by
name (``scripts/check_layers.py`` allows no other).
"""
from __future__ import annotations

import importlib
from typing import Any, Callable, Dict

#: ``(table_read, splits, **kwargs) -> Dataset``, registered by paimon_rowid/ray/datasource.py.
SPLITS_TO_RAY = "splits_to_ray"
#: ``(dataset, table, **kwargs) -> PaimonWriteResult``, registered by paimon_rowid/ray/io.py.
WRITE_DATASET = "write_dataset"

#: The module whose import registers each function.
REGISTERED_BY = {SPLITS_TO_RAY: "paimon_rowid.ray.datasource",
                 WRITE_DATASET: "paimon_rowid.ray.io"}

_functions: Dict[str, Callable[..., Any]] = {}


def register(name: str, function: Callable[..., Any]) -> None:
    """Called by the Ray modules at import time."""
    _functions[name] = function


def ray_function(name: str) -> Callable[..., Any]:
    """The Ray layer's function ``name``, importing the module that registers it first if
    needed (an ImportError from a missing Ray surfaces as it did when the caller imported the
    module)."""
    if name not in _functions:
        importlib.import_module(REGISTERED_BY[name])
    return _functions[name]
