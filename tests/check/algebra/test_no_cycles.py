"""What the checker leaves behind is freed by reference counting alone: checking pauses
the cyclic collector and then freezes what is left, so a reference cycle made while
checking would stay in memory for the rest of the process."""

from __future__ import annotations

import gc

from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile

#: The packages whose code a check runs.
CHECKER = (
    "shapescript.check",
    "shapescript.syntax",
    "shapescript.diagnostics",
    "shapescript.records",
    "shapescript.deep",
)

PROGRAM = """\
dim D = 8
dim H = 2
dim Dh = D / H

fn scale(x: [b n D], g: [D]) -> [b n D] = x * g

fn heads(x: [b n D]) -> [b n H Dh]:
    return x |> rearrange(b n (H Dh) -> b n H Dh)

fn pair(q: [b n (H Dh)], k: [b m D]) -> [b n m] = einsum(q, k: b n D, b m D -> b n m)
"""


def test_checking_a_file_makes_no_reference_cycles() -> None:
    source = SourceFile.from_text("cycles.ss", PROGRAM)
    check_source(source, all_facts=False)
    collecting = gc.isenabled()
    gc.disable()
    try:
        # What earlier checks left frozen is collected first: only this check's count.
        gc.unfreeze()
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        checked = check_source(SourceFile.from_text("cycles.ss", PROGRAM), all_facts=False)
        assert not checked.errors, [d.message for d in checked.errors]
        gc.unfreeze()
        gc.collect()
        # Only the checker's own code: on a test worker, other threads (a data loader's,
        # a worker's watch) may drop a compiled program's functions meanwhile.
        made = [
            thing.__qualname__
            for thing in gc.garbage
            if callable(thing) and (getattr(thing, "__module__", "") or "").startswith(CHECKER)
        ]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if collecting:
            gc.enable()
    assert made == []
