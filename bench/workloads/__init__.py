"""The workload plug-ins. Importing this package registers every workload, in this order.

To add one (e.g. 6. process_row_id_ranges backfill, 7. planning on 100k files): write a module
here with a ``@register``-ed ``registry.Workload`` subclass, add any library calls it needs to
``engines.base.Engine`` and both adapters, and list the module below.
"""
import importlib

MODULES = ("write", "scan", "update", "read_ids", "blob")  # the report's order

for _module in MODULES:
    importlib.import_module(f"bench.workloads.{_module}")
