"""The terminal renderer, checked against snapshots in tests/diagnostics/snapshots/."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from shapescript.diagnostics.diagnostic import Diagnostic, Label
from shapescript.diagnostics.render_text import render_diagnostic, render_summary
from shapescript.syntax.source import SourceFile, Span
from tests.snapshot import assert_matches_snapshot

SNAPSHOTS = Path(__file__).parent / "snapshots"


def span_of(text: str, needle: str, occurrence: int = 1) -> Span:
    """The span of the n-th occurrence of `needle` in `text`, as a whole word where it is one."""
    before = r"(?<!\w)" if needle[:1].isalnum() else ""
    after = r"(?!\w)" if needle[-1:].isalnum() else ""
    matches = list(re.finditer(before + re.escape(needle) + after, text))
    match = matches[occurrence - 1]
    return Span(match.start(), match.end())


# Where a label goes: (needle, occurrence, message) for the n-th occurrence of a piece of
# text, or (offset, 0, message) for an empty span at a character offset.
Where = tuple[str | int, int, str]


@dataclass
class Case:
    text: str
    code: str
    message: str
    primary: Where
    secondary: list[Where] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    help: str | None = None
    path: str = "examples/a.ss"
    color: bool = False

    def label(self, where: Where) -> Label:
        needle, occurrence, message = where
        if isinstance(needle, int):
            return Label(Span(needle, needle), message)
        return Label(span_of(self.text, needle, occurrence), message)

    def render(self) -> str:
        source = SourceFile.from_text(self.path, self.text)
        diag = Diagnostic(
            code=self.code,
            message=self.message,
            primary=self.label(self.primary),
            secondary=[self.label(where) for where in self.secondary],
            notes=self.notes,
            help=self.help,
            path=self.path,
        )
        return render_diagnostic(diag, source, color=self.color)


TWO_FNS = "fn f() -> [] = 1.0\n\nfn f() -> [] = 2.0\n"

CASES: dict[str, Case] = {
    "primary_only": Case(
        "dim D = 4\nfn f(x: [n]) -> [n] = y\n",
        "E0301",
        "unknown name `y`",
        ("y", 1, "not declared anywhere"),
    ),
    "primary_without_label": Case(
        "dim D = 4 $\n",
        "E0101",
        "unexpected character `$`",
        ("$", 1, ""),
    ),
    "secondary_on_another_line": Case(
        TWO_FNS,
        "E0302",
        "name defined twice",
        ("f", 2, "second definition here"),
        [("f", 1, "first defined here")],
    ),
    "secondary_on_same_line": Case(
        "fn g(x: [n], y: [m]) -> [n] = add(x, y)\n",
        "E0401",
        "sizes don't match: `n` and `m`",
        ("y", 2, "this has `m`"),
        [("x", 2, "this has `n`")],
    ),
    "three_labels_on_one_line": Case(
        "fn g(x: [n], y: [m]) -> [n] = add3(x, y, x)\n",
        "E0406",
        "wrong arguments for `add3`",
        ("add3", 1, "in this call"),
        [("x", 2, "first"), ("y", 2, "second"), ("x", 3, "third")],
    ),
    "unlabelled_mark_to_the_right": Case(
        "fn g(x: [n], y: [m]) -> [n] = add(x, y)\n",
        "E0401",
        "sizes don't match: `n` and `m`",
        ("x", 2, "this has `n`"),
        [("y", 2, "")],
    ),
    "secondary_inside_primary": Case(
        "fn g(x: [n], y: [m]) -> [n] = add(x, y)\n",
        "E0406",
        "wrong arguments for `add`",
        ("add(x, y)", 1, "in this call"),
        [("y", 2, "this has `m`"), ("x", 2, "")],
    ),
    "same_span_twice": Case(
        "dim D = 4 * D\n",
        "E0304",
        "dim `D` is defined in terms of itself",
        ("D", 2, "used here"),
        [("D", 2, "while defining it")],
    ),
    "gap_of_many_lines": Case(
        "dim D = 4\ndim E = 8\ndim F = 16\ndim G = 32\ndim D = 5\n",
        "E0302",
        "name defined twice",
        ("D", 2, "second definition here"),
        [("D", 1, "first defined here")],
    ),
    "gap_of_one_line": Case(
        "dim D = 4\ndim E = 8\ndim D = 5\n",
        "E0302",
        "name defined twice",
        ("D", 2, "second definition here"),
        [("D", 1, "first defined here")],
    ),
    "wide_gutter": Case(
        "".join(f"dim A{index} = {index}\n" for index in range(1, 12)) + "dim A9 = 0\n",
        "E0302",
        "name defined twice",
        ("A9", 2, "second definition here"),
        [("A9", 1, "first defined here")],
    ),
    "notes_and_help": Case(
        "fn f(x: [n D]) -> [n] = x\n",
        "E0403",
        "wrong number of axes",
        ("x", 2, "this has 2 axes"),
        notes=["the declared result `[n]` has 1 axis", "a note\nthat runs over two lines"],
        help="reduce over `D`, for example with `sum(x, D)`",
    ),
    "help_only": Case(
        "x = 1\n",
        "E0207",
        "expected a declaration",
        ("x = 1", 1, "a statement at the top level"),
        help="put statements inside a function",
    ),
    "multi_line_span": Case(
        "fn f(x: [n]) -> [n]:\n    y = add(x,\n            x)\n    return y\n",
        "E0406",
        "wrong arguments",
        ("add(x,\n            x)", 1, "this call"),
    ),
    "tabs_before_the_span": Case(
        "fn f(x: [n]) -> [n] =\tadd(x,\tz)\n",
        "E0301",
        "unknown name `z`",
        ("z", 1, "not declared"),
    ),
    "wide_characters_before_the_span": Case(
        "fn f(x: [n]) -> [n] = x  # 幅 ok\nfn g() = 幅 + q\n",
        "E0301",
        "unknown name `q`",
        ("q", 1, "not declared"),
    ),
    "invisible_characters_before_the_span": Case(
        "fn f() = \u202e\u200b\x00 + q\n",
        "E0301",
        "unknown name `q`",
        ("q", 1, "not declared"),
    ),
    "empty_span": Case(
        "fn f(x: [n]) -> [n] = add(x, x\n",
        "E0106",
        "unclosed bracket",
        (len("fn f(x: [n]) -> [n] = add(x, x"), 0, "expected `)` here"),
        [("(x,", 1, "this bracket")],
    ),
    "end_of_file_span": Case(
        "fn f(x: [n]) -> [n] = add(x,\n",
        "E0201",
        "expected an expression, found the end of the file",
        (len("fn f(x: [n]) -> [n] = add(x,\n"), 0, "the file ends here"),
    ),
    "end_of_file_without_newline": Case(
        "dim H = *",
        "E0201",
        "expected an expression, found the end of the file",
        (len("dim H = *"), 0, "expected an expression"),
    ),
    "warning": Case(
        "## orphan\n\nfn f() -> [] = 1.0\n",
        "W0201",
        "doc comment not attached to a declaration",
        ("## orphan", 1, "nothing directly below it"),
    ),
    "hint": Case(
        "# $\\frac{1}{2}$ and $\\weird$\n",
        "H0601",
        "LaTeX outside the supported subset: `\\weird`",
        ("\\weird", 1, "shown as written"),
    ),
    "color": Case(
        TWO_FNS,
        "E0302",
        "name defined twice",
        ("f", 2, "second definition here"),
        [("f", 1, "first defined here")],
        notes=["functions share one namespace"],
        help="rename one of them",
        color=True,
    ),
    "color_warning": Case(
        "## orphan\n\nfn f() -> [] = 1.0\n",
        "W0201",
        "doc comment not attached to a declaration",
        ("## orphan", 1, "nothing directly below it"),
        color=True,
    ),
}


def visible_escapes(text: str) -> str:
    """ANSI escapes written as `\\e` so that a colour snapshot reads as plain text."""
    return text.replace("\x1b", "\\e")


@pytest.mark.parametrize("name", sorted(CASES))
def test_rendering_matches_snapshot(name: str) -> None:
    rendered = CASES[name].render()
    assert_matches_snapshot(visible_escapes(rendered), SNAPSHOTS / f"{name}.expected")


@pytest.mark.parametrize("name", sorted(name for name, case in CASES.items() if not case.color))
def test_plain_output_has_no_escapes_or_trailing_spaces(name: str) -> None:
    rendered = CASES[name].render()
    assert "\x1b" not in rendered
    assert all(line == line.rstrip() for line in rendered.splitlines())
    assert not rendered.endswith("\n")


def test_color_output_is_plain_output_plus_escapes() -> None:
    colored = CASES["color"].render()
    assert "\x1b[1;31m" in colored and "\x1b[1;34m" in colored
    stripped = re.sub("\x1b\\[[0-9;]*m", "", colored)
    assert stripped == replace(CASES["color"], color=False).render()


@pytest.mark.parametrize(
    ("code", "escape"),
    [("E0301", "\x1b[1;31merror"), ("W0201", "\x1b[1;33mwarning"), ("H0601", "\x1b[1;36mhint")],
)
def test_severity_colors(code: str, escape: str) -> None:
    source = SourceFile.from_text("a.ss", "x\n")
    diag = Diagnostic(code, "something", Label(Span(0, 1), "here"))
    assert render_diagnostic(diag, source, color=True).startswith(escape)


def test_location_uses_the_primary_span() -> None:
    source = SourceFile.from_text("dir/b.ss", "ab\ncd\n")
    diag = Diagnostic("E0301", "m", Label(Span(4, 5), "p"), [Label(Span(0, 1), "s")])
    assert render_diagnostic(diag, source).splitlines()[1] == " --> dir/b.ss:2:2"


def test_diagnostic_path_wins_over_source_path() -> None:
    source = SourceFile.from_text("internal.ss", "ab\n")
    diag = Diagnostic("E0301", "m", Label(Span(0, 1)), path="shown.ss")
    assert " --> shown.ss:1:1" in render_diagnostic(diag, source)


def test_out_of_range_span_is_clamped() -> None:
    source = SourceFile.from_text("a.ss", "ab\n")
    diag = Diagnostic("E0301", "m", Label(Span(50, 60), "late"))
    rendered = render_diagnostic(diag, source)
    assert " --> a.ss:2:1" in rendered
    assert "^ late" in rendered


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ((0, 0, 0, 3), "no problems found in 3 files"),
        ((0, 0, 0, 1), "no problems found in 1 file"),
        ((0, 0, 0, 0), "no problems found in 0 files"),
        ((1, 0, 0, 1), "found 1 error in 1 file"),
        ((2, 1, 0, 3), "found 2 errors and 1 warning in 3 files"),
        ((0, 2, 0, 2), "found 2 warnings in 2 files"),
        ((0, 0, 1, 1), "found 1 hint in 1 file"),
        ((1, 0, 4, 1), "found 1 error and 4 hints in 1 file"),
        ((3, 1, 2, 5), "found 3 errors, 1 warning and 2 hints in 5 files"),
    ],
)
def test_summary(counts: tuple[int, int, int, int], expected: str) -> None:
    assert render_summary(*counts) == expected
