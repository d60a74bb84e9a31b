"""The formatter: one canonical layout, idempotent, and never a change of meaning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapescript.format import FormatError, format_text
from shapescript.format.edits import line_edits
from shapescript.format.same_tree import same_tree
from shapescript.syntax.lexer import lex
from shapescript.syntax.parser import parse_text
from shapescript.syntax.source import SourceFile

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO.parent / "shared" / "spec" / "diagnostic-examples.json"


def _repo_files() -> list[Path]:
    return sorted(
        path
        for path in REPO.rglob("*.ss")
        if not any(part.startswith(".") or part == "node_modules" for part in path.parts)
    )


def _examples() -> list[tuple[str, str]]:
    if not EXAMPLES.exists():
        return []
    found = []
    for example in json.loads(EXAMPLES.read_text(encoding="utf-8"))["examples"]:
        for name, text in (example.get("files") or {}).items():
            if name.endswith(".ss"):
                found.append((f"{example['code']}/{name}", text))
    return found


def _parses(text: str) -> bool:
    return not any(d.is_error for d in parse_text(text).diagnostics)


REPO_FILES = _repo_files()
EXAMPLE_PROGRAMS = [(name, text) for name, text in _examples() if _parses(text)]


def assert_formats_well(text: str) -> str:
    formatted = format_text(text)
    assert same_tree(parse_text(text).module, parse_text(formatted).module)
    assert format_text(formatted) == formatted, "not idempotent"
    return formatted


def test_there_are_files_to_format() -> None:
    assert len(REPO_FILES) > 50
    if EXAMPLES.exists():
        assert len(EXAMPLE_PROGRAMS) > 50


@pytest.mark.parametrize(
    "path", REPO_FILES, ids=[str(path.relative_to(REPO)) for path in REPO_FILES]
)
def test_every_repository_file(path: Path) -> None:
    text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
    if not _parses(text):
        with pytest.raises(FormatError, match="syntax errors"):
            format_text(text)
        return
    assert_formats_well(text)


@pytest.mark.parametrize("name,text", EXAMPLE_PROGRAMS, ids=[n for n, _ in EXAMPLE_PROGRAMS])
def test_every_spec_example_that_parses(name: str, text: str) -> None:
    assert_formats_well(text)


MESSY = """\
# header
dim D=768
## Heads.
dim H = 12
fn attend( x : [b n D] , w: [D 3*D] )->[b n D]:


  q,k,v = x@w |> split(b n (3 H Dh) -> b H n Dh, Dh=64)
  y = -q*2
  for i in 0..n :
      if true :
          y = y+1.0   # trailing
  return y
model Net:
        param w: [D 3*D] = normal(std = 0.02)
"""

TIDY = """\
# header
dim D = 768
## Heads.
dim H = 12

fn attend(x: [b n D], w: [D 3*D]) -> [b n D]:
    q, k, v = x @ w |> split(b n (3 H Dh) -> b H n Dh, Dh=64)
    y = -q * 2
    for i in 0..n:
        if true:
            y = y + 1.0  # trailing
    return y

model Net:
    param w: [D 3*D] = normal(std=0.02)
"""


def test_the_canonical_layout() -> None:
    assert assert_formats_well(MESSY) == TIDY


def test_a_long_pipeline_gets_one_stage_per_line() -> None:
    text = (
        "fn f(x: [n D], w: [D D]) -> [n D] = x |> layer_norm(over=D) |> matmul(w) "
        "|> gelu |> matmul(w) |> relu\n"
    )
    assert assert_formats_well(text) == (
        "fn f(x: [n D], w: [D D]) -> [n D] = x\n"
        "    |> layer_norm(over=D)\n"
        "    |> matmul(w)\n"
        "    |> gelu\n"
        "    |> matmul(w)\n"
        "    |> relu\n"
    )


def test_a_short_pipeline_stays_on_its_line() -> None:
    text = "fn f(x: [n D]) -> [n D] = x |> gelu |> relu\n"
    assert format_text(text) == text


def test_spaces_that_mean_something_are_kept() -> None:
    text = "fn f(img: [b 3 16gh 16 gw], x: [n D]) -> [n] = sum(x [0], over=D)\n"
    formatted = assert_formats_well(text)
    assert "[b 3 16gh 16 gw]" in formatted
    assert "x [0]" in formatted


def test_docs_stay_attached() -> None:
    text = "dim D = 4\n## The net.\nmodel Net:\n    ## Its weight.\n    param w: [D] = zeros\n"
    formatted = assert_formats_well(text)
    assert "\n\n## The net.\nmodel Net:\n    ## Its weight.\n    param w" in formatted


def test_a_file_with_syntax_errors_is_left_alone() -> None:
    with pytest.raises(FormatError, match=r"1:\d+: E0106"):
        format_text("fn f(x: [n]) = (x\n")


SAMPLES = [path.read_text(encoding="utf-8").removeprefix("\ufeff") for path in REPO_FILES]
SAMPLES = [text for text in SAMPLES if _parses(text)][:60]


@st.composite
def _spaced_out(draw) -> tuple[str, str]:
    """A file, and the same file with spaces added where two tokens of a line already
    have some between them, and blank lines doubled: nothing the layout keeps."""
    text = draw(st.sampled_from(SAMPLES))
    tokens = [token for token in lex(SourceFile("<text>", text)).tokens if token.text]
    spaces = [
        left.end
        for left, right in zip(tokens, tokens[1:], strict=False)
        if right.start > left.end and "\n" not in text[left.end : right.start]
    ]
    blanks = [index for index in range(len(text) - 1) if text[index : index + 2] == "\n\n"]
    chosen = set()
    if spaces:
        chosen |= {(at, " ") for at in draw(st.lists(st.sampled_from(spaces), max_size=6))}
    if blanks:
        chosen |= {(at, "\n") for at in draw(st.lists(st.sampled_from(blanks), max_size=3))}
    out = text
    for at, extra in sorted(chosen, reverse=True):
        out = out[:at] + extra + out[at:]
    return text, out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_spaced_out())
def test_extra_spaces_and_blank_lines_format_away(pair: tuple[str, str]) -> None:
    original, spaced = pair
    assert format_text(spaced) == format_text(original)


_PIECES = st.sampled_from(
    [" ", "  ", "\n", "\n\n", "    ", "+", "-", "*", "(", ")", "[", "]", ",", ":", "=", "|>",
     "->", "x", "n", "2", "1.5", "#c", "## d", "fn", "if", "..", ".", "!", "?k", "16gh"]
)  # fmt: skip


@st.composite
def _edited(draw) -> str:
    text = draw(st.sampled_from(SAMPLES))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 3))
        text = text[:at] + draw(_PIECES) + text[at + cut :]
    return text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_edited())
def test_random_edits_format_or_are_left_alone(text: str) -> None:
    try:
        formatted = format_text(text)
    except FormatError as error:
        assert "syntax errors" in str(error)
        return
    assert same_tree(parse_text(text).module, parse_text(formatted).module)
    assert format_text(formatted) == formatted


_LINES = st.lists(st.sampled_from(["a\n", "b\n", "\n", "c d\n", "cd\n", "e\n"]), max_size=8)


@settings(max_examples=200, deadline=None)
@given(_LINES, _LINES)
def test_line_edits_turn_the_old_text_into_the_new(old: list[str], new: list[str]) -> None:
    old_text, new_text = "".join(old), "".join(new)
    edits = line_edits(old_text, new_text)
    for left, right in zip(edits, edits[1:], strict=False):
        assert left.end <= right.start
        touching = left.end == right.start
        assert not (touching and (left.start == left.end or right.start == right.end))
    result = old_text
    for edit in reversed(edits):
        result = result[: edit.start] + edit.text + result[edit.end :]
    assert result == new_text


def test_asserts_are_laid_out_like_other_statements() -> None:
    text = (
        "dim T = 8\nassert   T>=4 and T<16\n\nfn f(x: [n T]) -> [n T]:\n"
        "    assert n<=T\n    assert (n + 1)*2 >= 2\n    return x\n"
    )
    assert assert_formats_well(text) == (
        "dim T = 8\n\nassert T >= 4 and T < 16\n\nfn f(x: [n T]) -> [n T]:\n"
        "    assert n <= T\n    assert (n + 1) * 2 >= 2\n    return x\n"
    )
