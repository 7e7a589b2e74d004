"""The bottom layer: what every other layer may use and which imports nothing of the package
above it (only the native module ``paimon_rowid._native``): loading the native module
(``_lib``), the exception classes, Arrow input coercion (``_arrow``), row-id ``Range``, the
retry loop, progress reporting, time-travel pinning, and the door to the Ray layer
(``_ray_door``). Layer rules: docs/architecture.md, "Python modules"."""
