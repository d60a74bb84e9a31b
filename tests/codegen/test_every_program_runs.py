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
