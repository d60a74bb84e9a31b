"""Math in comments: finding `$...$` and `$$...$$` (Pandoc's rules), H0601 and H0602."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shapescript.check.analyses.math_comments import (
    SUPPORTED_COMMANDS,
    SUPPORTED_ENVIRONMENTS,
    CommentLine,
    Group,
    Math,
    MathProblem,
    Scripts,
    Symbol,
    check_math,
    find_math,
)
from shapescript.syntax.lexer import lex
from shapescript.syntax.source import SourceFile

ROOT = Path(__file__).resolve().parents[3]


def comments_of(text: str) -> list[CommentLine]:
    """The comments of a ShapeScript file, as the lexer finds them."""
    result = lex(SourceFile.from_text("main.ss", text))
    return [
        CommentLine(
            comment.text,
            comment.span.start + (2 if comment.is_doc else 1),
            comment.line,
            comment.is_doc,
            comment.after_code,
        )
        for comment in result.comments
    ]


def math_in(text: str) -> list[Math]:
    return find_math(comments_of(text))


def sources(text: str) -> list[str]:
    return [math.source for math in math_in(text)]


def problems_in(text: str) -> list[MathProblem]:
    return check_math(math_in(text))


def at(text: str, needle: str, occurrence: int = 0) -> int:
    """The offset of the given occurrence of needle in text."""
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    return index


def only_problem(text: str) -> MathProblem:
    problems = problems_in(text)
    assert len(problems) == 1, problems
    return problems[0]


# --------------------------------------------------------------------------------------------
# Finding math
# --------------------------------------------------------------------------------------------


def test_inline_math_positions() -> None:
    text = "dim D = 4\n# The scale $1/\\sqrt{D}$ here.\n"
    [math] = math_in(text)
    assert math.source == "1/\\sqrt{D}"
    assert (math.start, math.end) == (at(text, "$"), at(text, "$", 1) + 1)
    assert not math.display
    assert text[math.start : math.end] == "$1/\\sqrt{D}$"


def test_display_math_on_one_line() -> None:
    text = "## Then $$x = \\frac{a}{b}$$ and $y$.\n"
    found = math_in(text)
    assert [(m.source, m.display) for m in found] == [("x = \\frac{a}{b}", True), ("y", False)]
    assert (found[0].start, found[0].end) == (at(text, "$$"), at(text, "$$", 1) + 2)


def test_display_math_may_have_space_inside_its_delimiters() -> None:
    assert sources("# $$ x $$\n") == [" x "]


def test_opening_dollar_followed_by_whitespace_is_text() -> None:
    assert sources("# a $ x$ b\n") == []


def test_closing_dollar_after_whitespace_is_text() -> None:
    assert sources("# a $x $ b\n") == []


def test_prices_are_text() -> None:
    assert sources("# costs $3 and $4\n") == []


def test_closing_dollar_followed_by_digit_is_text() -> None:
    # The first `$` fails (its closing is followed by a digit); the second then opens math.
    text = "# $a$1 b$\n"
    [math] = math_in(text)
    assert math.source == "1 b"
    assert math.start == at(text, "$", 1)


def test_escaped_dollar_is_text() -> None:
    assert sources("# \\$x$ and \\$5\n") == []


def test_escaped_dollar_inside_math() -> None:
    assert sources("# $a\\$b$\n") == ["a\\$b"]


def test_escaped_backslash_before_dollar() -> None:
    assert sources("# \\\\$x$\n") == ["x"]


@pytest.mark.parametrize("line", ["# $$$x$$$\n", "# $$$\n", "# a $$$ b $$$$ c\n"])
def test_runs_of_three_or_more_dollars_are_text(line: str) -> None:
    assert sources(line) == []


def test_inline_math_cannot_close_on_a_run_of_dollars() -> None:
    assert sources("# $a$$ b\n") == []


@pytest.mark.parametrize(
    "line",
    ["# `$x$`\n", "# ``a ` $x$``\n", "# `a` and `$x$` b\n"],
)
def test_nothing_in_a_code_span_is_math(line: str) -> None:
    assert sources(line) == []


def test_math_after_a_code_span() -> None:
    assert sources("# `code` then $y$\n") == ["y"]


def test_an_unmatched_backtick_is_text() -> None:
    assert sources("# a ` b $x$\n") == ["x"]


def test_math_that_starts_first_holds_a_backtick() -> None:
    assert sources("# $a`b$ c`\n") == ["a`b"]


def test_inline_math_stays_on_one_line() -> None:
    assert sources("# $a\n# b$\n") == []


def test_display_math_over_several_lines() -> None:
    text = "## $$\n## x^2 + \\foo\n## $$\nfn f(x: [n]) -> [n] = x\n"
    [math] = math_in(text)
    assert math.display
    assert math.source == "\n x^2 + \\foo\n "
    assert (math.start, math.end) == (at(text, "$$"), at(text, "$$", 1) + 2)
    [problem] = check_math([math])
    assert problem.code == "H0601"
    assert (problem.start, problem.end) == (at(text, "\\foo"), at(text, "\\foo") + 4)


def test_display_math_continues_in_the_middle_of_lines() -> None:
    text = "# where $$a +\n# b$$ and $c$\n"
    found = math_in(text)
    assert [m.source for m in found] == ["a +\n b", "c"]
    assert found[0].end == at(text, "$$", 1) + 2


def test_display_math_stops_at_a_blank_comment_line() -> None:
    assert sources("# $$a\n#\n# b$$\n") == []
    assert sources("# $$a\n#   \n# b$$\n") == []


def test_display_math_stays_in_one_kind_of_comment() -> None:
    assert sources("# $$a\n## b$$\n") == []
    assert sources("## $$a\n# b$$\n") == []


def test_display_math_needs_consecutive_lines() -> None:
    assert sources("# $$a\n\n# b$$\n") == []
    assert sources("# $$a\ndim D = 4\n# b$$\n") == []


def test_a_comment_after_code_is_a_block_of_its_own() -> None:
    assert sources("dim D = 4 # $$a\n# b$$\n") == []
    assert sources("# $$a\ndim D = 4 # b$$\n") == []
    assert sources("dim D = 4 # $$a$$ and $b$\n") == ["a", "b"]


@pytest.mark.parametrize("text", ["# $$ $$\n", "# $$\n# $$\n"])
def test_display_math_cannot_be_empty(text: str) -> None:
    assert sources(text) == []


def test_empty_display_math_does_not_reopen_at_its_closing() -> None:
    assert sources("# $$ $$ x $$\n") == []


def test_unclosed_display_math_is_text() -> None:
    assert sources("# $$x$ and more\n") == []


def test_tree_of_simple_math() -> None:
    [math] = math_in("# $x^2$\n")
    assert isinstance(math.tree, Group)
    [item] = math.tree.items
    assert isinstance(item, Scripts)
    assert item.base == Symbol("x", 0, 1)
    assert item.sup == Symbol("2", 2, 3)
    assert item.sub is None


def test_malformed_math_has_no_tree() -> None:
    [math] = math_in("# $\\frac{a}$\n")
    assert math.tree is None


def test_unsupported_commands_keep_the_tree() -> None:
    [math] = math_in("# $\\foo + 1$\n")
    assert math.tree is not None


@pytest.mark.parametrize(
    "path",
    [
        "compiler/shapescript/prelude.ss",
        "compiler/shapescript/nn.ss",
        *(str(p.relative_to(ROOT)) for p in sorted((ROOT / "examples").glob("*.ss"))),
    ],
)
def test_the_project_math_is_clean(path: str) -> None:
    assert problems_in((ROOT / path).read_text()) == []


# --------------------------------------------------------------------------------------------
# H0601: outside the subset
# --------------------------------------------------------------------------------------------


def test_h0601_reference_example() -> None:
    text = "## Normalizes with $\\sofmax(x)$.\nfn f(x: [n]) -> [n] = x\n"
    problem = only_problem(text)
    assert problem.code == "H0601"
    assert problem.message == "`\\sofmax` isn't in the supported LaTeX subset"
    assert (problem.start, problem.end) == (at(text, "\\sofmax"), at(text, "(x)"))
    assert problem.help == "did you mean `\\operatorname{softmax}`?"


@pytest.mark.parametrize(
    ("command", "help"),
    [
        ("\\farc{a}{b}", "did you mean `\\frac`?"),
        ("\\alpah", "did you mean `\\alpha`?"),
        ("\\lamda", "did you mean `\\lambda`?"),
        ("\\infinity", "did you mean `\\infty`?"),
        ("\\Sum_i", "did you mean `\\sum`?"),
        ("\\softmax(x)", "write `\\operatorname{softmax}`"),
        ("\\argmax_i", "write `\\operatorname{argmax}`"),
        ("\\zzzz", None),
        ("\\:", None),
    ],
)
def test_h0601_suggestions(command: str, help: str | None) -> None:
    text = f"# $x = {command}$\n"
    problem = only_problem(text)
    name = command.split("{")[0].split("(")[0].split("_")[0]
    assert problem.code == "H0601"
    assert problem.message == f"`{name}` isn't in the supported LaTeX subset"
    assert (problem.start, problem.end) == (at(text, name), at(text, name) + len(name))
    assert problem.help == help


def test_h0601_every_unsupported_command_is_reported() -> None:
    text = "# $\\foo + \\bar{x} + \\baz$\n"
    problems = problems_in(text)
    assert [(p.code, p.start) for p in problems] == [
        ("H0601", at(text, "\\foo")),
        ("H0601", at(text, "\\baz")),
    ]


def test_h0601_unsupported_environment() -> None:
    text = "# $\\begin{pmatirx} a & b \\end{pmatirx}$\n"
    problem = only_problem(text)
    assert problem.code == "H0601"
    assert problem.message == "the environment `pmatirx` isn't in the supported LaTeX subset"
    assert (problem.start, problem.end) == (at(text, "\\begin"), at(text, " a &"))
    assert problem.help == "did you mean `pmatrix`?"


def test_h0601_unsupported_delimiter() -> None:
    text = "# $\\left\\lfloor x \\right\\rfloor$\n"
    problems = problems_in(text)
    assert [(p.code, p.start, p.end) for p in problems] == [
        ("H0601", at(text, "\\lfloor"), at(text, "\\lfloor") + 7),
        ("H0601", at(text, "\\rfloor"), at(text, "\\rfloor") + 7),
    ]


def test_text_arguments_are_not_checked() -> None:
    assert problems_in("# $\\text{see \\foo} + \\operatorname{soft\\max}(x)$\n") == []


def test_supported_math_from_the_reference() -> None:
    schedule = (
        "# $\\mathit{end} + (\\mathit{peak} - \\mathit{end}) \\cdot \\frac{1 + \\cos(\\pi "
        "\\min(t, \\mathit{steps}) / \\mathit{steps})}{2}$\n"
    )
    others = "# $1/\\sqrt{D_h}$ $[0, \\cdot]$ $-\\infty$ $[0, \\infty)$ $[0, V)$\n"
    assert problems_in(schedule + others) == []


@pytest.mark.parametrize(
    "math",
    [
        "\\sqrt[3]{x} + \\tfrac12 + \\dfrac{a}{b}",
        "\\left\\langle q, k \\right\\rangle \\Big( x \\Big) \\left. x \\right|",
        "\\left\\{ a \\right\\} \\left\\Vert x \\right\\Vert",
        "\\sum_{i=1}^{n} \\prod_j \\int_0^\\infty e^{-t^2} \\, dt \\; \\quad \\qquad \\!",
        "\\begin{cases} 0 & x < 0 \\\\ x & \\text{otherwise} \\end{cases}",
        "\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix} \\begin{bmatrix} 1 \\end{bmatrix}",
        "\\begin{aligned} a &= b \\\\ &= c \\end{aligned} \\begin{matrix} x \\end{matrix}",
        "\\hat{y} \\bar x \\tilde{x} \\vec v \\dot x \\overline{ab} \\mathbb{R}^n \\mathcal{L}",
        "\\boldsymbol{\\theta} \\mathbf{W} \\mathrm{d}x \\nabla_\\theta \\partial f",
        "a \\le b \\leq c \\ge d \\ne e \\approx f \\sim g \\equiv h \\in S \\notin T",
        "A \\subset B \\subseteq C, f: X \\to Y, x \\mapsto y, p \\propto q",
        "a \\times b \\odot c \\otimes d \\oplus e \\pm f \\circ g",
        "\\ldots \\cdots \\dots \\top \\forall \\exists \\{ \\} \\$ \\% \\& \\# \\_ \\|",
        "\\Gamma \\Delta \\Theta \\Lambda \\Xi \\Pi \\Sigma \\Phi \\Psi \\Omega \\varepsilon",
        "\\arg\\max_x \\exp \\log \\ln \\sin \\cos \\tan \\tanh \\det",
        "x' + {}^2 + ^2 + x^{} + x_i^2 + x^2_i + a \\\\ b",
    ],
)
def test_supported_math_has_no_problems(math: str) -> None:
    assert problems_in(f"# ${math}$\n") == []


def test_the_subset_tables() -> None:
    for command in ("\\frac", "\\operatorname", "\\mathit", "\\omega", "\\Omega", "\\,"):
        assert command in SUPPORTED_COMMANDS
    assert "\\softmax" not in SUPPORTED_COMMANDS
    assert {"cases", "aligned", "matrix", "pmatrix", "bmatrix"} == SUPPORTED_ENVIRONMENTS


# --------------------------------------------------------------------------------------------
# H0602: malformed math
# --------------------------------------------------------------------------------------------


def test_h0602_reference_example() -> None:
    text = "# Scaled by $\\frac{1}{\\sqrt{D}$.\nfn f(x: [n]) -> [n] = x\n"
    problem = only_problem(text)
    assert problem.code == "H0602"
    assert problem.message == "unclosed `{`"
    # The `{` of \frac's second argument: \sqrt{D} is closed.
    assert (problem.start, problem.end) == (at(text, "{\\sqrt"), at(text, "{\\sqrt") + 1)


def h0602(math: str) -> tuple[str, str, str | None]:
    """The message, the text of the span, and the help of the one H0602 of `# $math$`."""
    text = f"# ${math}$\n"
    problem = only_problem(text)
    assert problem.code == "H0602"
    return problem.message, text[problem.start : problem.end], problem.help


def test_h0602_missing_argument() -> None:
    assert h0602("\\frac{a}") == (
        "`\\frac` is missing its second argument",
        "\\frac",
        "`\\frac` takes 2 arguments, as in `\\frac{a}{b}`",
    )
    assert h0602("\\frac") == (
        "`\\frac` is missing its first argument",
        "\\frac",
        "`\\frac` takes 2 arguments, as in `\\frac{a}{b}`",
    )
    assert h0602("\\sqrt") == ("`\\sqrt` is missing its argument", "\\sqrt", None)
    assert h0602("x^") == ("`^` is missing its argument", "^", None)
    assert h0602("{x_}") == ("`_` is missing its argument", "_", None)
    assert h0602("\\hat^2") == ("`\\hat` is missing its argument", "\\hat", None)


def test_h0602_unclosed_brace() -> None:
    assert h0602("{a") == ("unclosed `{`", "{", None)
    assert h0602("\\text{a") == ("unclosed `{`", "{", None)
    assert h0602("\\sqrt[3{x}") == ("unclosed `[`", "[", None)


def test_h0602_unmatched_closing_brace() -> None:
    assert h0602("a}") == ("unmatched `}`", "}", "write `\\}` for a literal brace")


def test_h0602_ampersand_outside_an_environment() -> None:
    help = "write `\\&` for an ampersand"
    assert h0602("a & b") == ("`&` outside an environment", "&", help)
    assert h0602("\\begin{matrix} {a & b} \\end{matrix}") == (
        "`&` isn't directly inside its environment",
        "&",
        help,
    )


def test_h0602_unmatched_left_and_right() -> None:
    help = "close it with `\\right` and a delimiter, or `\\right.` for none"
    assert h0602("\\left( x") == ("`\\left` has no matching `\\right`", "\\left", help)
    assert h0602("x \\right)") == ("`\\right` has no matching `\\left`", "\\right", None)
    # The `}` closes the group, so it is the `\left` inside it that is unmatched.
    assert h0602("{\\left( x}") == ("`\\left` has no matching `\\right`", "\\left", help)
    assert h0602("\\left") == (
        "`\\left` is missing its delimiter",
        "\\left",
        "use one of `( ) [ ] | . \\{ \\} \\vert \\Vert \\langle \\rangle`",
    )
    assert h0602("\\left x \\right)")[:2] == ("`x` isn't a delimiter that `\\left` accepts", "x")


def test_h0602_unmatched_begin_and_end() -> None:
    assert h0602("\\begin{cases} a") == (
        "`\\begin{cases}` has no matching `\\end{cases}`",
        "\\begin{cases}",
        None,
    )
    assert h0602("a \\end{cases}") == (
        "`\\end{cases}` has no matching `\\begin{cases}`",
        "\\end{cases}",
        None,
    )
    assert h0602("\\begin{cases} a \\end{matrix}") == (
        "`\\end{matrix}` doesn't match `\\begin{cases}`",
        "\\end{matrix}",
        "write `\\end{cases}`",
    )
    assert h0602("\\begin x")[:2] == ("`\\begin` is missing the environment's name", "\\begin")


def test_h0602_two_scripts_in_a_row() -> None:
    assert h0602("x^2^3") == (
        "two superscripts in a row",
        "^",
        "put one of them in braces, as in `{x^2}^3` or `x^{2^3}`",
    )
    assert h0602("a + x_i_j") == (
        "two subscripts in a row",
        "_",
        "put one of them in braces, as in `{x_i}_j` or `x_{i_j}`",
    )
    message, span, help = h0602("x^2_1^3")
    assert (message, span, help) == (
        "two superscripts in a row",
        "^",
        "put one of them in braces, as in `{x^2_1}^3`",
    )


def test_h0602_span_of_the_second_script() -> None:
    text = "# $x^2^3$\n"
    problem = only_problem(text)
    assert (problem.start, problem.end) == (at(text, "^", 1), at(text, "^", 1) + 1)


def test_h0601_before_h0602_are_kept() -> None:
    text = "# $\\foo + {a$\n"
    assert [(p.code, p.start) for p in problems_in(text)] == [
        ("H0601", at(text, "\\foo")),
        ("H0602", at(text, "{")),
    ]


def test_deep_nesting_is_a_problem_not_a_crash() -> None:
    math = "{" * 500 + "x" + "}" * 500
    message, span, _ = h0602(math)
    assert message == "math nested more than 64 levels deep"
    assert span == "{"


def test_problems_of_several_math_are_in_order() -> None:
    text = "# $\\foo$ and $x^$\n## $$\n## \\bar\n## $$\n"
    problems = problems_in(text)
    assert [(p.code, p.start) for p in problems] == [
        ("H0601", at(text, "\\foo")),
        ("H0602", at(text, "^")),
        ("H0602", at(text, "\\bar")),
    ]


# --------------------------------------------------------------------------------------------
# Never raises
# --------------------------------------------------------------------------------------------

_ALPHABET = st.sampled_from(list("$$$\\\\{}^_&[]`()|. ax1\t") + ["\\frac", "\\left", "\\right"])
_COMMENT_TEXT = st.one_of(
    st.lists(_ALPHABET, max_size=30).map("".join),
    st.text(max_size=30),
).filter(lambda text: "\n" not in text)


@st.composite
def _comment_lines(draw: st.DrawFn) -> list[CommentLine]:
    comments: list[CommentLine] = []
    offset, line = 0, 1
    for _ in range(draw(st.integers(0, 6))):
        line += draw(st.sampled_from([1, 1, 1, 2]))
        text = draw(_COMMENT_TEXT)
        is_doc, after_code = draw(st.booleans()), draw(st.booleans())
        offset += draw(st.integers(0, 5)) + 2
        comments.append(CommentLine(text, offset, line, is_doc, after_code))
        offset += len(text) + 1
    return comments


@settings(max_examples=500, deadline=None)
@given(_comment_lines())
def test_finding_and_checking_never_raise(comments: list[CommentLine]) -> None:
    found = find_math(comments)
    problems = check_math(found)
    for math in found:
        assert math.start < math.end
    for problem in problems:
        assert problem.code in ("H0601", "H0602")
        assert any(m.start <= problem.start <= problem.end <= m.end for m in found), problem
