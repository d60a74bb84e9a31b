"""The Pygments lexer for ShapeScript, used by the docs site and `shapescript explain`.

It splits text with the project's own token expression (`syntax/lexer.py`) and takes its
words from the project's own tables (keywords, dtypes, domains, built-in functions), so a
word added to the language is highlighted without touching this file. Registered with
Pygments through the `pygments.lexers` entry point in pyproject.toml.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from pygments.lexer import Lexer
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
)
from pygments.token import _TokenType as TokenType

from shapescript.check.declarations.type_exprs import (
    BUILTIN_DOMAINS,
    OTHER_NAMED_TYPES,
    WRAPPER_TYPES,
)
from shapescript.syntax.lexer import _TOKEN_RE
from shapescript.syntax.tokens import DTYPES, KEYWORDS

#: Names that are words of the language only where they stand (a name elsewhere).
_LINE_START_WORDS = frozenset({"model", "data", "logs", "export", "devices", "param", "buffer"})
_BEFORE_A_NAME_WORDS = frozenset({"mut", "python", "over"})
_CONSTANTS = frozenset({"true", "false", "inf"})
_WORD_OPERATORS = frozenset({"and", "or", "in"})
#: After these words, the next name is what they declare.
_DECLARES_FUNCTION = frozenset({"fn"})
_DECLARES_TYPE = frozenset({"model", "data", "logs", "domain"})
_DECLARES_CONSTANT = frozenset({"dim"})
_PUNCTUATION = frozenset("()[],:.")
_SPACES = re.compile(r"[^\S\n]+")


@cache
def builtin_functions() -> frozenset[str]:
    """Every built-in function: the checker's table and the prelude's and nn's stubs."""
    from shapescript.check.declarations.builtin_table import BUILTINS
    from shapescript.check.declarations.prelude import load_prelude

    return frozenset(BUILTINS) | frozenset(load_prelude().signatures)


@cache
def type_words() -> frozenset[str]:
    """Dtypes, domains and the named types every file sees."""
    return DTYPES | BUILTIN_DOMAINS | WRAPPER_TYPES | OTHER_NAMED_TYPES


class ShapeScriptLexer(Lexer):
    """ShapeScript source (`.ss` files and ```shapescript blocks)."""

    name = "ShapeScript"
    aliases = ["shapescript", "ss"]
    filenames = ["*.ss"]
    mimetypes = ["text/x-shapescript"]

    def get_tokens_unprocessed(self, text: str) -> Iterator[tuple[int, TokenType, str]]:
        position = 0
        previous_word = ""
        line_start = True
        while position < len(text):
            spaces = _SPACES.match(text, position)
            if spaces is not None:
                yield position, Text, spaces.group()
                position = spaces.end()
                continue
            match = _TOKEN_RE.match(text, position)
            if match is None:
                yield position, Text, text[position]
                position += 1
                continue
            piece = match.group()
            kind = self._kind(match.lastgroup or "", piece, previous_word, line_start, text, match)
            yield position, kind, piece
            position = match.end()
            line_start = piece == "\n"
            if not line_start:
                previous_word = piece

    def _kind(
        self,
        group: str,
        piece: str,
        previous_word: str,
        line_start: bool,
        text: str,
        match: re.Match[str],
    ) -> TokenType:
        if group == "name":
            return self._name_kind(piece, previous_word, line_start, text, match.end())
        if group == "nl":
            return Text
        if group == "comment":
            return String.Doc if piece.startswith("##") else Comment.Single
        if group in ("int", "float", "grouped"):
            return Number.Float if group == "float" else Number.Integer
        if group == "unknown":
            return Name.Variable
        if group == "string":
            return String.Double
        if group == "op":
            return Punctuation if piece in _PUNCTUATION else Operator
        return Text

    def _name_kind(
        self, word: str, previous_word: str, line_start: bool, text: str, end: int
    ) -> TokenType:
        if word in _CONSTANTS:
            return Keyword.Constant
        if word in _WORD_OPERATORS:
            return Operator.Word
        if word in KEYWORDS:
            return Keyword.Declaration if word in ("fn", "dim", "domain", "extern") else Keyword
        if line_start and word in _LINE_START_WORDS and _name_follows(text, end):
            return Keyword.Declaration
        if word in _BEFORE_A_NAME_WORDS and _name_follows(text, end):
            return Keyword
        if word == "assert" and line_start and _name_follows(text, end):
            return Keyword
        if previous_word in _DECLARES_FUNCTION:
            return Name.Function
        if previous_word in _DECLARES_TYPE:
            return Name.Class
        if previous_word in _DECLARES_CONSTANT:
            return Name.Constant
        if word in type_words():
            return Keyword.Type
        if word in builtin_functions():
            return Name.Builtin
        return Name


def _name_follows(text: str, end: int) -> bool:
    """Whether a name (or a device list) comes next on the line after offset `end`."""
    spaces = _SPACES.match(text, end)
    after = spaces.end() if spaces is not None else end
    return (
        spaces is not None and after < len(text) and (text[after].isalpha() or text[after] == "_")
    )
