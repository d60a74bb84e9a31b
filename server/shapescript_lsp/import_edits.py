"""The edit that adds `import name` to a file: after its last import line, or else before
its first declaration (and the comment lines directly above it), followed by a blank line."""

from __future__ import annotations

import re

from lsprotocol import types

from shapescript_lsp.positions import line_starts, utf16_length

_IMPORT = re.compile(r"import\b")
_BREAK = re.compile(r"\r\n?|\n")


def _lines(text: str) -> list[str]:
    starts = line_starts(text)
    ends = [*starts[1:], len(text)]
    return [_BREAK.sub("", text[start:end]) for start, end in zip(starts, ends, strict=True)]


def import_edit(text: str, module: str) -> types.TextEdit:
    """Add `import module` where the file's imports are, by LSP's line numbers."""
    lines = _lines(text)
    last_import = None
    first_declaration = None
    for number, line in enumerate(lines):
        if _IMPORT.match(line):
            last_import = number
        elif first_declaration is None and line[:1] not in ("", " ", "\t", "#"):
            first_declaration = number
    if last_import is not None:
        line, new_text = last_import + 1, f"import {module}\n"
        if line == len(lines):
            # The last import ends the file without a line break.
            return _insert(len(lines) - 1, utf16_length(lines[-1]), f"\nimport {module}")
    elif first_declaration is not None:
        line = first_declaration
        while line > 0 and lines[line - 1].startswith("#"):
            line -= 1
        new_text = f"import {module}\n\n"
    else:
        line, new_text = 0, f"import {module}\n"
    return _insert(line, 0, new_text)


def _insert(line: int, character: int, new_text: str) -> types.TextEdit:
    place = types.Position(line=line, character=character)
    return types.TextEdit(range=types.Range(start=place, end=place), new_text=new_text)
