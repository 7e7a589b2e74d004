# The old path of paimon_rowid._internal.range, for type checkers: at run time
# paimon_rowid/__init__.py (_MOVED_MODULES) makes it that same module.
from ._internal.range import (
    Range as Range,
)
from ._internal.range import (
    RangeLike as RangeLike,
)
from ._internal.range import (
    normalize_ranges as normalize_ranges,
)
