"""Completion in math in comments: the LaTeX commands after `\\`, environments after `\\begin{`."""

from __future__ import annotations

import re

from lsprotocol import types

from shapescript.check.analyses.math_comments import SUPPORTED_COMMANDS, SUPPORTED_ENVIRONMENTS

_COMMAND = re.compile(r"\\([A-Za-z]*)$")
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\{([A-Za-z]*)$")


def math_items(before: str) -> list[types.CompletionItem]:
    """The items for the comment text before the cursor, or none outside a command."""
    environment = _ENVIRONMENT.search(before)
    if environment is not None:
        return [
            types.CompletionItem(label=name, kind=types.CompletionItemKind.Struct)
            for name in sorted(SUPPORTED_ENVIRONMENTS)
        ]
    if _COMMAND.search(before) is None:
        return []
    return [
        types.CompletionItem(
            label=command,
            kind=types.CompletionItemKind.Keyword,
            filter_text=command[1:],
            insert_text=command[1:],
        )
        for command in sorted(SUPPORTED_COMMANDS)
        if command[1:].isalpha()
    ]
