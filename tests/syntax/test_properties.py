"""Property tests: the lexer and parser never raise or hang, on any text or edit."""

from __future__ import annotations

import json
import signal
from contextlib import contextmanager
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapescript.syntax.parser import parse_text

DATA = Path(__file__).resolve().parent.parent / "data"
REPO = Path(__file__).resolve().parents[2]


def _programs() -> list[str]:
    paths = sorted(DATA.rglob("*.ss")) + sorted((REPO / "examples").glob("*.ss"))
    programs = [path.read_text(encoding="utf-8") for path in paths]
    reference = DATA / "reference_programs.json"
    if reference.exists():
        programs.extend(json.loads(reference.read_text(encoding="utf-8")))
    return programs


PROGRAMS = _programs()

#: Fragments that exercise every token and layout rule, mixed into random text.
FRAGMENTS = [
    "fn",
    "dim",
    "domain",
    "extern",
    "import",
    "python",
    "model",
    "data",
    "logs",
    "export",
    "devices",
    "param",
    "buffer",
    "return",
    "for",
    "in",
    "if",
    "else",
    "as",
    "to",
    "and",
    "or",
    "inf",
    "true",
    "false",
    "mut",
    "over",
    "_",
    "x",
    "D",
    "16gh",
    "?k",
    "1.5",
    "3e-4",
    "42",
    '"torch.exp"',
    '"open',
    "|>",
    "->",
    "=>",
    "..",
    "...",
    "==",
    "!=",
    "<=",
    ">=",
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    ".",
    "=",
    "+",
    "-",
    "*",
    "/",
    "@",
    "!",
    "<",
    ">",
    "$",
    "%",
    ";",
    "#",
    "##",
    "\n",
    "\n    ",
    "\n\t",
    " ",
    "\ufeff",
    "\r\n",
]


@contextmanager
def time_limit(seconds: float):
    """Fail instead of hanging: a parse that loops forever raises TimeoutError."""

    def on_alarm(signum, frame):
        raise TimeoutError(f"parsing took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def parse_safely(text: str, notebook: bool = False) -> None:
    with time_limit(2.0):
        result = parse_text(text, notebook=notebook)
    assert result.module is not None
    for diagnostic in result.diagnostics:
        assert 0 <= diagnostic.span.start <= diagnostic.span.end <= len(result.source.text)


token_soup = st.lists(st.sampled_from(FRAGMENTS), max_size=60).map(" ".join)
any_text = st.one_of(st.text(max_size=200), token_soup)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=any_text, notebook=st.booleans())
def test_parser_never_raises_on_arbitrary_text(text: str, notebook: bool) -> None:
    parse_safely(text, notebook)


@st.composite
def edited_program(draw) -> str:
    """An example program with lines deleted, inserted, duplicated or re-indented."""
    lines = draw(st.sampled_from(PROGRAMS)).split("\n")
    for _ in range(draw(st.integers(1, 6))):
        if not lines:
            lines = [""]
        index = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["delete", "insert", "duplicate", "indent", "cut"]))
        if action == "delete":
            del lines[index]
        elif action == "insert":
            lines.insert(index, draw(token_soup))
        elif action == "duplicate":
            lines.insert(index, lines[index])
        elif action == "indent":
            lines[index] = " " * draw(st.integers(0, 12)) + lines[index].lstrip()
        else:
            line = lines[index]
            cut = draw(st.integers(0, len(line)))
            lines[index] = line[:cut]
    return "\n".join(lines)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=edited_program())
def test_parser_never_raises_on_edited_programs(text: str) -> None:
    parse_safely(text)
