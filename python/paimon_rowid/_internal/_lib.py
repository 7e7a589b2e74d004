"""Lazy access to the native module ``paimon_rowid._native``.

The pure-Python parts of the package (Schema, Range, PredicateBuilder) work without the native
module; anything that touches a catalog or a table loads it on first use via :func:`native`.
"""
from __future__ import annotations

import threading
from types import ModuleType
from typing import Optional

from .exceptions import ERROR_CLASSES

_lock = threading.Lock()
_module: Optional[ModuleType] = None


def native() -> ModuleType:
    """Returns the loaded native module, importing it and registering the exception classes
    on the first call. Raises ImportError with a build hint when the module is missing."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            try:
                from .. import _native as module  # type: ignore[attr-defined]
            except ImportError as error:
                raise ImportError(
                    "paimon_rowid._native is not available (the C++ extension is not built or "
                    f"not on the path): {error}") from error
            module.register_error_classes(dict(ERROR_CLASSES))
            _module = module
    return _module
