"""A build's work grows with the file, not with its square: what each function's code needs
from the module (its dims) is made once, and `shapescript build` never parses the module
it writes. The source positions of the module's `ast` are pinned against `ast.walk`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from shapescript.analysis import check
from shapescript.codegen import BuildOptions, arguments, generate
from shapescript.codegen.emit import Origin, SourceBuilder
from shapescript.commands import entry
from shapescript.syntax.source import SourceFile

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.ss"))


def dims_and_functions(count: int) -> str:
    """`count` dims and `count` small functions, each checking its argument against a dim."""
    lines = [f"dim D{index} = {index + 2}" for index in range(count)]
    for index in range(count):
        index_type = f"[b n D{index}] Index[D{index}]"
        lines.append(f"fn f{index}(x: {index_type}) -> {index_type} = x")
    return "\n".join(lines) + "\n"


def python_names_made(count: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many names the argument checks of `dims_and_functions(count)` turn into Python."""
    made = 0
    original = arguments.python_name

    def counting(name: str) -> str:
        nonlocal made
        made += 1
        return original(name)

    monkeypatch.setattr(arguments, "python_name", counting)
    checked = check(SourceFile.from_text("many.ss", dims_and_functions(count)))
    assert not checked.errors, [d.message for d in checked.errors]
    generated = generate(checked, BuildOptions())
    assert not generated.diagnostics and not generated.unsupported
    return made


def test_argument_checks_name_the_dims_once_per_module(monkeypatch) -> None:
    # Twice the dims and twice the functions: about twice the work, not four times.
    small = python_names_made(40, monkeypatch)
    big = python_names_made(80, monkeypatch)
    assert big < 3 * small, (small, big)


def test_build_writes_the_source_without_parsing_it(monkeypatch, tmp_path, capsys) -> None:
    def refuse(self: SourceBuilder) -> ast.Module:
        raise AssertionError("build parsed the module it writes")

    monkeypatch.setattr(SourceBuilder, "tree", refuse)
    output = tmp_path / "attention.py"
    status = entry.main(["build", str(ROOT / "examples" / "attention.ss"), "-o", str(output)])
    assert status == 0, capsys.readouterr().err
    assert "def causal_attention(" in output.read_text(encoding="utf-8")


def reference_tree(builder: SourceBuilder) -> ast.Module:
    """The module's tree with `.ss` positions, mapped as `SourceBuilder.tree` maps them,
    through `ast.walk`."""
    tree = ast.parse(builder.text)
    mapped: list[Origin] = []
    last = Origin(1, 0)
    for origin in builder.origins:
        last = origin if origin is not None else last
        mapped.append(last)
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) is None:
            continue
        start = mapped[min(node.lineno, len(mapped)) - 1]
        end = mapped[min(node.end_lineno or node.lineno, len(mapped)) - 1]
        node.lineno, node.col_offset = start.line, start.column
        node.end_lineno = max(end.line, start.line)
        last = end if end.line > start.line else start
        node.end_col_offset = last.column if last.end_column is None else last.end_column
    return tree


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_every_node_gets_the_position_of_its_ss_line(path: Path) -> None:
    relative = path.relative_to(ROOT).as_posix()
    checked = check(SourceFile.from_text(relative, path.read_text(encoding="utf-8")))
    generated = generate(checked, BuildOptions(devices="cpu"))
    assert generated.built is not None and generated.tree is not None
    expected = reference_tree(generated.built)
    assert ast.dump(generated.tree, include_attributes=True) == ast.dump(
        expected, include_attributes=True
    )


def test_shallow_functions_are_not_parsed_to_see_whether_python_takes_them(
    monkeypatch,
) -> None:
    from shapescript.codegen import module

    parsed: list[str] = []

    def counting_compile(text, *args, **kwargs):
        parsed.append(text)
        return compile(text, *args, **kwargs)

    monkeypatch.setattr(module, "compile", counting_compile, raising=False)
    checked = check(SourceFile.from_text("many.ss", dims_and_functions(5)))
    generated = generate(checked, BuildOptions())
    assert not generated.unsupported and generated.tree is not None
    assert parsed == []
