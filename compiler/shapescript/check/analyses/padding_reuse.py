"""What the padding analysis found in each function, kept for the next version of the file.

A keystroke changes one function; H2001 and H3101 depend on a function's own body and on
those it calls. So a check for diagnostics keeps, for each function, its loops over
batches and whether it is a step that can be recorded, with spans counted from the start
of the function they are in; the next check takes them again for every function that
neither changed nor calls, directly or through others, one that changed, and moves them
to where those functions now are.
"""

from __future__ import annotations

import itertools
import operator
from typing import TYPE_CHECKING, Any

from shapescript.records import field, record, replace
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.analyses.padding import Blocker, _Analysis

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
    extern's version (see `versions`), the file's context (see `context`), and which
    names each function's body uses (`refs`) with, the other way round, which functions
    use each name (`callers`)."""

    versions: dict[str, tuple[object, object]]
    context: tuple[object, ...]
    found: dict[str, Found] = field(default_factory=dict)
    refs: dict[str, frozenset[str]] | None = None
    callers: dict[str, frozenset[str]] | None = None
    #: The functions whose findings have loops or a step: the others' findings are
    #: empty, so they are taken again as they are, without a look at each.
    notable: frozenset[str] = frozenset()
    #: The functions whose findings couldn't be kept (a blocker in another file's
    #: function): found again every time.
    unkept: frozenset[str] = frozenset()


@record
class Reused:
    """What a check takes again from the previous one: the findings `found` (the
    `notable` ones among them still to be moved to where their functions now are), the
    functions to look at afresh (`again`, in no order; None: every one), and the `refs`
    and `callers` of `Memo` for this version."""

    found: dict[str, Found]
    notable: list[str]
    again: set[str] | None
    refs: dict[str, frozenset[str]] | None
    callers: dict[str, frozenset[str]] | None


def versions(analysis: _Analysis) -> dict[str, tuple[object, object]]:
    """What each function's findings depend on besides its callees: its declaration and
    the check of its body (the objects, compared by identity; a body is checked again
    whenever the declarations it depends on change)."""
    found: dict[str, tuple[object, object]] = {
        name: (item.item, item.body) for name, item in analysis.functions.items()
    }
    for name, decl in analysis.externs.items():
        found[name] = (decl, None)
    return found


def context(analysis: _Analysis) -> tuple[object, ...]:
    """What every finding depends on: the file's dims, devices and imports."""
    imports = analysis.imports
    key = None if imports is None else getattr(imports, "key", object())
    return (analysis.dims, analysis.several, key)


def unaffected(analysis: _Analysis, memo: Any, now: dict[str, tuple[object, object]]) -> Reused:
    """The previous findings of the functions that neither changed nor reach one that did
    (`now` is the functions' `versions`), with the functions to look at again and this
    version's `refs` and `callers`. The work is in the functions that changed and those
    that reach them, besides one comparison of `now` with the previous versions."""
    if not isinstance(memo, Memo) or memo.context != context(analysis):
        # Nothing to take again; the names are found when an edit first needs them.
        return Reused({}, [], None, None, None)
    changed = _changed(memo.versions, now)
    refs, callers_now = memo.refs, memo.callers
    affected = set(changed)
    if changed:
        if refs is None or callers_now is None:
            # Found for the functions as they are now: those that changed are counted
            # below as new, with nothing used before.
            refs, callers_now = _links(analysis, changed)
        else:
            refs, callers_now = dict(refs), dict(callers_now)
        for name in changed:
            item = analysis.functions.get(name)
            used = analysis.referenced(item) if item is not None else frozenset()
            old_used = refs.pop(name, frozenset())
            if item is not None:
                refs[name] = used
            for callee in old_used - used:
                callers_now[callee] = callers_now.get(callee, frozenset()) - {name}
            for callee in used - old_used:
                callers_now[callee] = callers_now.get(callee, frozenset()) | {name}
        stack = list(changed)
        while stack:
            for caller in callers_now.get(stack.pop(), ()):
                if caller not in affected:
                    affected.add(caller)
                    stack.append(caller)
    again = affected | memo.unkept
    found = dict(memo.found)
    for name in again:
        found.pop(name, None)
    notable = [name for name in memo.notable if name in found]
    return Reused(found, notable, again & now.keys(), refs, callers_now)


def _changed(
    before: dict[str, tuple[object, object]], now: dict[str, tuple[object, object]]
) -> set[str]:
    """The functions and externs whose versions differ between `before` and `now`, or that
    only one of them has."""
    if len(before) == len(now) and list(before) == list(now):
        # The same names in the same order (any keystroke that renames nothing): the
        # versions are compared side by side, each part by identity, without a Python loop.
        new, old = now.values(), before.values()
        differs = map(
            operator.or_,
            map(operator.is_not, map(_FIRST, new), map(_FIRST, old)),
            map(operator.is_not, map(_SECOND, new), map(_SECOND, old)),
        )
        return set(itertools.compress(now, differs))
    changed = {
        name
        for name, (decl, body) in now.items()
        if (old_version := before.get(name)) is None
        or old_version[0] is not decl
        or old_version[1] is not body
    }
    changed.update(before.keys() - now.keys())
    return changed


_FIRST = operator.itemgetter(0)
_SECOND = operator.itemgetter(1)


def _links(
    analysis: _Analysis, leaving_out: set[str]
) -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """The names each function's body uses, and the functions that use each name, for
    every function but those `leaving_out`."""
    refs = {
        name: analysis.referenced(item)
        for name, item in analysis.functions.items()
        if name not in leaving_out
    }
    callers: dict[str, set[str]] = {}
    for name, used in refs.items():
        for callee in used:
            callers.setdefault(callee, set()).add(name)
    return refs, {name: frozenset(found) for name, found in callers.items()}


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
