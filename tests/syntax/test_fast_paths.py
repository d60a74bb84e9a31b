"""The lexer's and parser's fast paths against the general paths they stand in for.

The lexer reads tokens with one `findall` per text and adds up their offsets; the
reference here finds each token with a match object, as the lexer once did, and hands it
to the same layout methods. The parser makes lone call arguments without the expression
chain, and nodes with `nodes`' constructors; with both turned off, every tree and
diagnostic must stay the same.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapescript.syntax import ast, doc_comments, lexer, nodes, parser
from shapescript.syntax.lexer import LexResult, _Layout, lex
from shapescript.syntax.parser import _Parser, parse_text
from shapescript.syntax.source import SourceFile
from shapescript.syntax.tokens import DEDENT, EOF, NEWLINE, Token
from tests.syntax.test_properties import FRAGMENTS, PROGRAMS, edited_program, time_limit

#: Each token after the whitespace a search skips, by group; `end` at the end of the text.
_MATCH_RE = re.compile(
    r"[ \t\f\r]*(?:"
    r"(?P<name>[^\W\d]\w*)"
    r"|(?P<op>\.\.\.|\|>|->|=>|\.\.|==|!=|<=|>=|[-+*/%@!<>=(),:.\[\]])"
    r"|(?P<nl>\n)"
    r"|(?P<float>\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)"
    r"|(?P<grouped>\d+[^\W\d]\w*)"
    r"|(?P<int>\d+)"
    r"|(?P<comment>\#[^\n]*)"
    r"|(?P<unknown>\?[^\W\d]\w*)"
    r'|(?P<string>"[^"\n]*"?)'
    r"|(?P<bad>[^\s])"
    r"|(?P<end>$)"
    r")"
)
_KEYWORD_KINDS = lexer._NAME_KINDS


class _ReferenceLayout(_Layout):
    """The layout pass fed by `finditer`, one match object a token."""

    def run(self) -> LexResult:
        tokens = self.tokens
        brackets = self.brackets
        at_line_start = True
        bad_run: list[int] | None = None
        last_end = 0
        line_start = self.start
        for match in _MATCH_RE.finditer(self.text, self.start):
            group = match.lastgroup
            start, end = match.span(group)
            raw = match[group]
            if group == "end":
                break
            if group == "nl":
                if not brackets and not at_line_start and self.pending_newline is None:
                    self.pending_newline = Token(NEWLINE, "", last_end, last_end)
                at_line_start = True
                line_start = end
                self.line_number += 1
                continue
            if group == "comment":
                self._comment(raw, start, end, not at_line_start)
                continue
            if group == "bad":
                if bad_run is not None and bad_run[1] == start:
                    bad_run[1] = end
                else:
                    self._flush_bad_run(bad_run)
                    bad_run = [start, end, self.line_number]
                continue
            if group == "name":
                token = Token(_KEYWORD_KINDS.get(raw, "name"), raw, start, end)
            elif group == "op":
                token = Token(raw, raw, start, end)
            elif group == "int":
                token = self._integer(raw, start, end)
            else:
                token = self._literal(group, raw, start, end)
            if at_line_start:
                at_line_start = False
                if brackets:
                    self._continue_line(token, line_start)
                else:
                    self._begin_line(token, line_start)
            if token.kind in ("(", "["):
                if tokens and tokens[-1].kind == "=":
                    self._note_declaration_bracket(token)
                brackets.append(token)
                token.partner = len(tokens)
            elif token.kind in (")", "]"):
                if not self._close_bracket(token):
                    last_end = end
                    continue
            elif token.kind in ("->", ":") and brackets:
                brackets[-1].value = True
            tokens.append(token)
            last_end = end
        self._flush_bad_run(bad_run)
        end_offset = len(self.text)
        if brackets:
            self._close_unclosed_brackets(end_offset)
        if self.pending_newline is not None:
            tokens.append(self.pending_newline)
        for _ in range(len(self.indents) - 1):
            tokens.append(Token(DEDENT, "", end_offset, end_offset))
        tokens.append(Token(EOF, "", end_offset, end_offset))
        return LexResult(tokens, self.comments, self.diagnostics, self.unclosed_regions)


def _fields(token: Token) -> tuple:
    return (
        token.kind,
        token.text,
        token.start,
        token.end,
        token.value,
        token.synthetic,
        token.partner,
    )


def assert_lexes_as_reference(text: str, notebook: bool = False) -> None:
    source = SourceFile.from_text("<text>", text)
    got = lex(source, notebook=notebook)
    start = 0
    if notebook and source.text.startswith("%%"):
        newline = source.text.find("\n")
        start = len(source.text) if newline == -1 else newline
    expected = _ReferenceLayout(source, start).run()
    assert [_fields(token) for token in got.tokens] == [_fields(token) for token in expected.tokens]
    assert got.comments == expected.comments
    assert got.diagnostics == expected.diagnostics
    assert got.unclosed_regions == expected.unclosed_regions


#: Every character Unicode counts as a space or a line break, and some that look like one.
SPACES = [" ", "\t", "\f", "\r", "\v", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0"]
SPACES += ["\u1680", "\u2000", "\u200b", "\u2028", "\u2029", "\u3000", "\ufeff", "\n"]
soup = st.lists(st.sampled_from(FRAGMENTS + SPACES + ["é", "λ", "١٢", "x١"]), max_size=80)


def test_the_reference_finds_the_same_tokens_in_every_program() -> None:
    for program in PROGRAMS:
        assert_lexes_as_reference(program)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(st.text(max_size=200), soup.map("".join), soup.map(" ".join)))
def test_random_text_lexes_as_the_reference(text: str) -> None:
    assert_lexes_as_reference(text)
    assert_lexes_as_reference("%%shapescript\n" + text, notebook=True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=edited_program())
def test_edited_programs_lex_as_the_reference(text: str) -> None:
    assert_lexes_as_reference(text)


@pytest.mark.parametrize(
    "tail",
    [" " * 200_000, "\t \f\r\v" * 50_000, "\u2028" * 200_000, " x" + " " * 200_000],
    ids=["spaces", "mixed", "line-separators", "after-a-name"],
)
def test_long_trailing_whitespace_lexes_in_one_pass(tail: str) -> None:
    # Before the scanner matched the end of the text, each position of trailing
    # whitespace was retried with every split of the rest: hours for this much.
    with time_limit(30.0):
        result = lex(SourceFile("<text>", "fn f() = x" + tail))
    assert [token.text for token in result.tokens][-2:] == [
        tail.split()[-1] if tail.split() else "x",
        "",
    ]
    assert result.tokens[-1].kind == EOF


def _parse_both(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = parse_text(text)
    with monkeypatch.context() as patched:
        patched.setattr(_Parser, "_lone_atom", lambda self: None)
        # Every node made by calling its class, not by `nodes`' constructors.
        patched.setattr(parser, "nodes", ast)
        patched.setattr(doc_comments, "nodes", ast)
        general = parse_text(text)
    assert repr(fast.module) == repr(general.module)
    assert fast.diagnostics == general.diagnostics


ARGUMENTS = ["x", "1", "2.5", "1e-5", "x.y", "-1", "_", "mut x", "x => x", "(x)", "f(x)"]


def test_lone_arguments_parse_as_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    for program in PROGRAMS:
        _parse_both(program, monkeypatch)
    for first in ARGUMENTS:
        for second in ARGUMENTS:
            for closer in (")", ",)", "", "]"):
                body = f"f({first}, k={second}{closer}"
                _parse_both(f"fn g(x: [n]) -> [n] = {body}\n", monkeypatch)
                block = f"fn g(x: [n]) -> [n]:\n    y = x |> {body}\n    return y\n"
                _parse_both(block, monkeypatch)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=edited_program())
def test_edited_programs_parse_as_the_general_path(text: str) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        _parse_both(text, monkeypatch)


def test_a_node_constructor_takes_what_its_class_takes() -> None:
    made = nodes.Pipe(nodes.Name("x", (0, 1)), [], (0, 1))
    called = ast.Pipe(ast.Name("x", (0, 1)), [], (0, 1))
    assert type(made) is ast.Pipe
    assert made == called
    assert made.bar_spans == [] and made.bar_spans is not nodes.Pipe(made, [], (0, 1)).bar_spans
    arg = nodes.Arg(made, (0, 1), mut=True)
    assert arg == ast.Arg(called, (0, 1), None, None, True)


def test_only_record_classes_have_constructors() -> None:
    with pytest.raises(AttributeError):
        nodes.Expr  # noqa: B018 (a union, not a class)
