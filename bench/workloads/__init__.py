"""The workload plug-ins. Importing this package registers every workload, in this order.

To add one: write a module here with a ``@register``-ed ``registry.Workload`` subclass, add any
library calls it needs to ``engines.base.Engine`` and both adapters, and list the module below.
"""
import importlib

# In the report's order.
MODULES = ("write", "scan", "update", "read_ids", "compaction", "blob", "backfill", "planning",
           "joins", "merge")

for _module in MODULES:
    importlib.import_module(f"bench.workloads.{_module}")
