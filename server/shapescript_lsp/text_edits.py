"""The client's edits applied to a document's text, exactly as the client applied them."""

from __future__ import annotations

from lsprotocol import types

from shapescript_lsp.positions import LineIndex, line_index, remember

Change = types.TextDocumentContentChangePartial | types.TextDocumentContentChangeWholeDocument


def apply_change(text: str, change: Change) -> str:
    """The text after one `contentChanges` entry: a range edit or the whole new text."""
    edit_range = getattr(change, "range", None)
    if edit_range is None:
        return change.text
    index = line_index(text)
    start = _offset(index, edit_range.start)
    end = max(start, _offset(index, edit_range.end))
    edited = index.edited(start, end, change.text)
    remember(edited)
    return edited.text


def apply_changes(text: str, changes: list[Change]) -> str:
    """The text after each change in order, each one relative to the text before it."""
    for change in changes:
        text = apply_change(text, change)
    return text


def _offset(index: LineIndex, position: types.Position) -> int:
    return index.offset(position.line, position.character)
