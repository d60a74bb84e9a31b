"""benchmarks/vs_torch.py: every variant of every case computes the same thing, a variant
that computes something else is caught before it is timed, and one round writes the table
and the results. Nothing here asserts a time."""

from __future__ import annotations

import json

import pytest
import torch
import torch.nn.functional as F

import shapescript
from benchmarks import hand_written, vs_torch
from shapescript.rt import devices as rt_devices
from shapescript.rt.torch_compile import CompiledBody

#: Smaller than the benchmark's small size, so that the check runs fast.
TINY = vs_torch.Size("tiny", 2, 8, 64)


@pytest.fixture(autouse=True)
def _one_cpu():
    threads = torch.get_num_threads()
    rt_devices._reset_for_tests()
    shapescript.devices("cpu")
    yield
    rt_devices._reset_for_tests()
    torch.set_num_threads(threads)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(case, marks=[pytest.mark.slow] if case == "train" else [])
        for case in vs_torch.CASES
    ],
)
def test_compiled_naive_and_expert_agree_on_each_case(case: str) -> None:
    built = vs_torch.build_case(case, TINY, torch_compile=False)
    assert set(built.variants) == {vs_torch.SS, vs_torch.NAIVE, vs_torch.EXPERT}
    assert vs_torch.disagreements(built) == []


def test_an_expert_attention_without_its_mask_is_caught(monkeypatch) -> None:
    def unmasked(x, w_qkv, w_o):
        q, k, v = hand_written._heads(F.linear(x, w_qkv))
        return F.linear(hand_written._merge(F.scaled_dot_product_attention(q, k, v)), w_o)

    monkeypatch.setattr(hand_written, "expert_attention", unmasked)
    problems = vs_torch.disagreements(vs_torch.build_case("attention", TINY, torch_compile=False))
    assert len(problems) == 1 and problems[0].startswith("expert: y differs from naive's")


@pytest.mark.slow
def test_a_training_step_that_skips_the_update_is_caught(monkeypatch) -> None:
    def no_step(loss, opt):
        return loss().detach()

    monkeypatch.setattr(hand_written, "train_step", no_step)
    problems = vs_torch.disagreements(vs_torch.build_case("train", TINY, torch_compile=False))
    # Naive is the reference: now ShapeScript's step, which updates, is the one that differs.
    assert any(problem.startswith("shapescript: h.0.w_qkv differs") for problem in problems)
    assert not any("loss" in problem for problem in problems)


@pytest.mark.slow
def test_one_round_prints_the_budgets_and_writes_the_results(tmp_path, capsys) -> None:
    output = tmp_path / "vs_torch.json"
    argv = ["--sizes", "small", "--cases", "attention,mlp", "--rounds", "1", "--no-compile"]
    assert vs_torch.main([*argv, "--output", str(output)]) == 0
    printed = capsys.readouterr().out
    assert "budgets:" in printed and "ss/expert" in printed
    rows = json.loads(output.read_text(encoding="utf-8"))["rows"]
    assert [(row["case"], row["size"]) for row in rows] == [
        ("attention", "small"),
        ("mlp", "small"),
    ]
    for row in rows:
        assert row["disagreements"] == []
        assert (
            set(row["median_us_wall"])
            == set(row["median_us_cpu"])
            == {vs_torch.SS, vs_torch.NAIVE, vs_torch.EXPERT}
        )
        ratios = {verdict["budget"]: verdict["ratio"] for verdict in row["budgets"]}
        assert ratios["switch/torch.compile(expert)"] is None
        assert ratios["shapescript/naive"] > 0 and ratios["shapescript/expert"] > 0


def test_an_unknown_size_is_named() -> None:
    with pytest.raises(SystemExit, match="unknown size: huge"):
        vs_torch.main(["--sizes", "huge"])


def test_the_switch_gets_its_column_once_it_exists(monkeypatch) -> None:
    switched: list[bool] = []
    compile_program = shapescript.compile

    def compiled(*args, torch_compile=None, **options):
        switched.append(bool(torch_compile))
        return compile_program(*args, **options)

    monkeypatch.setattr(shapescript, "compile", compiled)
    monkeypatch.setattr(vs_torch.torch, "compile", lambda function, **options: function)
    built = vs_torch.build_case("attention", TINY, torch_compile=True)
    assert list(built.variants) == [
        vs_torch.SS,
        vs_torch.NAIVE,
        vs_torch.EXPERT,
        vs_torch.EXPERT_TC,
        vs_torch.SS_TC,
    ]
    assert switched == [False, True]
    assert vs_torch.disagreements(built) == []


def test_where_torch_compile_refuses_the_expert_code_its_column_is_left_out(monkeypatch) -> None:
    def refusing(function, **options):
        def refuse(*args, **kwargs):
            raise RuntimeError("no C compiler\nmore of torch's advice")

        return refuse

    monkeypatch.setattr(vs_torch.torch, "compile", refusing)
    monkeypatch.setattr(vs_torch, "switch_available", lambda: False)
    built = vs_torch.build_case("mlp", TINY, torch_compile=True)
    assert vs_torch.disagreements(built) == []
    assert vs_torch.EXPERT_TC not in built.variants
    assert built.notes == ["torch.compile(expert) left out: RuntimeError: no C compiler"]


def _counting_variants(names: list[str], log: list[str]) -> dict[str, vs_torch.Variant]:
    def runner(name: str):
        return lambda: log.append(name)

    return {name: vs_torch.Variant(runner(name), lambda result: {}) for name in names}


def test_each_round_starts_with_another_variant(monkeypatch) -> None:
    monkeypatch.setattr(vs_torch, "BATCH_SECONDS", 0.0)
    names = [vs_torch.SS, vs_torch.NAIVE, vs_torch.EXPERT]
    log: list[str] = []
    samples = vs_torch.measure(_counting_variants(names, log), rounds=3)
    timed = log[3 * len(names) :]  # after each variant's warm-up and sizing calls
    per_round = vs_torch.MIN_CALLS * len(names)
    firsts = [timed[start] for start in range(0, len(timed), per_round)]
    assert sorted(firsts) == sorted(names)
    assert all(len(values) == 3 for values in samples.values())


def test_a_variant_slower_than_a_batch_still_gets_several_calls_a_round(monkeypatch) -> None:
    monkeypatch.setattr(vs_torch, "BATCH_SECONDS", 0.0)
    log: list[str] = []
    vs_torch.measure(_counting_variants([vs_torch.SS, vs_torch.NAIVE], log), rounds=2)
    timed = log[3 * 2 :]
    assert timed.count(vs_torch.SS) == timed.count(vs_torch.NAIVE) >= 2 * 3


def test_a_budget_is_judged_on_the_median_of_each_rounds_own_ratio() -> None:
    # Three rounds: ShapeScript twice as slow as expert in two of them. The medians of the
    # times alone (2 against 2) would call them equal.
    samples = {
        vs_torch.SS: [(1.0, 1.0), (2.0, 2.0), (10.0, 10.0)],
        vs_torch.NAIVE: [(4.0, 4.0), (4.0, 4.0), (40.0, 40.0)],
        vs_torch.EXPERT: [(2.0, 2.0), (1.0, 1.0), (5.0, 5.0)],
    }
    found = {v["budget"]: v for v in vs_torch.verdicts(samples, "cpu")}
    expert = found["shapescript/expert"]
    assert (expert["ratio"], expert["lowest"], expert["highest"]) == (2.0, 0.5, 2.0)
    assert expert["pass"] is False
    assert found["shapescript/naive"]["ratio"] == 0.25
    assert found["switch/torch.compile(expert)"]["ratio"] is None


def _tensors_reached(function) -> list[torch.Tensor]:
    """The tensors a variant's closures hold, through the functions and dicts they hold."""
    found, seen, stack = [], set(), [function]
    while stack:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, torch.Tensor):
            found.append(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif callable(value) and getattr(value, "__closure__", None):
            stack.extend(cell.cell_contents for cell in value.__closure__)
    return found


@pytest.mark.parametrize("case", ["attention", "mlp"])
def test_the_switch_marks_no_tensor_the_expert_code_reads(monkeypatch, case: str) -> None:
    # The switch marks its inputs' varying axes dynamic for torch.compile once their sizes
    # change; a tensor the compiled expert code also read would be traced dynamic there too,
    # not as asked. Every call here looks like a new size, so the switch marks at once (a
    # "compiled" body that is the eager one itself would never get that far).
    monkeypatch.setattr(
        vs_torch.torch, "compile", lambda function, **options: lambda *a: function(*a)
    )
    calls = iter(range(1_000_000))
    monkeypatch.setattr(CompiledBody, "_sizes", lambda self, args: (next(calls),))
    built = vs_torch.build_case(case, TINY, torch_compile=True)
    assert vs_torch.disagreements(built) == []
    switched = built.variants[vs_torch.SS_TC].run
    switched()
    switched()

    def marked(name: str) -> list[torch.Tensor]:
        return [
            tensor
            for tensor in _tensors_reached(built.variants[name].run)
            if hasattr(tensor, "_dynamo_weak_dynamic_indices")
        ]

    assert marked(vs_torch.SS_TC)
    assert marked(vs_torch.EXPERT) == []
    assert marked(vs_torch.EXPERT_TC) == []
