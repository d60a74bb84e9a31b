"""Every program of the test data and the examples compiles without crashing, and each
function that compiles runs on random arguments that fit its signature.

Failures that aren't ShapeScript's checks (an `as` on data can fail, as it should) are
compiler bugs. Programs with Python imports, or extern fns of modules that aren't
installed, are compiled but not run.
"""

from __future__ import annotations

import json
import types
from pathlib import Path

import pytest
import torch

from shapescript.analysis import check
from shapescript.codegen import BuildOptions, generate
from shapescript.rt.compiling import remember_lines
from shapescript.rt.errors import CheckFailure
from shapescript.syntax.source import SourceFile
from tests.codegen.inputs import NoArguments, arguments_for

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "tests" / "data" / "valid").glob("*.ss")) + sorted(
    (ROOT / "examples").glob("*.ss")
)
REFERENCE = json.loads((ROOT / "tests" / "data" / "reference_programs.json").read_text())


def run_program(path: str, text: str) -> list[str]:
    """The problems found compiling and running a file; [] when it has errors."""
    checked = check(SourceFile.from_text(path, text))
    if checked.errors:
        return []
    problems = []
    for mode in ("never", "always"):
        generated = generate(checked, BuildOptions(checks=mode, value_checks=mode))
        if generated.tree is None:
            return []
        code = compile(generated.tree, path, "exec")
    if "import python" in text:
        return []
    remember_lines(path, text)
    module = types.ModuleType("program")
    module.__file__ = path
    try:
        exec(code, module.__dict__)
    except ModuleNotFoundError as missing:  # an extern fn of a Python module not installed
        return [] if missing.name not in ("torch", "einops", "shapescript") else [str(missing)]
    for name, signature in checked.signatures.items():
        if signature.extern or not hasattr(module, name):
            continue
        try:
            arguments = arguments_for(signature, checked.dim_values)
        except NoArguments:
            continue
        try:
            getattr(module, name)(*arguments)
        except (NotImplementedError, CheckFailure):
            continue
        except Exception as error:  # noqa: BLE001 - any other error is a compiler bug
            problems.append(f"{path}: fn {name}: {type(error).__name__}: {error}")
    return problems


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_program_runs(path: Path) -> None:
    assert run_program(path.name, path.read_text()) == []


def test_reference_programs_run() -> None:
    problems = []
    for index, text in enumerate(REFERENCE):
        if "devices cuda" in text:
            continue
        problems += run_program(f"reference{index}.ss", text)
    assert problems == []


def chain_programs() -> list[tuple[str, str]]:
    from tests.codegen import test_builtins, test_equivalence, test_features

    programs = [
        ("builtins", test_builtins.PROGRAM),
        ("equivalence_chains", test_equivalence.CHAINS),
        ("broadcasting", test_equivalence.BROADCASTING),
        ("features_chains", test_features.CHAINS),
        ("stages", test_features.STAGES),
        ("calls", test_features.CALLS),
    ]
    programs += [(path.stem, path.read_text()) for path in FILES]
    return [(name, text) for name, text in programs if "map(" in text or "filter(" in text]


def compiled_module(text: str, path: str) -> tuple[types.ModuleType, object]:
    checked = check(SourceFile.from_text(path, text))
    generated = generate(checked, BuildOptions(checks="never", value_checks="never"))
    module = types.ModuleType("program")
    exec(compile(generated.tree, path, "exec"), module.__dict__)
    return module, checked


@pytest.mark.parametrize(("name", "text"), chain_programs(), ids=lambda value: str(value)[:20])
def test_whole_tensor_stages_agree_with_vmap(name: str, text: str, monkeypatch) -> None:
    """Each stage the checker recorded as elementwise runs as whole-tensor code; run through
    torch.vmap instead, it must give the same values."""
    from shapescript.codegen.context import ItemView

    if "import python" in text:
        return
    lowered, checked = compiled_module(text, f"{name}.ss")
    monkeypatch.setattr(ItemView, "stage_kind", lambda self, span: "vmap")
    vmapped, _ = compiled_module(text, f"{name}.ss")
    for function, signature in checked.signatures.items():
        if signature.extern or not hasattr(lowered, function):
            continue
        try:
            arguments = arguments_for(signature, checked.dim_values)
        except NoArguments:
            continue
        try:
            expected = getattr(vmapped, function)(*arguments)
        except Exception:  # noqa: BLE001 - what vmap can't run (a body that uses no
            continue  # parameter, an empty range) or the arguments can't (topk's k > n)
        actual = getattr(lowered, function)(*arguments)
        if isinstance(expected, torch.Tensor):
            assert actual.shape == expected.shape, function
            assert actual.dtype == expected.dtype, function
            torch.testing.assert_close(actual, expected, msg=function, equal_nan=True)
