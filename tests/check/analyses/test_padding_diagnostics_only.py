"""`shapescript check` asks the padding analysis for its diagnostics only (H2001, H3101,
without the facts codegen and hovers read), and the bodies for no scope entries, binding
texts or alignments: it must find exactly what the whole analysis finds, in every program
of the repository and the benchmark's generated one."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.generate import generate_program
from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile
from tests.check.analyses.test_padding import HEADER, PICKY_STEP

ROOT = Path(__file__).resolve().parents[3]
PROGRAMS = sorted(
    path for folder in ("tests/data", "examples") for path in (ROOT / folder).rglob("*.ss")
)


def _found(source: SourceFile, all_facts: bool) -> list[tuple[str, int, int, str]]:
    checked = check_source(source, all_facts=all_facts)
    return [
        (d.code, d.primary.span.start, d.primary.span.end, d.message) for d in checked.diagnostics
    ]


def _same(source: SourceFile) -> None:
    assert _found(source, False) == _found(source, True)


def test_every_program_of_the_repository_has_the_same_diagnostics() -> None:
    assert len(PROGRAMS) > 200
    hints = 0
    for path in PROGRAMS:
        source = SourceFile.from_text(str(path), path.read_text(encoding="utf-8"))
        _same(source)
        hints += sum(code in ("H2001", "H3101") for code, *_ in _found(source, False))
    assert hints > 0, "some programs have padding hints to compare"


@pytest.mark.parametrize("seed", [0, 1])
def test_a_generated_program_has_the_same_diagnostics(seed: int) -> None:
    _same(SourceFile.from_text("generated.ss", generate_program(600, seed)))


def test_without_facts_the_functions_axes_are_not_worked_out() -> None:
    text = (ROOT / "examples" / "train_mlp.ss").read_text()
    lean = check_source(SourceFile.from_text("train_mlp.ss", text), all_facts=False)
    whole = check_source(SourceFile.from_text("train_mlp.ss", text))
    assert whole.padding is not None and whole.padding.axes
    assert lean.padding is not None and not lean.padding.axes


def test_without_facts_bodies_keep_no_entries_alignments_or_binding_texts() -> None:
    text = (ROOT / "examples" / "train_mlp.ss").read_text()
    # `y` lines up with `x` by name, not from the right: an alignment codegen reads.
    text += "\nfn by_name(x: [a b], y: [a]) -> [a b] = x + y\n"
    lean = check_source(SourceFile.from_text("train_mlp.ss", text), all_facts=False)
    whole = check_source(SourceFile.from_text("train_mlp.ss", text))

    def bodies(checked):
        return [item.body.facts for item in checked.items if item.body is not None]

    assert any(facts.entries for facts in bodies(whole))
    assert any(facts.alignments for facts in bodies(whole))
    assert not any(facts.entries or facts.alignments for facts in bodies(lean))
    details = [
        reference.symbol.detail
        for facts in bodies(lean)
        for reference in facts.references
        if reference.symbol is not None and reference.symbol.kind in ("param", "local")
    ]
    assert details and not any(details)
    assert "fingerprint_parts" in lean.memo and len(lean.memo) < len(whole.memo)


#: Steps and loops whose hints depend on selections and on functions they call.
STEPS = [
    PICKY_STEP,
    "fn kept(m: Lin, x: [b D], y: [b] Index[C]) -> []:\n"
    "    keep = sum(x, over=D) > 0.0\n"
    "    return sum(x[keep])\n"
    "fn step(mut m: Lin, mut opt: SGD[Lin], x: [b D], y: [b] Index[C]) -> []:\n"
    "    l, g = value_and_grad(loss, m, x, y)\n"
    "    update(mut m, mut opt, g)\n"
    "    return l + kept(m, x, y)\n",
    "fn waits(mut m: Lin, mut opt: SGD[Lin], x: [b D], y: [b] Index[C]) -> []:\n"
    "    l, g = value_and_grad(loss, m, x, y)\n"
    "    if l > 1.0:\n"
    "        update(mut m, mut opt, g)\n"
    "    return l\n"
    "fn epoch(mut m: Lin, mut opt: SGD[Lin], train: Dataset[Ex]):\n"
    "    for batch in train |> batches(8):\n"
    "        print(sort(batch.x, over=b))\n",
]


HINTS = [["H3101"], [], ["H2001", "H3101"]]


@pytest.mark.parametrize(("body", "hints"), zip(STEPS, HINTS, strict=True))
def test_steps_whose_hints_depend_on_selections_and_callees(body: str, hints: list[str]) -> None:
    source = SourceFile.from_text("steps.ss", HEADER + body)
    found = sorted(code for code, *_ in _found(source, True) if code in ("H2001", "H3101"))
    assert found == hints
    _same(source)
