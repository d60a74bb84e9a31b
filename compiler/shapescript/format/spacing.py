"""The space between two tokens on one line, in the canonical layout.

Where the grammar gives spacing a meaning (axes in a shape, `x[i]` against `x [i]`, the
parts of a pattern), the rule keeps whether there was a gap and only makes it one space.
"""

from __future__ import annotations

from shapescript.syntax.tokens import FLOAT, GROUPED_SIZE, INT, NAME, STRING, UNKNOWN_SIZE, Token

#: Operators written with a space on each side outside square brackets.
BINARY = frozenset({"+", "-", "*", "/", "%", "@", "==", "!=", "<", "<=", ">", ">="})
#: Arrows and the pipe: always a space on each side.
ARROWS = frozenset({"|>", "->", "=>"})
_OPERAND_ENDS = frozenset({NAME, INT, FLOAT, STRING, UNKNOWN_SIZE, GROUPED_SIZE})
_OPERAND_END_KINDS = frozenset({")", "]", "inf", "true", "false", "_"})
_OPENERS = frozenset({"(", "["})
_CLOSERS = frozenset({")", "]"})


def ends_operand(token: Token | None) -> bool:
    """Whether a `-` or `+` after this token is binary rather than a sign."""
    if token is None:
        return False
    return token.kind in _OPERAND_ENDS or token.kind in _OPERAND_END_KINDS


def is_word(token: Token) -> bool:
    return token.text[:1].isalpha() or token.text[:1] == "_"


def gap(
    before: Token,
    token: Token,
    had_gap: bool,
    bracket: str | None,
    before_is_sign: bool,
    token_is_sign: bool,
) -> str:
    """The text between `before` and `token`. `bracket` is the innermost open bracket:
    `(`, or `sig` for a signature's, or `[` for any inside square brackets."""
    kept = " " if had_gap else ""
    kind, previous = token.kind, before.kind
    if kind == "," or kind in _CLOSERS:
        return ""
    if previous in _OPENERS:
        return ""
    if previous == ",":
        return " "
    if kind in ARROWS or previous in ARROWS:
        return " "
    if kind == ":" or previous == ":":
        if bracket == "[":
            return kept
        return "" if kind == ":" else " "
    if kind == "=" or previous == "=":
        # A default in a signature is spaced; a keyword argument isn't.
        return " " if bracket in (None, "sig") else ""
    if kind in (".", "..") or previous in (".", ".."):
        return ""
    if previous == "!":
        return ""
    if previous in BINARY:
        if before_is_sign:
            return ""
        return kept if bracket == "[" else " "
    if kind in BINARY:
        if bracket == "[":
            return kept
        return " " if not token_is_sign else (" " if had_gap or is_word(before) else kept)
    if previous in _CLOSERS and is_word(token):
        return " "
    return kept
