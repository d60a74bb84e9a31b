"""`verify(path, fn)`: the function run exactly and compiled in each float dtype on the
same small, seeded inputs, compared output by output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shapescript.analysis import check
from shapescript.check.algebra.types import TensorType
from shapescript.deep import run_deep
from shapescript.small_examples import Example, example, small_file, why_not_run
from shapescript.syntax.source import SourceFile
from shapescript.verify.arith import Exact
from shapescript.verify.interpreter import Interpreter
from shapescript.verify.report import Blame, Report, Row
from shapescript.verify.values import AssertFailed, ModelValue, Unsupported, compare

DTYPES = {"f32": "float32", "bf16": "bfloat16", "f16": "float16", "f64": "float64"}
#: The input sets: the drawn values as they are, scaled up (exp overflows), and shifted
#: far from 0 (sums of squares cancel). Weights and values of bounded domains stay.
INPUT_SETS = {"typical": (1.0, 0.0), "large": (100.0, 0.0), "offset": (1.0, 1000.0)}


class VerifyError(Exception):
    """Why a function can't be verified, said for the person who asked."""


def verify(
    path: str | Path,
    fn: str,
    *,
    dims: dict[str, int] | None = None,
    digits: int = 50,
    seed: int = 0,
    dtypes: tuple[str, ...] = ("f32", "bf16", "f16"),
    inputs: tuple[str, ...] = tuple(INPUT_SETS),
    tolerance: float | None = None,
    text: str | None = None,
) -> Report:
    """Run `fn` of the file exactly and compiled in each dtype; the report of their errors."""
    for dtype in dtypes:
        if dtype not in DTYPES:
            raise VerifyError(f"unknown dtype `{dtype}`: use {', '.join(DTYPES)}")
    for name in inputs:
        if name not in INPUT_SETS:
            raise VerifyError(f"unknown input set `{name}`: use {', '.join(INPUT_SETS)}")
    source_text = Path(path).read_text(encoding="utf-8") if text is None else text
    checked = check(SourceFile.from_text(str(path), source_text))
    if checked.errors:
        raise VerifyError(f"{path} has errors: run `shapescript check {path}` to see them")
    small = small_file(checked)
    if small is None:
        raise VerifyError(
            f"{path} doesn't check with its dims made small: give their sizes (--dims D=8,H=2)"
        )
    if dims:
        unknown = sorted(set(dims) - set(small.dim_values))
        if unknown:
            raise VerifyError(f"{path} has no literal dim {', '.join(unknown)}")
        resized = SourceFile.from_text(str(path), _with_dims(small.source.text, dims))
        small = check(resized)
        if small.errors:
            raise VerifyError(f"{path} doesn't check with the dims given")
    reason = why_not_run(small, fn)
    if reason is not None:
        raise VerifyError(f"`{fn}` can't be verified: {reason}")
    built = example(small, fn, shrink=False)
    if built is None:
        raise VerifyError(f"`{fn}` can't be built with small dims for a reference run")
    report = Report(fn, dict(built.dims), digits, seed, tolerance=tolerance)
    return run_deep(_fill, report, small, built, dtypes, inputs)


def _with_dims(text: str, dims: dict[str, int]) -> str:
    """The source with the named dims' values replaced."""
    from shapescript.small_examples import _DIM

    def replace(match: Any) -> str:
        name = match[1].split("dim", 1)[1].split("=")[0].strip()
        if name in dims:
            return f"{match[1]}{dims[name]}{match[3]}"
        return match[0]

    return _DIM.sub(replace, text)


def _fill(report: Report, checked: Any, built: Example, dtypes: Any, inputs: Any) -> Report:
    import torch

    from shapescript.codegen import BuildOptions, generate

    # Without the checks, which insist on each parameter's own dtype: every float here
    # is the dtype being measured.
    options = BuildOptions(standalone=True, devices="cpu", checks="never", value_checks="never")
    code = generate(checked, options).source
    namespace: dict[str, Any] = {"__name__": "_ss_verify"}
    exec(compile(code, f"<verify {built.function}>", "exec"), namespace)
    function = namespace.get(built.function) or namespace[built.function + "_"]
    exact_arithmetic = Exact(report.digits)
    worst_blame: Blame | None = None
    for set_name in inputs:
        scale, shift = INPUT_SETS[set_name]
        arguments = [
            _torch_value(torch, namespace, a, scale, shift, report.seed) for a in built.arguments
        ]
        interpreter = Interpreter(checked, exact_arithmetic, trace=True)
        exact_args = [_exact_value(exact_arithmetic, torch, value) for value in arguments]
        try:
            exact = interpreter.call(built.function, exact_args)
        except (Unsupported, AssertFailed) as exc:
            raise VerifyError(str(exc)) from exc
        outputs = _outputs(exact)
        for dtype in dtypes:
            with torch.no_grad():
                cast = [_cast(torch, value, getattr(torch, DTYPES[dtype])) for value in arguments]
                result = _outputs(function(*cast))
            for (label, want), (_, got) in zip(outputs, result, strict=True):
                if isinstance(got, torch.Tensor):
                    got = got.detach().to(torch.float64).numpy()
                report.rows.append(Row(label, dtype, set_name, compare(got, want)))
        for error in interpreter.op_errors:
            if worst_blame is None or _worse(error.worst, worst_blame.worst):
                worst_blame = Blame(error.operation, error.line, set_name, error.worst)
    report.blame = worst_blame
    return report


def _worse(one: Any, other: Any) -> bool:
    return (one.not_finite > 0, one.relative) > (other.not_finite > 0, other.relative)


def _outputs(value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, tuple | list):
        return [(f"result[{index}]", part) for index, part in enumerate(value)]
    return [("result", value)]


def _torch_value(
    torch: Any, namespace: dict[str, Any], argument: Any, scale: float, shift: float, seed: int
) -> Any:
    value = argument.value
    if isinstance(value, dict) and "model" in value:
        return namespace[value["model"]].init(seed=seed)
    if isinstance(value, dict) and "tensor" in value:
        tensor = torch.tensor(value["tensor"], dtype=getattr(torch, value["dtype"]))
        type_ = argument.type
        changeable = (
            not argument.weight
            and isinstance(type_, TensorType)
            and type_.domain.name in ("Real", "Logit")
            and type_.domain.interval is None
            and tensor.is_floating_point()
        )
        if changeable:
            tensor = tensor * scale + shift
        return tensor
    if isinstance(value, dict) and value.get("mode") == "Eval":
        return namespace["_ss_Eval"]
    return value


def _cast(torch: Any, value: Any, dtype: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, torch.nn.Module):
        import copy

        return copy.deepcopy(value).to(dtype)
    return value


def _exact_value(arithmetic: Exact, torch: Any, value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        data = value.detach().numpy()
        return arithmetic.array(data) if value.is_floating_point() else data
    if isinstance(value, torch.nn.Module):
        return _exact_model(arithmetic, torch, value)
    return value


def _exact_model(arithmetic: Exact, torch: Any, model: Any) -> ModelValue:
    """A compiled model's params, buffers and sub-models (a list of them for a stack) as
    exact values, walked without recursion."""
    top = ModelValue(type(model).__name__)
    waiting = [(model, top)]
    while waiting:
        module, value = waiting.pop()
        tensors = [*module.named_parameters(recurse=False), *module.named_buffers(recurse=False)]
        for name, tensor in tensors:
            value.fields[name] = _exact_value(arithmetic, torch, tensor)
        for name, child in module.named_children():
            if isinstance(child, torch.nn.ModuleList):
                items = [ModelValue(type(part).__name__) for part in child]
                value.fields[name] = items
                waiting.extend(zip(child, items, strict=True))
            else:
                inner = ModelValue(type(child).__name__)
                value.fields[name] = inner
                waiting.append((child, inner))
    return top


__all__ = ["INPUT_SETS", "VerifyError", "verify"]
