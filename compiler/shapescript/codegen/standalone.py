"""The few helpers a `--standalone` module defines itself instead of importing
`shapescript.rt`: its checks raise plain ValueError and RuntimeError."""

from __future__ import annotations

HELPERS = """
def _ss_argument_error(spec, index, value, known):
    path, line, column, function, params = spec
    name, pline, pcolumn, shown, _axes, dtype = params[index]
    shape = tuple(getattr(value, "shape", ()))
    got = f"shape {shape}, {getattr(value, 'dtype', type(value).__name__)}"
    device = getattr(value, "device", None)
    if device is not None and device != known.get("_ss_dev"):
        raise RuntimeError(
            f"{path}:{pline}:{pcolumn}: in fn {function}, argument for parameter `{name}`: "
            f"it is on {device}, not {known.get('_ss_dev')}"
        )
    raise ValueError(
        f"{path}:{pline}:{pcolumn}: in fn {function}, argument for parameter `{name}`: "
        f"expected {shown}, got {got}"
    )


def _ss_not_tensors(spec, known):
    for index, param in enumerate(spec[4]):
        value = known.get(param[0], known.get(param[0] + "_"))
        if param[5] is not None and not isinstance(value, _ss_torch.Tensor):
            _ss_argument_error(spec, index, value, known)


def _ss_whole(bad):
    while _ss_torch._C._functorch.is_batchedtensor(bad):
        bad = _ss_torch._C._functorch.get_unwrapped(bad)
    return bad.any()


def _ss_domain_error(bad, spec, index, what, value=None):
    if bad.device.type == "cuda":
        _ss_torch._assert_async(~_ss_whole(bad))
        return
    if bool(_ss_whole(bad)):
        path, line, column, function, params = spec
        name, pline, pcolumn = params[index][:3]
        raise ValueError(
            f"{path}:{pline}:{pcolumn}: in fn {function}, argument for parameter `{name}`: "
            f"its values break the domain's promise ({what})"
        )


def _ss_as_shape(value, sizes, dtype, site):
    path, line, column, function = site
    shape = tuple(getattr(value, "shape", ()))
    if len(shape) != len(sizes) or any(
        want is not None and have != want for have, want in zip(shape, sizes)
    ) or (dtype is not None and getattr(value, "dtype", None) != dtype):
        raise ValueError(
            f"{path}:{line}:{column}: in fn {function}: `as` expected shape "
            f"{tuple('?' if s is None else s for s in sizes)}, got {shape}"
        )
    return value


def _ss_as_domain(value, bad, what, site):
    if bool(_ss_whole(bad)):
        path, line, column, function = site
        raise ValueError(
            f"{path}:{line}:{column}: in fn {function}: `as` claimed {what}, and it isn't so"
        )
    return value


class _SSMissing:
    __slots__ = ()

    def __repr__(self):
        return "<no argument>"


_ss_missing = _SSMissing()


def _ss_written_signature(function):
    import inspect

    signature = inspect.signature(function)
    return signature.replace(parameters=[
        p.replace(default=inspect.Parameter.empty) if p.default is _ss_missing else p
        for p in signature.parameters.values()
        if p.kind is not inspect.Parameter.VAR_POSITIONAL
    ])


def _ss_call_error(spec, more, known):
    path, line, column, function, params = spec
    names = ", ".join(param[0] for param in params)
    if more:
        raise TypeError(
            f"{path}:{line}:{column}: fn {function}({names}) takes {len(params)} "
            f"arguments, but {len(params) + len(more)} were given"
        )
    missing = [p for p in params if known.get(p[0], known.get(p[0] + "_")) is _ss_missing]
    raise TypeError(
        f"{path}:{missing[0][1]}:{missing[0][2]}: in fn {function}: no argument was given "
        f"for {', '.join(p[0] for p in missing)}; fn {function} takes {names}"
    )


def _ss_host_error(spec, index, value, kind):
    path, line, column, function, params = spec
    name, pline, pcolumn = params[index][:3]
    is_bool = isinstance(value, bool) or (
        type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_")
    )
    tensor = isinstance(value, _ss_torch.Tensor)
    if kind == "bool":
        fits = is_bool
    elif kind == "int":
        fits = (
            hasattr(type(value), "__index__") and not is_bool and not tensor
            and -2**63 <= value.__index__() < 2**63
        )
    else:
        fits = not is_bool and not tensor and (
            isinstance(value, (int, float))
            or (type(value).__module__ == "numpy" and hasattr(type(value), "__float__"))
        )
    if not fits:
        raise ValueError(
            f"{path}:{pline}:{pcolumn}: in fn {function}, argument for parameter `{name}`: "
            f"expected {'an' if kind == 'int' else 'a'} {kind}, got {type(value).__name__} "
            f"{value!r}"[:300]
        )


def _ss_assert_failed(text, values, site):
    path, line, column, function = site
    shown = ", ".join(f"{name} = {value!r}" for name, value in values.items())
    raise ValueError(
        f"{path}:{line}:{column}: in fn {function}: `assert {text}` failed"
        + (f" for {shown}" if shown else "")
    )


def _ss_as_host(value, kind, site):
    types = {"int": int, "float": (int, float), "bool": bool}
    if not isinstance(value, types[kind]) or (kind != "bool" and isinstance(value, bool)):
        path, line, column, function = site
        raise ValueError(
            f"{path}:{line}:{column}: in fn {function}: `as {kind}` got {type(value).__name__}"
        )
    return value
"""

#: What a standalone module with models defines: a base class whose `init(seed=...)`
#: draws each field as `shapescript.rt.models` does (a generator per field, seeded from
#: the SHA-256 of "{seed}/{field}"), so a model has the same values either way.
MODEL_HELPERS = """
_ss_model_dtypes = {
    "f16": _ss_torch.float16, "bf16": _ss_torch.bfloat16, "f32": _ss_torch.float32,
    "f64": _ss_torch.float64, "u8": _ss_torch.uint8, "i8": _ss_torch.int8,
    "i16": _ss_torch.int16, "i32": _ss_torch.int32, "i64": _ss_torch.int64,
    "bool": _ss_torch.bool,
}


def _ss_draw(field, seed, device, path=None):
    name, kind, shape, dtype, (init, arguments) = field
    name = path or name
    dtype = _ss_model_dtypes[dtype]
    if init == "zeros":
        return _ss_torch.zeros(shape, dtype=dtype, device=device)
    if init == "ones":
        return _ss_torch.ones(shape, dtype=dtype, device=device)
    if init == "full":
        return _ss_torch.full(shape, arguments["value"], dtype=dtype, device=device)
    generator = _ss_torch.Generator(device="cpu")
    digest = _ss_hashlib.sha256(f"{seed}/{name}".encode()).digest()
    generator.manual_seed(int.from_bytes(digest[:8], "big"))
    wide = _ss_torch.float64 if dtype == _ss_torch.float64 else _ss_torch.float32
    drawn = _ss_torch.empty(shape, dtype=wide)
    if init == "normal":
        drawn.normal_(arguments.get("mean", 0.0), arguments.get("std", 1.0), generator=generator)
    else:
        drawn.uniform_(arguments.get("lo", 0.0), arguments.get("hi", 1.0), generator=generator)
    return drawn.to(dtype=dtype).to(device=device)


class _ss_Model(_ss_torch.nn.Module):
    _ss_fields = ()
    #: The fields that hold models: (name, model class, None for one or a stack's count).
    _ss_held = ()

    def __init__(self, *args, **kwargs):
        name = type(self).__name__
        raise TypeError(f"make a {name} with {name}.init(seed=...), not {name}()")

    @classmethod
    def init(cls, *, seed):
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"{cls.__name__}.init: seed is an int, not {type(seed).__name__}")
        return cls._ss_build(seed, "" if cls._ss_held else None)

    @classmethod
    def _ss_build(cls, seed, prefix):
        # Fields drawn from their full paths (`h.0.attn.w`) under `prefix`, or from their
        # names when `prefix` is None; the held models as submodules, a stack a ModuleList.
        model = cls.__new__(cls)
        _ss_torch.nn.Module.__init__(model)
        for field in cls._ss_fields:
            path = None if prefix is None else prefix + field[0]
            value = _ss_draw(field, seed, _ss_device, path)
            if field[1] == "param":
                model.register_parameter(field[0], _ss_torch.nn.Parameter(value))
            else:
                model.register_buffer(field[0], value)
        for name, held, count in cls._ss_held:
            if count is None:
                model.add_module(name, held._ss_build(seed, f"{prefix}{name}."))
                continue
            made = [held._ss_build(seed, f"{prefix}{name}.{i}.") for i in range(count)]
            model.add_module(name, _ss_torch.nn.ModuleList(made))
        return model


def _ss_check_model(value, cls, where):
    pending = [(value, cls)]
    while pending:
        value, cls = pending.pop()
        _ss_check_one(value, cls, where)
        for name, held, count in cls._ss_held:
            inner = value._modules.get(name)
            if count is None:
                pending.append((inner, held))
                continue
            if not isinstance(inner, _ss_torch.nn.ModuleList) or len(inner) != count:
                raise ValueError(
                    f"{where['path']}:{where['line']}:{where['column']}: in fn "
                    f"{where['function']}, argument for parameter `{where['parameter']}`: "
                    f"its field {name} isn't {count} {held.__name__} models"
                )
            pending.extend((one, held) for one in inner)


def _ss_check_one(value, cls, where):
    if not isinstance(value, cls):
        raise ValueError(
            f"{where['path']}:{where['line']}:{where['column']}: in fn {where['function']}, "
            f"argument for parameter `{where['parameter']}`: expected a {cls.__name__} model, "
            f"got {type(value).__name__}"
        )
    tensors = {**value._parameters, **value._buffers}
    for name, _kind, shape, dtype, _init in cls._ss_fields:
        tensor = tensors.get(name)
        want = _ss_model_dtypes[dtype]
        if tensor is None or tuple(tensor.shape) != shape or tensor.dtype != want:
            raise ValueError(
                f"{where['path']}:{where['line']}:{where['column']}: in fn {where['function']}, "
                f"argument for parameter `{where['parameter']}`: its field {name} isn't "
                f"{list(shape)} {dtype}"
            )
"""

#: What a standalone module that uses modes defines, as `shapescript.rt.randomness` does:
#: Train and Eval, the call paths a mode is passed down, dropout and batch_norm.
MODE_HELPERS = """
class _ss_Mode:
    __slots__ = ("seed", "path")

    def __init__(self, seed, path=()):
        self.seed = seed
        self.path = path

    @property
    def training(self):
        return self.seed is not None

    def child(self, part):
        if self.seed is None:
            return self
        return _ss_Mode(self.seed, (*self.path, part))

    def generator_seed(self):
        text = f"{self.seed}/{'/'.join(self.path)}"
        return int.from_bytes(_ss_hashlib.sha256(text.encode()).digest()[:8], "big")

    def __repr__(self):
        return "Eval" if self.seed is None else f"Train(seed={self.seed})"


def _ss_Train(*, seed):
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"Train: seed is an int, not {type(seed).__name__}")
    return _ss_Mode(seed)


_ss_Eval = _ss_Mode(None)


class _ss_CallCounter:
    __slots__ = ("_counts",)

    def __init__(self):
        self._counts = {}

    def key(self, name, loop=""):
        count = self._counts.get((loop, name), 0)
        self._counts[(loop, name)] = count + 1
        return f"{name}@{loop}#{count}" if loop else f"{name}#{count}"


def _ss_check_mode(value, where):
    if not isinstance(value, _ss_Mode):
        raise ValueError(
            f"{where['path']}:{where['line']}:{where['column']}: in fn {where['function']}, "
            f"argument for parameter `{where['parameter']}`: expected a Mode, "
            f"got {type(value).__name__}"
        )


def _ss_dropout(x, p, mode):
    if not 0 <= p < 1:
        raise ValueError(f"dropout: p is at least 0 and less than 1, not {p}")
    if mode.seed is None:
        return x
    generator = _ss_torch.Generator(device=x.device)
    generator.manual_seed(mode.generator_seed())
    drawn = _ss_torch.rand(x.shape, generator=generator, device=x.device, dtype=_ss_torch.float32)
    return x * (drawn >= p) / (1 - p)


def _ss_batch_norm(x, mode, over, weight=None, bias=None, running_mean=None,
                   running_var=None, eps=1e-5):
    training = mode.training
    if not training and (running_mean is None or running_var is None):
        raise ValueError("batch_norm with Eval needs running_mean and running_var")
    moved = x.movedim(over, 1) if x.dim() > 1 else x.unsqueeze(0)
    normed = _ss_F.batch_norm(
        moved,
        None if training else running_mean,
        None if training else running_var,
        weight,
        bias,
        training=training,
        eps=eps,
    )
    return normed.movedim(1, over) if x.dim() > 1 else normed.squeeze(0)
"""

#: The helper blocks a standalone module may need beyond `HELPERS`, by what needs them.
BLOCKS = {"models": MODEL_HELPERS, "modes": MODE_HELPERS}
