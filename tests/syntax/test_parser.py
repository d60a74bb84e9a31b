"""The parser builds the trees the grammar and its precedence rules describe."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapescript.syntax import ast
from shapescript.syntax.parser import parse_text
from tests.syntax.sexpr import expr, type_


def parse_body(source: str) -> ast.Expr:
    result = parse_text(f"fn f() = {source}\n")
    assert result.diagnostics == [], [d.message for d in result.diagnostics]
    (item,) = result.module.items
    return item.expr_body


@pytest.mark.parametrize(
    ("source", "tree"),
    [
        ("a + b * c", "(+ a (* b c))"),
        ("a - b - c", "(- (- a b) c)"),
        ("x @ w |> gelu", "(|> (@ x w) gelu)"),
        ("-x as Real", "(- (as x <Real>))"),
        ("a as [n D] + b", "(+ (as a <[n D]>) b)"),
        ("x-inf", "(- x inf)"),
        ("!x > 0", "(> (! x) 0)"),
        ("a < b and b < c or d", "(or (and (< a b) (< b c)) d)"),
        ("x to f32 as Unit", "(as (to x <f32>) <Unit>)"),
        ("f(x)(y)[0].z", "(index (call (call f x) y) 0).z"),
        ("x |> add(y, _) |> to Signed", "(|> x (call add y _) (to <Signed>))"),
        ("torch.exp(x)", "(call torch.exp x)"),
        ("(x |> f) + 1", "(+ (|> x f) 1)"),
        ("0..n |> map(i => x[i] * 2.0)", "(|> (.. 0 n) (call map (=> (i) (* (index x i) 2.0))))"),
        ("zip(a, b) |> map((u, _) => u)", "(|> (call zip a b) (call map (=> (u _) u)))"),
        ("map(to f32, over=n)", "(call map (to <f32>) over=n)"),
        ("step(mut m, x)", "(call step mut m x)"),
        # `mut` belongs to the argument it is written on, not to a call around it.
        ("f(g(mut m))", "(call f (call g mut m))"),
        ("f(y=g(mut m), mut n)", "(call f y=(call g mut m) mut n)"),
        # A held model: `mut` before a path from a name (the checker limits it to models).
        ("step(mut m.h[l], x)", "(call step mut (index m.h l) x)"),
        ("f(mut m.h[0].attn)", "(call f mut (index m.h 0).attn)"),
        ("x[1:, :-1, ::2, 0:2*h:2]", "(index x 1 :(- 1) ::2 0:(* 2 h):2)"),
        ("causal[n m]", "(index causal {n m})"),
        (
            "rearrange(x, b n (h d) -> b h n d, h=8)",
            "(call rearrange x {b n (h d) -> b h n d} h=8)",
        ),
        (
            "einsum(q, k: b H n Dh, b H m Dh -> b H n m)",
            "(call einsum q k {b H n Dh, b H m Dh -> b H n m})",
        ),
        (
            "rearrange(img, b c 16gh 16gw -> b (gh gw) c)",
            "(call rearrange img {b c 16gh 16gw -> b (gh gw) c})",
        ),
        ('torch.load("w.pt") as [D 3*D]', "(as (call torch.load 'w.pt') <[D (* 3 D)]>)"),
    ],
)
def test_expression_trees(source: str, tree: str) -> None:
    assert expr(parse_body(source)) == tree


@pytest.mark.parametrize(
    ("source", "tree"),
    [
        ("[b n D] Signed bf16", "[b n D] Signed bf16"),
        ("[b 3 * D]", "[b (* 3 D)]"),
        ("[n - 1]", "[(- n 1)]"),
        ("[(n+1)*2 m]", "[(* (+ n 1) 2) m]"),
        ("[b (h d) 16gh ?k ...]", "[b (h d) 16gh ?k ...]"),
        ("[b C] Prob over C", "[b C] Prob over C"),
        ("[b] Index[V]", "[b] Index[V]"),
        ("[b] Digit", "[b] Digit"),
        ("Grad[Mlp]", "Grad[Mlp]"),
        ("Dataset[attention.Digit]", "Dataset[attention.Digit]"),
        ("i64", "i64"),
        ("[] bool", "[] bool"),
    ],
)
def test_type_trees(source: str, tree: str) -> None:
    result = parse_text(f"fn f(x: {source}) = x\n")
    assert result.diagnostics == []
    (item,) = result.module.items
    assert type_(item.params[0].type) == tree


def test_alias_type_takes_a_domain_after_it() -> None:
    result = parse_text("dim Images = [b 3 16gh 16gw]\nfn f(x: Images Unit f32) = x\n")
    assert result.diagnostics == []
    assert type_(result.module.items[1].params[0].type) == "Images Unit f32"


def test_declarations_and_doc_comments() -> None:
    text = """\
devices cuda[0 1 2]
    shard params
## The width.
dim D = 768
dim Images = [b 3 16gh 16gw]
domain Half = [0, 0.5)
import python torch.nn
import models.mlp as mlp
## Error function.
extern fn erf(x: Real) -> Signed = "torch.erf"
## A classifier.
model Mlp:
    ## First layer.
    param w1: [D 10] = normal(std=0.02)
    buffer mean: [D] = zeros
data Digit:
    img: [D]
logs StepLogs:
    loss: [] mean
    grad_norm: [] NonNeg max
export fn g(mut m: Mlp, beta = 1.5) -> []:
    return 0.0
"""
    result = parse_text(text)
    assert result.diagnostics == []
    kinds = [type(item).__name__ for item in result.module.items]
    assert kinds == [
        "DevicesDecl",
        "DimDecl",
        "AliasDecl",
        "DomainDecl",
        "ImportPythonDecl",
        "ImportDecl",
        "ExternFnDecl",
        "ModelDecl",
        "DataDecl",
        "LogsDecl",
        "FnDecl",
    ]
    devices, dim, _, domain, py, imp, erf, model, _, logs, fn = result.module.items
    assert devices.numbers == [0, 1, 2] and devices.options[0].words == ["shard", "params"]
    assert dim.doc.text == "The width." and erf.doc.text == "Error function."
    assert domain.interval.lo_closed and not domain.interval.hi_closed
    assert py.bound_name == "torch" and imp.bound_name == "mlp"
    assert model.doc.text == "A classifier." and model.fields[0].doc.text == "First layer."
    assert [(m.name, type_(m.type), m.combine) for m in logs.metrics] == [
        ("loss", "[]", "mean"),
        ("grad_norm", "[] NonNeg", "max"),
    ]
    assert fn.export and fn.params[0].mut and isinstance(fn.params[1].default, ast.FloatLit)


def test_notebook_cells_allow_statements() -> None:
    text = "%%shapescript\nmodel = 1\nfor i in 0..3:\n    y = i\ndevices = 2\n"
    result = parse_text(text, notebook=True)
    assert result.diagnostics == []
    assert all(isinstance(item, ast.StmtItem) for item in result.module.items)


def test_an_interval_with_a_name_closes_with_either_bracket() -> None:
    # A name inside the brackets (`inf`, a dim) leaves them an interval's.
    result = parse_text("domain Pos2 = (0, inf]\ndomain Big = [D, inf)\n")
    assert result.diagnostics == []
    assert [type(item) for item in result.module.items] == [ast.DomainDecl, ast.DomainDecl]


def test_a_call_with_names_and_no_pattern_marks_no_pattern_bracket() -> None:
    from shapescript.syntax.lexer import lex
    from shapescript.syntax.source import SourceFile

    tokens = lex(SourceFile("x.ss", "y = f(a, b) |> g(x, b n -> n b)\n")).tokens
    opened = [token.value for token in tokens if token.kind == "("]
    assert opened == [None, True]


def test_return_outside_a_function_in_a_cell() -> None:
    result = parse_text("for i in 0..3:\n    return i\n", notebook=True)
    assert [d.code for d in result.diagnostics] == ["E0201"]


def test_every_node_has_a_span_inside_the_text() -> None:
    text = Path("examples/attention.ss").read_text(encoding="utf-8")
    result = parse_text(text)

    def walk(node) -> None:
        span = getattr(node, "span", None)
        if span is not None:
            assert 0 <= span.start <= span.end <= len(text), node
        for name in getattr(node, "__slots__", ()):
            value = getattr(node, name)
            for child in value if isinstance(value, list) else [value]:
                if hasattr(child, "__slots__") and hasattr(child, "span"):
                    walk(child)

    walk(result.module)


def test_assert_is_a_statement_and_a_top_level_item() -> None:
    result = parse_text(
        "dim T = 8\nassert T > 1 and T < 9\nfn f(x: [n]) -> [n]:\n    assert n <= T\n    return x\n"
    )
    assert result.diagnostics == []
    top = result.module.items[1]
    assert isinstance(top, ast.Assert)
    assert expr(top.condition) == "(and (> T 1) (< T 9))"
    (inner, _) = result.module.items[2].body
    assert isinstance(inner, ast.Assert)
    assert expr(inner.condition) == "(<= n T)"
    assert (inner.keyword_span.start, inner.keyword_span.end) == (
        inner.span.start,
        inner.span.start + 6,
    )


@pytest.mark.parametrize(
    "line",
    ["assert = 3", "assert(n)", "assert.x", "assert, b = pair"],
)
def test_assert_is_a_keyword_only_at_the_start_of_an_assert(line: str) -> None:
    result = parse_text(f"fn f(pair, n: int):\n    {line}\n")
    (stmt,) = result.module.items[0].body
    assert not isinstance(stmt, ast.Assert)


def test_a_notebook_cell_s_assert_is_one_of_its_statements() -> None:
    result = parse_text("x = 3\nassert x > 1\n", notebook=True)
    assert result.diagnostics == []
    item = result.module.items[1]
    assert isinstance(item, ast.StmtItem) and isinstance(item.stmt, ast.Assert)
