"""The formatter: one canonical layout for `.ss` files, which never changes their meaning.

`format_text` lays a file out again from its tokens and comments (indentation, spaces,
blank lines, long pipes one stage per line), then parses the result and compares the
trees: a file whose tree would change, or that has syntax errors, is left alone.
"""

from __future__ import annotations

from shapescript.format.layout import (
    break_long_pipes,
    indent_comments,
    layout,
    render,
    settle_blank_lines,
)
from shapescript.format.same_tree import same_tree
from shapescript.syntax.lexer import lex
from shapescript.syntax.parser import parse_text
from shapescript.syntax.source import SourceFile


class FormatError(Exception):
    """Why a file was left alone."""


def format_text(text: str, path: str = "<text>") -> str:
    """The text in the canonical layout; raises FormatError, changing nothing, for a file
    with syntax errors or (as a safeguard) one whose tree the layout would change."""
    source = SourceFile.from_text(path, text)
    parsed = parse_text(source.text, path)
    errors = [d for d in parsed.diagnostics if d.is_error]
    if errors:
        first = errors[0]
        where = source.position(first.span.start)
        raise FormatError(
            f"{path}:{where.line}:{where.column}: {first.code} {first.message}; "
            "a file with syntax errors is left as it is"
        )
    lexed = lex(source)
    lines = layout(source.text, lexed.tokens, lexed.comments)
    lines = settle_blank_lines(break_long_pipes(lines))
    indent_comments(lines)
    formatted = render(lines)
    if formatted == text:
        return text
    again = parse_text(formatted, path)
    if any(d.is_error for d in again.diagnostics) or not same_tree(parsed.module, again.module):
        raise FormatError(f"{path}: formatting would change what the file means; left as it is")
    return formatted
