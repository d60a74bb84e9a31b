"""Where a typed character opens the completion list by itself, as the reference lists it.

The list opens after `.`; after `[` in a type; after `(` and `,` where the argument's
type is known; after `=` that follows a keyword argument's name; after a space that
follows `|>`, `import` or `import python`; after `\\` and `{` in math in comments.
Anywhere else these characters open nothing (typing `x = ` or `a + ` stays quiet).
"""

from __future__ import annotations

import re

from shapescript.check.program import Checked
from shapescript_lsp.features.signature_help import call_site, callable_params

TRIGGER_CHARACTERS = [".", "[", "(", ",", "=", " ", "\\", "{"]

_TYPE_START = re.compile(r"(->|\bas|\bto)\s*$|[(,]\s*(mut\s+)?\w+\s*:\s*$")
_TYPE_ARGUMENT = re.compile(r"\b(Index|Axis|Axes|Size|Grad|AdamW|SGD|Dataset)\s*$")
_IMPORT = re.compile(r"\s*import(\s+python)?")
_KEYWORD_NAME = re.compile(r"(?<![\w.])([^\W\d]\w*)\s*$")


def opens_list(trigger: str, text: str, offset: int, checked: Checked | None) -> bool:
    """Whether typing `trigger`, which ends just before `offset`, should open the list."""
    line_start = text.rfind("\n", 0, offset) + 1
    before = text[line_start : offset - 1]
    in_comment = _in_comment(before)
    if trigger in "\\{":
        return in_comment and _in_math(before)
    if in_comment:
        return False
    if trigger == ".":
        return not before or not (before[-1].isdigit() or before[-1] == ".")
    if trigger == "[":
        stripped = before.rstrip()
        return bool(_TYPE_START.search(stripped) or _TYPE_ARGUMENT.search(stripped))
    if trigger == " ":
        return before.rstrip().endswith("|>") or bool(_IMPORT.fullmatch(before))
    site = call_site(text, offset)
    if site is None or callable_params(checked, site.callee) is None:
        return False
    if trigger == "=":
        if before.endswith(("=", "!", "<", ">")):
            return False
        word = _KEYWORD_NAME.search(before)
        params = callable_params(checked, site.callee) or []
        return word is not None and word.group(1) in {param[0] for param in params}
    return trigger in "(,"


def _in_comment(before: str) -> bool:
    in_string = False
    for char in before:
        if char == '"':
            in_string = not in_string
        elif char == "#" and not in_string:
            return True
    return False


def _in_math(before: str) -> bool:
    """Whether the comment's text so far leaves an inline `$` or a display `$$` open."""
    comment = before[before.index("#") :].lstrip("#")
    unescaped = comment.replace("\\$", "")
    return unescaped.count("$") % 2 == 1 or "$$" in unescaped and unescaped.count("$$") % 2 == 1
