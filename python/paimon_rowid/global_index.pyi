# The public path of paimon_rowid.table.global_index, for type checkers: at run time
# paimon_rowid/__init__.py (_MOVED_MODULES) makes it that same module.
from .table.global_index import (
    IndexLookup as IndexLookup,
)
from .table.global_index import (
    create_global_index as create_global_index,
)
from .table.global_index import (
    drop_global_index as drop_global_index,
)
from .table.global_index import (
    global_index_plan_stats as global_index_plan_stats,
)
from .table.global_index import (
    list_global_indexes as list_global_indexes,
)
from .table.global_index import (
    lookup_global_index as lookup_global_index,
)
