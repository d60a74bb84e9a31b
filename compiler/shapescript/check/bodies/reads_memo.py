"""The params-read memo (`gradients.param_reads`), kept from one analysis to the next.

Which params of a model a function reads depends on the file's declarations and on the
bodies of the function and of the functions it passes the model to. The memo notes, for
each function name, the results that consulted it; after an edit that left the
declarations as they were, only the results that depend on an edited function are
worked out again.
"""

from __future__ import annotations

from shapescript.records import field, record

#: A result's key: the fn's name, the parameter's index, and the model given first.
ReadsKey = tuple[str, int, "str | None"]


@record
class ReadsReported:
    """The bodies that differentiate, in order; for each function they differentiate, the
    positions of those that do; and the positions of those that got E1107 or W1101."""

    bodies: list
    by_name: dict[str, list[int]]
    flagged: list[int]


@record
class ReadsMemo:
    """Results by key; for each function name, the keys whose result consulted it."""

    results: dict = field(default_factory=dict)
    users: dict[str, set] = field(default_factory=dict)
    #: The keys being worked out, innermost last, and as a set.
    stack: list = field(default_factory=list)
    computing: set = field(default_factory=set)
    #: Whether a result was asked for while it was being worked out: results in such a
    #: cycle depend on the order they were asked in, so they are never reused.
    cyclic: bool = False
    #: Whether results were carried over from an earlier analysis.
    reused: bool = False
    #: When carried over: the keys of the earlier analysis's results left out.
    dropped: set = field(default_factory=set)
    #: Which bodies got E1107 or W1101 (`ReadsReported`): this analysis's, once made, and
    #: when carried over, the earlier analysis's until then.
    reported: ReadsReported | None = None
    earlier: ReadsReported | None = None

    def note_use(self, name: str) -> None:
        """The result being worked out (if any) consults function `name`."""
        if self.stack:
            self.users.setdefault(name, set()).add(self.stack[-1])


def carried_over(previous: ReadsMemo, edited: set[str]) -> ReadsMemo | None:
    """A memo holding `previous`'s results but those that depend on a function in
    `edited` (by name), or None when none can be kept."""
    if previous.cyclic or previous.stack:
        return None
    dead: set = set()
    pending = list(edited)
    users = previous.users
    while pending:
        for key in users.get(pending.pop(), ()):
            if key not in dead:
                dead.add(key)
                pending.append(key[0])
    # A copy, less the dead results: the work is in those, not in every result kept.
    results = dict(previous.results)
    dropped = {key for key in dead if results.pop(key, _GONE) is not _GONE}
    if not results:
        return None
    # The sets are shared, not copied: what this analysis adds to one only makes the
    # previous memo, which is done with, drop more if it were ever reused again.
    return ReadsMemo(results, dict(users), reused=True, dropped=dropped, earlier=previous.reported)


#: What `dict.pop` gives for a key the results don't hold.
_GONE = object()
