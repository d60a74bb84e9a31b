"""The line edits that turn a text into its formatted form, for editors."""

from __future__ import annotations

import difflib

from shapescript.records import record


@record(frozen=True)
class LineEdit:
    """Replace lines [first, last) of the old text (offsets [start, end)) with `text`."""

    first: int
    last: int
    start: int
    end: int
    text: str


def _key(line: str) -> str:
    """A line without its spaces: lines the layout only re-spaced share their key."""
    return "".join(line.split())


def line_edits(old: str, new: str) -> list[LineEdit]:
    """Runs of whole lines to replace, found by a diff of the lines without their spaces,
    so that a re-spaced line is an edit of its own."""
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    starts = [0]
    for line in old_lines:
        starts.append(starts[-1] + len(line))
    matcher = difflib.SequenceMatcher(
        None, [_key(line) for line in old_lines], [_key(line) for line in new_lines], autojunk=False
    )
    edits = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            edits.append(LineEdit(i1, i2, starts[i1], starts[i2], "".join(new_lines[j1:j2])))
            continue
        for offset in range(i2 - i1):
            before, after = old_lines[i1 + offset], new_lines[j1 + offset]
            if before != after:
                line = i1 + offset
                edits.append(LineEdit(line, line + 1, starts[line], starts[line + 1], after))
    return _joined_insertions(edits)


def _joined_insertions(edits: list[LineEdit]) -> list[LineEdit]:
    """Each insertion joined to the edit it touches, so that no two edits share an offset
    (editors disagree on the order of an insertion and a replacement at one place)."""
    joined: list[LineEdit] = []
    pending: LineEdit | None = None
    for edit in edits:
        if pending is not None:
            if edit.start == pending.start:
                edit = LineEdit(
                    pending.first, edit.last, edit.start, edit.end, pending.text + edit.text
                )
            else:
                joined.append(pending)
            pending = None
        if (
            joined
            and joined[-1].end == edit.start
            and (edit.start == edit.end or joined[-1].start == joined[-1].end)
        ):
            last = joined.pop()
            edit = LineEdit(last.first, edit.last, last.start, edit.end, last.text + edit.text)
        if edit.start == edit.end:
            pending = edit
        else:
            joined.append(edit)
    if pending is not None:
        joined.append(pending)
    return joined


def touching(edits: list[LineEdit], first_line: int, last_line: int) -> list[LineEdit]:
    """The edits whose old lines meet lines first_line..last_line (0-based, inclusive)."""
    return [
        edit
        for edit in edits
        if edit.first <= last_line and max(edit.last - 1, edit.first) >= first_line
    ]
