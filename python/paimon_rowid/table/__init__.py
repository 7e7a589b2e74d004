"""The table layer: one table's handle and its pypaimon-shaped builders (predicates, scan,
read, write, commit, update), MERGE's clause objects and round, BLOB descriptors and the
manifest cache; over ``schema`` and ``_internal``. ``paimon_rowid.table`` was the ``Table``
module before the package was laid out in layers; its names stay importable from here. Layer
rules: docs/architecture.md, "Python modules"."""
from .table import DATA_EVOLUTION_ENABLED, ROW_TRACKING_ENABLED, Table

__all__ = ["Table", "ROW_TRACKING_ENABLED", "DATA_EVOLUTION_ENABLED"]
