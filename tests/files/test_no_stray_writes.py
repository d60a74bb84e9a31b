"""Every file compiler/ and server/ write goes through `shapescript.atomic_write`.

The source is read with `ast`, so a comment or a string that mentions `open(` is no
finding, and a call spelled over several lines still is.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = (ROOT / "compiler", ROOT / "server")
HELPER = ROOT / "compiler" / "shapescript" / "atomic_write.py"

#: Calls that write, create or move a file on their own, by their last name or dotted name.
WRITING_METHODS = {"write_text", "write_bytes"}
WRITING_CALLS = {
    "torch.save",
    "pickle.load",
    "pickle.dump",
    "tempfile.mkstemp",
    "tempfile.NamedTemporaryFile",
    "os.replace",
    "os.rename",
    "shutil.copy",
    "shutil.copy2",
    "shutil.copyfile",
    "shutil.move",
}
#: `os.open` flags that make or change a file.
WRITING_FLAGS = {"O_CREAT", "O_TRUNC", "O_APPEND"}


def _dotted(node: ast.expr) -> str:
    """`a.b.c` for an attribute chain on a name, else the last attribute or ''."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _mode_of(call: ast.Call, position: int) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == "mode":
            return keyword.value
    return call.args[position] if len(call.args) > position else None


def _writes(mode: ast.expr | None, *, unknown: bool) -> bool:
    """Whether an `open` mode writes: a literal with w, a, x or +; `unknown` for one that
    isn't a literal (a method named `open` may not open a file at all)."""
    if mode is None:
        return False
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return any(letter in mode.value for letter in "wax+")
    return unknown


def _flag_names(node: ast.expr) -> set[str]:
    return {
        sub.attr if isinstance(sub, ast.Attribute) else sub.id
        for sub in ast.walk(node)
        if isinstance(sub, (ast.Attribute, ast.Name))
    }


def _finding(call: ast.Call) -> str | None:
    """What the call writes on its own, or None."""
    name = _dotted(call.func)
    last = name.rsplit(".", 1)[-1] if name else getattr(call.func, "attr", "")
    if name.split(".")[0] == "atomic_write":
        return None
    if name in ("open", "io.open", "codecs.open") and _writes(_mode_of(call, 1), unknown=True):
        return f"{name}(...) with a writing mode"
    method_open = isinstance(call.func, ast.Attribute) and last == "open"
    method_open = method_open and name not in ("os.open", "io.open", "codecs.open")
    if method_open and _writes(_mode_of(call, 0), unknown=False):
        return ".open(...) with a writing mode"
    if name == "os.open" and len(call.args) > 1 and _flag_names(call.args[1]) & WRITING_FLAGS:
        return "os.open(...) with flags that write"
    if last in WRITING_METHODS and isinstance(call.func, ast.Attribute):
        return f".{last}(...)"
    if name in WRITING_CALLS:
        return f"{name}(...)"
    return None


def _helper_streams(tree: ast.AST) -> set[str]:
    """Names bound by `with atomic_writer(...) as name`: a stream of the helper's new file,
    which a library may write into (`torch.save(value, name)`)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                call = item.context_expr
                bound = item.optional_vars
                if not (isinstance(call, ast.Call) and isinstance(bound, ast.Name)):
                    continue
                if _dotted(call.func).rsplit(".", 1)[-1] in ("atomic_writer", "open_stream"):
                    names.add(bound.id)
    return names


def _into_helper_stream(call: ast.Call, streams: set[str]) -> bool:
    """Whether the call is `torch.save(value, stream)` into one of the helper's streams."""
    if _dotted(call.func) != "torch.save" or len(call.args) < 2:
        return False
    target = call.args[1]
    return isinstance(target, ast.Name) and target.id in streams


def stray_writes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    streams = _helper_streams(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and not _into_helper_stream(node, streams):
            what = _finding(node)
            if what is not None:
                found.append((node.lineno, f"{path.relative_to(ROOT)}:{node.lineno}: {what}"))
    return [finding for _, finding in sorted(found)]


def all_stray_writes() -> list[str]:
    found = []
    for folder in SCANNED:
        for path in sorted(folder.rglob("*.py")):
            if path != HELPER and "node_modules" not in path.parts:
                found.extend(stray_writes(path))
    return found


def test_every_write_goes_through_the_helper():
    found = all_stray_writes()
    assert not found, "files written outside shapescript.atomic_write:\n" + "\n".join(found)


def test_the_scan_finds_each_kind_of_write(tmp_path, monkeypatch):
    monkeypatch.setattr("tests.files.test_no_stray_writes.ROOT", tmp_path)
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os, pickle, torch, tempfile\n"
        "open(p, 'w')\n"
        "open(p, mode='ab')\n"
        "open(p)\n"
        "path.open('x')\n"
        "path.open('rb')\n"
        "path.write_text(t)\n"
        "path.write_bytes(b)\n"
        "torch.save(m, p)\n"
        "pickle.load(f)\n"
        "tempfile.mkstemp()\n"
        "os.replace(a, b)\n"
        "os.open(p, os.O_WRONLY | os.O_CREAT)\n"
        "os.open(p, os.O_RDONLY)\n"
        "store.open(uri, text, None)\n"
        "open(p, mode)\n"
        "'open(p, \"w\")'\n"
        "atomic_write.write_text(p, t)\n"
        "with atomic_writer(p, binary=True) as f:\n"
        "    torch.save(m, f)\n"
        "torch.save(m, other)\n"
    )
    lines = [int(finding.split(":")[1]) for finding in stray_writes(sample)]
    assert lines == [2, 3, 5, 7, 8, 9, 10, 11, 12, 13, 16, 21]
