"""How a search runs (docs/search.md): index files searched with paimon-vindex /
paimon-ftindex, exact filter semantics, appended and deleted rows.

For one snapshot: the live index files of the column (in the selected partitions) are searched
with an include bitmap of the rows allowed in their range: the rows the filter selects (a scan
of ``_ROW_ID`` under the filter, exact), minus deleted rows. A file whose allowed rows are few
is scored by brute force over those rows; a filtered index search that returns fewer hits than
allowed rows is widened (every IVF list / a longer DiskANN list) and, if still short, scored by
brute force: a filtered search returns the top-k among the rows satisfying the filter, never
fewer because the index could not reach them. Rows no index file covers (appended after the
build, or partitions not built) are scored by brute force. Scores use pypaimon's conversions
(higher is better); ties go to the smaller row id.

The pieces, by concern:

- ``_search_io``: what a search reads: cached index-file readers, the live index files of a
  column, deleted row ids, filter scans and vector reads, the handle pinned to the snapshot;
- ``_search_rank``: row-id ranges, exact scores, the per-query top-k (pure numpy);
- ``_search_vector``: vector search (include bitmaps, direct scoring, widening, brute force);
- ``_search_refine``: the vectors a refine factor rescores with, kept per index file;
- ``_search_text``: full-text search and the temporary index over rows no file covers.
"""
from __future__ import annotations

from ._search_io import index_files, vector_reader
from ._search_text import full_text_query, full_text_search
from ._search_vector import vector_search

__all__ = ["full_text_query", "full_text_search", "index_files", "vector_reader",
           "vector_search"]
