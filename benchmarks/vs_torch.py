"""Compiled ShapeScript against the PyTorch people write by hand: issue 30's table and budgets.

    python -m benchmarks.vs_torch [--rounds R] [--sizes small,medium,large]
        [--cases attention,mlp,block,train] [--no-compile] [--clock wall|cpu] [--output PATH]

Cases, each a program in benchmarks/programs/ compiled with `shapescript.compile` and the
default checks:
- attention: causal multi-head self-attention, forward (the qkv projection, the scores by
  einsum, the causal mask, the softmax, the values, the output projection);
- mlp: `x @ w1 + b1 |> gelu |> @ w2 + b2`, forward and backward (the gradient of the
  output's mean);
- block: a GPT block (layer_norm, attention, residual, layer_norm, the MLP, residual),
  forward and backward;
- train: a full training step of a 2-layer GPT as examples/gpt.ss writes it (V = 512, its
  per-block params stacked along `[L ...]`): `value_and_grad` of the cross-entropy, then an
  AdamW `update` (lr 6e-4, PyTorch's other defaults) with `fused=true`, torch's fused
  kernel, as the expert's `torch.optim.AdamW(fused=True)`; the naive side steps with
  torch's default AdamW, whose numbers ShapeScript's default `adamw` gives bit for bit.

Sizes: small b=2 n=16 D=64, medium b=8 n=128 D=256, large b=4 n=512 D=256; heads of 64
features, so H = D / 64 (1, 4 and 4 heads).

Each case runs against naive and expert eager PyTorch (benchmarks/hand_written.py says what
each writes), `torch.compile` of the expert code (inductor, static shapes; for the backward
and training cases the loss is compiled and the optimizer step stays eager), and the
ShapeScript program compiled with `shapescript.torch_compile(True)` when that switch exists
("n/a" otherwise). All variants start from the same weights and inputs (the switch from a
copy of the inputs: once their sizes vary it marks those axes dynamic for torch.compile,
and torch.compile of the expert code, asked for static shapes, would see those marks on
tensors it shares and trace them dynamic too). Before anything is timed each one's
result is compared with the naive one's: outputs and gradients within
a relative error (the norm of the difference over the norm of the naive value) of 1e-4 in
f32, and for the training step the loss within 1e-4 and each param's change by the step
within 1e-2 (AdamW's first step moves each value by about lr times the sign of its
gradient, so a gradient near zero may flip). Variants that disagree are not timed and the
command exits 1. Where torch.compile refuses the expert code (no C compiler, say), its
column is left out with a note and the rest runs.

Timing: one torch thread; each variant gets two warm-up calls and a timed call that sizes
its batch (as many calls as fill about 20 ms, and at least three); then `--rounds` rounds in
which each variant in turn runs its batch, the order turning by one each round, so that
other work on the machine falls on all of them and none always runs first. Each figure in
the table is the median over the rounds of the time per call, of the wall clock and of the
process's CPU time (`--clock` says which the budgets are judged on: wall by default; on a
machine that other work keeps busy the CPU time moves less). A budget's ratio is the median
over the rounds of that round's own ratio (the rounds' lowest and highest are recorded).
Budgets (issue 30, item 4): ShapeScript
<= 1.00x naive and <= 1.05x expert at every case and size; with the switch, <= 1.05x
torch.compile of the expert code. A budget that fails is printed FAIL; the command still
exits 0. Results go to benchmarks/results/vs_torch.json.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

import shapescript
from benchmarks import hand_written as hw
from benchmarks.common import environment
from shapescript.atomic_write import write_text
from shapescript.rt import devices as rt_devices

PROGRAMS = Path(__file__).resolve().parent / "programs"
RESULTS = Path(__file__).resolve().parent / "results" / "vs_torch.json"
PROGRAM_FILES = {
    "attention": "attention.ss",
    "mlp": "mlp.ss",
    "block": "gpt_block.ss",
    "train": "gpt_train.ss",
}
CASES = tuple(PROGRAM_FILES)
TOLERANCE = 1e-4
UPDATE_TOLERANCE = 1e-2
LEARNING_RATE = 6e-4
GPT_LAYERS = 2
GPT_VOCAB = 512
BATCH_SECONDS = 0.02
MIN_CALLS = 3

SS, NAIVE, EXPERT, EXPERT_TC, SS_TC = (
    "shapescript",
    "naive",
    "expert",
    "torch.compile(expert)",
    "shapescript+torch_compile",
)
#: (name, numerator, denominator, most allowed), and each one's column heading.
BUDGETS = (
    ("shapescript/naive", SS, NAIVE, 1.00),
    ("shapescript/expert", SS, EXPERT, 1.05),
    ("switch/torch.compile(expert)", SS_TC, EXPERT_TC, 1.05),
)
BUDGET_LABELS = ("ss/naive", "ss/expert", "switch/tc")


@dataclass(frozen=True)
class Size:
    name: str
    b: int
    n: int
    width: int

    @property
    def heads(self) -> int:
        return self.width // hw.HEAD


SIZES = {
    "small": Size("small", 2, 16, 64),
    "medium": Size("medium", 8, 128, 256),
    "large": Size("large", 4, 512, 256),
}


@dataclass
class Variant:
    """A way of running a case: `run` is what is timed, `result` what its output is checked
    as (named tensors in the ShapeScript program's layout)."""

    run: Callable[[], Any]
    result: Callable[[Any], hw.Params]


@dataclass
class Case:
    variants: dict[str, Variant]
    #: For a training step, the params before it: the check compares each param's change.
    start: hw.Params | None = None
    notes: list[str] = field(default_factory=list)


def switch_available() -> bool:
    return "torch_compile" in inspect.signature(shapescript.compile).parameters


def program(case: str, width: int) -> str:
    """The case's program with `dim D = width`."""
    text = (PROGRAMS / PROGRAM_FILES[case]).read_text(encoding="utf-8")
    assert "dim D = 256\n" in text
    return text.replace("dim D = 256\n", f"dim D = {width}\n", 1)


def compiled_module(case: str, size: Size, *, switch: bool = False):
    """The case's program compiled for `size`, with the torch.compile switch on or not."""
    text = program(case, size.width)
    path = f"<vs_torch {case} D={size.width}{' torch_compile' if switch else ''}>"
    if not switch:
        return shapescript.compile(text, path, devices="cpu")
    return shapescript.compile(text, path, devices="cpu", torch_compile=True)


def _detached(values: hw.Params) -> hw.Params:
    return {name: value.detach() for name, value in values.items()}


def _initial_model(module: Any, model: str) -> Any:
    """The model from seed 0, every param nudged so that no bias is 0 and no norm 1."""
    m = getattr(module, model).init(seed=0)
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for value in m.parameters():
            value.add_(torch.randn(value.shape, generator=generator) * 0.05)
    return m


def _same_model(module: Any, model: str, state: hw.Params) -> Any:
    m = getattr(module, model).init(seed=0)
    m.load_state_dict(state)
    return m


def attention_case(size: Size, *, torch_compile: bool) -> Case:
    module = compiled_module("attention", size)
    generator = torch.Generator().manual_seed(0)
    d = size.width
    x = torch.randn(size.b, size.n, d, generator=generator)
    w_qkv = torch.randn(d, 3 * d, generator=generator) / math.sqrt(d)
    w_o = torch.randn(d, d, generator=generator) / math.sqrt(d)
    w_qkv_t, w_o_t = w_qkv.t().contiguous(), w_o.t().contiguous()
    mask = hw.causal_mask(size.n)

    def output(y: torch.Tensor) -> hw.Params:
        return {"y": y}

    variants = {
        SS: Variant(lambda: module.causal_attention(x, w_qkv, w_o), output),
        NAIVE: Variant(lambda: hw.naive_attention(x, w_qkv, w_o, mask), output),
        EXPERT: Variant(lambda: hw.expert_attention(x, w_qkv_t, w_o_t), output),
    }
    if torch_compile:
        expert = torch.compile(hw.expert_attention, dynamic=False)
        variants[EXPERT_TC] = Variant(lambda: expert(x, w_qkv_t, w_o_t), output)
        if switch_available():
            switched, x_tc = compiled_module("attention", size, switch=True), x.clone()
            variants[SS_TC] = Variant(lambda: switched.causal_attention(x_tc, w_qkv, w_o), output)
    return Case(variants)


def _grads_case(case: str, size: Size, *, torch_compile: bool) -> Case:
    """mlp or block: the gradient of the output's mean with respect to every weight."""
    model = "Mlp" if case == "mlp" else "Block"
    module = compiled_module(case, size)
    m = _initial_model(module, model)
    state = _detached(m.state_dict())
    x = torch.randn(size.b, size.n, size.width, generator=torch.Generator().manual_seed(0))
    mask = hw.causal_mask(size.n)
    naive_p = hw.hand_params(state, transposed=False)
    expert_p = hw.hand_params(state, transposed=True)
    compiled_p = hw.hand_params(state, transposed=True)
    if case == "mlp":

        def naive_loss() -> torch.Tensor:
            return hw.naive_mlp(naive_p, x).mean()

        def expert_forward(p: hw.Params) -> torch.Tensor:
            return hw.expert_mlp(p, x).mean()
    else:

        def naive_loss() -> torch.Tensor:
            return hw.naive_block(naive_p, x, mask).mean()

        def expert_forward(p: hw.Params) -> torch.Tensor:
            return hw.expert_block(p, x).mean()

    def written(grads: hw.Params) -> hw.Params:
        return _detached(dict(grads.items()))

    def transposed(grads: hw.Params) -> hw.Params:
        return hw.as_written(grads, transposed=True)

    variants = {
        SS: Variant(lambda: module.grads(m, x), written),
        NAIVE: Variant(lambda: hw.grads_of(naive_loss, naive_p), written),
        EXPERT: Variant(
            lambda: hw.grads_of(lambda: expert_forward(expert_p), expert_p), transposed
        ),
    }
    if torch_compile:
        expert = torch.compile(expert_forward, dynamic=False)
        variants[EXPERT_TC] = Variant(
            lambda: hw.grads_of(lambda: expert(compiled_p), compiled_p), transposed
        )
        if switch_available():
            switched = compiled_module(case, size, switch=True)
            m_tc, x_tc = _same_model(switched, model, state), x.clone()
            variants[SS_TC] = Variant(lambda: switched.grads(m_tc, x_tc), written)
    return Case(variants)


def train_case(size: Size, *, torch_compile: bool) -> Case:
    module = compiled_module("train", size)
    m = _initial_model(module, "Gpt")
    opt = module.optimizer(m)
    state = _detached({k: v.clone() for k, v in m.state_dict().items()})
    ids = torch.randint(
        0, GPT_VOCAB, (size.b, size.n + 1), generator=torch.Generator().manual_seed(0)
    )
    inputs, targets = ids[:, :-1].contiguous(), ids[:, 1:].contiguous()
    mask = hw.causal_mask(size.n)

    def side(transposed: bool) -> tuple[hw.Params, torch.optim.Optimizer]:
        params = hw.hand_params(state, transposed=transposed)
        return params, hw.adamw(params, LEARNING_RATE, expert=transposed)

    naive_p, naive_opt = side(False)
    expert_p, expert_opt = side(True)

    def naive_loss() -> torch.Tensor:
        return hw.naive_gpt_loss(naive_p, inputs, targets, mask, GPT_LAYERS)

    def expert_forward(p: hw.Params) -> torch.Tensor:
        return hw.expert_gpt_loss(p, inputs, targets, GPT_LAYERS)

    def ss_after(model: Any) -> Callable[[torch.Tensor], hw.Params]:
        return lambda loss: {"loss": loss, **_detached(model.state_dict())}

    def hand_after(params: hw.Params, transposed: bool) -> Callable[[torch.Tensor], hw.Params]:
        return lambda loss: {
            "loss": loss,
            **_detached(hw.as_written(params, transposed=transposed)),
        }

    variants = {
        SS: Variant(lambda: module.train_step(m, opt, inputs, targets), ss_after(m)),
        NAIVE: Variant(lambda: hw.train_step(naive_loss, naive_opt), hand_after(naive_p, False)),
        EXPERT: Variant(
            lambda: hw.train_step(lambda: expert_forward(expert_p), expert_opt),
            hand_after(expert_p, True),
        ),
    }
    notes = [f"expert AdamW: {'fused' if expert_opt.defaults.get('fused') else 'foreach'}"]
    if torch_compile:
        compiled_p, compiled_opt = side(True)
        expert = torch.compile(expert_forward, dynamic=False)
        variants[EXPERT_TC] = Variant(
            lambda: hw.train_step(lambda: expert(compiled_p), compiled_opt),
            hand_after(compiled_p, True),
        )
        if switch_available():
            switched = compiled_module("train", size, switch=True)
            m_tc = _same_model(switched, "Gpt", state)
            opt_tc = switched.optimizer(m_tc)
            inputs_tc, targets_tc = inputs.clone(), targets.clone()
            variants[SS_TC] = Variant(
                lambda: switched.train_step(m_tc, opt_tc, inputs_tc, targets_tc), ss_after(m_tc)
            )
    return Case(variants, start=state, notes=notes)


def build_case(case: str, size: Size, *, torch_compile: bool) -> Case:
    if case == "attention":
        return attention_case(size, torch_compile=torch_compile)
    if case == "train":
        return train_case(size, torch_compile=torch_compile)
    return _grads_case(case, size, torch_compile=torch_compile)


def relative_error(value: torch.Tensor, reference: torch.Tensor) -> float:
    """The norm of the difference over the norm of the reference (the difference's norm when
    the reference is all zeros)."""
    value, reference = value.detach().double(), reference.detach().double()
    scale = reference.norm().item()
    difference = (value - reference).norm().item()
    return difference / scale if scale > 0 else difference


def _first_results(case: Case) -> dict[str, hw.Params]:
    """Each variant's result from one call. torch.compile of the expert code may refuse
    (no C compiler, an op inductor can't lower): that variant is left out, with a note."""
    results = {}
    for name, variant in list(case.variants.items()):
        try:
            results[name] = variant.result(variant.run())
        except Exception as error:
            if name != EXPERT_TC:
                raise
            del case.variants[name]
            reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
            case.notes.append(f"{name} left out: {type(error).__name__}: {reason}")
    return results


def disagreements(case: Case) -> list[str]:
    """Run each variant once and compare its result with the naive one's; what differs."""
    results = _first_results(case)
    reference = results[NAIVE]
    problems = []
    for name, result in results.items():
        if set(result) != set(reference):
            problems.append(f"{name} gives {sorted(result)}, naive {sorted(reference)}")
            continue
        for key, expected in reference.items():
            got, tolerance = result[key], TOLERANCE
            if case.start is not None and key in case.start:
                got, expected = got - case.start[key], expected - case.start[key]
                tolerance = UPDATE_TOLERANCE
            if got.shape != expected.shape:
                problems.append(
                    f"{name}: {key} is {tuple(got.shape)}, naive's {tuple(expected.shape)}"
                )
                continue
            error = relative_error(got, expected)
            if not error <= tolerance:
                problems.append(
                    f"{name}: {key} differs from naive's by {error:.2e} (at most {tolerance:g})"
                )
    return problems


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _batch(run: Callable[[], Any], calls: int) -> tuple[float, float]:
    """Wall and CPU seconds per call over `calls` calls."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        run()
    return (time.perf_counter() - wall) / calls, (time.process_time() - cpu) / calls


def rotated(names: list[str], index: int) -> list[str]:
    """The order the variants run in round `index`: each round starts one further along,
    so that no variant always runs first, or always right after the same other one."""
    shift = index % len(names) if names else 0
    return names[shift:] + names[:shift]


#: Samples of a case: per variant, one (wall, CPU) seconds per call for each round.
Samples = dict[str, list[tuple[float, float]]]


def measure(variants: dict[str, Variant], rounds: int) -> Samples:
    """Each variant's time per call in each of `rounds` interleaved rounds.

    Every variant gets two warm-up calls and a timed call that sizes its batch: as many
    calls as fill about BATCH_SECONDS, and never fewer than MIN_CALLS, so a sample at the
    large sizes isn't one call's luck. The variants' order turns by one each round.
    """
    calls = {}
    for name, variant in variants.items():
        _batch(variant.run, 2)
        calls[name] = max(MIN_CALLS, round(BATCH_SECONDS / _batch(variant.run, 1)[0]))
    names = list(variants)
    samples: Samples = {name: [] for name in names}
    for index in range(rounds):
        for name in rotated(names, index):
            samples[name].append(_batch(variants[name].run, calls[name]))
    return samples


def medians(samples: Samples) -> dict[str, dict[str, float]]:
    """Median seconds per call of each variant over the rounds, `{clock: {variant: s}}`."""
    return {
        clock: {
            name: statistics.median(s[index] for s in values) for name, values in samples.items()
        }
        for index, clock in enumerate(CLOCKS)
    }


def verdicts(samples: Samples, clock: str) -> list[dict[str, Any]]:
    """Each budget's ratio and whether it holds; None where a side wasn't run.

    The ratio is the median over the rounds of each round's own ratio: both sides of a
    round ran within moments of each other, so a change of load between rounds moves
    both, where a ratio of two medians would mix different moments. The rounds' lowest
    and highest ratios are kept with it."""
    index = tuple(CLOCKS).index(clock)
    found = []
    for name, numerator, denominator, most in BUDGETS:
        if numerator in samples and denominator in samples:
            ratios = [
                top[index] / bottom[index]
                for top, bottom in zip(samples[numerator], samples[denominator], strict=True)
            ]
            ratio = statistics.median(ratios)
            found.append(
                {
                    "budget": name,
                    "ratio": ratio,
                    "lowest": min(ratios),
                    "highest": max(ratios),
                    "most": most,
                    "pass": ratio <= most,
                }
            )
        else:
            found.append({"budget": name, "ratio": None, "most": most, "pass": None})
    return found


def _cell(verdict: dict[str, Any]) -> str:
    if verdict["ratio"] is None:
        return "n/a"
    mark = "PASS" if verdict["pass"] else "FAIL"
    return f"{verdict['ratio']:6.3f} {mark}"


def table(rows: list[dict[str, Any]], clock: str) -> str:
    """The results as text: times per call in µs, then each budget's ratio and verdict."""
    names = (SS, NAIVE, EXPERT, EXPERT_TC, SS_TC)
    short = ("ss", "naive", "expert", "tc(expert)", "ss+switch")
    head = f"{'case':<10}{'size':<8}" + "".join(f"{s:>11}" for s in short)
    head += "".join(f"{label:>14}" for label in BUDGET_LABELS)
    lines = [head + f"   (µs per call, {clock} clock; ratio and verdict per budget)"]
    for row in rows:
        text = f"{row['case']:<10}{row['size']:<8}"
        if row["disagreements"]:
            lines.append(text + "variants disagree: " + "; ".join(row["disagreements"]))
            continue
        times = row[f"median_us_{clock}"]
        text += "".join(f"{times[n]:11.1f}" if n in times else f"{'n/a':>11}" for n in names)
        text += "".join(f"{_cell(v):>14}" for v in row["budgets"])
        lines.append(text)
    return "\n".join(lines)


def run_case(
    case: str, size: Size, *, rounds: int, torch_compile: bool, clock: str
) -> dict[str, Any]:
    built = build_case(case, size, torch_compile=torch_compile)
    row: dict[str, Any] = {
        "case": case,
        "size": size.name,
        "b": size.b,
        "n": size.n,
        "D": size.width,
        "H": size.heads,
        "notes": built.notes,
        "disagreements": disagreements(built),
        "median_us_wall": {},
        "median_us_cpu": {},
        "budgets": [],
    }
    if not row["disagreements"]:
        samples = measure(built.variants, rounds)
        for name, seconds in medians(samples).items():
            row[f"median_us_{name}"] = {variant: s * 1e6 for variant, s in seconds.items()}
        row["budgets"] = verdicts(samples, clock)
    return row


def _names(text: str, known: tuple[str, ...] | dict, what: str) -> list[str]:
    names = [name for name in text.split(",") if name]
    unknown = [name for name in names if name not in known]
    if unknown:
        raise SystemExit(f"unknown {what}: {', '.join(unknown)} (choose from {', '.join(known)})")
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21, help="interleaved rounds (21)")
    parser.add_argument("--sizes", default="small,medium,large", help="comma-separated sizes")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated cases")
    parser.add_argument(
        "--no-compile",
        action="store_true",
        help="skip torch.compile of the expert code and the ShapeScript switch (slow to compile)",
    )
    parser.add_argument(
        "--clock",
        choices=tuple(CLOCKS),
        default="wall",
        help="what the budgets are judged on: wall time (default) or the process's CPU time, "
        "which other work on a busy machine changes less; both are recorded",
    )
    parser.add_argument("--output", type=Path, default=RESULTS, help="where the JSON goes")
    args = parser.parse_args(argv)
    sizes = _names(args.sizes, SIZES, "size")
    cases = _names(args.cases, CASES, "case")
    torch.set_num_threads(1)
    rt_devices._reset_for_tests()
    shapescript.devices("cpu")
    compile_on = not args.no_compile
    rows = []
    for size in sizes:
        for case in cases:
            row = run_case(
                case, SIZES[size], rounds=args.rounds, torch_compile=compile_on, clock=args.clock
            )
            rows.append(row)
            print(table([row], args.clock).splitlines()[1], flush=True)
    print()
    print(table(rows, args.clock))
    checked = [v for row in rows for v in row["budgets"] if v["pass"] is not None]
    failed = [
        f"{row['case']} {row['size']}: {v['budget']} {v['ratio']:.3f}x > {v['most']}x"
        for row in rows
        for v in row["budgets"]
        if v["pass"] is False
    ]
    for row in rows:
        for note in row["notes"]:
            print(f"{row['case']} {row['size']}: {note}")
    print(f"\nbudgets: {len(checked) - len(failed)} of {len(checked)} pass")
    for line in failed:
        print(f"  FAIL {line}")
    if not switch_available():
        print("shapescript.torch_compile doesn't exist yet: the switch's column is n/a")
    result = {
        **environment(),
        "threads": 1,
        "rounds": args.rounds,
        "clock": args.clock,
        "torch": torch.__version__,
        "torch_compile": compile_on,
        "switch": switch_available(),
        "tolerance": {"relative": TOLERANCE, "update": UPDATE_TOLERANCE},
        "rows": rows,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    write_text(args.output, json.dumps(result, indent=2) + "\n")
    return 1 if any(row["disagreements"] for row in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
