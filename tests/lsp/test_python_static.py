"""Go to definition's fast path into Python (`features/python_static.py`): reading the
files on the interpreter's path gives jedi's answer, imports nothing, and stops on cycles
and long chains of imports."""

from __future__ import annotations

import sys
from pathlib import Path

import jedi
import pytest

from shapescript_lsp.features.python_static import interpreter_path, static_places

#: Names the files settle: a def in the module (json.dumps), a class re-exported by a
#: package (torch.nn.Linear), a named import (torch.load), overloads in a stub
#: (torch.zeros: the last one), a compiled module's stub reached by a star import
#: (torch.tanh), a def after its @overloads (einops.rearrange).
SETTLED = [
    "json.dumps",
    "torch.nn.Linear",
    "torch.load",
    "torch.zeros",
    "torch.tanh",
    "einops.rearrange",
    "torch.nn.functional.relu",
]
#: Names left to jedi: an assignment whose value jedi follows, a class's attribute, a
#: built-in module with no file, a module itself.
UNSETTLED = ["torch.nn.functional.gelu", "torch.Tensor.add", "math.sqrt", "os.path", "torch"]


def _jedi_places(dotted: str) -> tuple[tuple[str, int, int], ...]:
    module = dotted.rsplit(".", 1)[0]
    names = jedi.Script(f"import {module}\n{dotted}").goto(2, len(dotted), follow_imports=True)
    return tuple(
        (Path(name.module_path).as_uri(), (name.line or 1) - 1, name.column or 0)
        for name in names
        if name.module_path is not None
    )


@pytest.mark.parametrize("dotted", SETTLED)
def test_a_name_the_files_settle_is_where_jedi_says(dotted: str) -> None:
    found = static_places(dotted, interpreter_path(sys.executable))
    assert found is not None and found == _jedi_places(dotted)


@pytest.mark.parametrize("dotted", UNSETTLED)
def test_a_name_the_files_cant_settle_is_left_to_jedi(dotted: str) -> None:
    assert static_places(dotted, interpreter_path(sys.executable)) is None


def test_nothing_is_imported(tmp_path: Path) -> None:
    package = tmp_path / "noisy_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("raise SystemExit('imported')\nfrom .inner import *\n")
    (package / "inner.py").write_text("def quiet(x):\n    return x\n")
    found = static_places("noisy_pkg.quiet", (str(tmp_path),))
    assert found == ((str((package / "inner.py").as_uri()), 0, 4),)
    assert "noisy_pkg" not in sys.modules


def test_a_cycle_of_star_imports_ends(tmp_path: Path) -> None:
    (tmp_path / "ring_a.py").write_text("from ring_b import *\n")
    (tmp_path / "ring_b.py").write_text("from ring_a import *\n")
    assert static_places("ring_a.missing", (str(tmp_path),)) is None


def test_a_long_chain_of_imports_stops_at_the_bound(tmp_path: Path) -> None:
    count = 5_000
    for index in range(count):
        (tmp_path / f"link{index}.py").write_text(f"from link{index + 1} import *\n")
    (tmp_path / f"link{count}.py").write_text("def end():\n    pass\n")
    assert static_places("link0.end", (str(tmp_path),)) is None
    assert static_places(f"link{count - 3}.end", (str(tmp_path),)) is not None


def test_a_relative_import_in_a_package_is_followed(tmp_path: Path) -> None:
    package = tmp_path / "rel_pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from .sub.leaf import leaf_fn as public\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "leaf.py").write_text("x = 1\n\n\nasync def leaf_fn():\n    pass\n")
    found = static_places("rel_pkg.public", (str(tmp_path),))
    assert found == (((package / "sub" / "leaf.py").as_uri(), 3, 10),)


def test_another_interpreters_path_is_asked_of_it() -> None:
    path = interpreter_path(sys.executable + "-missing")
    assert path == ()
