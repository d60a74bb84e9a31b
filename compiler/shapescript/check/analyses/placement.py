"""Where each function runs on several devices, and which values are split across them.

With several devices (`devices cuda[0 1 2]`, `cpu[0 1]`) the program runs in one process,
the controller, and each device has a worker process. This pass, run once every body is
checked, works out for each function whether it runs in the controller, on the workers or
anywhere (E1803 for device work in the controller), which of its values are split along
the batch axis (followed through calls, E1804), which operations combine values across
the batch (a collective each, or E1801 where there is no lowering, E1802 where the batch
axis can't stay apart) and which Python calls are given split data (E1901). It also checks
the devices line's options (E1902-E1904). The result, `Placement`, is recorded on `Checked`
for the compiler and the editor.
"""

from __future__ import annotations

from shapescript.check.algebra.reporter import Reporter
from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.syntax_facts import walk
from shapescript.check.algebra.types import (
    BatchesType,
    BatchType,
    DatasetType,
    GradType,
    ModelType,
    OptimizerType,
    PythonType,
    SinkType,
    TensorType,
    Type,
)
from shapescript.records import field, record
from shapescript.syntax import ast
from shapescript.syntax.source import Span

CONTROLLER = "controller"
WORKERS = "workers"
ANYWHERE = "anywhere"

#: Built-ins that run only in the controller.
_CONTROLLER_CALLS = frozenset({"print", "save", "load"})
#: Built-ins that are device work.
_DEVICE_WORK = frozenset({"value_and_grad", "update"})
#: Operations across the batch with a distributed lowering, by how they combine
#: (`stats`: batch_norm's per-channel sums, sums of squares and count).
LOWERED = {
    "sum": "sum",
    "mean": "mean",
    "cross_entropy": "mean",
    "matmul": "sum",
    "einsum": "sum",
    "reduce": "sum",
    "batch_norm": "stats",
}
#: Reductions over an axis with no lowering across the batch.
_UNLOWERED_REDUCTIONS = frozenset(
    {"max", "min", "std", "var", "logsumexp", "norm", "prod", "argmax", "argmin", "any", "all"}
)
#: Operations along an axis with no lowering across the batch.
_UNLOWERED_ALONG = frozenset(
    {
        "softmax",
        "log_softmax",
        "cumsum",
        "cumprod",
        "sort",
        "argsort",
        "topk",
        "gather",
        "scatter",
        "cat",
        "causal",
    }
)
_DEVICE_TYPES = (TensorType, ModelType, GradType, OptimizerType, BatchType)


@record
class Collective:
    """An operation across the batch that the compiler lowers to an all-reduce: its span
    (relative to its function's item), the function, and how it combines (`sum`, `mean`)."""

    span: Span
    function: str
    kind: str
    #: With split H, a `cut`'s split axis of each result (one for a tensor, one per item
    #: of split's results).
    axes: tuple[int | None, ...] = ()


@record
class Placement:
    """Where each fn runs and how its values are laid out over the devices."""

    device_count: int = 1
    shard_params: bool = False
    #: The dim `split H` names, if any.
    split_dim: str | None = None
    #: Each fn of the file: `controller`, `workers` or `anywhere`.
    places: dict[str, str] = field(default_factory=dict)
    #: For each fn on the workers, its split parameters: the axis split along for a
    #: tensor, or None for a batch (split along its batch axis).
    split_params: dict[str, dict[str, int | None]] = field(default_factory=dict)
    #: For each fn, the sizes split along the batch axis (symbols such as `b`).
    split_sizes: dict[str, frozenset[str]] = field(default_factory=dict)
    #: For each fn, the axis of its result split along the batch, if it has one.
    split_results: dict[str, int] = field(default_factory=dict)
    #: The operations across the batch, per fn.
    collectives: dict[str, list[Collective]] = field(default_factory=dict)
    #: With split H, each model's params split along H: the axis each is split along.
    split_fields: dict[str, dict[str, int]] = field(default_factory=dict)
    #: With split H, the dim's value.
    split_size: int | None = None
    #: With split H, per fn, the operands gathered whole before an operation along or
    #: across H: an expression's span, or a pipe stage's (its input), and the split axis.
    gathers: dict[str, dict[Span, int]] = field(default_factory=dict)

    @property
    def several(self) -> bool:
        return self.device_count > 1

    def collective_at(self, function: str, span: Span) -> Collective | None:
        for collective in self.collectives.get(function, ()):
            if collective.span == span:
                return collective
        return None


def _split_axis(type_: Type | None, split: frozenset[str] | set[str]) -> int | None:
    """The first axis of a tensor whose size is a split size, if any."""
    if isinstance(type_, TensorType) and type_.axes is not None:
        for index, axis in enumerate(type_.axes):
            if axis.size.single_symbol() in split and axis.size == Poly.symbol(
                axis.size.single_symbol() or ""
            ):
                return index
    return None


def _is_split(type_: Type | None, split) -> bool:
    if isinstance(type_, BatchType):
        return any(axis.size.single_symbol() in split for axis in type_.axes)
    return _split_axis(type_, split) is not None


def _grouped(type_: Type | None, split) -> bool:
    """A tensor with the batch axis grouped with another, or twice (E1802)."""
    if not isinstance(type_, TensorType) or type_.axes is None:
        return False
    plain = 0
    for axis in type_.axes:
        symbols = axis.size.symbols() & set(split)
        if not symbols:
            continue
        if axis.size == Poly.symbol(next(iter(symbols))):
            plain += 1
        else:
            return True
    return plain > 1


@record
class _Function:
    decl: ast.FnDecl
    base: int
    types: dict
    own: str | None = None
    uses: bool = False
    device_work: list[Span] = field(default_factory=list)
    callees: set[str] = field(default_factory=set)


def _devices(module: ast.Module) -> tuple[ast.DevicesDecl | None, int]:
    for index, item in enumerate(module.items):
        if isinstance(item, ast.DevicesDecl):
            return item, module.base_of(index)
    return None, 0


def place(module: ast.Module, scope, items, reporter: Reporter) -> Placement:
    """The placement of the file's functions; reports E18xx and E19xx on `reporter`, whose
    spans are absolute."""
    decl, decl_base = _devices(module)
    placement = Placement(device_count=getattr(scope, "device_count", 1) or 1)
    if decl is not None:
        _options(decl, decl_base, scope, placement, reporter)
    if not placement.several:
        # One device: every function runs in the one process, and nothing is split.
        return placement
    functions: dict[str, _Function] = {}
    for item in items:
        fn = item.item
        if isinstance(fn, ast.FnDecl) and item.body is not None and fn.name not in functions:
            functions[fn.name] = _Function(fn, item.base, item.body.facts.types)
    for function in functions.values():
        _scan(function, functions)
    _places(functions, placement)
    for name, function in functions.items():
        if placement.places[name] == CONTROLLER:
            for span in function.device_work:
                reporter.report(
                    "E1803",
                    f"`{name}` runs in the controller, since it {function.own}, so it can't do "
                    "device work, which runs on the workers",
                    _absolute(span, function.base),
                    "device work",
                    help="move the device work into a function of its own, as the README's "
                    "`train_step`, and call it from here",
                )
    if placement.split_dim is not None:
        from shapescript.check.analyses.heads import plan_heads

        plan_heads(functions, placement, scope, reporter)
        return placement
    if placement.split_dim is None:
        externs = frozenset(
            name
            for name, signature in getattr(scope, "signatures", {}).items()
            if getattr(signature, "extern", False)
        )
        _split(functions, placement, reporter, externs)
    return placement


def _absolute(span: Span, base: int) -> Span:
    return Span(span.start + base, span.end + base)


def _options(decl, base: int, scope, placement: Placement, reporter: Reporter) -> None:
    """`shard params` and `split H` (E1902-E1904)."""
    seen: dict[str, ast.DeviceOption] = {}
    for option in decl.options:
        words = option.words
        valid = words == ["shard", "params"] or (
            len(words) == 2 and words[0] == "split" and words[1].isidentifier()
        )
        if not valid:
            continue  # E1002, reported with the devices line
        key = words[0]
        span = _absolute(option.span, base)
        if key in seen:
            what = "a second `split`" if key == "split" else f"`{' '.join(words)}` again"
            reporter.report(
                "E1903",
                f"{what}: each devices option is given once",
                span,
                "given twice",
                help="keep one of them; values can be split along one axis only",
            )
            continue
        seen[key] = option
        if words == ["shard", "params"]:
            placement.shard_params = True
        elif len(words) == 2 and key == "split" and words[1].isidentifier():
            _split_option(words[1], span, scope, placement, reporter)


def _split_option(name: str, span: Span, scope, placement: Placement, reporter) -> None:
    dims = getattr(scope, "dim_values", {})
    if name not in dims:
        reporter.report(
            "E1904",
            f"`split {name}`: `{name}` isn't a dim this file declares",
            span,
            "not a dim",
            help=f"declare the size as a dim, as `dim {name} = 12`, and split that",
        )
        return
    value = getattr(dims[name], "value", None)
    count = placement.device_count
    if isinstance(value, Poly):
        value = value.value
    if isinstance(value, int) and count > 1 and value % count:
        divisors = [d for d in range(2, value + 1) if value % d == 0]
        reporter.report(
            "E1902",
            f"{count} devices don't divide {name} = {value}",
            span,
            f"{name} = {value}",
            help=f"use a number of devices that divides it ({', '.join(map(str, divisors))}), "
            "or split another dim",
        )
        return
    placement.split_dim = name
    placement.split_size = value if isinstance(value, int) else None


def _callee(node: ast.Call) -> str | None:
    return node.callee.name if isinstance(node.callee, ast.Name) else None


def _python_call(node: ast.Call, types: dict) -> bool:
    callee = node.callee
    if isinstance(types.get(callee.span), PythonType):
        return True
    return isinstance(callee, ast.Member) and isinstance(types.get(callee.target.span), PythonType)


def _scan(function: _Function, functions: dict[str, _Function]) -> None:
    """What a function does by itself: why it runs in the controller, its device work,
    whether it uses tensors, and the file's functions it calls."""
    types = function.types
    reasons: list[str] = []
    for param in function.decl.params:
        type_ = types.get(param.name_span)
        if isinstance(type_, DatasetType):
            reasons.append("takes a dataset")
        elif isinstance(type_, SinkType):
            reasons.append("takes a sink")
    uses = any(isinstance(t, _DEVICE_TYPES) for t in types.values())
    for node in walk(function.decl):
        if isinstance(node, ast.For):
            if isinstance(types.get(node.iterable.span), DatasetType | BatchesType):
                reasons.append("loops over a dataset")
        elif isinstance(node, ast.FieldAssign):
            function.device_work.append(node.span)
        elif isinstance(node, ast.Call):
            name = _callee(node)
            if name in _CONTROLLER_CALLS:
                reasons.append(f"calls `{name}`")
            elif name in _DEVICE_WORK:
                function.device_work.append(node.span)
            if name in functions:
                function.callees.add(name)
            if name == "value_and_grad" and node.args:
                first = node.args[0].value
                if isinstance(first, ast.Name) and first.name in functions:
                    function.callees.add(first.name)
            if _python_call(node, types):
                reasons.append("uses Python")
            elif isinstance(node.callee, ast.Member) and isinstance(
                types.get(node.callee.target.span), SinkType
            ):
                reasons.append("writes to a sink")
        elif isinstance(node, ast.Name) and node.name in functions:
            function.callees.add(node.name)
    function.callees.discard(function.decl.name)
    if reasons:
        function.own = reasons[0]
    function.uses = uses


def _places(functions: dict[str, _Function], placement: Placement) -> None:
    controller = {name for name, f in functions.items() if f.own is not None}
    changed = True
    while changed:
        changed = False
        for name, function in functions.items():
            if name in controller:
                continue
            for callee in function.callees:
                if callee in controller:
                    controller.add(name)
                    function.own = f"calls `{callee}`, which runs there"
                    changed = True
                    break
    for name, function in functions.items():
        if name in controller:
            placement.places[name] = CONTROLLER
        elif function.uses or function.device_work:
            placement.places[name] = WORKERS
        else:
            placement.places[name] = ANYWHERE


def _param_types(function: _Function) -> list[tuple[str, Type | None]]:
    return [(p.name, function.types.get(p.name_span)) for p in function.decl.params]


def _call_args(node: ast.Call, skip: int = 0) -> tuple[list, dict]:
    positional, keywords = [], {}
    for arg in node.args[skip:]:
        if arg.name is not None:
            keywords[arg.name] = arg.value
        else:
            positional.append(arg.value)
    return positional, keywords


def _split(
    functions: dict[str, _Function],
    placement: Placement,
    reporter: Reporter,
    externs: frozenset[str] = frozenset(),
) -> None:
    """Follow the batch's split through calls to a fixed point, then report what can't
    stay split."""
    split: dict[str, set[str]] = {name: set() for name in functions}
    params: dict[str, dict[str, int | None]] = {name: {} for name in functions}
    for name, function in functions.items():
        for param_name, type_ in _param_types(function):
            if isinstance(type_, BatchType):
                params[name][param_name] = None
                split[name] |= {a.size.single_symbol() or "" for a in type_.axes}
        for node in walk(function.decl):
            if isinstance(node, ast.For):
                loop = function.types.get(node.var.span)
                if isinstance(loop, BatchType):
                    split[name] |= {a.size.single_symbol() or "" for a in loop.axes}
    changed = True
    while changed:
        changed = False
        for name, function in functions.items():
            for node, target, skip in _calls(function, functions):
                callee = functions[target]
                positional, keywords = _call_args(node, skip)
                names = [p.name for p in callee.decl.params]
                pairs = list(zip(names, positional, strict=False)) + list(keywords.items())
                for param_name, value in pairs:
                    arg = function.types.get(value.span)
                    if not _is_split(arg, split[name]):
                        continue
                    param_type = callee.types.get(_param_span(callee, param_name))
                    symbols = _taken(arg, param_type, split[name])
                    if param_name not in params[target]:
                        params[target][param_name] = (
                            None if isinstance(param_type, BatchType) else _first(param_type)
                        )
                        changed = True
                    if not symbols <= split[target]:
                        split[target] |= symbols
                        changed = True
    for name in functions:
        placement.split_sizes[name] = frozenset(s for s in split[name] if s)
        if placement.places.get(name) != CONTROLLER:
            placement.split_params[name] = {
                k: (v if v is None else _param_axis(functions[name], k, split[name]))
                for k, v in params[name].items()
            }
    for function in functions.values():
        _report(function, functions, placement, params, split, reporter, externs)


def _param_span(function: _Function, name: str) -> Span | None:
    for param in function.decl.params:
        if param.name == name:
            return param.name_span
    return None


def _first(type_: Type | None) -> int | None:
    return 0 if isinstance(type_, TensorType) else None


def _param_axis(function: _Function, name: str, split: set[str]) -> int | None:
    return _split_axis(function.types.get(_param_span(function, name)), split)


def _taken(arg: Type | None, param: Type | None, split: set[str]) -> set[str]:
    """The callee's sizes that a split argument's batch axis binds."""
    if isinstance(arg, BatchType) and isinstance(param, BatchType):
        return {
            p.size.single_symbol() or ""
            for a, p in zip(arg.axes, param.axes, strict=False)
            if a.size.single_symbol() in split
        }
    if isinstance(arg, TensorType) and isinstance(param, TensorType):
        if arg.axes is None or param.axes is None:
            return set()
        found = set()
        offset = len(arg.axes) - len(param.axes)
        for index, axis in enumerate(arg.axes):
            if axis.size.single_symbol() not in split:
                continue
            mine = index if not any(a.rest for a in param.axes) else index - offset
            if 0 <= mine < len(param.axes):
                symbol = param.axes[mine].size.single_symbol()
                if symbol is not None:
                    found.add(symbol)
        return found
    return set()


def _calls(function: _Function, functions: dict[str, _Function]):
    """Each call of one of the file's functions: the node, the callee and how many of its
    arguments come before the callee's own (value_and_grad's function)."""
    for node in walk(function.decl):
        if not isinstance(node, ast.Call):
            continue
        name = _callee(node)
        if name in functions:
            yield node, name, 0
        elif name == "value_and_grad" and node.args:
            first = node.args[0].value
            if isinstance(first, ast.Name) and first.name in functions:
                yield node, first.name, 1


def _report(function, functions, placement, params, split, reporter, externs) -> None:
    name = function.decl.name
    mine = split[name]
    types = function.types
    base = function.base
    on_workers = placement.places.get(name) != CONTROLLER and bool(mine)
    stages = _stage_calls(function.decl)
    for node in walk(function.decl):
        if isinstance(node, ast.Call) and (
            id(node) not in stages or _python_call(node, function.types)
        ):
            _check_call(node, function, placement, mine, reporter, externs)
        if on_workers and isinstance(node, ast.Pipe):
            _check_pipe(node, function, placement, mine, reporter)
        if on_workers and isinstance(node, ast.Binary) and node.op == "@":
            _check_matmul(node, function, placement, mine)
        if isinstance(node, ast.Index) and placement.places.get(name) != CONTROLLER:
            axis = _split_axis(types.get(node.target.span), mine)
            sliced = axis is not None and axis < len(node.items)
            if sliced and not ast.whole_slice(node.items[axis]):
                reporter.report(
                    "E1801",
                    "indexing the batch axis, which is split across the "
                    f"{placement.device_count} devices, has no lowering",
                    _absolute(node.span, base),
                    "indexes the split batch axis",
                    help="compute it per example, or with an operation that has a lowering",
                )
    for node, target, skip in _calls(function, functions):
        positional, keywords = _call_args(node, skip)
        callee = functions[target]
        names = [p.name for p in callee.decl.params]
        for param_name, value in list(zip(names, positional, strict=False)) + list(
            keywords.items()
        ):
            if param_name not in params[target]:
                continue
            arg = types.get(value.span)
            if isinstance(arg, TensorType | BatchType) and not _is_split(arg, mine):
                reporter.report(
                    "E1804",
                    f"`{target}` takes `{param_name}` split across the devices along the "
                    "batch axis, and this value is whole",
                    _absolute(value.span, base),
                    "whole on every device",
                    help="call a function of its own for whole values",
                )


def _stage_calls(decl: ast.FnDecl) -> set[int]:
    """The calls written as pipe stages, whose first operand is the stage's input."""
    return {
        id(stage)
        for node in walk(decl)
        if isinstance(node, ast.Pipe)
        for stage in node.stages
        if isinstance(stage, ast.Call)
    }


def _no_lowering(reporter, placement: Placement, what: str, span: Span, label: str, help_):
    reporter.report(
        "E1801",
        f"{what} across the batch axis, which is split across the "
        f"{placement.device_count} devices, has no lowering for several devices yet",
        span,
        label,
        help=help_,
    )


def _check_pipe(node: ast.Pipe, function, placement: Placement, split, reporter) -> None:
    """Each pipe stage that combines the batch: a collective, as for the call form
    (`x |> mean(over=b)` as `mean(x, over=b)`), or E1801 where it has no lowering."""
    types = function.types
    before = types.get(node.input.span)
    for stage in node.stages:
        after = types.get(stage.span)
        if isinstance(stage, ast.Call | ast.Name) and _is_split(before, split):
            name = _callee(stage) if isinstance(stage, ast.Call) else stage.name
            over = _over(stage) if isinstance(stage, ast.Call) else None
            axis = _split_axis(before, split)
            names = [a.name for a in before.axes] if isinstance(before, TensorType) else []
            along = over is None or (
                axis is not None and over in names and names.index(over) == axis
            )
            if name == "batch_norm":
                if isinstance(stage, ast.Call) and _statistics_across(stage, before, split):
                    placement.collectives.setdefault(function.decl.name, []).append(
                        Collective(stage.span, function.decl.name, "stats")
                    )
            elif name in LOWERED:
                if not _is_split(after, split):
                    placement.collectives.setdefault(function.decl.name, []).append(
                        Collective(stage.span, function.decl.name, LOWERED[name])
                    )
            elif (name in _UNLOWERED_REDUCTIONS or name in _UNLOWERED_ALONG) and along:
                _no_lowering(
                    reporter,
                    placement,
                    f"the pipe stage `|> {name}`",
                    _absolute(stage.span, function.base),
                    "a pipe stage across the split batch axis",
                    "compute it per example",
                )
        before = after


def _check_matmul(node: ast.Binary, function, placement: Placement, split) -> None:
    """`@` contracting the split batch axis: a sum over the workers, as `matmul`."""
    types = function.types
    operands = (types.get(node.left.span), types.get(node.right.span))
    if any(_is_split(t, split) for t in operands) and not _is_split(types.get(node.span), split):
        placement.collectives.setdefault(function.decl.name, []).append(
            Collective(node.span, function.decl.name, "sum")
        )


def _in_eval(node: ast.Call) -> bool:
    """A `batch_norm` given `Eval` as its mode, which uses its running statistics."""
    values = [a.value for a in node.args if a.name in (None, "mode")]
    return any(
        isinstance(v, ast.Name)
        and v.name == "Eval"
        or isinstance(v, ast.Call)
        and _callee(v) == "Eval"
        for v in values
    )


def _statistics_across(node: ast.Call, operand: Type | None, split) -> bool:
    """A `batch_norm` whose statistics, taken over every axis but its channel, take in the
    split batch axis: all-reduced sums and a count (not with `Eval`, whose running
    statistics are whole, nor when the channel is the batch axis itself)."""
    if _in_eval(node):
        return False
    axis = _split_axis(operand, split)
    names = [a.name for a in operand.axes] if isinstance(operand, TensorType) else []
    over = _over(node)
    return axis is not None and not (over in names and names.index(over) == axis)


def _operand(node: ast.Call, types: dict) -> tuple[ast.Expr | None, Type | None]:
    for arg in node.args:
        if arg.name is None and not isinstance(arg.value, ast.Pattern):
            return arg.value, types.get(arg.value.span)
    return None, None


def _over(node: ast.Call) -> str | None:
    for arg in node.args:
        if arg.name == "over" and isinstance(arg.value, ast.Name):
            return arg.value.name
    return None


def _check_call(
    node: ast.Call, function, placement: Placement, split, reporter, externs=frozenset()
) -> None:
    types = function.types
    base = function.base
    name = _callee(node)
    fn_name = function.decl.name
    if _python_call(node, types):
        for arg in node.args:
            if isinstance(arg.value, ast.Pattern):
                continue
            if _is_split(types.get(arg.value.span), split) or isinstance(
                types.get(arg.value.span), BatchType
            ):
                reporter.report(
                    "E1901",
                    "a Python call runs once, in the controller, and this value is split "
                    f"across the {placement.device_count} devices along the batch axis",
                    _absolute(arg.value.span, base),
                    "split across the devices",
                    help="move the call into the dataset, or declare the function with "
                    "`extern fn` so each device runs it on its own examples",
                )
        return
    if placement.places.get(fn_name) == CONTROLLER or not split:
        return
    result = types.get(node.span)
    operand, operand_type = _operand(node, types)
    if _grouped(result, split) and not any(
        _grouped(types.get(arg.value.span), split)
        for arg in node.args
        if not isinstance(arg.value, ast.Pattern)
    ):
        reporter.report(
            "E1802",
            "the batch axis is split across the devices, so it has to stay an axis of its own",
            _absolute(node.span, base),
            "groups the batch axis",
            help="keep the batch axis apart, as in `b (h w)` rather than `(b h) w`",
        )
        return
    if operand is None or not _is_split(operand_type, split):
        return
    over = _over(node)
    if name == "batch_norm":
        if _statistics_across(node, operand_type, split):
            placement.collectives.setdefault(fn_name, []).append(
                Collective(node.span, fn_name, "stats")
            )
        return
    if name in externs and over is not None:
        axis = _split_axis(operand_type, split)
        names = [a.name for a in operand_type.axes] if isinstance(operand_type, TensorType) else []
        if axis is not None and over in names and names.index(over) == axis:
            reporter.report(
                "E1801",
                f"extern fn `{name}` along the batch axis, which is split across the "
                f"{placement.device_count} devices, has no lowering for several devices",
                _absolute(node.span, base),
                "along the split batch axis",
                help="give it another axis as `over=`, or compute it per example",
            )
        return
    if name in _UNLOWERED_REDUCTIONS or name in _UNLOWERED_ALONG:
        axis = _split_axis(operand_type, split)
        names = [a.name for a in operand_type.axes] if isinstance(operand_type, TensorType) else []
        across = over is None or (axis is not None and over in names and names.index(over) == axis)
        if across:
            reporter.report(
                "E1801",
                f"`{name}` across the batch axis, which is split across the "
                f"{placement.device_count} devices, has no lowering for several devices",
                _absolute(node.span, base),
                "across the split batch axis",
                help="compute it per example, or with `sum`, `mean` or `cross_entropy`, "
                "which have one",
            )
        return
    if name in LOWERED and not _is_split(result, split):
        placement.collectives.setdefault(fn_name, []).append(
            Collective(node.span, fn_name, LOWERED[name])
        )
