"""The catalog layer: the filesystem and REST catalogs (databases, tables, schema changes)
handing out ``Table`` handles, over the table layer. ``paimon_rowid.catalog`` was the catalog module
before the package was laid out in layers; its names stay importable from here. Layer rules:
docs/architecture.md, "Python modules"."""
from .catalog import Catalog, CatalogFactory, Database, RESTCatalog

__all__ = ["Catalog", "CatalogFactory", "Database", "RESTCatalog"]
