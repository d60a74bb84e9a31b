"""The editor's check leaves padding's facts until a hover reads them, and reuses the
previous version's walks of unchanged functions: what it finds must be what a whole check
of the same text finds, before and after edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.generate import generate_program
from shapescript.check.analyses import padding
from shapescript.check.analyses import padding_reuse as reuse
from shapescript.check.analyses.padding import PaddingFacts, complete_facts
from shapescript.check.checker import check_source
from shapescript.check.declarations.symbols import ItemFacts
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile, Span

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "examples").glob("*.ss"))


def _facts(facts: PaddingFacts) -> tuple:
    return (
        facts.loops,
        facts.axes,
        facts.steps,
        [(d.code, d.primary.span) for d in facts.diagnostics],
        facts.masked,
        facts.passes,
        facts.needs,
        facts.loop_symbols,
        facts.operands,
        facts.selections,
        facts.selected,
    )


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_facts_worked_out_when_read_are_the_whole_checks(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    later = check_source(SourceFile.from_text("f.ss", text), padding_later=True)
    whole = check_source(SourceFile.from_text("f.ss", text))
    assert later.diagnostics == whole.diagnostics
    assert isinstance(later.padding, PaddingFacts)
    assert later.padding.complete_later is not None
    found = complete_facts(later)
    assert found is later.padding and found.complete_later is None
    assert _facts(found) == _facts(whole.padding)


def test_edits_reusing_the_previous_walks_find_what_a_fresh_check_finds() -> None:
    text = generate_program(600, 3)
    functions = [at for at in range(len(text)) if text.startswith("\nfn ", at)]
    previous = check_source(SourceFile.from_text("f.ss", text), padding_later=True)
    for step, at in enumerate(functions[:: max(1, len(functions) // 6)]):
        line_end = text.index("\n", at + 1) + 1
        # A line that breaks the function, then the text as it was.
        # A line that breaks the function, then the text as it was: the facts of the first
        # are left for later, so the second reuses the walks of a check for diagnostics.
        for edited, read in (
            (text[:line_end] + "    zz = \n" + text[line_end:], False),
            (text, True),
        ):
            checked = check_source(
                SourceFile.from_text("f.ss", edited), previous, padding_later=True
            )
            whole = check_source(SourceFile.from_text("f.ss", edited))
            assert checked.diagnostics == whole.diagnostics, step
            if read:
                assert _facts(complete_facts(checked)) == _facts(whole.padding), step
            previous = checked


def test_an_edit_inside_one_function_takes_again_what_the_others_found(monkeypatch) -> None:
    text = generate_program(300, 1)
    previous = check_source(SourceFile.from_text("f.ss", text), padding_later=True)
    counts: list[tuple[int, int]] = []
    unaffected = reuse.unaffected

    def counted(analysis, memo, changed):
        found = unaffected(analysis, memo, changed)
        assert found.again is not None
        counts.append((len(analysis.functions) - len(found.again), len(analysis.functions)))
        return found

    monkeypatch.setattr(reuse, "unaffected", counted)
    at = text.index("\n", text.index("\nfn ", len(text) // 2) + 1) + 1
    check_source(
        SourceFile.from_text("f.ss", text[:at] + "    zz = 1\n" + text[at:]),
        previous,
        padding_later=True,
    )
    ((taken, functions),) = counts
    # The edited function and those that call it are worked out again; the rest is taken.
    assert functions > 20 and functions // 2 <= taken < functions


def test_a_keystroke_moves_the_loops_taken_again_and_keeps_only_notable_findings() -> None:
    text = generate_program(1200, 0)
    previous = check_source(SourceFile.from_text("f.ss", text), padding_later=True)
    memo = previous.padding.found
    # Only the functions with loops or that are steps have findings kept.
    assert memo.found and all(found.loops or found.step for found in memo.found.values())
    assert len(memo.names.decls) > 2 * len(memo.found)
    edited = "# a line above\n" + text
    again = check_source(SourceFile.from_text("f.ss", edited), previous, padding_later=True)
    fresh = check_source(SourceFile.from_text("f.ss", edited), padding_later=True)
    assert again.diagnostics == fresh.diagnostics
    assert again.padding.loops and again.padding.loops == fresh.padding.loops
    assert again.padding.loop_symbols == fresh.padding.loop_symbols
    assert again.padding.steps == fresh.padding.steps


class _CountedItems(dict):
    """A dict that counts the entries its `items()` gives."""

    given = 0

    def items(self):
        for pair in super().items():
            _CountedItems.given += 1
            yield pair


def test_a_keystroke_looks_once_at_each_function_and_again_only_at_those_it_reaches(
    monkeypatch,
) -> None:
    text = generate_program(1200, 0)
    at = text.index("\n", text.index("\nfn ", len(text) // 2) + 1) + 1
    previous = check_source(SourceFile.from_text("f.ss", text), padding_later=True)
    # A first edit finds which functions use which; the second is timed by counting.
    edited = text[:at] + "    zz = 1\n" + text[at:]
    previous = check_source(SourceFile.from_text("f.ss", edited), previous, padding_later=True)
    run_diagnostics = padding._Analysis.run_diagnostics

    def counted(analysis, found=None):
        analysis.functions = _CountedItems(analysis.functions)
        return run_diagnostics(analysis, found)

    monkeypatch.setattr(padding._Analysis, "run_diagnostics", counted)
    _CountedItems.given = 0
    edited = text[:at] + "    zz = 2\n" + text[at:]
    again = check_source(SourceFile.from_text("f.ss", edited), previous, padding_later=True)
    functions = len(again.padding.found.names.decls)
    # The functions are compared with the previous ones side by side (`names_of`); the
    # others' findings are taken whole, not visited one by one.
    assert functions > 100
    assert _CountedItems.given == 0
    fresh = check_source(SourceFile.from_text("f.ss", edited))
    assert again.diagnostics == fresh.diagnostics
    assert _facts(complete_facts(again)) == _facts(fresh.padding)


def test_an_edited_extern_fn_is_looked_at_again_with_the_functions_that_call_it() -> None:
    text = (
        "dim D = 4\n\n"
        'extern fn flipped(x: [k]) -> [k] = "torch.flipud"\n\n'
        "fn f(x: [n D]) -> [n D]:\n    return x\n\n"
        "fn g(x: [n]) -> [n] = flipped(x)\n"
    )
    previous = check_source(SourceFile.from_text("f.ss", text), padding_later=True)
    for edited in (
        text.replace('"torch.flipud"', '"torch.fliplr"'),
        text.replace("return x", "return x * 2.0"),
    ):
        previous = check_source(SourceFile.from_text("f.ss", edited), previous, padding_later=True)
        fresh = check_source(SourceFile.from_text("f.ss", edited))
        assert previous.diagnostics == fresh.diagnostics
        assert _facts(complete_facts(previous)) == _facts(fresh.padding)


def _function(name: str, body: object) -> ItemFacts:
    return ItemFacts(ast.FnDecl(name, Span(0, 1), [], None, None, None, Span(0, 1)), 0, None, body)


def test_functions_compared_side_by_side_find_each_change() -> None:
    f, g, h = (_function(name, object()) for name in "fgh")

    def memo() -> reuse.Memo:
        return reuse.Memo(reuse.names_of(([f, g, h], []), None)[0], ())

    before = memo()
    same, changed = reuse.names_of(([f, g, h], []), before)
    # Nothing changed: the previous tables themselves.
    assert changed == set() and same is before.names
    # A body checked again: that function, in copies of the previous lists, patched.
    before = memo()
    other = ItemFacts(g.item, 0, None, object())
    patched, changed = reuse.names_of(([f, other, h], []), before)
    assert changed == {"g"} and patched.bodies[1] is other.body
    assert before.names.bodies[1] is g.body and patched.index is before.names.index
    # The previous memo can be started from again.
    assert reuse.names_of(([f, other, h], []), before)[1] == {"g"}
    # Renamed: the old name and the new one, and the positions found again.
    renamed, changed = reuse.names_of(([f, _function("k", object()), h], []), memo())
    assert changed == {"g", "k"} and renamed.index == {"f": 0, "k": 1, "h": 2}
    # Where the caller knows which were replaced, only the bodies are compared.
    k = _function("k", g.body)
    known, changed = reuse.names_of(([f, k, h], []), memo(), [1])
    assert changed == {"g", "k"} and known.index == {"f": 0, "k": 1, "h": 2}
    # A function more, or one fewer: compared by name.
    added, changed = reuse.names_of(([f, g, _function("k", object()), h], []), memo())
    assert changed == {"k"} and added.index == {"f": 0, "g": 1, "k": 2, "h": 3}
    gone, changed = reuse.names_of(([f, h], []), memo())
    assert changed == {"g"} and gone.index == {"f": 0, "h": 1}


def test_the_functions_given_apart_are_those_found_among_all_the_items() -> None:
    text = (
        "dim D = 4\n\n"
        'extern fn flipped(x: [k]) -> [k] = "torch.flipud"\n\n'
        "fn f(x: [D]) -> [D] = flipped(x)\n\n"
        "fn g(x: [D]) -> [D] = f(x)\n"
    )
    items = check_source(SourceFile.from_text("f.ss", text)).items
    kinds = (
        [item for item in items if type(item.item).__name__ == "FnDecl"],
        [item for item in items if type(item.item).__name__ == "ExternFnDecl"],
    )
    alone = padding._Analysis(items, frozenset(), None, kinds)
    whole = padding._Analysis(items, frozenset(), None)
    assert list(alone.functions.items()) == list(whole.functions.items())
    assert list(alone.externs.items()) == list(whole.externs.items())
    assert list(whole.functions) == ["f", "g"] and list(whole.externs) == ["flipped"]
