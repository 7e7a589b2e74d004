"""Per-process resource counters, read by the worker around the timed operation.

``/proc/self/io`` aggregates all threads of the process (C++ pool threads included, exited
ones too). ``rchar``/``wchar`` count bytes passed to read/write-like syscalls, whether or not
the page cache served them; ``read_bytes``/``write_bytes`` count what reached the block layer
(mostly 0 on a warm cache). Memory-mapped I/O shows in neither.
"""
from __future__ import annotations

import resource
from typing import Any, Dict, Optional


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


class FileAccessWatch:
    """Which files under some directories were opened / read (inotify IN_OPEN / IN_ACCESS),
    to tell e.g. BLOB-file reads apart from other reads, which ``rchar`` cannot. Events come
    from the kernel for any process using these paths; a round's warehouse is its own. Linux
    only: ``available`` is False elsewhere (or when watches run out)."""

    IN_ACCESS, IN_OPEN, IN_NONBLOCK, IN_Q_OVERFLOW = 0x1, 0x20, 0x800, 0x4000

    def __init__(self, directories) -> None:
        import ctypes
        import ctypes.util
        import os
        self._os = os
        self._wd: Dict[int, str] = {}
        self.fd = -1
        try:
            self._libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6",
                                     use_errno=True)
            self.fd = self._libc.inotify_init1(self.IN_NONBLOCK)
        except (OSError, AttributeError):
            return
        for directory in directories:
            wd = self._libc.inotify_add_watch(self.fd, str(directory).encode(),
                                              self.IN_ACCESS | self.IN_OPEN)
            if wd < 0:
                self.close()
                return
            self._wd[wd] = str(directory)

    @property
    def available(self) -> bool:
        return self.fd >= 0

    def drain(self) -> Dict[str, Dict[str, int]]:
        """{"opened": {path: events}, "read": {path: events}, "overflow": bool} since the
        last drain (the kernel merges identical consecutive events, so counts are not bytes;
        "overflow": the kernel's event queue overflowed and dropped events, so the sets are
        lower bounds)."""
        import struct
        out: Dict[str, Any] = {"opened": {}, "read": {}, "overflow": False}
        if not self.available:
            return out
        while True:
            try:
                buf = self._os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            if not buf:
                break
            offset = 0
            while offset < len(buf):
                wd, mask, _cookie, length = struct.unpack_from("iIII", buf, offset)
                name = buf[offset + 16:offset + 16 + length].rstrip(b"\0").decode()
                offset += 16 + length
                if mask & self.IN_Q_OVERFLOW:
                    out["overflow"] = True
                    continue
                path = self._os.path.join(self._wd.get(wd, "?"), name)
                for bit, kind in ((self.IN_OPEN, "opened"), (self.IN_ACCESS, "read")):
                    if mask & bit:
                        out[kind][path] = out[kind].get(path, 0) + 1
        return out

    def close(self) -> None:
        if self.fd >= 0:
            self._os.close(self.fd)
            self.fd = -1
