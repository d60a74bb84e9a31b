"""The C allocator's setting for a long-lived server that handles big texts.

glibc's malloc gives a block of 128 KiB or more its own mapping, returned to the system
when freed; but each time it frees such a block it raises that bar to the block's size,
up to 32 MiB. Once the server has freed one 10 MB text (a message, an old version of a
document), every block under 10 MB comes from the heaps instead: the big lists, dicts
and strings each analysis and answer makes and drops, which leave holes the heaps
cannot give back. On a 10 MB document that was about 130 MB of the server's peak.
Setting the bar once keeps it there. The price: each block above it is mapped afresh,
so its pages are faulted in again. At glibc's default of 128 KiB that was about 35,000
page faults per keystroke in a 10 MB document instead of 2,500 (peak 908 MB); at 1 MiB,
about 12,000 (peak 952 MB), which keeps the keystroke's cost small and the peak well
under a gigabyte.
"""

from __future__ import annotations

import ctypes
import platform
import sys

#: glibc's `mallopt` parameter for the size from which a block gets its own mapping.
M_MMAP_THRESHOLD = -3
#: The bar, kept fixed rather than raised by each big free.
MMAP_THRESHOLD = 1024 * 1024


def fix_mmap_threshold() -> bool:
    """Keep big blocks in their own mappings for the life of the process (glibc on Linux
    only; elsewhere nothing is done). Whether the setting was made."""
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
