"""Logs records, sinks and print in the checker: each diagnostic by code and span, and what
the checker records for the compiler."""

from __future__ import annotations

import pytest

from shapescript.check.algebra.types import HostType, LogsType, SinkType, TensorType
from shapescript.check.checker import check_text
from shapescript.syntax import ast

HEADER = """\
dim D = 4
dim C = 3

logs StepLogs:
    loss: [] mean
    grad_norm: [] NonNeg max
    steps: int sum

logs Other:
    acc: [] Unit last

model Mlp:
    param w: [D C] = zeros

"""


def problems(text: str) -> list[tuple[str, str]]:
    """Each diagnostic's code and the source text its span covers."""
    checked = check_text(text, "logs.ss")
    return [(d.code, text[d.span.start : d.span.end]) for d in checked.diagnostics]


def body(*lines: str) -> list[tuple[str, str]]:
    return problems(HEADER + "\n".join(lines) + "\n")


# ---------------------------------------------------------------------- declarations


def test_a_clean_record_records_its_metrics_for_the_compiler() -> None:
    checked = check_text(HEADER, "logs.ss")
    assert checked.diagnostics == []
    info = checked.logs["StepLogs"]
    assert info.ok and list(info.metrics) == ["loss", "grad_norm", "steps"]
    rules = [(m.name, m.combine, m.dtype) for m in info.metrics.values()]
    assert rules == [("loss", "mean", "f32"), ("grad_norm", "max", "f32"), ("steps", "sum", "int")]
    assert isinstance(info.metrics["loss"].type, TensorType)
    assert info.metrics["loss"].type.axes == ()
    assert info.metrics["steps"].type == HostType("int")
    span = info.metrics["grad_norm"].span
    assert HEADER[span.start : span.end] == "grad_norm"


def test_metric_dtypes_and_docs() -> None:
    text = (
        "## Counts.\nlogs Counts:\n    ## Seen so far.\n    seen: [] i64 sum\n"
        "    flag: bool last\n    rate: float mean\n    half: [] f16 min\n"
    )
    checked = check_text(text, "logs.ss")
    assert checked.diagnostics == []
    info = checked.logs["Counts"]
    assert info.doc == "Counts."
    assert [m.dtype for m in info.metrics.values()] == ["i64", "bool", "float", "f16"]
    assert info.metrics["seen"].doc == "Seen so far."


@pytest.mark.parametrize(
    ("metric", "spanned"),
    [
        ("loss: [D] mean", "[D]"),
        ("loss: [2 D] sum", "[2 D]"),
        ("loss: f32 mean", "f32"),
        ("loss: Real mean", "Real"),
        ("loss: Mlp mean", "Mlp"),
        ("loss: LogSink last", "LogSink"),
        ("loss: []", "[]"),
        ("loss: [] NonNeg", "NonNeg"),
        ("loss: [] Mean", "Mean"),
        ("loss: [] i64 average", "average"),
        ("_loss: [] mean", "_loss"),
        ("class: [] mean", "class"),
    ],
)
def test_invalid_metric_is_e1402(metric: str, spanned: str) -> None:
    text = f"dim D = 4\n\nmodel Mlp:\n    param w: [D] = zeros\n\nlogs L:\n    {metric}\n"
    assert problems(text) == [("E1402", spanned)]


def test_unknown_combining_word_suggests_one() -> None:
    checked = check_text("logs L:\n    loss: [] Mean\n", "logs.ss")
    assert checked.diagnostics[0].help == "did you mean `mean`?"


def test_a_metric_declared_twice_is_e0302() -> None:
    text = "logs L:\n    loss: [] mean\n    loss: [] sum\n"
    checked = check_text(text, "logs.ss")
    assert [(d.code, text[d.span.start : d.span.end]) for d in checked.diagnostics] == [
        ("E0302", "loss")
    ]
    assert checked.diagnostics[0].secondary[0].span.start == text.index("loss")
    assert not checked.logs["L"].ok


def test_a_broken_type_reports_its_own_code_only() -> None:
    assert problems("logs L:\n    loss: [] Nosuch mean\n") == [("E0301", "Nosuch")]


# ---------------------------------------------------------------------- the record as a type


def test_the_record_is_a_type_of_parameters_and_results() -> None:
    text = HEADER + "fn keep(r: StepLogs) -> StepLogs = r\n"
    checked = check_text(text, "logs.ss")
    assert checked.diagnostics == []
    assert checked.signatures["keep"].params[0].type == LogsType("StepLogs")
    assert checked.signatures["keep"].return_type == LogsType("StepLogs")


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (
            ["fn keep(r: StepLogs) -> StepLogs = r", "fn f(o: Other) -> StepLogs = keep(o)"],
            [("E1403", "o")],
        ),
        (
            ["fn keep(r: StepLogs) -> StepLogs = r", "fn f(x: [n]) -> StepLogs = keep(x)"],
            [("E1403", "x")],
        ),
        (["fn f(o: Other) -> StepLogs = o"], [("E1403", "o")]),
        (["fn f(l: []) -> StepLogs = l"], [("E1403", "l")]),
        (["fn f(m: Mlp) -> StepLogs = m"], [("E1403", "m")]),
        (["fn f(r: StepLogs) -> Mlp = r"], [("E0904", "r")]),
        (["fn f(r: StepLogs) -> [] = r"], [("E0412", "r")]),
        (["fn f(r: StepLogs) -> [] = r + 1.0"], [("E0412", "+")]),
        (["fn f(r: StepLogs) -> [] = sum(r)"], [("E0412", "r")]),
        (["fn f(r: [b] StepLogs) = 0"], [("E0303", "StepLogs")]),
    ],
)
def test_a_value_that_isnt_the_record_is_e1403(
    lines: list[str], expected: list[tuple[str, str]]
) -> None:
    assert body(*lines) == expected


# ---------------------------------------------------------------------- making and reading


def test_making_and_reading_a_record() -> None:
    text = HEADER + (
        "fn f(l: [], g: [] NonNeg, n: int) -> [] NonNeg:\n"
        "    r = StepLogs(loss=l, grad_norm=g, steps=n)\n"
        "    k = r.steps\n"
        "    return r.grad_norm\n"
    )
    checked = check_text(text, "logs.ss")
    assert checked.diagnostics == []
    item = next(i for i in checked.items if isinstance(i.item, ast.FnDecl))
    assign, read = item.item.body[0], item.item.body[1]
    assert item.body.facts.types[assign.targets[0].span] == LogsType("StepLogs")
    assert item.body.facts.types[read.targets[0].span] == HostType("int")
    metric = text.index("r.steps") + 2
    symbol = checked.definition_at(metric)
    assert symbol is not None and symbol.kind == "metric" and symbol.name == "steps"
    assert symbol.span.start == text.index("steps: int")


def test_numbers_fit_tensor_metrics() -> None:
    assert body("fn f(n: int) -> StepLogs = StepLogs(loss=1.5, grad_norm=0.0, steps=n)") == []


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("StepLogs(los=l, grad_norm=g, steps=k)", [("E1401", "los")]),
        ("StepLogs(l, grad_norm=g, steps=k)", [("E0406", "l")]),
        ("StepLogs(loss=l, loss=l, grad_norm=g, steps=k)", [("E0406", "loss=l")]),
        ("StepLogs(loss=l, steps=k)", [("E0406", "StepLogs(loss=l, steps=k)")]),
        ("StepLogs(loss=x, grad_norm=g, steps=k)", [("E0403", "loss=x")]),
        ("StepLogs(loss=l, grad_norm=l, steps=k)", [("E0501", "grad_norm=l")]),
        ("StepLogs(loss=l to f64, grad_norm=g, steps=k)", [("E0502", "loss=l to f64")]),
        ("StepLogs(loss=l, grad_norm=g, steps=l)", [("E0805", "steps=l")]),
        ("StepLogs(loss=l, grad_norm=g, steps=1.5)", [("E0502", "steps=1.5")]),
        ('StepLogs(loss="a", grad_norm=g, steps=k)', [("E0412", 'loss="a"')]),
        ("StepLogs(loss=m, grad_norm=g, steps=k)", [("E0412", "loss=m")]),
        ("StepLogs(loss=l, grad_norm=g, steps=k, mut m)", [("E1101", "mut m")]),
    ],
)
def test_making_a_record_checks_each_metric(call: str, expected) -> None:
    lines = [f"fn f(x: [n], l: [], g: [] NonNeg, k: int, m: Mlp) -> StepLogs = {call}"]
    assert body(*lines) == expected


def test_a_misspelt_metric_read_is_e1401() -> None:
    checked = check_text(HEADER + "fn f(r: StepLogs) -> [] = r.los\n", "logs.ss")
    (diagnostic,) = checked.diagnostics
    assert diagnostic.code == "E1401" and diagnostic.help == "did you mean `loss`?"
    text = checked.source.text
    assert text[diagnostic.span.start : diagnostic.span.end] == "los"


def test_a_metric_with_a_broken_type_is_unknown_silently() -> None:
    text = "logs L:\n    loss: [] Nosuch mean\n\nfn f(r: L) -> [] = r.loss + 1.0\n"
    assert problems(text) == [("E0301", "Nosuch")]


# ---------------------------------------------------------------------- sinks


def test_sink_parameters_write_and_flush() -> None:
    text = HEADER + (
        "fn report(sink: LogSink, r: StepLogs):\n    sink.write(r)\n    sink.flush()\n"
        "fn pass_on(sink: LogSink, r: StepLogs) = report(sink, r)\n"
    )
    checked = check_text(text, "logs.ss")
    assert checked.diagnostics == []
    assert checked.signatures["report"].params[0].type == SinkType()


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["    sink.write(sum(x))"], [("E1403", "sum(x)")]),
        (["    sink.write(m)"], [("E1403", "m")]),
        (["    sink.close()"], [("E0301", "close")]),
        (["    sink.write()"], [("E0406", "sink.write()")]),
        (["    sink.write(r, r)"], [("E0406", "sink.write(r, r)")]),
        (["    sink.flush(r)"], [("E0406", "sink.flush(r)")]),
        (["    sink.write(record=r)"], [("E0406", "record=r")]),
        (["    report(x, r)"], [("E1404", "x")]),
        (["    report(m, r)"], [("E1404", "m")]),
        (["    report(r, r)"], [("E1404", "r")]),
        (["    report(sink, sink)"], [("E1403", "sink")]),
        (["    y = sink + 1"], [("E0412", "+")]),
    ],
)
def test_sink_misuse(lines: list[str], expected) -> None:
    text = [
        "fn report(sink: LogSink, r: StepLogs):",
        "    sink.write(r)",
        "fn f(sink: LogSink, x: [n], m: Mlp, r: StepLogs):",
        *lines,
    ]
    assert body(*text) == expected


def test_a_sink_returned_where_a_sink_is_declared() -> None:
    assert body("fn f(s: LogSink) -> LogSink = s") == []
    assert body("fn f(x: [n]) -> LogSink = x") == [("E1404", "x")]


def test_mut_sink_parameter_is_e1101() -> None:
    assert body("fn f(mut s: LogSink):", "    s.flush()") == [("E1101", "mut s: LogSink")]


# ---------------------------------------------------------------------- print


def test_print_takes_anything_by_position() -> None:
    lines = [
        "fn f(x: [n], m: Mlp, r: StepLogs, k: int):",
        '    print("loss", x, m, r, k, sum(x))',
        "    print()",
    ]
    assert body(*lines) == []


def test_print_with_a_keyword_is_e0406() -> None:
    assert body("fn f(x: [n]):", '    print(x, sep=", ")') == [("E0406", 'sep=", "')]


def test_print_inside_a_stage_is_e2403() -> None:
    lines = ["fn f(x: [n]) -> [n]:", "    return x |> map(v => print(v))"]
    assert [code for code, _ in body(*lines)] == ["E2403"]


@pytest.mark.parametrize(
    "stage",
    [
        "map(v => StepLogs(loss=v, grad_norm=abs(v), steps=1).loss)",
        "map(v => write_one(sink, v))",
    ],
)
def test_records_and_sinks_inside_a_stage_are_e2403(stage: str) -> None:
    lines = [
        "fn write_one(sink: LogSink, v: []) -> []:",
        "    sink.write(StepLogs(loss=v, grad_norm=abs(v), steps=1))",
        "    return v",
        "fn f(sink: LogSink, x: [n]) -> [n]:",
        f"    return x |> {stage}",
    ]
    assert [code for code, _ in body(*lines)] == ["E2403"]


def test_a_sink_write_inside_a_lambda_is_e2403() -> None:
    lines = [
        "fn f(sink: LogSink, r: StepLogs, x: [n]) -> [n]:",
        "    return x |> map(v => g(sink.write(r), v))",
        "fn g(a: [], v: []) -> [] = v",
    ]
    assert [code for code, _ in body(*lines)] == ["E2403"]


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["import python torch", "fn f() -> StepLogs = torch.x as StepLogs"], []),
        (["import python torch", "fn f() -> LogSink = torch.x as LogSink"], []),
        (["fn f(x: []) -> StepLogs = x as StepLogs"], [("E0303", "StepLogs")]),
        (["fn f(r: StepLogs) -> [] = r as []"], [("E0412", "r as []")]),
        (["fn f(r: StepLogs) -> StepLogs = r as StepLogs"], []),
    ],
)
def test_as_with_records_and_sinks(lines: list[str], expected) -> None:
    assert body(*lines) == expected
