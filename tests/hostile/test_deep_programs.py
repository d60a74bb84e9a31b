"""Deep and long programs: `shapescript check` exits 0 or 1 on each, never 3, in time."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import pytest

from shapescript import cli, deep
from shapescript.analysis import analyze
from shapescript.check.checker import check_source
from shapescript.deep import run_deep
from shapescript.syntax import ast
from shapescript.syntax.limits import MAX_NESTING, MAX_TREE_DEPTH
from shapescript.syntax.parser import parse
from shapescript.syntax.source import SourceFile
from tests.hostile import programs

#: Seconds one case may take: generous, since this machine is shared.
TIME_LIMIT = 30.0

#: The classes that are wrong at depth 10,000, with the code that says so; the others
#: may be right or wrong, but must be reported without a crash.
EXPECTED = {
    "nested_calls": "E0209",
    "nested_parens": "E0209",
    "nested_parens_in_dim": "E0209",
    "nested_parens_in_shape": "E0209",
    "lambda_chain": "E0209",
    "dims_in_a_cycle": "E0304",
    "aliases_in_a_cycle": "E2201",
    "inferred_functions_in_a_cycle": "E0306",
    "long_integer": "E0208",
    "long_integer_in_dim": "E0208",
}
#: Nested blocks need text quadratic in their depth (50 MB at 10,000), and 10,000
#: functions take seconds to check like any file of that size: run these with -m slow.
SLOW = {
    "nested_if",
    "nested_for",
    "inferred_functions_in_reverse",
    "inferred_functions_in_a_cycle",
    "typed_functions_in_reverse",
    "effects_through_functions",
}


def check_file(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, float]:
    started = time.monotonic()
    status = cli.main(["check", str(path), "--format", "json"])
    elapsed = time.monotonic() - started
    return status, capsys.readouterr().out, elapsed


def cases() -> list:
    return [
        pytest.param(name, marks=pytest.mark.slow) if name in SLOW else name
        for name in programs.DEEP
    ]


@pytest.mark.parametrize("name", cases())
def test_depth_10000_is_checked_without_crashing(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.ss"
    path.write_text(programs.DEEP[name](programs.DEPTH), encoding="utf-8")
    status, out, elapsed = check_file(path, capsys)
    assert status in (0, 1), out[-2000:]
    assert elapsed < TIME_LIMIT
    if name in EXPECTED:
        assert status == 1
        assert f'"code": "{EXPECTED[name]}"' in out


@pytest.mark.parametrize("name", ["inferred_functions_in_reverse", "inferred_functions_in_a_cycle"])
def test_inference_past_its_depth_limit_is_e0306(name: str) -> None:
    found = codes(programs.DEEP[name](1_000))
    assert found and set(found) == {"E0306"}


def codes(text: str) -> list[str]:
    return [d.code for d in analyze(SourceFile.from_text("deep.ss", text))]


def test_nesting_at_the_limit_is_accepted_and_one_past_it_is_e0209() -> None:
    # The function's body is the first level of nesting, each bracket one more.
    assert "E0209" not in codes(programs.nested_parens(MAX_NESTING - 1))
    assert codes(programs.nested_parens(MAX_NESTING)) == ["E0209"]
    assert "E0209" not in codes(programs.nested_calls(MAX_NESTING - 1))
    assert codes(programs.nested_calls(MAX_NESTING)) == ["E0209"]


def test_blocks_at_the_limit_are_accepted_and_one_past_it_is_e0209() -> None:
    # The function's block, each `if` block and the innermost statement are levels.
    assert "E0209" not in codes(programs.nested_blocks(MAX_NESTING - 2))
    assert codes(programs.nested_blocks(MAX_NESTING - 1)) == ["E0209"]


def test_a_chain_at_the_tree_depth_limit_is_accepted_and_one_more_is_e0209() -> None:
    # The declaration, one level per `+`, and the last name.
    assert codes(programs.binary_chain(MAX_TREE_DEPTH - 2)) == []
    assert codes(programs.binary_chain(MAX_TREE_DEPTH - 1)) == ["E0209"]


def test_past_the_nesting_limit_the_rest_of_the_file_is_still_checked() -> None:
    text = programs.nested_parens(programs.DEPTH) + "dim D = 0\n"
    assert codes(text) == ["E0209", "E0305"]


def _recursive_depth(node: object) -> int:
    """A plain recursive walk, as a code generator would write one."""
    deepest = 0
    for name in getattr(node, "__slots__", ()):
        value = getattr(node, name, None)
        for child in value if isinstance(value, list) else [value]:
            if hasattr(child, "__slots__") and hasattr(child, "span"):
                deepest = max(deepest, _recursive_depth(child))
    return deepest + 1


@pytest.mark.parametrize(
    "text",
    [
        programs.binary_chain(MAX_TREE_DEPTH - 2),
        programs.nested_calls(MAX_NESTING - 1),
        programs.nested_blocks(MAX_NESTING - 2),
    ],
    ids=["chain", "calls", "blocks"],
)
def test_the_deepest_tree_allowed_is_walkable_recursively_through_run_deep(text: str) -> None:
    module = parse(SourceFile.from_text("deep.ss", text)).module
    assert not any(isinstance(item, ast.ErrorItem) for item in module.items)
    assert run_deep(_recursive_depth, module) > 900


def test_run_deep_returns_and_raises_what_the_function_does() -> None:
    assert run_deep(sum, [1, 2, 3]) == 6
    with pytest.raises(ZeroDivisionError):
        run_deep(lambda: 1 / 0)
    assert run_deep(run_deep, len, "nested") == 6


def test_numbers_of_any_length_are_e0208() -> None:
    assert codes(programs.long_integer(programs.DEPTH)) == ["E0208"]
    assert codes(programs.long_integer_in_dim(programs.DEPTH)) == ["E0208"]
    grouped = f"fn f(x: [{'9' * programs.DEPTH}n]) -> [n] = x\n"
    assert "E0208" in codes(grouped)


def test_integer_overflow_is_e0414_without_numpy_warnings() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert codes(programs.overflowing_product()) == ["E0414"]
        assert codes("fn f() -> float = 1e38 * 1e38 * 18446744073709551615.0\n") == []
    assert [str(warning.message) for warning in caught] == []


def test_run_deep_still_runs_when_no_big_stack_is_granted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(self: object) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(deep.threading.Thread, "start", refuse)
    assert run_deep(sum, [1, 2]) == 3
    assert codes(programs.nested_parens(100)) == []


def test_an_edit_of_a_deep_file_is_checked_incrementally_without_crashing() -> None:
    text = programs.binary_chain(programs.DEPTH) + programs.nested_calls(programs.DEPTH)
    first = check_source(SourceFile.from_text("deep.ss", text))
    edited = check_source(SourceFile.from_text("deep.ss", "dim D = 4\n" + text), first)
    assert [d.code for d in first.diagnostics] == ["E0209"]
    assert [d.code for d in edited.diagnostics] == ["E0209"]
