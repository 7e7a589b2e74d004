"""The jobs layer: whole-table operations run in this process (the row-id jobs, backfill, MERGE,
joins, compaction and maintenance), over the catalog and table layers. Each job with a Ray door
keeps what both doors share in a ``_core`` / ``_job_checks`` module here; ``paimon_rowid.ray``
(the layer above) is the other door. Layer rules: docs/architecture.md, "Python modules"."""
