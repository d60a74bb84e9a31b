"""The code generated for logs records, sinks, `print`, `save` and `load`: what it calls
in the runtime, with which arguments, under each check mode."""

from __future__ import annotations

from tests.codegen.compiled import build

PROGRAM = """\
dim D = 4
dim C = 3

## What each step reports.
logs StepLogs:
    loss: [] mean
    grad_norm: [] NonNeg max
    steps: int sum
    hits: [] i64 sum

model Mlp:
    param w: [D C] = normal(std=0.1)

fn make(l: [], g: [] NonNeg, k: int) -> StepLogs:
    return StepLogs(loss=l, grad_norm=g, steps=k, hits=k)

fn loss_of(r: StepLogs) -> [] = r.loss

fn report(sink: LogSink, r: StepLogs):
    sink.write(r)
    r |> sink.write
    sink.flush()
    print("loss", r.loss, r)

fn keep(m: Mlp, opt: AdamW[Mlp], k: int):
    save("ckpt.pt", m, opt, k)

fn back() -> Mlp:
    m, opt, k, rate, flag = load("ckpt.pt", Mlp, SGD[Mlp], int, float, bool)
    return m
"""


def _source(**options) -> str:
    generated = build(PROGRAM, "logs.ss", **options)
    assert not generated.unsupported, generated.unsupported
    return generated.source


def test_a_logs_record_is_a_logs_class() -> None:
    source = _source()
    expected = (
        "class StepLogs(_ss_rt.logs.Logs):\n"
        "    'What each step reports.'\n"
        "    _ss_name = 'StepLogs'\n"
        "    _ss_metrics = (\n"
        "        ('loss', 'mean', 'f32'),\n"
        "        ('grad_norm', 'max', 'f32'),\n"
        "        ('steps', 'sum', 'int'),\n"
        "        ('hits', 'sum', 'i64'),\n"
        "    )\n"
    )
    assert expected in source
    assert "NotImplementedError" not in source


def test_records_are_made_and_read_by_name() -> None:
    source = _source()
    assert "return StepLogs(loss=l, grad_norm=g, steps=k, hits=k)" in source
    assert "return r.loss" in source


def test_sinks_write_and_flush_through_the_runtime() -> None:
    source = _source()
    assert source.count("_ss_rt.logs.write(sink, r)") == 2
    assert "_ss_rt.logs.flush(sink)" in source
    assert "_ss_rt.logs.print_values('loss', r.loss, r)" in source


def test_sink_and_record_parameters_are_checked() -> None:
    source = _source()
    assert "_ss_rt.logs.check_sink(sink, 'logs.ss:19:11', 'sink', function='report')" in source
    assert "if not _ss_isinstance(r, StepLogs): raise _ss_rt.ShapeError(" in source
    assert "parameter='r'" in source


def test_check_modes_apply_to_sink_and_record_checks() -> None:
    never = _source(checks="never")
    assert "check_sink" not in never and "_ss_isinstance(r" not in never
    debug = _source(checks="debug")
    lines = debug.splitlines()
    index = next(i for i, line in enumerate(lines) if "check_sink" in line)
    assert lines[index - 1].strip() == "if __debug__:"


def test_save_and_load_name_their_call() -> None:
    source = _source()
    assert "_ss_rt.checkpoints.save('ckpt.pt', m, opt, k, where='logs.ss:26:5')" in source
    assert (
        "m, opt, k, rate, flag = _ss_rt.checkpoints.load('ckpt.pt', Mlp, "
        "_ss_rt.checkpoints.OptimizerType('SGD', Mlp), _ss_int, _ss_float, _ss_bool, "
        "where='logs.ss:29:29')"
    ) in source


def test_a_standalone_build_can_only_print() -> None:
    generated = build(PROGRAM, "logs.ss", standalone=True, devices="cpu")
    messages = [message for message, _ in generated.unsupported]
    assert any("need the shapescript runtime" in message for message in messages)
    printing = build('fn f(x: [n]):\n    print("x", x)\n', standalone=True, devices="cpu")
    assert not printing.unsupported
    assert "_ss_print('x', x)" in printing.source
