"""``CatalogFactory``: the registry of catalog kinds by ``metastore`` name, making a
``Catalog`` (the filesystem catalog, ``filesystem_catalog``) or a ``RESTCatalog``
(``rest_catalog``, docs/rest-catalog.md) from pypaimon's catalog options."""
from __future__ import annotations

from typing import Any, Dict, Mapping

from .._internal._lib import native
from ..schema import normalize_options
from .filesystem_catalog import Catalog, Database
from .rest_catalog import RESTCatalog, create_rest_catalog

__all__ = ["CatalogFactory", "Catalog", "Database", "RESTCatalog"]


def _filesystem_catalog(options: Dict[str, str]) -> Catalog:
    return Catalog(native().Catalog(options))


def _rest_catalog(options: Dict[str, str]) -> Catalog:
    return create_rest_catalog(native(), options)


class CatalogFactory:
    """``CatalogFactory.create({"warehouse": path})`` -> ``Catalog`` (as in pypaimon).

    The registry of catalog kinds by ``metastore`` name: ``filesystem`` (the default) and
    ``rest`` (``catalog.rest_catalog.RESTCatalog``, docs/rest-catalog.md)."""

    CATALOG_REGISTRY = {"filesystem": _filesystem_catalog, "rest": _rest_catalog}

    @staticmethod
    def create(catalog_options: Mapping[str, Any]) -> Catalog:
        """``metastore`` defaults to ``filesystem``; a missing ``warehouse`` raises
        ValueError, an unknown metastore ValueError naming the known ones. The filesystem
        catalog creates nothing on disk; the REST catalog asks its server's config endpoint
        (one request)."""
        options: Dict[str, str] = normalize_options(catalog_options)
        metastore = options.get("metastore", "filesystem")
        make = CatalogFactory.CATALOG_REGISTRY.get(metastore)
        if make is None:
            raise ValueError(f"Unknown catalog identifier: {metastore}. Available types: "
                             f"{list(CatalogFactory.CATALOG_REGISTRY)}")
        return make(options)
