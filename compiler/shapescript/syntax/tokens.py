"""Token kinds and the token record the lexer produces."""

from __future__ import annotations

from shapescript.records import record
from shapescript.syntax.source import Span, shared_span

#: `make_span` without its call, shared with other spans of its offsets (the parser asks
#: many tokens for their span).
_new_span = shared_span

# Kinds that carry a value. Operators, punctuation and keywords use their own text as kind.
NAME = "name"
INT = "int"
FLOAT = "float"
STRING = "string"
UNKNOWN_SIZE = "unknown_size"
GROUPED_SIZE = "grouped_size"
NEWLINE = "newline"
INDENT = "indent"
DEDENT = "dedent"
EOF = "eof"

KEYWORDS = frozenset(
    {
        "dim",
        "domain",
        "fn",
        "extern",
        "return",
        "import",
        "as",
        "to",
        "and",
        "or",
        "inf",
        "true",
        "false",
        "for",
        "in",
        "if",
        "else",
    }
)

DTYPES = frozenset({"bool", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"})

OPEN_BRACKETS = {"(": ")", "[": "]"}
CLOSE_BRACKETS = {")": "(", "]": "["}

#: Words that start a declaration at the top level; used to recover from unclosed brackets.
DECLARATION_STARTERS = frozenset({"fn", "dim", "domain", "extern", "import", "export"})

#: How each kind is named in "expected ..." messages.
KIND_DESCRIPTIONS = {
    NAME: "a name",
    INT: "an integer",
    FLOAT: "a number",
    STRING: "a string",
    UNKNOWN_SIZE: "an unknown size",
    GROUPED_SIZE: "a grouped size",
    NEWLINE: "the end of the line",
    INDENT: "an indented block",
    DEDENT: "the end of the block",
    EOF: "the end of the file",
}


@record
class Token:
    """One token. `value` holds the parsed number, string contents or (count, name) pair."""

    kind: str
    text: str
    start: int
    end: int
    value: object = None
    synthetic: bool = False
    #: For a bracket, the index of its partner in the token list (-1 when unmatched).
    partner: int = -1

    @property
    def span(self) -> Span:
        return _new_span(Span, (self.start, self.end))


def describe(token: Token) -> str:
    """A token as a message names it: `foo`, `)`, the end of the line."""
    if token.kind in (NEWLINE, INDENT, DEDENT, EOF):
        return KIND_DESCRIPTIONS[token.kind]
    return f"`{token.text}`"


def describe_kind(kind: str) -> str:
    return KIND_DESCRIPTIONS.get(kind, f"`{kind}`")


@record(frozen=True)
class Comment:
    """A `#` or `##` comment: its text after the marker, and whether code precedes it."""

    span: Span
    text: str
    is_doc: bool
    after_code: bool
    line: int
