"""Calls in a function body: built-ins, fns, extern fns and the prelude, matched and solved."""

from __future__ import annotations

import math

from shapescript.check.algebra import domains, fixes, ranges
from shapescript.check.algebra.broadcast import ShapeError, broadcast
from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.solver import Equation, solve
from shapescript.check.algebra.type_rules import (
    article,
    dtype_misfit,
    host_kind_fits,
    is_loose,
    stable_alternative,
    type_symbols,
    unknown_symbols,
)
from shapescript.check.algebra.types import (
    FLOAT,
    FLOAT_DTYPES,
    UNKNOWN,
    Axis,
    Domain,
    FunctionType,
    HostType,
    PythonType,
    StringType,
    TensorType,
    Type,
    UnknownType,
    format_type,
    interval_of,
    range_domain,
)
from shapescript.check.bodies import (
    asserts,
    axis_arguments,
    builtin_rules,
    checkpoints,
    data_values,
    generics,
    gradients,
    logs_values,
    model_values,
    modes,
    mutation,
    overload_calls,
    qualified_uses,
    training,
)
from shapescript.check.bodies.env import Arg
from shapescript.check.declarations.builtin_table import BUILTINS
from shapescript.check.declarations.module_scope import KIND_WORDS, suggestion
from shapescript.check.declarations.signatures import ParamSig, Signature
from shapescript.syntax import ast
from shapescript.syntax.source import Span

#: What `_axis_parameters` gives for a call without Axis[..] or Axes[..] parameters (never
#: changed: callers only ask what is in it).
_NO_AXIS_PARAMETERS: tuple[frozenset[str], frozenset[int]] = (frozenset(), frozenset())


#: Each called built-in's type as a value, made once (types are immutable).
_BUILTIN_FUNCTIONS: dict[str, FunctionType] = {}


class CallChecker:
    """The part of `BodyChecker` that checks calls (a mixin: it uses the checker's state)."""

    #: The generic instance being checked (`BodyChecker.instance`).
    instance = None

    def call(self, node: ast.Call, piped: Arg | None) -> Type:
        # Only a member callee (`mod.f(x)`) can name another file's function.
        qualified = (
            qualified_uses.qualified_call(self, node) if type(node.callee) is ast.Member else None
        )
        if qualified is False:
            self.collect_args(node, piped)
            return UNKNOWN
        if isinstance(qualified, ast.Call):
            node = qualified
        callee = node.callee
        callee_name = callee.name if type(callee) is ast.Name else None
        if not self._check_stage_call(node, callee_name):
            return UNKNOWN
        args = self.collect_args(node, piped, self._axis_parameters(callee))
        for arg in args:
            if type(arg.expr) is ast.ErrorExpr:
                return UNKNOWN
        if type(callee) is ast.Name:
            name = callee.name
            local = self.env.values.get(name)
            builtin = self.instance is not None and overload_calls.means_builtin(self, name)
            if (
                local is not None
                or name in self.env.axes
                or (
                    not builtin
                    and name in self.scope.symbols
                    and self.scope.symbols[name].kind
                    not in ("fn", "extern", "python_module", "model", "data", "logs", "import")
                )
            ):
                what = self.expr(callee)
                if isinstance(what, PythonType):
                    return PythonType()
                if isinstance(what, UnknownType):
                    return UNKNOWN
                axis = local is None and name in self.env.axes
                kind = (
                    "a value"
                    if local is not None
                    else "an axis name"
                    if axis
                    else KIND_WORDS.get(self.scope.symbols[name].kind, "an axis name")
                    if name in self.scope.symbols
                    else "an axis name"
                )
                hidden = name in self.scope.symbols and self.scope.symbols[name].kind in (
                    "fn",
                    "extern",
                )
                self.reporter.report(
                    "E0303",
                    f"`{name}` is {kind}, not a function",
                    callee.span,
                    "called here",
                    help=(
                        f"the {'axis' if axis else 'value'} `{name}` here hides the "
                        f"function `{name}`: rename one of them"
                    )
                    if hidden and (axis or local is not None)
                    else None,
                )
                return UNKNOWN
            symbol = None if builtin else self.scope.symbols.get(name)
            if symbol is not None and symbol.kind in ("fn", "extern"):
                self.refer(callee.span, symbol)
                signature = overload_calls.pick(self, name, args, callee.span)
                if signature is None or signature is overload_calls.NOT_DECLARED:
                    return UNKNOWN
                return self.call_signature(signature, args, node)
            if symbol is not None:
                self.refer(callee.span, symbol)
                if symbol.kind == "python_module":
                    return PythonType()
                if symbol.kind == "model":
                    model_values.model_called(self, name, callee.span)
                    return UNKNOWN
                if symbol.kind == "logs":
                    return logs_values.construct(self, name, args, node)
                if symbol.kind == "data":
                    self.reporter.report(
                        "E0303",
                        f"`{name}` is a data record, not a function: its examples come from "
                        "a dataset",
                        callee.span,
                        "called here",
                    )
                return UNKNOWN
            if name in builtin_rules.KNOWN:
                self.refer(callee.span, builtin_rules.symbol(name))
                function_type = _BUILTIN_FUNCTIONS.get(name)
                if function_type is None:
                    function_type = _BUILTIN_FUNCTIONS[name] = FunctionType(name, "builtin")
                self.record(callee.span, function_type)
                kind = BUILTINS[name].kind
                if kind == "training":
                    return training.call(self, name, args, node)
                if not mutation.check_builtin_args(self, name, args):
                    return UNKNOWN
                if kind == "dataset":
                    return data_values.stage(self, name, args, node)
                special = gradients.builtin_call(self, name, kind, args, node)
                if special is not None:
                    return special
                return builtin_rules.call(self, name, args, node)
            signature = self.program.prelude.signatures.get(name)
            if signature is not None:
                self.refer(callee.span, self.program.prelude.symbols[name])
                return self.call_signature(signature, args, node)
            # A name the file doesn't declare: a function of the first argument's model's
            # file, or one a generic instance needs.
            signature = overload_calls.pick(self, name, args, callee.span)
            if signature is None:
                return UNKNOWN
            if signature is not overload_calls.NOT_DECLARED:
                return self.call_signature(signature, args, node)
            self.expr(callee)
            return UNKNOWN
        made = model_values.init_call(self, node, args)
        if made is not None:
            return made
        target = self.expr(callee)
        if isinstance(target, PythonType):
            for arg in args:
                if arg.mut:
                    mutation.check_changeable(self, arg, "a Python function's argument")
            return PythonType()
        sink = logs_values.sink_call(self, target, args, node)
        return sink if sink is not None else UNKNOWN

    def _axis_parameters(self, callee: ast.Expr) -> tuple[set[str], set[int]]:
        """The names and positions of a called extern's Axis[..] and Axes[..] parameters."""
        if not isinstance(callee, ast.Name) or callee.name in self.env.values:
            return _NO_AXIS_PARAMETERS
        signature = self.program.lookup_function(callee.name)
        if signature is None:
            return _NO_AXIS_PARAMETERS
        memo = self.program.axis_parameters
        found = memo.get(id(signature))
        if found is not None and found[0] is signature:
            return found[1]
        names = set()
        positions = set()
        for index, param in enumerate(signature.params):
            if param.special in ("Axis", "Axes"):
                names.add(param.name)
                positions.add(index)
        parameters = (names, positions) if names else _NO_AXIS_PARAMETERS
        memo[id(signature)] = (signature, parameters)
        return parameters

    def collect_args(
        self,
        node: ast.Call,
        piped: Arg | None,
        axis_parameters: tuple[set[str], set[int]] = _NO_AXIS_PARAMETERS,
    ) -> list[Arg]:
        """Type each argument; keyword sizes, patterns and axis names stay expressions."""
        args: list[Arg] = []
        append = args.append
        placeholder_used = False
        axis_names, axis_positions = axis_parameters
        node_args = node.args
        position_offset = 0
        if piped is not None:
            for arg in node_args:
                if type(arg.value) is ast.Placeholder:
                    break
            else:
                position_offset = 1
        # The node classes have no subclasses: `type(x) is C` is `isinstance(x, C)`.
        callee = node.callee
        callee_name = callee.name if type(callee) is ast.Name else None
        types_follow = callee_name == "load"
        finds_function = callee_name == "value_and_grad"
        takes_lambdas = callee_name == "map" or callee_name == "filter"
        for position, arg in enumerate(node_args):
            value = arg.value
            if types_follow and (
                position + position_offset > 0 or checkpoints.names_a_type(self, value)
            ):
                append(Arg(value, UNKNOWN, arg.span, arg.name, arg.mut))
                continue
            kind = type(value)
            if kind is ast.Member:
                value = qualified_uses.as_name(self, value)
                kind = type(value)
            if (
                position == 0
                and finds_function
                and qualified_uses.function_found_by_model(self, node, value)
            ):
                append(Arg(value, UNKNOWN, arg.span, arg.name, arg.mut))
                continue
            if kind is ast.Placeholder and piped is not None:
                append(Arg(piped.expr, piped.type, piped.span, arg.name, arg.mut))
                placeholder_used = True
                continue
            if kind is ast.Lambda:
                if not takes_lambdas:
                    self.expr(value)
                append(Arg(value, UNKNOWN, arg.span, arg.name, arg.mut))
                continue
            if kind is ast.Pattern or kind is ast.ToStage:
                append(Arg(value, UNKNOWN, arg.span, arg.name, arg.mut))
                continue
            if kind is ast.Name:
                name = arg.name
                if (
                    name == "over"
                    or name in axis_names
                    or (name is None and position + position_offset in axis_positions)
                ):
                    append(Arg(value, UNKNOWN, arg.span, name, arg.mut))
                    continue
            append(Arg(value, self.expr(value), arg.span, arg.name, arg.mut))
        if piped is not None and not placeholder_used:
            args.insert(0, piped)
        return args

    # ------------------------------------------------------------------ generic calls

    def call_signature(self, signature: Signature, args: list[Arg], node: ast.Call) -> Type:
        """A call to a fn, extern fn or prelude stub: match arguments, solve, instantiate."""
        if signature.is_generic:
            return generics.call(self, signature, args, node)
        matched = self.match_arguments(signature.name, signature.params, args, node)
        if matched is None:
            return UNKNOWN
        mutation.check_call(self, signature.name, matched, node)
        variables = {
            name: Poly.symbol(self.program.fresh_variable(name)) for name in signature.generics
        }
        equations: list[Equation] = []
        renames: dict[str, str | None] = {}
        rest: tuple[Axis, ...] | None = None
        elementwise_shapes: list[tuple[Axis, ...]] = []
        failed = False
        index_equations: list[Equation] = []
        first = matched[0][1][1].type if matched and matched[0][1] is not None else None
        for param, arg in matched:
            if arg is None:
                self._size_default(signature, param, variables, equations)
                continue
            outcome = self._match_param(
                signature,
                param,
                arg,
                variables,
                equations,
                renames,
                elementwise_shapes,
                first,
                index_equations,
            )
            if outcome is False:
                failed = True
            elif isinstance(outcome, tuple):
                rest = outcome
        if failed:
            return UNKNOWN
        # An argument the checker knows nothing about leaves the result unknown too,
        # whenever the result's shape or range would come from it.
        elementwise = signature.is_elementwise
        if (elementwise or _has_rest(signature.return_type)) and any(
            slot is not None
            and param.special is None
            and isinstance(slot[1].type, UnknownType)
            and not (isinstance(slot[1].expr, ast.Name) and slot[1].expr.name == "none")
            for param, slot in matched
        ):
            return UNKNOWN
        # Index[V] sizes are matched after the shapes, so a shape decides V first.
        solution = solve(equations + index_equations, self.scope.dim_values)
        if solution.failures:
            by_arg: dict[int, list[str]] = {}
            codes: dict[int, str] = {}
            for failure in solution.failures:
                arg_index, param, axis_index, arg_axis = failure.equation.origin
                want = solution.apply(failure.lhs)
                have = failure.rhs
                if arg_axis == "index":
                    by_arg.setdefault(arg_index, []).append(
                        f"its indices are below {str(have)}, not {str(want)}"
                    )
                    codes.setdefault(arg_index, "E0507")
                    continue
                by_arg.setdefault(arg_index, []).append(
                    f"axis {axis_index + 1}: {str(have)} is not known to equal {str(want)}"
                    if failure.code != "E0402"
                    else f"axis {axis_index + 1}: {str(want)} can't be {str(have)}"
                )
                codes.setdefault(arg_index, failure.code)
            by_index = {slot[0]: (param, slot[1]) for param, slot in matched if slot}
            for arg_index, notes in by_arg.items():
                if arg_index not in by_index:
                    self.reporter.report(
                        codes[arg_index],
                        f"the call of `{signature.name}` doesn't fit its signature",
                        node.span,
                        "this call",
                        notes=notes,
                    )
                    continue
                param, arg = by_index[arg_index]
                shown = (
                    format_type(param.type)
                    if param.special is None
                    else f"{param.special}[{param.special_size}]"
                )
                self.reporter.report(
                    codes[arg_index],
                    f"`{signature.name}` can't take this as `{param.name}`",
                    arg.span,
                    f"{format_type(arg.type)}",
                    notes=notes + [f"`{param.name}` is {shown}"],
                )
            return UNKNOWN
        values = {name: solution.apply(size) for name, size in variables.items()}
        asserts.check_call(
            self, signature, values, node.span, lambda: _written_values(variables, equations)
        )
        unsolved = {
            name
            for name, size in values.items()
            if any(symbol.startswith("$") for symbol in size.symbols())
        }
        result_type = self.program.return_type_of(signature)
        if result_type is None and signature.name in self.program.refused:
            self.reporter.report(
                "E0306",
                f"`{signature.name}` has no return type, and inferring it goes too deep",
                node.span,
                "return type not inferred",
                help=f"give `{signature.name}` a return type: `-> T`",
            )
            return UNKNOWN
        if result_type is None:
            self.reporter.report(
                "E0306",
                f"`{signature.name}` has no return type, so it can't call itself",
                node.span,
                "recursive call",
                help=f"give `{signature.name}` a return type: `-> T`",
            )
            return UNKNOWN
        if unsolved and unsolved & type_symbols(result_type):
            return UNKNOWN
        if signature.extern and signature.decl.return_type is not None:
            result_type = self._extern_return(signature, values, node)
        for name in unknown_symbols(result_type):
            values[name] = Poly.symbol(self.fresh_unknown(name.lstrip("?").rstrip("0123456789")))
        if (
            elementwise
            and elementwise_shapes == []
            and any(
                isinstance(arg.type, HostType) for _, slot in matched if slot for arg in [slot[1]]
            )
        ):
            return FLOAT
        result = self._instantiate(
            signature, result_type, values, renames, rest, elementwise_shapes
        )
        if signature.extern or elementwise:
            result = self._call_float_dtype(matched, result)
        if not elementwise:
            return result
        self.align(node.span, [slot[1].type for _, slot in matched if slot], result)
        return self._narrow_range(signature, matched, result, node)

    def _call_float_dtype(self, matched, result: Type) -> Type:
        """The result of an extern fn or of an elementwise fn, when it names no dtype, has the
        call's float dtype: that of the tensor arguments given for parameters that name
        none, so an f64 call stays f64."""
        if not isinstance(result, TensorType) or result.dtype is not None:
            return result
        if result.resolved_dtype not in FLOAT_DTYPES:
            return result
        for param, slot in matched:
            if slot is None or not isinstance(param.type, TensorType) or param.type.dtype:
                continue
            actual = slot[1].type
            if not isinstance(actual, TensorType):
                continue
            dtype = actual.resolved_dtype
            if dtype not in FLOAT_DTYPES:
                continue
            if dtype != result.resolved_dtype:
                return TensorType(result.axes, result.domain, dtype)
            return result
        return result

    def _narrow_range(self, signature: Signature, matched, result: Type, node) -> Type:
        """An elementwise call's range: the math of a known Python function, or the body's
        range at this call's arguments, narrowed by the declared return type."""
        if not isinstance(result, (TensorType, HostType)) or not signature.is_elementwise:
            return result
        arguments = {param.name: slot[1].type for param, slot in matched if slot is not None}
        first = next(iter(arguments.values()), None)
        interval = None
        if signature.extern:
            known = ranges.KNOWN_FUNCTIONS.get(signature.path)
            argument_range = interval_of(first) if first is not None else None
            if known is None or argument_range is None:
                return result
            self._check_edges(signature, argument_range, node)
            interval = known(argument_range)
        else:
            interval = self.program.body_range(signature, arguments)
        if interval is None:
            return result
        declared = interval_of(result)
        if (
            declared is not None
            and isinstance(result, TensorType)
            and (result.domain.name not in ("Real",) and result.domain.interval is None)
        ):
            return result
        if declared is not None and declared.meets(interval):
            interval = declared.intersect(interval)
        if isinstance(result, HostType):
            return HostType(result.kind, result.size, interval)
        return TensorType(result.axes, range_domain(interval), result.dtype)

    def _check_edges(self, signature: Signature, argument: ranges.Interval, node) -> None:
        """log, log1p, rsqrt and sqrt of values that reach or pass where they're undefined."""
        edge = ranges.EDGES.get(signature.path)
        if edge is None or math.isinf(argument.lo):
            return
        at, edge_allowed = edge
        name = signature.name
        if argument.hi < at or argument.lo < at:
            self.reporter.report(
                "E0506",
                f"`{name}` of values in {argument}, past where it is defined (from {at:g})",
                node.span,
                "outside the function's domain",
                help=stable_alternative(name),
                fixes=fixes.stable_log(node) if name == "log" else [],
            )
        elif argument.lo == at and argument.lo_closed and not edge_allowed:
            self.reporter.report(
                "W0501",
                f"`{name}` of values that can be exactly {at:g}, where it is undefined",
                node.span,
                f"can reach {at:g}",
                help=stable_alternative(name),
                fixes=fixes.stable_log(node) if name == "log" else [],
            )

    def _extern_return(self, signature: Signature, values: dict[str, Poly], node) -> Type:
        ctx = self.scope.type_context()
        ctx.axes = dict(values)
        ctx.mode = "closed"
        ctx.extern = True
        ctx.rounding = True
        result = self.resolver.resolve(signature.decl.return_type, ctx)
        if isinstance(result, TensorType) and result.axes is not None:
            for axis in result.axes:
                if axis.rest:
                    continue
                value = axis.size.substitute(self.scope.dim_values).value
                if value is not None and value < 1:
                    self.reporter.report(
                        "E0401",
                        f"`{signature.name}` would give an axis of size {value}",
                        node.span,
                        "axis smaller than 1",
                    )
                    return UNKNOWN
        return result

    def _instantiate(self, signature, result, values, renames, rest, shapes) -> Type:
        """The call's result: the return type with generics solved and caller's names kept."""
        if not isinstance(result, TensorType):
            return result
        if result.axes is None:
            if shapes:
                axes = shapes[0]
                for shape in shapes[1:]:
                    try:
                        axes = broadcast(axes, shape, self.scope.dim_values)
                    except ShapeError:
                        return UNKNOWN
                return TensorType(axes, result.domain, result.dtype)
            return result
        axes: list[Axis] = []
        for axis in result.axes:
            if axis.rest:
                if rest is None:
                    return UNKNOWN
                axes.extend(rest)
                continue
            size = axis.size.substitute(values)
            if axis.name is not None and axis.name in signature.generics:
                axes.append(Axis(size, renames.get(axis.name)))
            elif axis.name is not None and axis.name in self.scope.dim_values:
                axes.append(Axis(size, axis.name))
            elif size == axis.size:
                axes.append(Axis(size, written=axis.written, parts=axis.parts))
            else:
                axes.append(Axis(size))
        domain = result.domain
        if domain.size is not None:
            domain = Domain(domain.name, domain.over, domain.size.substitute(values))
        if domain.over is not None and renames.get(domain.over):
            domain = Domain(domain.name, renames[domain.over], domain.size)
        return TensorType(tuple(axes), domain, result.dtype)

    def _match_param(
        self, signature, param, arg, variables, equations, renames, shapes, first, index_equations
    ):
        """Add the equations one argument gives; False when it can't be matched at all."""
        arg_index = arg[0]
        value: Arg = arg[1]
        if param.special is not None:
            return self._special_argument(
                signature, param, value, variables, equations, arg_index, first
            )
        expected = param.type
        actual = value.type
        # The type classes have no subclasses: `type(x) is C` is `isinstance(x, C)`.
        expected_kind = type(expected)
        actual_kind = type(actual)
        # A tensor or host value for a tensor or host parameter, the common case, is neither
        # a batch's argument nor one `fit_problem` finds a problem with.
        if not (
            (expected_kind is TensorType or expected_kind is HostType)
            and (actual_kind is TensorType or actual_kind is HostType)
        ):
            fits = data_values.argument(
                self, signature, param, arg_index, value, variables, equations, renames
            )
            if fits is not None:
                return None if fits else False
            problem = model_values.fit_problem(expected, actual)
            if problem is not None:
                model_values.report_misfit(
                    self,
                    problem,
                    f"`{signature.name}` can't take this as `{param.name}`",
                    value.span,
                )
                return False
        if is_loose(actual) or expected_kind is UnknownType:
            if actual_kind is PythonType and expected_kind is TensorType:
                self._python_value_error(value.span, "passed as a tensor argument")
                return False
            return None
        if expected_kind is HostType and actual_kind is TensorType:
            self.reporter.report(
                "E0805",
                f"`{signature.name}` takes a host {expected.kind} as `{param.name}`, "
                f"not the tensor {format_type(actual)}",
                value.span,
                "a tensor",
                help="reading a tensor on the host waits for the device; compute the number "
                "on the host, or make the parameter a [] tensor",
            )
            return False
        if expected_kind is HostType and actual_kind is HostType:
            if not host_kind_fits(actual.kind, expected.kind):
                self.reporter.report(
                    "E0502",
                    f"`{signature.name}` takes {article(expected.kind)} {expected.kind} as "
                    f"`{param.name}`, not {article(actual.kind)} {actual.kind}",
                    value.span,
                    actual.kind,
                )
                return False
            return None
        if expected_kind is TensorType:
            if actual_kind is StringType:
                self.reporter.report(
                    "E0412",
                    f"a string isn't a tensor: `{signature.name}` takes {format_type(expected)} "
                    f"as `{param.name}`",
                    value.span,
                    "string",
                )
                return False
            if actual_kind is HostType:
                if expected.axes is None or not expected.axes:
                    return None
                self.reporter.report(
                    "E0403",
                    f"`{signature.name}` takes {format_type(expected)} as `{param.name}`, "
                    f"not a number",
                    value.span,
                    format_type(actual),
                )
                return False
            if actual_kind is not TensorType:
                return None
            misfit = domains.value_fits(actual, expected)
            if misfit is not None:
                self.reporter.report(
                    "E0501",
                    f"`{signature.name}` can't take this as `{param.name}`: {misfit.message}",
                    value.span,
                    format_type(actual),
                    notes=[f"`{param.name}` is {format_type(expected)}"],
                    help=misfit.help,
                    fixes=fixes.conversions(value, misfit.suffixes),
                )
                return False
            if not signature.extern and dtype_misfit(expected, actual):
                self.reporter.report(
                    "E0502",
                    f"`{signature.name}` takes {expected.resolved_dtype} values as "
                    f"`{param.name}`, not {actual.resolved_dtype}",
                    value.span,
                    format_type(actual),
                    notes=[f"`{param.name}` is {format_type(expected)}"],
                    help=f"convert it first, as in `to {expected.resolved_dtype}`",
                    fixes=fixes.conversions(value, [f"to {expected.resolved_dtype}"]),
                )
                return False
            if expected.axes is None:
                if actual.axes is not None:
                    shapes.append(actual.axes)
                return None
            if actual.axes is None:
                return None
            want_axes = expected.axes
            rest_index = next((i for i, a in enumerate(want_axes) if a.rest), None)
            have_axes = actual.axes
            captured = None
            if rest_index is not None:
                fixed_after = len(want_axes) - rest_index - 1
                if len(have_axes) < len(want_axes) - 1:
                    self._rank_error(signature, param, value, len(want_axes) - 1, at_least=True)
                    return False
                captured = have_axes[rest_index : len(have_axes) - fixed_after]
                have_axes = have_axes[:rest_index] + have_axes[len(have_axes) - fixed_after :]
                want_axes = want_axes[:rest_index] + want_axes[rest_index + 1 :]
            if len(have_axes) != len(want_axes):
                self._rank_error(signature, param, value, len(want_axes), at_least=False)
                return False
            for axis_index, (want, have) in enumerate(zip(want_axes, have_axes, strict=True)):
                generic = want.size.single_symbol()
                if generic is not None and generic in signature.generics:
                    renames.setdefault(generic, have.name)
                equations.append(
                    Equation(
                        want.size.substitute(variables),
                        have.size,
                        (arg_index, param, axis_index, have),
                    )
                )
            if expected.domain.size is not None and actual.domain.size is not None:
                index_equations.append(
                    Equation(
                        expected.domain.size.substitute(variables),
                        actual.domain.size,
                        (arg_index, param, -1, "index"),
                    )
                )
            return captured
        return None

    def _size_default(self, signature, param: ParamSig, variables, equations) -> None:
        """A left-out `Size[S] = default` argument: S is the default's size."""
        default = param.decl.default
        if param.special != "Size" or param.special_size is None or default is None:
            return
        if isinstance(default, ast.IntLit):
            value = Poly.const(default.value)
        elif isinstance(default, ast.Name) and default.name in variables:
            value = variables[default.name]
        elif isinstance(default, ast.Name) and default.name in self.scope.dim_values:
            value = Poly.symbol(default.name)
        else:
            return
        equations.append(
            Equation(param.special_size.substitute(variables), value, (-1, param, 0, None))
        )

    def _rank_error(self, signature, param, value, want: int, at_least: bool) -> None:
        have = value.type.rank if isinstance(value.type, TensorType) else 0
        self.reporter.report(
            "E0403",
            f"`{signature.name}` can't take this as `{param.name}`: it has {have} axes, "
            f"not {'at least ' if at_least else ''}{want}",
            value.span,
            format_type(value.type),
            notes=[f"`{param.name}` is {format_type(param.type)}"],
        )

    def _special_argument(
        self, signature, param, value: Arg, variables, equations, arg_index, first: Type | None
    ):
        """Axis[n], Axes[n] and Size[S] arguments of an extern fn."""
        expr = value.expr
        if param.special in ("Axis", "Axes"):
            if not isinstance(expr, ast.Name):
                self.reporter.report(
                    "E0406",
                    f"`{param.name}` takes the name of an axis",
                    value.span,
                    "not an axis name",
                    help=self._positional_axis_help(signature, param, value),
                )
                return False
            if not isinstance(first, TensorType) or first.axes is None:
                return None
            for axis in first.axes:
                if axis.name == expr.name:
                    if param.special_size is not None:
                        equations.append(
                            Equation(
                                param.special_size.substitute(variables),
                                axis.size,
                                (arg_index, param, 0, axis),
                            )
                        )
                    return None
            named = [f"`{axis.name}`" for axis in first.axes if axis.name]
            self.reporter.report(
                "E0405",
                f"{format_type(first)} has no axis `{expr.name}`",
                value.span,
                "not an axis of the first argument",
                notes=[
                    "its named axes are " + ", ".join(named) if named else "it has no named axes"
                ],
                help=self._positional_axis_help(signature, param, value),
            )
            return False
        size = self.static_size(expr, value.type)
        if size is None:
            self.reporter.report(
                "E0406",
                f"`{param.name}` takes a size known before the program runs",
                value.span,
                "not a static size",
            )
            return False
        if param.special_size is not None:
            equations.append(
                Equation(
                    param.special_size.substitute(variables), size, (arg_index, param, 0, None)
                )
            )
        return None

    def _positional_axis_help(self, signature, param, value: Arg) -> str | None:
        return axis_arguments.positional_axis_help(
            signature, param, value, self.program.prelude.symbols, self.env.values
        )

    def static_size(self, expr, type_: Type) -> Poly | None:
        if isinstance(type_, HostType) and type_.kind == "int" and type_.size is not None:
            return type_.size
        return None

    def match_arguments(self, name: str, params: list[ParamSig], args: list[Arg], node):
        """Pair arguments with parameters by position and keyword (E0406)."""
        slots: list[tuple[int, Arg] | None] = [None] * len(params)
        by_name = {param.name: index for index, param in enumerate(params)}
        position = 0
        ok = True
        for arg_index, arg in enumerate(args):
            if arg.name is None:
                if position >= len(params):
                    self.reporter.report(
                        "E0406",
                        f"`{name}` takes {len(params)} argument(s), but got more",
                        arg.span,
                        "one too many",
                    )
                    ok = False
                    break
                slots[position] = (arg_index, arg)
                position += 1
                continue
            index = by_name.get(arg.name)
            if index is None:
                self.reporter.report(
                    "E0406",
                    f"`{name}` has no parameter `{arg.name}`",
                    arg.span,
                    "unknown keyword",
                    help=suggestion(arg.name, by_name),
                )
                ok = False
                continue
            if slots[index] is not None:
                self.reporter.report(
                    "E0406",
                    f"`{arg.name}` is given twice",
                    arg.span,
                    "second time",
                )
                ok = False
                continue
            slots[index] = (arg_index, arg)
        for index, param in enumerate(params):
            if slots[index] is None and not param.has_default and ok:
                self.reporter.report(
                    modes.missing_code(param.type),
                    f"`{name}` is missing its argument `{param.name}`",
                    node.span,
                    f"no `{param.name}`",
                )
                ok = False
        if not ok:
            return None
        return [(param, slots[index]) for index, param in enumerate(params)]

    def _python_value_error(self, span: Span, how: str) -> None:
        self.reporter.report(
            "E0413",
            f"a Python value's shape isn't known, so it can't be {how}",
            span,
            "Python value",
            help="say what it is with `as`, as in `torch.load(path) as [D 3*D]`",
        )


# ---------------------------------------------------------------------- helpers


def _has_rest(type_: Type | None) -> bool:
    return (
        isinstance(type_, TensorType)
        and type_.axes is not None
        and any(axis.rest for axis in type_.axes)
    )


def _written_values(variables: dict[str, Poly], equations: list[Equation]) -> dict[str, Poly]:
    """The generic sizes of a call as the caller writes them, dims not replaced by their
    values (`T + 1` rather than 33), where solving without the dims' values finds them."""
    solution = solve(equations, {})
    return {name: solution.apply(size) for name, size in variables.items()}
