"""Error recovery: one diagnostic per broken line, and complete trees for what is good."""

from __future__ import annotations

from shapescript.syntax import ast
from shapescript.syntax.parser import parse_text

PROGRAM = """\
fn first(x: [n D]) -> [n D]:
    y = x * 2.0
    return y

fn broken_signature(x: [n D] -> [n D]:
    return x

fn broken_statement(x: [n D]) -> [n D]:
    y = x * * 2.0
    return y

fn broken_pipe(x: [n D]) -> [n D]:
    return x |> relu + 1

fn last(x: [n D]) -> [n D] = x |> gelu |> add(x, _)
"""


def test_three_broken_functions_between_two_good_ones() -> None:
    result = parse_text(PROGRAM)
    lines = [result.source.position(d.span.start).line for d in result.diagnostics]
    codes = [d.code for d in result.diagnostics]
    assert codes == ["E0106", "E0201", "E0204"]
    assert lines == [5, 9, 13]
    names = [item.name for item in result.module.items if isinstance(item, ast.FnDecl)]
    assert names[0] == "first" and names[-1] == "last"

    first = result.module.items[0]
    assert isinstance(first, ast.FnDecl)
    assert [type(stmt) for stmt in first.body] == [ast.Assign, ast.Return]
    assign = first.body[0]
    assert isinstance(assign.value, ast.Binary) and assign.value.op == "*"

    last = result.module.items[-1]
    assert isinstance(last, ast.FnDecl) and isinstance(last.expr_body, ast.Pipe)
    stages = last.expr_body.stages
    assert isinstance(stages[0], ast.Name) and stages[0].name == "gelu"
    assert isinstance(stages[1], ast.Call) and isinstance(stages[1].args[1].value, ast.Placeholder)


def test_broken_statement_keeps_the_rest_of_its_function() -> None:
    result = parse_text(PROGRAM)
    broken = next(
        item
        for item in result.module.items
        if isinstance(item, ast.FnDecl) and item.name == "broken_statement"
    )
    assert [type(stmt) for stmt in broken.body] == [ast.ErrorStmt, ast.Return]


def test_unclosed_bracket_recovers_at_the_next_declaration() -> None:
    text = "fn f(x: [n]) -> [n] = add(x, x\n\nfn g(x: [n]) -> [n] = x\n"
    result = parse_text(text)
    assert [d.code for d in result.diagnostics] == ["E0106"]
    names = [item.name for item in result.module.items if isinstance(item, ast.FnDecl)]
    assert names == ["f", "g"]


def test_unexpected_indent_skips_only_that_block() -> None:
    text = "fn f(x: [n]) -> [n]:\n    return x\n        extra\n\nfn g() -> [] = 1.0\n"
    result = parse_text(text)
    assert [d.code for d in result.diagnostics] == ["E0202"]
    assert [item.name for item in result.module.items] == ["f", "g"]


def test_a_broken_declaration_under_a_doc_comment_is_one_error() -> None:
    text = "## Scores.\nfn f(x: [n]) -> [n] =\n    x\n"
    result = parse_text(text)
    assert [d.code for d in result.diagnostics] == ["E0201"]
    assert "on the same line" in result.diagnostics[0].message
