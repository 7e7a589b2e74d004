"""Per-process resource counters, read by the worker around the timed operation.

``/proc/self/io`` aggregates all threads of the process (C++ pool threads included, exited
ones too). ``rchar``/``wchar`` count bytes passed to read/write-like syscalls, whether or not
the page cache served them; ``read_bytes``/``write_bytes`` count what reached the block layer
(mostly 0 on a warm cache). Memory-mapped I/O shows in neither.
"""
from __future__ import annotations

import resource
from typing import Dict, Optional


def proc_io() -> Dict[str, int]:
    """The counters of /proc/self/io ({} where the kernel does not provide them)."""
    try:
        with open("/proc/self/io") as f:
            return {k: int(v) for k, v in (line.split(":") for line in f if ":" in line)}
    except OSError:
        return {}


def io_delta(before: Dict[str, int], after: Dict[str, int]) -> Dict[str, int]:
    return {k: after[k] - before[k] for k in after if k in before}


def reset_peak_rss() -> bool:
    """Resets the process's RSS high-water mark (VmHWM) to its current RSS (Linux ≥ 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _status_kib(key: str) -> Optional[int]:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def rss_bytes() -> Optional[int]:
    kib = _status_kib("VmRSS")
    return None if kib is None else kib * 1024


def hwm_bytes() -> Optional[int]:
    """The RSS high-water mark since start or the last ``reset_peak_rss``."""
    kib = _status_kib("VmHWM")
    return None if kib is None else kib * 1024


def maxrss_bytes() -> int:
    """ru_maxrss of the whole process lifetime (not affected by ``reset_peak_rss``)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
