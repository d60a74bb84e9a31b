"""The torch.compile switch: bodies compiled apart from their checks, the same numbers as
eager, dynamic size variables and static dims, and a warned fallback when torch refuses.

The fast tests trace with the `eager` backend (dynamo's tracing and guards, no code
generation), which is what the wiring decides; the ones marked slow compile with
`aot_eager` (autograd) and inductor.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

import shapescript
from shapescript.rt import torch_compile as switch

ROOT = Path(__file__).resolve().parents[2]
ATTENTION = (ROOT / "examples" / "attention.ss").read_text()

#: A small classifier and its AdamW step; `loss` is the body autograd differentiates.
STEP = """\
devices cpu

dim D = 8
dim C = 3

model Net:
    param w1: [D D] = normal(std=0.5)
    param b1: [D] = zeros
    param w2: [D C] = normal(std=0.5)

fn forward(m: Net, x: [b D]) -> [b C]:
    return x @ m.w1 + m.b1 |> gelu |> matmul(m.w2)

fn loss(m: Net, x: [b D], y: [b] Index[C]) -> []:
    return cross_entropy(forward(m, x), y, over=C)

fn train_step(mut m: Net, mut opt: AdamW[Net], x: [b D], y: [b] Index[C]) -> []:
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g)
    return l
"""

#: f32 outputs and gradients of a compiled body against eager: the same ops, though
#: inductor may fuse and reorder reductions.
ATOL = 1e-5


@pytest.fixture(autouse=True)
def switch_restored() -> Iterator[None]:
    """Each test sets the switch as it needs; dynamo forgets what earlier tests compiled."""
    saved = switch.settings()
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    try:
        yield
    finally:
        switch._settings = saved
        torch._dynamo.reset()


def attention_inputs(b: int, n: int, seed: int = 0) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(b, n, 768, generator=generator)
    w_qkv = torch.randn(768, 2304, generator=generator) * 0.02
    w_o = torch.randn(768, 768, generator=generator) * 0.02
    return x, w_qkv, w_o


def outputs_and_gradients(function, inputs: tuple[torch.Tensor, ...]):
    leaves = [tensor.clone().requires_grad_(True) for tensor in inputs]
    out = function(*leaves)
    (out * torch.linspace(-1, 1, out.numel()).reshape(out.shape)).sum().backward()
    return out.detach(), [leaf.grad for leaf in leaves]


def assert_same_as_eager(backend: str, atol: float, gradients: bool = True) -> None:
    eager = shapescript.compile(ATTENTION, "attention.ss", devices="cpu")
    shapescript.torch_compile(True, backend=backend)
    compiled = shapescript.compile(ATTENTION, "attention.ss")
    inputs = attention_inputs(2, 5)
    if not gradients:
        with torch.no_grad():
            got = compiled.causal_attention(*inputs)
            torch.testing.assert_close(got, eager.causal_attention(*inputs), atol=atol, rtol=0)
        return
    want, want_grads = outputs_and_gradients(eager.causal_attention, inputs)
    got, got_grads = outputs_and_gradients(compiled.causal_attention, inputs)
    torch.testing.assert_close(got, want, atol=atol, rtol=0)
    for got_grad, want_grad in zip(got_grads, want_grads, strict=True):
        torch.testing.assert_close(got_grad, want_grad, atol=atol, rtol=0)


def test_the_switch_is_off_until_turned_on() -> None:
    switch._settings = None
    module = shapescript.compile(ATTENTION, "attention.ss", devices="cpu")
    assert not hasattr(module, "_ss_body_causal_attention")
    shapescript.torch_compile(True)
    assert switch.enabled()
    module = shapescript.compile(ATTENTION, "attention.ss")
    assert isinstance(module._ss_body_causal_attention, switch.CompiledBody)
    shapescript.torch_compile(False)
    assert not switch.enabled()


def test_the_keyword_overrides_the_switch() -> None:
    switch._settings = None
    on = shapescript.compile(ATTENTION, "attention.ss", devices="cpu", torch_compile=True)
    assert isinstance(on._ss_body_forward, switch.CompiledBody)
    shapescript.torch_compile(True)
    off = shapescript.compile(ATTENTION, "attention.ss", torch_compile=False)
    assert not hasattr(off, "_ss_body_forward")


def test_compiled_attention_matches_eager_forward_and_backward() -> None:
    assert_same_as_eager("eager", ATOL)


def test_a_shape_error_reads_the_same_with_the_switch_on() -> None:
    eager = shapescript.compile(ATTENTION, "attention.ss", devices="cpu")
    shapescript.torch_compile(True, backend="eager")
    compiled = shapescript.compile(ATTENTION, "attention.ss")
    _, w_qkv, w_o = attention_inputs(1, 1)
    wrong = torch.zeros(2, 3, 5)
    messages = []
    for module in (eager, compiled):
        with pytest.raises(shapescript.ShapeError) as caught:
            module.causal_attention(wrong, w_qkv, w_o)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert "expected [b n D] where D = 768" in messages[1]
    # The check failed before the body: nothing was traced.
    assert torch._dynamo.utils.counters["stats"]["unique_graphs"] == 0


def test_an_error_inside_a_compiled_body_reads_the_same() -> None:
    text = "devices cpu\n\nfn claimed(x: [b n] f64) -> [b 4] f64 = x as [b 4]\n"
    messages = []
    for on in (False, True):
        shapescript.torch_compile(on, backend="eager")
        module = shapescript.compile(text, "claimed.ss")
        assert module.claimed(torch.zeros(2, 4, dtype=torch.float64)).shape == (2, 4)
        with pytest.raises(shapescript.ShapeError) as caught:
            module.claimed(torch.zeros(2, 5, dtype=torch.float64))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert "`as` expected shape (2, 4), got (2, 5)" in messages[1]


def test_static_until_the_size_variables_vary_then_dynamic_and_dims_static() -> None:
    seen: list[list[tuple]] = []

    def recording(graph: torch.fx.GraphModule, example_inputs: list) -> object:
        traced = [node.meta["example_value"] for node in graph.graph.find_nodes(op="placeholder")]
        seen.append([tuple(t.shape) for t in traced if isinstance(t, torch.Tensor)])
        return graph.forward

    shapescript.torch_compile(True, backend=recording)
    module = shapescript.compile(ATTENTION, "attention.ss", devices="cpu")
    for b, n in ((2, 5), (2, 5), (2, 9), (3, 7), (4, 11)):
        module.causal_attention(*attention_inputs(b, n))
    # The first trace is for the shapes of the first call, every size static (faster
    # kernels where the shapes never change); the first call with another b or n traces
    # again with b and n dynamic, and that trace serves every later b and n.
    assert len(seen) == 2
    first = next(shape for shape in seen[0] if len(shape) == 3)
    assert first == (2, 5, 768) and all(type(size) is int for size in first)
    x_shape = next(shape for shape in seen[1] if len(shape) == 3)
    weights = [shape for shape in seen[1] if len(shape) == 2]
    assert all(isinstance(size, torch.SymInt) for size in x_shape[:2])
    assert x_shape[2] == 768 and not isinstance(x_shape[2], torch.SymInt)
    assert sorted(weights) == [(768, 768), (768, 2304)]
    assert all(type(size) is int for shape in weights for size in shape)


def test_torch_compile_refusing_warns_once_and_runs_eager(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise RuntimeError("torch.compile is not supported on this platform")

    monkeypatch.setattr(torch, "compile", refuse)
    shapescript.torch_compile(True)
    module = shapescript.compile(ATTENTION, "attention.ss", devices="cpu")
    inputs = attention_inputs(1, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = module.causal_attention(*inputs)
        second = module.causal_attention(*inputs)
    refusals = [w for w in caught if issubclass(w.category, switch.TorchCompileWarning)]
    assert len(refusals) == 1
    message = str(refusals[0].message)
    assert "causal_attention" in message and "attention.ss:17" in message
    assert "not supported on this platform" in message
    torch.testing.assert_close(first, second)


def test_a_backend_that_fails_falls_back_with_its_reason() -> None:
    def broken(graph: torch.fx.GraphModule, example_inputs: list) -> object:
        raise OSError("no C++ compiler found")

    shapescript.torch_compile(True, backend=broken)
    eager = shapescript.compile(ATTENTION, "attention.ss", devices="cpu", torch_compile=False)
    module = shapescript.compile(ATTENTION, "attention.ss")
    inputs = attention_inputs(1, 3)
    with pytest.warns(switch.TorchCompileWarning, match="no C\\+\\+ compiler found"):
        got = module.causal_attention(*inputs)
    torch.testing.assert_close(got, eager.causal_attention(*inputs), atol=0, rtol=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        module.causal_attention(*inputs)


def test_only_bodies_of_tensor_code_are_compiled() -> None:
    shapescript.torch_compile(True, backend="eager")
    module = shapescript.compile(STEP, "step.ss")
    assert isinstance(module._ss_body_loss, switch.CompiledBody)
    assert isinstance(module._ss_body_forward, switch.CompiledBody)
    # A step takes `mut` parameters and an optimizer: it stays Python, calling `loss`.
    assert not hasattr(module, "_ss_body_train_step")


def run_steps(module) -> tuple[list[float], list[torch.Tensor]]:
    model = module.Net.init(seed=0)
    opt = shapescript.rt.adamw(model, lr=1e-2)
    generator = torch.Generator().manual_seed(1)
    losses = []
    for b in (4, 4, 6, 5):
        x = torch.randn(b, 8, generator=generator)
        y = torch.randint(0, 3, (b,), generator=generator)
        losses.append(module.train_step(model, opt, x, y).item())
    return losses, [param.detach() for param in model.parameters()]


@pytest.mark.slow
def test_a_training_step_matches_eager() -> None:
    eager = shapescript.compile(STEP, "step.ss")
    shapescript.torch_compile(True, backend="aot_eager")
    compiled = shapescript.compile(STEP, "step.ss")
    want_losses, want_params = run_steps(eager)
    got_losses, got_params = run_steps(compiled)
    assert got_losses == pytest.approx(want_losses, abs=ATOL)
    for got, want in zip(got_params, want_params, strict=True):
        torch.testing.assert_close(got, want, atol=ATOL, rtol=0)
    # Four steps, batches of 4, 4, 6 and 5: `loss` (with `forward` inlined) traced for b = 4
    # static, then once with b dynamic at the batch of 6, which the batch of 5 reuses.
    assert torch._dynamo.utils.counters["stats"]["unique_graphs"] == 2


@pytest.mark.slow
def test_inductor_attention_matches_eager() -> None:
    # Forward only: inductor compiling the backward too doubles a cold compile (minutes on
    # a CPU), and the gradients through compiled bodies are tested with aot_eager above.
    assert_same_as_eager("inductor", 1e-4, gradients=False)


def test_the_hook_caches_compiled_bodies_apart(tmp_path: Path) -> None:
    (tmp_path / "tc_double.ss").write_text("fn double(x: [n]) -> [n] = x * 2\n")
    sys.path.insert(0, str(tmp_path))
    shapescript.torch_compile(False)
    shapescript.install()
    import tc_double  # type: ignore[import-not-found]

    assert not hasattr(tc_double, "_ss_body_double")
    del sys.modules["tc_double"]
    shapescript.install(torch_compile=True)
    assert switch.enabled()
    import tc_double  # type: ignore[import-not-found]  # noqa: F811

    assert isinstance(tc_double._ss_body_double, switch.CompiledBody)
    entries = sorted(path.name for path in (tmp_path / "__pycache__").iterdir())
    assert len(entries) == 2 and any("-tc." in name for name in entries)


def test_run_torch_compile_turns_the_switch_on_in_the_program(tmp_path: Path) -> None:
    program = tmp_path / "show.py"
    program.write_text("from shapescript.rt import torch_compile\nprint(torch_compile.enabled())\n")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    environment.pop(switch.ENVIRONMENT, None)
    shown = []
    for flags in ([], ["--torch-compile"]):
        done = subprocess.run(
            [sys.executable, "-m", "shapescript", "run", *flags, str(program)],
            capture_output=True,
            text=True,
            env=environment,
            check=True,
        )
        shown.append(done.stdout.strip())
    assert shown == ["False", "True"]
