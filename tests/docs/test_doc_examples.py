"""Every ```shapescript block of README.md and docs/ is checked, each as its own case
named by file and line: an unmarked block checks with no diagnostic, a block marked
`expect` yields exactly its codes, a block marked `run` is compiled and the Python block
after it is run, and a `fragment` says why it isn't a whole program (docs/contributing-docs.md).
A new page is picked up with no change here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.doc_blocks import (
    MARKS,
    ROOT,
    DocBlock,
    codes_of,
    doc_pages,
    fenced_blocks,
    messages_of,
)

_MARK_LINE = re.compile(r"^<!--\s*shapescript:")
_CODE = re.compile(r"^[EWH]\d{4}$")
_MODULE_NAME = re.compile(r"^[^\W\d]\w*$")


def _shapescript_cases() -> list[object]:
    cases = []
    for path in doc_pages():
        for block in fenced_blocks(path):
            if block.language != "shapescript":
                continue
            marks = [pytest.mark.slow] if block.mark == "run" else []
            cases.append(pytest.param(block, id=block.where, marks=marks))
    return cases


CASES = _shapescript_cases()


def test_the_docs_have_shapescript_blocks() -> None:
    assert len(CASES) > 200


@pytest.mark.parametrize("block", CASES)
def test_doc_example(block: DocBlock, tmp_path: Path) -> None:
    name = f"{block.path.stem}_{block.line}.ss"
    if block.mark == "":
        found = messages_of(block.text, name)
        assert found == [], (
            f"{block.where}: this example should check with no diagnostic, but gives "
            f"{found}; fix the example, or mark it `<!-- shapescript: expect CODES -->`"
        )
    elif block.mark == "expect":
        expected = sorted(set(block.argument.replace(",", " ").split()))
        assert expected and all(_CODE.match(code) for code in expected), (
            f"{block.where}: `expect` needs codes such as E0301, got {block.argument!r}"
        )
        assert codes_of(block.text, name) == expected, (
            f"{block.where}: the example should give exactly {expected}; "
            f"it gives {messages_of(block.text, name)}"
        )
    elif block.mark == "fragment":
        assert block.argument, f"{block.where}: say why the fragment isn't a whole program"
        assert codes_of(block.text, name) != [], (
            f"{block.where}: this fragment checks with no diagnostic: remove its mark"
        )
    elif block.mark == "run":
        _run_with_its_python(block, tmp_path)
    else:
        pytest.fail(f"{block.where}: unknown mark `{block.mark}`; use one of {MARKS}")


def _run_with_its_python(block: DocBlock, folder: Path) -> None:
    """Writes the block as NAME.ss, then runs the page's next ```python block beside it."""
    module = block.argument
    assert _MODULE_NAME.match(module), f"{block.where}: `run` needs a module name, not {module!r}"
    assert messages_of(block.text, f"{module}.ss") == [], f"{block.where}: doesn't check"
    later = [other for other in fenced_blocks(block.path) if other.line > block.line]
    python = next((other for other in later if other.language == "python"), None)
    assert python is not None, f"{block.where}: `run` needs a ```python block after it"
    (folder / f"{module}.ss").write_text(block.text, encoding="utf-8")
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "compiler"), str(ROOT / "server"), str(ROOT), str(folder)]
    )
    done = subprocess.run(
        [sys.executable, "-c", python.text],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, (
        f"{python.where}: the Python of {block.where} failed (exit {done.returncode}):\n"
        f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    )


def test_every_mark_stands_right_before_a_shapescript_block() -> None:
    stray = []
    for path in doc_pages():
        lines = path.read_text(encoding="utf-8").splitlines()
        blocks = fenced_blocks(path)
        marked = {block.line - 1 for block in blocks if block.mark}
        inside = {
            number
            for block in blocks
            for number in range(block.line + 1, block.line + 1 + block.text.count("\n"))
        }
        for number, line in enumerate(lines, start=1):
            if _MARK_LINE.match(line) and number not in marked | inside:
                stray.append(f"{path.relative_to(ROOT).as_posix()}:{number}: {line}")
    assert stray == [], "marks not right before a ```shapescript fence:\n" + "\n".join(stray)


def test_a_mark_on_a_block_is_read(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "text\n<!-- shapescript: expect E0301 E0404 -->\n```shapescript\nx\n```\n"
        "  ```shapescript\n  y\n  ```\n",
        encoding="utf-8",
    )
    first, second = fenced_blocks(page)
    assert (first.line, first.mark, first.argument, first.text) == (
        3,
        "expect",
        "E0301 E0404",
        "x\n",
    )
    assert (second.line, second.mark, second.text) == (6, "", "y\n")


RUNNABLE_PAGE = """\
<!-- shapescript: run scale -->
```shapescript
dim D = 4

fn double(x: [n D]) -> [n D] = x * 2
```

```python
import torch
import shapescript

shapescript.install()
shapescript.devices("cpu")
import scale

assert scale.double(torch.ones(3, 4)).sum().item() == {total}
```
"""


@pytest.mark.slow
@pytest.mark.parametrize(("total", "passes"), [(24, True), (25, False)])
def test_a_run_block_passes_only_when_its_python_does(
    total: int, passes: bool, tmp_path: Path
) -> None:
    page = tmp_path / "page.md"
    page.write_text(RUNNABLE_PAGE.format(total=total), encoding="utf-8")
    (block, _) = fenced_blocks(page)
    assert (block.mark, block.argument) == ("run", "scale")
    folder = tmp_path / "run"
    folder.mkdir()
    if passes:
        _run_with_its_python(block, folder)
    else:
        with pytest.raises(AssertionError, match="failed"):
            _run_with_its_python(block, folder)
