"""Every code whose help names an edit carries that edit as a fix, and the fix works.

The table is driven by the registry's FIXABLE set: a code added there without a program
here fails, and so does a diagnostic anywhere in the conformance cases or the spec's
examples whose help names an edit while its code isn't FIXABLE.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from shapescript.analysis import analyze
from shapescript.diagnostics.codes import CODES, FIXABLE
from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.diagnostics.fixing import apply_edits, checked_fixes
from shapescript.syntax.source import SourceFile

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "data" / "diagnostics"
EXAMPLES = ROOT.parent / "shared" / "spec" / "diagnostic-examples.json"

#: One program per fixable code, with one diagnostic of that code, and the text the first
#: fix offered for it should produce (a fragment of the fixed program).
PROGRAMS: dict[str, tuple[str, str]] = {
    "E1001": ("devices mps[0]\n", "devices mps\n"),
    "E0103": ("fn f(x: [n]) -> [n]:\n\treturn x\n", "\n        return x"),
    "E0201": (
        "dim D = 4\nmodel M:\n    param w: [D] = zeros\n"
        "fn make(m: M) -> AdamW[M] = adamw(m, lr=0.1, betas=(0.8, 0.9))\n",
        "adamw(m, lr=0.1, beta1=0.8, beta2=0.9)",
    ),
    "E0204": ("fn f(x: [n]) = x |> relu + 1\n", "(x |> relu) + 1"),
    "E0301": ("fn f(x: [b D]) -> [b D] = relu(x) |> gelo\ndim D = 4\n", "|> gelu"),
    "E0303": (
        "dim D = 4\nfn f(x: [n D]) -> [n D] = dropout(x, 0.1, Eval())\n",
        "dropout(x, 0.1, Eval)",
    ),
    "E0306": ("fn f(x: [?k]) -> [k] = x\n", "x: [k]"),
    "E0401": (
        "dim C = 3\ndim D = 4\nfn g(x: [b D], w: [C D]) -> [b C] = x @ w\n",
        "w: [D C]",
    ),
    "E0501": ("fn f(x: [n]) -> [n] Unit = x * 2\n", "(x * 2) as Unit"),
    "E0502": ("fn f(x: [n] bf16) -> [n] f16 = x\n", "= x to f16"),
    "E0901": (
        "dim D = 4\nmodel Net:\n    buffer mean: [D] = zeros\nfn h(m: Net) -> [D] = m.maen\n",
        "m.mean",
    ),
    "E0903": (
        "dim D = 4\nmodel Net:\n    param w: [D] = normal(sd=0.1)\n",
        "normal(std=0.1)",
    ),
    "E1101": (
        "dim D = 4\nmodel Mlp:\n    param w: [D] = zeros\n"
        "fn read(m: Mlp) -> [D] = m.w\nfn f(mut m: Mlp) -> [D] = read(mut m)\n",
        "read(m)",
    ),
    "E1103": (
        "dim D = 4\nmodel Mlp:\n    param w: [D] = zeros\n"
        "fn reset(mut m: Mlp):\n    m.w = m.w * 0\nfn f(mut m: Mlp):\n    reset(m)\n",
        "reset(mut m)",
    ),
    "E1301": (
        "dim D = 4\ndata Digit:\n    img: [D]\nfn f(batch: [b] Digit) -> [b D] = batch.imgs\n",
        "batch.img",
    ),
    "E1401": (
        "logs StepLogs:\n    loss: [] mean\nfn step(x: [n]) -> StepLogs = StepLogs(los=sum(x))\n",
        "StepLogs(loss=sum(x))",
    ),
    "E2203": ("dim D = 4\nfn f(x: [n]) -> [n] = x * 16gh\n", "x * 16 * gh"),
    "E3201": (
        "dim D = 4\nfn doubled(x: [n D]) -> [n D] = [x[i] * 2.0 for i in n]\n",
        "n |> map(i => x[i] * 2.0)",
    ),
    "H0601": (
        "## Normalizes with $\\sofmax(x)$.\nfn f(x: [n]) -> [n] = x\n",
        "\\operatorname{softmax}",
    ),
    "H2201": (
        "fn f(img: [b 16 gh], w: [(gh b)]) -> [(gh b)] = w\n",
        "img: [b 16gh]",
    ),
    "H2401": (
        "dim D = 4\nfn total(x: [n D]) -> [D]:\n    acc = x[0] * 0.0\n    for i in 0..n:\n"
        "        acc = acc + x[i] * 2.0\n    return acc\n",
        "    acc = acc + (n |> map(i => x[i] * 2.0) |> sum(over=n))\n    return acc",
    ),
    "W0501": ("fn f(x: [n]) = log(sigmoid(x))\n", "log_sigmoid(x)"),
}

#: Helps that name an edit: a name to use instead, a `to`/`as` to add, a text to write.
_NAMES_AN_EDIT = re.compile(
    r"^(did you mean `[^`…]+`\?|write `[^`…]+`$|convert it first, as in `to \w+`"
    r"|convert it with `to \w+`|if you know it is, assert it with `as [^`]+`"
    r"|indent with spaces only|`\d+\w+` is one axis)"
)


#: Helps that read like an edit but show the right form with names of their own, not the
#: program's: nothing here knows the edit, so no fix is attached.
NOT_EDITS = {
    "E1304": "shows `shuffle` before `batches` with an example dataset and sizes",
}


def check(text: str) -> list[Diagnostic]:
    return analyze(SourceFile.from_text("/nonexistent/main.ss", text))


def test_fixable_codes_are_registered_codes() -> None:
    assert CODES.keys() >= FIXABLE


@pytest.mark.parametrize("code", sorted(FIXABLE))
def test_the_fix_makes_the_program_clean_of_its_code(code: str) -> None:
    assert code in PROGRAMS, f"{code} is FIXABLE but has no program in this table"
    text, expected = PROGRAMS[code]
    before = check(text)
    found = [d for d in before if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in before]
    offered = checked_fixes(text, found[0], before, check)
    assert offered, f"{code}: no fix survives the re-check; fixes: {found[0].fixes}"
    fixed = apply_edits(text, offered[0].edits)
    assert expected in fixed, fixed
    assert not [d for d in check(fixed) if d.code == code], fixed


def _reported_everywhere():
    for path in sorted(CASES.glob("*.ss")):
        yield path.name, check(path.read_text(encoding="utf-8"))
    if EXAMPLES.exists():
        for example in json.loads(EXAMPLES.read_text(encoding="utf-8"))["examples"]:
            files = example.get("files") or {}
            if example.get("kind") == "file" and list(files) == ["main.ss"]:
                yield f"example {example['code']}", check(files["main.ss"])


def test_every_help_that_names_an_edit_has_a_fixable_code_and_a_fix() -> None:
    missing = []
    for where, diagnostics in _reported_everywhere():
        for diagnostic in diagnostics:
            names_an_edit = diagnostic.help and _NAMES_AN_EDIT.match(diagnostic.help)
            if not names_an_edit or diagnostic.code in NOT_EDITS:
                continue
            if diagnostic.code not in FIXABLE or not diagnostic.fixes:
                missing.append((where, diagnostic.code, diagnostic.help))
    assert not missing, missing


def test_a_fix_that_leaves_its_code_is_not_offered() -> None:
    text = "fn f(x: [n]) = log(relu(x) - 1.0)\n"
    before = check(text)
    for diagnostic in before:
        if diagnostic.code == "E0506":
            assert diagnostic.fixes
            assert checked_fixes(text, diagnostic, before, check) == []
            return
    pytest.fail(f"no E0506 in {[d.code for d in before]}")


def test_edits_apply_from_the_end_and_refuse_overlaps() -> None:
    from shapescript.diagnostics.diagnostic import Edit
    from shapescript.syntax.source import Span

    assert apply_edits("abc", [Edit(Span(3, 3), ")"), Edit(Span(0, 0), "(")]) == "(abc)"
    with pytest.raises(ValueError):
        apply_edits("abc", [Edit(Span(0, 2), "x"), Edit(Span(1, 3), "y")])
