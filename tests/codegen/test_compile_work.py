"""How much work code generation does per function, counted rather than timed: a big
file's build pays each walk once per function, not once per body compiled of it."""

from __future__ import annotations

from shapescript.analysis import check
from shapescript.codegen import BuildOptions, generate
from shapescript.codegen.lowering import attention
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile

#: `attend` gets two bodies (the checked one and the unchecked copy `outer` calls), made
#: with `outer` between them; it holds an attention pattern with a causal mask.
PROGRAM = """
dim D = 8

fn attend(q: [b n D], k: [b n D], v: [b n D]) -> [b n D]:
    scores = einsum(q, k: b n D, b m D -> b n m) / sqrt(D)
    p = scores |> masked_fill(!causal[n m], -inf) |> softmax(over=m)
    return einsum(p, v: b n m, b m D -> b n D)

fn outer(x: [b n D]) -> [b n D] = attend(x, x, x)
"""


def test_the_attention_planner_counts_a_functions_names_once(monkeypatch) -> None:
    checked = check(SourceFile.from_text("work.ss", PROGRAM))
    assert not checked.errors
    first = next(
        item.body[0]
        for item in checked.module.items
        if isinstance(item, ast.FnDecl) and item.name == "attend"
    )
    visits: list[object] = []
    children = attention._children

    def counting(node):
        if node is first:
            visits.append(node)
        return children(node)

    monkeypatch.setattr(attention, "_children", counting)
    generated = generate(checked, BuildOptions())
    assert "scaled_dot_product_attention" in generated.source
    assert "_ss_in_attend" in generated.source
    # Its names are counted once for both bodies and the causal mask (the searches for
    # patterns start from a statement's expressions, not the statement).
    assert len(visits) == 1


def test_each_line_is_read_once_for_the_positions_of_the_generated_code(monkeypatch) -> None:
    text = PROGRAM.replace("-> b n D)\n", "-> b n D)  # après\n")
    checked = check(SourceFile.from_text("work.ss", text))
    assert not checked.errors
    read: list[int] = []
    line_text = SourceFile.line_text

    def counting(self, line: int) -> str:
        read.append(line)
        return line_text(self, line)

    monkeypatch.setattr(SourceFile, "line_text", counting)
    generate(checked, BuildOptions())
    # A line with non-ASCII text (line 7) is read again to count its columns in bytes.
    assert 7 in read
    ascii_lines = [line for line in read if line != 7]
    assert len(ascii_lines) == len(set(ascii_lines)) >= 3


def test_an_unchecked_copy_takes_its_functions_generated_body(monkeypatch) -> None:
    checked = check(SourceFile.from_text("work.ss", PROGRAM))
    assert not checked.errors
    from shapescript.codegen.function import FunctionGenerator

    made: list[tuple[str, bool]] = []
    bodies = FunctionGenerator.bodies

    def counting(self):
        made.append((self.decl.name, self.trusted))
        return bodies(self)

    monkeypatch.setattr(FunctionGenerator, "bodies", counting)
    generated = generate(checked, BuildOptions())
    assert "def _ss_in_attend(" in generated.source
    # `attend` and its copy share one generation of the body; `outer` has no copy.
    assert made == [("attend", False), ("outer", False)]


def test_each_place_of_the_file_is_positioned_once_for_the_generated_code(monkeypatch) -> None:
    import sys

    checked = check(SourceFile.from_text("work.ss", PROGRAM))
    assert not checked.errors
    asked: list[int] = []
    position = SourceFile.position

    def counting(self, offset: int):
        if sys._getframe(1).f_code.co_name == "origin":
            asked.append(offset)
        return position(self, offset)

    monkeypatch.setattr(SourceFile, "position", counting)
    generate(checked, BuildOptions())
    # Many generated lines come from one `.ss` place (a function's name, a statement).
    assert len(asked) >= 5
    assert len(asked) == len(set(asked))


def test_a_kept_body_state_leaves_out_the_files_dims(monkeypatch) -> None:
    from shapescript.codegen import module, trusted

    checked = check(
        SourceFile.from_text("work.ss", PROGRAM.replace("dim D = 8", "dim D = 8\ndim E = 2"))
    )
    assert not checked.errors
    kept: dict[str, dict[str, object]] = {}
    emit_copies = trusted.emit_copies

    def looking(context, functions, body):
        kept.update({name: state for name, (_, _, state) in context.made_bodies.items()})
        return emit_copies(context, functions, body)

    monkeypatch.setattr(module.trusted, "emit_copies", looking)
    generate(checked, BuildOptions())
    # What a function's copy needs is kept, but not the sizes every body starts from
    # (all the file's dims: a copy per function grew with the file's length squared).
    assert any("attend" in name for name in kept)
    assert all("sizes" not in state for state in kept.values())


def test_each_functions_sizes_share_one_table_of_the_files_dims(monkeypatch) -> None:
    from shapescript.codegen.function import FunctionGenerator

    checked = check(
        SourceFile.from_text("work.ss", PROGRAM.replace("dim D = 8", "dim D = 8\ndim E = 2"))
    )
    assert not checked.errors
    tables: list[object] = []
    bodies = FunctionGenerator.bodies

    def looking(self):
        tables.append(self.sizes)
        return bodies(self)

    monkeypatch.setattr(FunctionGenerator, "bodies", looking)
    generate(checked, BuildOptions())
    assert len(tables) == 2
    # Every body reads the file's dims and its own sizes (`b`, `n`), but the dims are one
    # table for the whole module, not a copy per function (their product grew with the
    # file's length squared).
    for sizes in tables:
        assert {"D", "E", "b", "n"} <= set(sizes)
        assert set(sizes.own) == {"b", "n"}
        assert sizes.base is tables[0].base


def test_a_size_table_reads_as_the_dims_updated_by_its_own_sizes() -> None:
    from shapescript.codegen.sizes import SizeNames

    dims = {"D": "D", "E": "E"}
    sizes = SizeNames(dims)
    sizes["n"] = "n"
    sizes["D"] = "_ss_rt.padding.real_size(x)"
    expected = dims | {"n": "n", "D": "_ss_rt.padding.real_size(x)"}
    assert dict(sizes) == expected
    assert list(sizes) == list(expected)
    assert len(sizes) == 3
    assert sizes["E"] == "E" and sizes.get("D") == expected["D"] and sizes.get("m") is None
    assert "n" in sizes and "m" not in sizes
    copy = sizes.copy()
    copy["m"] = "m"
    assert "m" not in sizes and copy != sizes and copy.base is dims
    assert dims == {"D": "D", "E": "E"}
    assert sizes == expected and sizes.copy() == sizes


def test_size_tables_over_one_base_compare_by_what_they_read() -> None:
    from shapescript.codegen.sizes import SizeNames

    dims = {"D": "D"}
    written = SizeNames(dims, {"D": "D", "n": "n"})
    assert written == SizeNames(dims, {"n": "n"})
    assert written != SizeNames(dims, {"n": "x.shape[0]"})
    assert written != SizeNames(dims, {"D": "D"})
    assert written == SizeNames({"D": "D"}, {"n": "n"}) == {"D": "D", "n": "n"}


def test_each_functions_spec_is_made_once(monkeypatch) -> None:
    from shapescript.codegen import arguments

    checked = check(SourceFile.from_text("work.ss", PROGRAM))
    assert not checked.errors
    made: list[str] = []
    function_spec = arguments.function_spec

    def counting(context, signature, *rest):
        made.append(signature.name)
        return function_spec(context, signature, *rest)

    monkeypatch.setattr(arguments, "function_spec", counting)
    generated = generate(checked, BuildOptions())
    assert "_ss_fn_attend = " in generated.source
    # The checked functions each describe themselves once; the unchecked copy not at all.
    assert sorted(made) == ["attend", "outer"]


def test_a_function_and_its_unchecked_copy_share_one_argument_plan(monkeypatch) -> None:
    from shapescript.codegen import arguments

    checked = check(SourceFile.from_text("work.ss", PROGRAM))
    assert not checked.errors
    planned: list[str] = []
    plan_arguments = arguments.plan_arguments

    def counting(signature, dims):
        planned.append(signature.name)
        return plan_arguments(signature, dims)

    monkeypatch.setattr(arguments, "plan_arguments", counting)
    generated = generate(checked, BuildOptions())
    assert "def _ss_in_attend(" in generated.source
    assert sorted(planned) == ["attend", "outer"]
