"""``python -m paimon_rowid``: the ``paimon-rowid`` command line (paimon_rowid/cli.py)."""
import sys

from .cli import main

sys.exit(main())
