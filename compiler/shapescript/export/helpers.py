"""The Python an export module adds to a standalone build: checks as torch asserts, the
example inputs, the dynamic shapes and the call of `torch.export.export`.

It is text, put into the generated module (and run in the calling Python by
`shapescript.export`), so the module needs torch and einops only.
"""

from __future__ import annotations

HELPERS = r'''
import math as _ss_export_math
import sys as _ss_sys
import traceback as _ss_traceback
import inspect as _ss_inspect


def _ss_domain_error(bad, spec, index, what, value=None):
    path, line, column, function, params = spec
    name, pline, pcolumn = params[index][:3]
    _ss_torch._assert_async(
        ~_ss_whole(bad),
        f"{path}:{pline}:{pcolumn}: in fn {function}, argument for parameter `{name}`: "
        f"its values break the domain's promise ({what})",
    )


def _ss_as_shape(value, sizes, dtype, site):
    path, line, column, function = site
    shape = tuple(value.shape)
    if len(shape) != len(sizes) or (dtype is not None and value.dtype != dtype):
        raise ValueError(
            f"{path}:{line}:{column}: in fn {function}: `as` expected shape "
            f"{tuple('?' if s is None else s for s in sizes)}, got {shape}"
        )
    for have, want in zip(shape, sizes):
        if want is not None:
            _ss_torch._check(
                have == want,
                lambda: f"{path}:{line}:{column}: in fn {function}: `as` expected shape "
                f"{tuple('?' if s is None else s for s in sizes)}",
            )
        elif not isinstance(have, int):
            _ss_torch._check(have >= 0)
    return value


def _ss_as_domain(value, bad, what, site):
    path, line, column, function = site
    _ss_torch._assert_async(
        ~_ss_whole(bad),
        f"{path}:{line}:{column}: in fn {function}: `as` claimed {what}, and it isn't so",
    )
    return value


def _ss_tensor(value):
    """A block's value as torch.cond and torch.while_loop carry it: a number is a 0-d tensor."""
    if isinstance(value, _ss_torch.Tensor):
        return value.clone()
    return _ss_torch.tensor(value)


def _ss_block(function):
    """The block's function giving tensors that don't alias its inputs, as torch asks."""

    def run(*args):
        return tuple(_ss_tensor(value) for value in function(*args))

    return run


def _ss_cond(condition, then, other, operands):
    """An `if`: Python when the condition is known while tracing, else torch.cond."""
    if isinstance(condition, bool):
        return then(*operands) if condition else other(*operands)
    operands = tuple(_ss_tensor(value) for value in operands)
    return _ss_torch.cond(condition, _ss_block(then), _ss_block(other), operands)


def _ss_not(value):
    """`not` on a host bool that may be a block's 0-d tensor."""
    if isinstance(value, _ss_torch.Tensor):
        return _ss_torch.logical_not(value)
    return not value


def _ss_and(left, right):
    """`and` of host bools either of which may be a block's 0-d tensor."""
    if isinstance(left, _ss_torch.Tensor) or isinstance(right, _ss_torch.Tensor):
        return _ss_torch.logical_and(_ss_torch.as_tensor(left), _ss_torch.as_tensor(right))
    return left and right


def _ss_or(left, right):
    """`or` of host bools either of which may be a block's 0-d tensor."""
    if isinstance(left, _ss_torch.Tensor) or isinstance(right, _ss_torch.Tensor):
        return _ss_torch.logical_or(_ss_torch.as_tensor(left), _ss_torch.as_tensor(right))
    return left or right


def _ss_at(value, *indices):
    """`value[i, j]` where an index may be a block's 0-d tensor: a tensor index selects
    with index_select (counting from the end when negative), a number as Python does."""
    dim = 0
    for index in indices:
        if isinstance(index, _ss_torch.Tensor):
            index = _ss_torch.where(index < 0, index + value.shape[dim], index)
            value = value.index_select(dim, index.reshape(1).to(_ss_torch.int64)).squeeze(dim)
        elif index is None:
            value = value.unsqueeze(dim)
            dim += 1
        else:
            value = value[(slice(None),) * dim + (index,)]
    return value


def _ss_host_tensor(value, dtype=None, device=None):
    """`to` a tensor of a host number that may already be a block's 0-d tensor."""
    if isinstance(value, _ss_torch.Tensor):
        return value.to(dtype=dtype, device=device)
    return _ss_torch.tensor(value, dtype=dtype, device=device)


def _ss_counter(value):
    if isinstance(value, int):
        return _ss_torch.tensor(value)
    return _ss_torch.scalar_tensor(value, dtype=_ss_torch.int64)


def _ss_loop(low, high, body, carried):
    """A `for` over a range: unrolled when both ends are numbers while tracing, else
    torch.while_loop with the counter and the carried values as tensors."""
    if isinstance(low, int) and isinstance(high, int):
        for index in range(low, high):
            carried = tuple(body(index, *carried))
        return carried
    start = _ss_counter(low)
    end = _ss_counter(high)

    def condition(index, end, *values):
        return index < end

    def step(index, end, *values):
        made = tuple(_ss_tensor(value) for value in body(index, *values))
        return (index + 1, end.clone(), *made)

    values = tuple(_ss_tensor(value) for value in carried)
    return tuple(_ss_torch._higher_order_ops.while_loop(condition, step, (start, end, *values))[2:])


def _ss_example(item, device):
    shape = [axis[1] for axis in item["axes"]]
    dtype = getattr(_ss_torch, item["dtype"])
    generator = _ss_torch.Generator().manual_seed(item["position"] + 1)
    domain = item["domain"]
    if dtype is _ss_torch.bool or domain == "Mask":
        made = _ss_torch.rand(shape, generator=generator) < 0.5
    elif domain == "Index":
        top = item["size"] or 2
        made = _ss_torch.randint(0, top, shape, generator=generator)
    elif domain == "Binary":
        made = (_ss_torch.rand(shape, generator=generator) < 0.5).double()
    elif domain == "Additive":
        made = _ss_torch.zeros(shape)
    elif domain in ("Prob", "LogProb"):
        over = item["over"] if item["over"] is not None else len(shape) - 1
        made = _ss_torch.randn(shape, generator=generator, dtype=_ss_torch.float64)
        made = made.softmax(over) if domain == "Prob" else made.log_softmax(over)
    else:
        made = _ss_torch.randn(shape, generator=generator, dtype=_ss_torch.float64)
        low, high = item["low"], item["high"]
        if low is not None and high is not None:
            finite_low = _ss_export_math.isfinite(low)
            finite_high = _ss_export_math.isfinite(high)
            if finite_low and finite_high:
                unit = _ss_torch.rand(shape, generator=generator, dtype=_ss_torch.float64)
                made = low + (high - low) * (0.05 + 0.9 * unit)
            elif finite_low:
                made = low + 0.05 + made.abs()
            elif finite_high:
                made = high - 0.05 - made.abs()
    return made.to(dtype=dtype, device=device)


def _ss_dynamic_shapes(spec):
    from torch.export import Dim

    dims = {name: Dim(name, min=least) for name, least in spec["dims"].items()}
    shapes = []
    for item in spec["inputs"]:
        axes = {}
        for index, (kind, _example, dim, factor, offset) in enumerate(item["axes"]):
            if kind == "dim":
                axes[index] = dims[dim]
            elif kind == "derived":
                axes[index] = factor * dims[dim] + offset
            elif kind == "auto":
                axes[index] = Dim.AUTO
        shapes.append(axes or None)
    return tuple(shapes)


class _ss_WeightsError(ValueError):
    """The weights given for the model can't be read: not a failure of torch.export."""


def _ss_baked_model(spec, device, weights=None, seed=0):
    """The model a function that takes one first is exported with: `M.init(seed=seed)`,
    or the first model of its type in a checkpoint `save` wrote (a path), or a state dict."""
    cls = globals()[spec["model"]]
    model = cls.init(seed=seed)
    if weights is None:
        return model.to(device)
    state = weights
    if not isinstance(weights, dict):
        data = _ss_torch.load(weights, map_location=device, weights_only=True)
        values = data.get("values", []) if isinstance(data, dict) else []
        found = [
            entry.get("tensors")
            for entry in values
            if isinstance(entry, dict)
            and entry.get("kind") == "model"
            and entry.get("type") == spec["model"]
        ]
        if not found:
            raise _ss_WeightsError(
                f"`{weights}` holds no {spec['model']} model that save wrote"
            )
        state = found[0]
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as error:
        first = str(error).strip().splitlines()[0]
        raise _ss_WeightsError(f"the weights don't fit {spec['model']}: {first}") from None
    return model.to(device)


def _ss_program(function, spec, model=None):
    """The exported function as a module whose inputs are its tensor parameters, by name.

    A model the function takes first is a submodule under the parameter's name, so its
    fields are the program's parameters and buffers, as torch.export keeps a module's."""
    names = list(_ss_inspect.signature(function).parameters)
    inputs = [names[item["position"]] for item in spec["inputs"]]
    given = [f"{name}={name}" for name in inputs]
    given += [f"{name}=_ss_eval" for name in spec.get("modes", ())]
    if model is not None:
        given.insert(0, f"self.{spec['model_param']}")
    passed = ", ".join(given)
    # Dropout off: the build's own Eval, which a function that never reads its mode lacks.
    space = {"_ss_function": function, "_ss_eval": function.__globals__.get("_ss_Eval")}
    exec(f"def forward(self, {', '.join(inputs)}):\n    return _ss_function({passed})\n", space)
    made = type("ShapeScriptProgram", (_ss_torch.nn.Module,), {"forward": space["forward"]})
    program = made()
    if model is not None:
        setattr(program, spec["model_param"], model)
    return program


def _ss_export(function, spec, device, output=None, aoti=False, weights=None, seed=0):
    """Trace the function with example inputs and the signature's dynamic shapes."""
    import torch.fx.experimental._config as fx_config

    model = None
    if spec.get("model") is not None:
        model = _ss_baked_model(spec, device, weights, seed)
    program = _ss_program(function, spec, model)
    examples = tuple(_ss_example(item, device) for item in spec["inputs"])
    dynamic = _ss_dynamic_shapes(spec)

    def traced(dynamic):
        try:
            with fx_config.patch(backed_size_oblivious=True):
                return _ss_torch.export.export(program, examples, dynamic_shapes=dynamic)
        except Exception:
            return _ss_torch.export.export(program, examples, dynamic_shapes=dynamic)

    try:
        exported = traced(dynamic)
    except Exception as error:
        bounds = _ss_bounds(str(error))
        if not bounds:
            raise
        from torch.export.dynamic_shapes import refine_dynamic_shapes_from_suggested_fixes

        fixes = "Suggested fixes:\n" + "\n".join(bounds)
        exported = traced(refine_dynamic_shapes_from_suggested_fixes(fixes, dynamic))
        for bound in bounds:
            print(
                f"note: the function's checks (an `as`, say) bound a size: {bound}",
                file=_ss_sys.stderr,
            )
    if output is not None:
        with _ss_replacing(output) as stream:
            if aoti:
                _ss_torch._inductor.aoti_compile_and_package(exported, package_path=stream)
            else:
                _ss_torch.export.save(exported, stream)
    return exported


def _ss_bounds(message):
    """The range torch.export suggests for each size the function's checks bound (an `as`
    that holds only up to a table's length), or [] when it suggests anything else."""
    if "Suggested fixes:" not in message:
        return []
    lines = message.split("Suggested fixes:", 1)[1].strip().splitlines()
    fixes = []
    for line in lines:
        if not line.strip():
            break
        fixes.append(line.strip())
    if not fixes or not all("= Dim(" in fix for fix in fixes):
        return []
    return fixes


class _ss_replacing:
    """The rules of `shapescript.atomic_write`, for a module that runs without shapescript:
    a new file made with O_EXCL beside the file `output` names (a link the user named is
    written through), synced, then renamed over it; removed if the block raises."""

    def __init__(self, output):
        import os
        import re
        import socket

        self.target = os.path.realpath(output)
        folder, name = os.path.split(self.target)
        host = re.sub(r"[^A-Za-z0-9_]", "_", socket.gethostname())[:40] or "host"
        self.prefix = f".{name[:80]}.sstmp-{host}-{os.getpid()}-"
        self.folder = folder

    def __enter__(self):
        import os
        import tempfile

        descriptor, self.temporary = tempfile.mkstemp(
            prefix=self.prefix, suffix=".tmp", dir=self.folder
        )
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(descriptor, 0o666 & ~mask)
        self.stream = os.fdopen(descriptor, "w+b")
        return self.stream

    def __exit__(self, kind, error, trace):
        import os

        try:
            if kind is None:
                self.stream.flush()
                os.fsync(self.stream.fileno())
            self.stream.close()
            if kind is None:
                os.replace(self.temporary, self.target)
        finally:
            if os.path.lexists(self.temporary):
                os.unlink(self.temporary)
        return False


def _ss_where(error, path, lines):
    """The `.ss` line of the innermost frame of the module in the error's traceback."""
    found = None
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        for frame in _ss_traceback.extract_tb(error.__traceback__):
            if frame.filename == path and frame.lineno in lines:
                found = lines[frame.lineno]
        error = error.__cause__ or error.__context__
    return found


def _ss_main(function, spec, device, source, lines, argv=None):
    import argparse

    parser = argparse.ArgumentParser(description=f"export {spec['function']} with torch.export")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--aoti", action="store_true")
    parser.add_argument("--weights", help="a checkpoint save wrote, for a model taken first")
    parser.add_argument("--seed", type=int, default=0, help="else new weights from this seed")
    args = parser.parse_args(argv)
    try:
        _ss_export(function, spec, device, args.output, args.aoti, args.weights, args.seed)
    except _ss_WeightsError as error:
        print(f"{source}: error: {error}", file=_ss_sys.stderr)
        return 1
    except Exception as error:
        line = _ss_where(error, __file__, lines)
        where = f"{source}:{line}: " if line is not None else f"{source}: "
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        message = f"{where}error: torch.export failed: {type(error).__name__}: {first}"
        print(message, file=_ss_sys.stderr)
        return 1
    return 0
'''
