# The old path of paimon_rowid.table.blob, for type checkers: at run time
# paimon_rowid/__init__.py (_MOVED_MODULES) makes it that same module.
from .table.blob import (
    BlobDescriptor as BlobDescriptor,
)
from .table.blob import (
    filesystem_options as filesystem_options,
)
from .table.blob import (
    map_with_blobs as map_with_blobs,
)
from .table.blob import (
    resolve_blobs as resolve_blobs,
)
