"""Models that hold models, thousands of them: a chain of models each holding the next, and
a cycle through all of them, are one diagnostic each (E3404, E3401), found in one walk
without recursion; a stack of stacks lists a bounded number of field paths."""

from __future__ import annotations

from shapescript.check.checker import check_source
from shapescript.check.declarations.model_info import MAX_FIELD_PATHS, every_field
from shapescript.syntax.source import SourceFile

#: Past the interpreter's default recursion limit.
LONG = 2_000


def _models(n: int, last_holds_first: bool) -> str:
    lines = ["dim D = 2", ""]
    for i in range(n):
        lines += [f"model M{i}:", "    param w: [D] = zeros"]
        if i + 1 < n:
            lines.append(f"    inner: M{i + 1}")
        elif last_holds_first:
            lines.append("    inner: M0")
    lines.append("fn f(m: M0) -> [D] = m.w")
    return "\n".join(lines) + "\n"


def _codes(text: str) -> list[str]:
    checked = check_source(SourceFile.from_text("models.ss", text))
    return [d.code for d in checked.diagnostics]


def test_a_chain_of_thousands_of_models_is_one_e3404() -> None:
    assert _codes(_models(LONG, last_holds_first=False)) == ["E3404"]


def test_a_cycle_through_thousands_of_models_is_one_e3401() -> None:
    assert _codes(_models(LONG, last_holds_first=True)) == ["E3401"]


def test_stacks_of_stacks_list_a_bounded_number_of_paths() -> None:
    text = """\
dim D = 2
dim L = 1000

model Leaf:
    param w: [D] = zeros

model Mid:
    leaves: [L] Leaf

model Top:
    mids: [L] Mid
"""
    checked = check_source(SourceFile.from_text("stacks.ss", text))
    assert [d.code for d in checked.diagnostics] == []
    paths = every_field(checked.models, "Top")
    assert MAX_FIELD_PATHS // 2 < len(paths) <= MAX_FIELD_PATHS
    assert paths[0][0] == "mids.0.leaves.0.w"
