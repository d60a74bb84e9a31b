"""The lexer and layout pass: text to tokens with NEWLINE, INDENT and DEDENT.

One regular expression finds each token after the whitespace before it; the loop
around it tracks brackets and indentation, so the parser sees the layout tokens the
reference describes and never has to look at whitespace itself.
"""

from __future__ import annotations

import re
from sys import intern

from shapescript.diagnostics.diagnostic import Diagnostic, Edit, Fix, Label
from shapescript.records import field, record
from shapescript.syntax.nodes import maker
from shapescript.syntax.source import SourceFile, Span, make_span
from shapescript.syntax.tokens import (
    DECLARATION_STARTERS,
    DEDENT,
    EOF,
    FLOAT,
    GROUPED_SIZE,
    INDENT,
    INT,
    KEYWORDS,
    NAME,
    NEWLINE,
    OPEN_BRACKETS,
    STRING,
    UNKNOWN_SIZE,
    Comment,
    Token,
)

MAX_INT_LITERAL = 2**64 - 1
#: Digits in MAX_INT_LITERAL: a literal with more (after leading zeros) is too large,
#: and is never handed to `int()`, which refuses strings of over 4,300 digits.
_MAX_INT_DIGITS = len(str(MAX_INT_LITERAL))
#: Outer unclosed brackets an E0106 points at; it counts the others in a note.
_MAX_UNCLOSED_LABELS = 3
TAB_WIDTH = 8

#: The tokens that are neither names, operators nor line breaks, in the order they are
#: tried: numbers (float, grouped size, integer), comments, unknown sizes, strings, and
#: any other visible character (reported as bad).
_OTHER_TOKENS = (
    ("float", r"\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+"),
    ("grouped", r"\d+[^\W\d]\w*"),
    ("int", r"\d+"),
    ("comment", r"\#[^\n]*"),
    ("unknown", r"\?[^\W\d]\w*"),
    ("string", r'"[^"\n]*"?'),
    ("bad", r"[^\s]"),
)
_NAME_TOKEN = r"[^\W\d]\w*"
_OPERATOR_TOKEN = r"\.\.\.|\|>|->|=>|\.\.|==|!=|<=|>=|[-+*/%@!<>=(),:.\[\]]"
#: One token of any kind at a known position (no whitespace before it), by group.
_TOKEN_RE = re.compile(
    rf"(?P<name>{_NAME_TOKEN})|(?P<op>{_OPERATOR_TOKEN})|(?P<nl>\n)|"
    + "|".join(f"(?P<{name}>{pattern})" for name, pattern in _OTHER_TOKENS)
)
#: The text as (whitespace, name, operator, line break, other) tuples, one a token:
#: `findall` makes them in C, with no match object per token. The whitespace is every
#: space character but the line break, which is exactly what a search for the next token
#: would skip, so the offsets add up; `other` is matched again with `_TOKEN_RE` for its
#: kind, and is empty only at the end of the text. Taking the whitespace possessively and
#: matching the end keeps trailing whitespace linear: without them, each position in it
#: would be tried again, and every split of it with each.
_SCAN_RE = re.compile(
    rf"([^\S\n]*+)(?:({_NAME_TOKEN})|({_OPERATOR_TOKEN})|(\n)|("
    + "|".join(f"(?:{pattern})" for _, pattern in _OTHER_TOKENS)
    + "|$))"
)
#: The groups of `_TOKEN_RE` by number, as `match.lastindex` gives them.
_GROUPS = _TOKEN_RE.groupindex
_INT, _COMMENT, _BAD = (_GROUPS[name] for name in ("int", "comment", "bad"))
_GROUP_NAMES = {index: name for name, index in _TOKEN_RE.groupindex.items()}
#: Token kinds the layout pass looks at: brackets, and what makes a bracket a signature's.
_LAYOUT_KINDS = frozenset({"(", "[", ")", "]", "->", ":"})
#: The kind of a name token: a keyword's own text, `_`, else NAME.
_NAME_KINDS = {word: word for word in KEYWORDS} | {"_": "_"}
_MODEL_LIKE_DECL = re.compile(r"[ \t]+[^\W\d]\w*[ \t]*:")
_GROUPED_PARTS = re.compile(r"(\d+)(.*)", re.S)


@record
class LexResult:
    tokens: list[Token]
    comments: list[Comment]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: Spans read inside a bracket that was never closed: errors there are its knock-on.
    unclosed_regions: list[Span] = field(default_factory=list)


_new = object.__new__


def _token(kind: str, text: str, start: int, end: int, value: object = None) -> Token:
    """`Token(kind, text, start, end, value)` set field by field, as the scan loop makes
    names and operators: a plain function call costs a fraction of a record's `__init__`
    called through its class."""
    token = _new(Token)
    token.kind = kind
    token.text = text
    token.start = start
    token.end = end
    token.value = value
    token.synthetic = False
    token.partner = -1
    return token


#: `LexResult(...)` by a plain function (see `shapescript.syntax.nodes`).
_new_lex_result = maker(LexResult)


def _int_value(digits: str) -> int:
    """The value of a run of digits, or MAX_INT_LITERAL + 1 for any that is too large."""
    significant = digits.lstrip("0")
    if len(significant) > _MAX_INT_DIGITS:
        return MAX_INT_LITERAL + 1
    return int(significant or "0")


def _error(
    code: str,
    message: str,
    span: Span,
    label: str = "",
    help: str | None = None,
    fixes: list[Fix] | None = None,
):
    return Diagnostic(code, message, Label(span, label), help=help, fixes=list(fixes or []))


class _Layout:
    """Turns raw tokens into the token stream with layout tokens, tracking brackets."""

    def __init__(self, source: SourceFile, start: int = 0) -> None:
        self.text = source.text
        self.start = start
        self.tokens: list[Token] = []
        self.comments: list[Comment] = []
        self.diagnostics: list[Diagnostic] = []
        self.indents = [0]
        self.brackets: list[Token] = []
        self.pending_newline: Token | None = None
        self.line_number = 1
        #: The last line where a bad character or an unmatched closer was reported.
        self.bad_line = 0
        self.unclosed_regions: list[Span] = []

    def run(self) -> LexResult:
        text = self.text
        tokens = self.tokens
        append = tokens.append
        brackets = self.brackets
        name_kinds = _NAME_KINDS
        layout_kinds = _LAYOUT_KINDS
        at_line_start = True
        bad_run: list[int] | None = None
        last_end = 0
        line_start_offset = pos = self.start
        # Names and operators, most of the tokens, are made without calling `Token`'s
        # `__init__`: setting its fields directly (all of them, as `Token` declares them)
        # is about a third cheaper.
        new = object.__new__
        for space, name, operator, newline, other in _SCAN_RE.findall(text, pos):
            if space:
                pos += len(space)
            if name:
                end = pos + len(name)
                token = new(Token)
                token.kind = name_kinds.get(name, NAME)
                # One string per name, however often the file writes it: the tree and
                # the checker's facts keep names, and a big file repeats a few thousand.
                token.text = name = intern(name)
                token.start = pos
                token.end = end
                token.value = None
                token.synthetic = False
                token.partner = -1
                if at_line_start:
                    at_line_start = False
                    self._first_on_line(token, line_start_offset, brackets)
                append(token)
                pos = last_end = end
                continue
            if operator:
                end = pos + len(operator)
                token = new(Token)
                token.kind = operator
                token.text = operator
                token.start = pos
                token.end = end
                token.value = None
                token.synthetic = False
                token.partner = -1
                if at_line_start:
                    at_line_start = False
                    self._first_on_line(token, line_start_offset, brackets)
                if operator in layout_kinds:
                    if operator == "(" or operator == "[":
                        if tokens and tokens[-1].kind == "=":
                            self._note_declaration_bracket(token)
                        brackets.append(token)
                        token.partner = len(tokens)
                    elif operator == ")" or operator == "]":
                        if brackets and OPEN_BRACKETS[brackets[-1].kind] == operator:
                            # The closer its opener expects (what `_close_bracket` does then).
                            brackets.pop().partner = len(tokens)
                        elif not self._close_bracket(token):
                            pos = last_end = end
                            continue
                    elif brackets:
                        brackets[-1].value = True
                append(token)
                pos = last_end = end
                continue
            if newline:
                if not brackets and not at_line_start and self.pending_newline is None:
                    self.pending_newline = _token(NEWLINE, "", last_end, last_end)
                at_line_start = True
                pos += 1
                line_start_offset = pos
                self.line_number += 1
                continue
            if not other:
                break
            group = _TOKEN_RE.match(text, pos).lastindex
            end = pos + len(other)
            if group == _INT:
                token = self._integer(other, pos, end)
            elif group == _COMMENT:
                self._comment(other, pos, end, not at_line_start)
                pos = end
                continue
            elif group == _BAD:
                if bad_run is not None and bad_run[1] == pos:
                    bad_run[1] = end
                else:
                    self._flush_bad_run(bad_run)
                    bad_run = [pos, end, self.line_number]
                pos = end
                continue
            else:
                token = self._literal(_GROUP_NAMES[group], other, pos, end)
            if at_line_start:
                at_line_start = False
                self._first_on_line(token, line_start_offset, brackets)
            append(token)
            pos = last_end = end
        self._flush_bad_run(bad_run)
        end_offset = len(text)
        if brackets:
            self._close_unclosed_brackets(end_offset)
        if self.pending_newline is not None:
            append(self.pending_newline)
            self.pending_newline = None
        for _ in range(len(self.indents) - 1):
            append(_token(DEDENT, "", end_offset, end_offset))
        append(_token(EOF, "", end_offset, end_offset))
        return _new_lex_result(tokens, self.comments, self.diagnostics, self.unclosed_regions)

    def _first_on_line(self, token: Token, line_start: int, brackets: list[Token]) -> None:
        """The first token of a physical line: it begins a logical line, or continues the
        line of a bracket still open."""
        if brackets:
            self._continue_line(token, line_start)
        else:
            self._begin_line(token, line_start)

    def _continue_line(self, token: Token, line_start: int) -> None:
        """The first token of a line inside brackets: the line continues the bracket's
        unless a declaration starts at its column 0, which closes the brackets left open."""
        if token.start == line_start and self._starts_declaration(token):
            self._close_unclosed_brackets(token.start)
            self._begin_line(token, line_start)

    def _integer(self, raw: str, start: int, end: int) -> Token:
        value = _int_value(raw)
        if value > MAX_INT_LITERAL:
            self.diagnostics.append(
                _error(
                    "E0208",
                    "integer literal is too large",
                    Span(start, end),
                    "larger than 2^64 - 1",
                    help="the largest integer literal is 18446744073709551615",
                )
            )
        return _token(INT, raw, start, end, value)

    def _comment(self, body: str, start: int, end: int, after_code: bool) -> None:
        is_doc = body.startswith("##")
        self.comments.append(
            Comment(
                make_span(start, end),
                body[2:] if is_doc else body[1:],
                is_doc,
                after_code,
                self.line_number,
            )
        )

    def _literal(self, kind: str, raw: str, start: int, end: int) -> Token:
        """Floats, grouped sizes, unknown sizes and strings."""
        if kind == "float":
            return _token(FLOAT, raw, start, end, float(raw))
        if kind == "grouped":
            digits, name = _GROUPED_PARTS.match(raw).groups()
            count = _int_value(digits)
            if count > MAX_INT_LITERAL:
                self.diagnostics.append(
                    _error(
                        "E0208",
                        "integer literal is too large",
                        Span(start, start + len(digits)),
                        "larger than 2^64 - 1",
                        help="the largest integer literal is 18446744073709551615",
                    )
                )
            return _token(GROUPED_SIZE, raw, start, end, (count, name))
        if kind == "unknown":
            return _token(UNKNOWN_SIZE, raw, start, end, raw[1:])
        closed = raw.endswith('"') and len(raw) > 1
        if not closed:
            self.diagnostics.append(
                _error(
                    "E0102",
                    "unterminated string",
                    Span(start, end),
                    'this string has no closing `"`',
                    help="close the string on the same line: strings can't span lines",
                )
            )
        return _token(STRING, raw, start, end, raw[1:-1] if closed else raw[1:])

    def _note_declaration_bracket(self, token: Token) -> None:
        """`domain X = [` or `(` opens an interval, which either bracket may close."""
        tokens = self.tokens
        if len(tokens) >= 3 and tokens[-2].kind == NAME and tokens[-3].kind == "domain":
            token.value = "interval"

    def _flush_bad_run(self, run: list[int] | None) -> None:
        """Report a run of characters no token starts with: the first run of a line only,
        since what follows it on that line is seldom more than its knock-on."""
        if run is None or run[2] == self.bad_line:
            return
        self.bad_line = run[2]
        chars = self.text[run[0] : run[1]]
        what = f"`{chars}`" if len(chars) == 1 else f"characters `{chars}`"
        self.diagnostics.append(
            _error(
                "E0101",
                f"unexpected {what}",
                Span(run[0], run[1]),
                "no token starts with this",
                help="outside comments and strings only names, numbers and operators may appear",
            )
        )

    def _starts_declaration(self, token: Token) -> bool:
        if token.kind in DECLARATION_STARTERS:
            return True
        if token.kind == NAME and token.text in ("model", "data", "logs"):
            return _MODEL_LIKE_DECL.match(self.text, token.end) is not None
        return False

    def _close_bracket(self, token: Token) -> bool:
        """Match a closing bracket; False when it is dropped as unmatched."""
        if not self.brackets:
            if self.bad_line != self.line_number:
                self.bad_line = self.line_number
                self.diagnostics.append(
                    _error(
                        "E0105",
                        f"unmatched `{token.text}`",
                        token.span,
                        "nothing is open here for this to close",
                        help="remove it, or add the opening bracket it was meant to close",
                    )
                )
            return False
        opener = self.brackets.pop()
        opener.partner = len(self.tokens)
        expected = OPEN_BRACKETS[opener.kind]
        if expected != token.kind and opener.value != "interval":
            diagnostic = _error(
                "E0105",
                f"`{token.text}` doesn't match the open `{opener.text}`",
                token.span,
                f"expected `{expected}`",
            )
            diagnostic.secondary.append(Label(opener.span, "opened here"))
            self.diagnostics.append(diagnostic)
            token.kind = expected
        return True

    def _close_unclosed_brackets(self, at: int) -> None:
        """Report the innermost unclosed bracket and close them all with synthetic tokens."""
        innermost = self.brackets[-1]
        diagnostic = _error(
            "E0106",
            f"`{innermost.text}` is never closed",
            innermost.span,
            "unclosed bracket",
            help=f"add the matching `{OPEN_BRACKETS[innermost.kind]}`",
        )
        outers = self.brackets[:-1]
        for outer in reversed(outers[-_MAX_UNCLOSED_LABELS:]):
            diagnostic.secondary.append(Label(outer.span, "also unclosed"))
        if len(outers) > _MAX_UNCLOSED_LABELS:
            hidden = len(outers) - _MAX_UNCLOSED_LABELS
            diagnostic.notes.append(f"and {hidden} more unclosed brackets around these")
        self.diagnostics.append(diagnostic)
        self.unclosed_regions.append(Span(self.brackets[0].start, at))
        while self.brackets:
            opener = self.brackets.pop()
            opener.partner = len(self.tokens)
            closer = OPEN_BRACKETS[opener.kind]
            self.tokens.append(Token(closer, closer, at, at, synthetic=True))
        if self.pending_newline is None:
            self.pending_newline = Token(NEWLINE, "", at, at, synthetic=True)

    def _begin_line(self, token: Token, line_start: int) -> None:
        """Handle the first token of a logical line: continuation, NEWLINE, indentation."""
        if token.kind == "|>":
            self.pending_newline = None
            return
        if self.pending_newline is not None:
            self.tokens.append(self.pending_newline)
            self.pending_newline = None
        prefix = self.text[line_start : token.start]
        if not prefix.strip(" "):
            # Spaces only, nearly every line.
            whitespace = prefix
            has_tab = False
        else:
            whitespace = prefix[: len(prefix) - len(prefix.lstrip(" \t\f\r"))]
            has_tab = "\t" in whitespace
        if has_tab:
            width = 0
            for char in whitespace:
                width = (width // TAB_WIDTH + 1) * TAB_WIDTH if char == "\t" else width + 1
            self.diagnostics.append(
                _error(
                    "E0103",
                    "tab used for indentation",
                    Span(line_start, token.start),
                    "this indentation holds a tab",
                    help="indent with spaces only",
                    fixes=[
                        Fix(
                            "Indent with spaces",
                            (Edit(Span(line_start, token.start), " " * width),),
                        )
                    ],
                )
            )
        else:
            width = len(whitespace)
        indents = self.indents
        if width > indents[-1]:
            indents.append(width)
            self.tokens.append(_token(INDENT, "", token.start, token.start))
            return
        while width < indents[-1]:
            if width > indents[-2]:
                if not has_tab:
                    levels = " or ".join(str(level) for level in reversed(indents))
                    self.diagnostics.append(
                        _error(
                            "E0104",
                            "indentation doesn't match any enclosing block",
                            Span(line_start, token.start),
                            f"{width} spaces",
                            help=f"indent this line by {levels} spaces",
                        )
                    )
                return
            indents.pop()
            self.tokens.append(_token(DEDENT, "", token.start, token.start))


def lex(source: SourceFile, *, notebook: bool = False) -> LexResult:
    """Tokens with layout, the comments, and the lexical diagnostics of one file.

    In a notebook cell, a first line holding the `%%shapescript` magic is skipped.
    """
    start = 0
    if notebook and source.text.startswith("%%"):
        newline = source.text.find("\n")
        start = len(source.text) if newline == -1 else newline
    return _Layout(source, start).run()
