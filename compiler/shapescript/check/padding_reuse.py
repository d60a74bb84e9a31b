"""What the padding analysis found in each function, kept for the next version of the file.

A keystroke changes one function; H2001 and H3101 depend on a function's own body and on
those it calls. So a check for diagnostics keeps, for each function, its loops over
batches and whether it is a step that can be recorded, with spans counted from the start
of the function they are in; the next check takes them again for every function that
neither changed nor calls, directly or through others, one that changed, and moves them
to where those functions now are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shapescript.records import field, record, replace
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.padding import Blocker, _Analysis

#: A blocker as kept: the function it is in, and its span counted from that function's.
Kept = tuple[str, Span, "Blocker"]
#: A loop as kept: its span from its function's start, its blocker, its mask's symbol.
KeptLoop = tuple[Span, "Kept | None", "str | None"]


@record
class Found:
    """One function's findings: its loops over batches and, for a step, its blocker."""

    loops: list[KeptLoop] | None
    step: bool = False
    blocker: Kept | None = None


@record
class Memo:
    """Each function's findings, with what they were found from: each function's and
    extern's version (see `versions`), and the file's context (see `context`)."""

    versions: dict[str, tuple[object, ...]]
    context: tuple[object, ...]
    found: dict[str, Found] = field(default_factory=dict)


def versions(analysis: _Analysis) -> dict[str, tuple[object, ...]]:
    """What each function's findings depend on besides its callees: its declaration, the
    check of its body and its parameters' types (the objects, compared by identity)."""
    found: dict[str, tuple[object, ...]] = {}
    for name, item in analysis.functions.items():
        declared = item.made_declaration
        types = declared.types.values() if declared is not None else ()
        found[name] = (item.item, item.body, *types)
    for name, decl in analysis.externs.items():
        found[name] = (decl,)
    return found


def context(analysis: _Analysis) -> tuple[object, ...]:
    """What every finding depends on: the file's dims, devices and imports."""
    imports = analysis.imports
    key = None if imports is None else getattr(imports, "key", object())
    return (analysis.dims, analysis.several, key)


def unaffected(
    analysis: _Analysis, memo: Any, now: dict[str, tuple[object, ...]]
) -> dict[str, Found]:
    """The previous findings of the functions that neither changed nor reach one that did;
    `now` is the functions' `versions`."""
    if not isinstance(memo, Memo) or memo.context != context(analysis):
        return {}
    changed = {
        name
        for name in memo.versions.keys() | now.keys()
        if not _same(memo.versions.get(name), now.get(name))
    }
    if not changed:
        return dict(memo.found)
    callers: dict[str, list[str]] = {}
    for name, item in analysis.functions.items():
        for callee in analysis.referenced(item):
            callers.setdefault(callee, []).append(name)
    affected = set(changed)
    stack = list(changed)
    while stack:
        for caller in callers.get(stack.pop(), ()):
            if caller not in affected:
                affected.add(caller)
                stack.append(caller)
    return {
        name: found
        for name, found in memo.found.items()
        if name not in affected and found.loops is not None
    }


def _same(before: tuple[object, ...] | None, now: tuple[object, ...] | None) -> bool:
    if before is None or now is None or len(before) != len(now):
        return False
    return all(a is b for a, b in zip(before, now, strict=True))


def relative(analysis: _Analysis, blocker: Blocker | None) -> Kept | None:
    """A blocker kept with its span counted from its function's start; `Elsewhere` for
    one in another file's function, whose finding isn't kept."""
    if blocker is None:
        return None
    item = analysis.functions.get(blocker.function)
    if item is None:
        raise Elsewhere
    base = item.base
    return (blocker.function, Span(blocker.span.start - base, blocker.span.end - base), blocker)


def rebased(analysis: _Analysis, kept: Kept | None) -> Blocker | None:
    """A kept blocker where its function now is."""
    if kept is None:
        return None
    function, span, blocker = kept
    base = analysis.functions[function].base
    return replace(blocker, span=Span(span.start + base, span.end + base))


def relative_loops(analysis: _Analysis, item: Any, loops: list) -> list[KeptLoop] | None:
    """A function's loops kept relative to it; None when one's blocker is in another file."""
    base = item.base
    try:
        return [
            (Span(span.start - base, span.end - base), relative(analysis, blocker), symbol)
            for span, blocker, symbol in loops
        ]
    except Elsewhere:
        return None


def rebased_loops(
    analysis: _Analysis, item: Any, found: Found
) -> list[tuple[Span, Blocker | None, str | None]]:
    """A function's kept loops where it now is."""
    base = item.base
    return [
        (Span(span.start + base, span.end + base), rebased(analysis, kept), symbol)
        for span, kept, symbol in found.loops or ()
    ]


class Elsewhere(Exception):
    """A blocker in another file's function, which isn't kept."""
