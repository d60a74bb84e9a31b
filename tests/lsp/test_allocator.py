"""The server keeps glibc's bar for giving a block its own mapping where it starts: after
a big text is freed, a block of a few megabytes is still mapped on its own, not carved out
of the heap (where its hole, once freed, would stay in the process)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="glibc's malloc only",
)

#: Frees a 10 MB block, then says whether a new 4 MB block lies in the `[heap]` mapping.
PROBE = """
import sys
from shapescript_lsp.allocator import fix_mmap_threshold
if sys.argv[1] == "fixed":
    assert fix_mmap_threshold()
big = bytes(10_000_000)
del big
block = bytes(4_000_000)
address = id(block)
with open("/proc/self/maps") as maps:
    heaps = [line.split()[0].split("-") for line in maps if line.rstrip().endswith("[heap]")]
inside = any(int(low, 16) <= address < int(high, 16) for low, high in heaps)
print("heap" if inside else "mapped")
"""


def _where(mode: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode],
        capture_output=True,
        text=True,
        check=True,
        env={name: value for name, value in os.environ.items() if not name.startswith("MALLOC_")},
    )
    return done.stdout.strip()


def test_a_block_after_a_big_free_is_mapped_on_its_own():
    assert _where("fixed") == "mapped"


def test_without_the_setting_it_comes_from_the_heap():
    """What the setting is for: glibc's own rule puts it in the heap."""
    assert _where("default") == "heap"
