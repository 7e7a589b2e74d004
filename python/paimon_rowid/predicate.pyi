# The old path of paimon_rowid.table.predicate, for type checkers: at run time
# paimon_rowid/__init__.py (_MOVED_MODULES) makes it that same module.
from .table.predicate import (
    Predicate as Predicate,
)
from .table.predicate import (
    PredicateBuilder as PredicateBuilder,
)
from .table.predicate import (
    row_ranges_of as row_ranges_of,
)
