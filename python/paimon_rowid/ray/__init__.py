"""paimon_rowid on Ray: the row-id jobs for users who outgrow one machine.

Same signatures and errors as ``pypaimon.ray``. The driver plans in C++ (one manifest read),
ships the compact row-id index once through the object store, and commits once; workers run
the C++ kernels on Arrow blocks and return commit messages. Requires ``ray>=2.50``.
"""
from ..jobs.row_id_ranges import process_row_id_ranges
from ..table.merge_clauses import WhenMatched, WhenNotMatched, lit, source_col, target_col
from .backfill_job import backfill, backfill_status
from .blobs import map_with_blobs
from .compact import compact
from .global_index import create_global_index
from .io import PaimonWriteResult, read_paimon, write_paimon
from .joins import bucket_join
from .key_lookup import lookup_row_ids
from .merge_into import merge_into
from .range_join import range_join
from .row_id_jobs import update_by_row_id
from .row_id_reads import read_by_row_id
from .search import batch_vector_search, create_search_index

__all__ = ["update_by_row_id", "read_by_row_id", "process_row_id_ranges", "backfill",
           "backfill_status", "map_with_blobs",
           "read_paimon", "write_paimon", "PaimonWriteResult", "bucket_join", "range_join",
           "compact", "create_global_index", "lookup_row_ids", "merge_into", "WhenMatched",
           "WhenNotMatched",
           "source_col", "target_col",
           "lit", "create_search_index", "batch_vector_search"]
