"""The exact run: a function's checked body walked over numpy arrays of mpmath numbers.

Every operation goes through `Interpreter.apply`, which computes it exactly and, when
tracing, also in float32 on the exact inputs rounded to float32: the difference is the
error that one operation adds, and the largest such names the operation responsible.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from shapescript.check.algebra.assertions import written_text
from shapescript.check.algebra.types import TensorType
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.source import Span
from shapescript.verify import patterns
from shapescript.verify.arith import Exact, Float32
from shapescript.verify.values import AssertFailed, ModelValue, Unsupported, Worst, compare

Op = Callable[..., Any]
FLOAT32 = Float32()


@dataclass
class OpError:
    """The error one operation adds in float32, on one run."""

    operation: str
    line: int
    worst: Worst


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


@dataclass
class _Frame:
    base: int
    variables: dict[str, Any]
    sizes: dict[str, int]


class Interpreter:
    """Runs the file's functions exactly (`arithmetic`), recording per-op float32 errors."""

    def __init__(self, checked: Checked, arithmetic: Exact, trace: bool = True) -> None:
        self.checked = checked
        self.ar = arithmetic
        self.trace = trace
        self.op_errors: list[OpError] = []
        self.functions: dict[str, tuple[ast.FnDecl, int]] = {}
        for item in checked.items:
            if isinstance(item.item, ast.FnDecl):
                self.functions[item.item.name] = (item.item, item.base)
        self.dims = {name: int(value) for name, value in checked.dim_values.items()}
        self.frame = _Frame(0, {}, dict(self.dims))
        #: The expression whose value a pipe stage receives, for its axis names.
        self.piped_from: Any = None

    # -- calls ---------------------------------------------------------------------

    def call(self, name: str, arguments: list[Any], keywords: dict[str, Any] | None = None) -> Any:
        """Call the file's function `name` on exact arguments."""
        declaration, base = self.functions[name]
        values = dict(zip([param.name for param in declaration.params], arguments, strict=False))
        values.update(keywords or {})
        signature = self.checked.signatures.get(name)
        sizes = dict(self.dims)
        outer = self.frame
        self.frame = _Frame(base, {}, sizes)
        try:
            for param in declaration.params:
                if param.name not in values:
                    if param.default is None:
                        line = self.checked.source.position(base + param.span.start).line
                        raise Unsupported(f"calling `{name}` without `{param.name}`", line)
                    values[param.name] = self.eval(param.default)
            for param in signature.params if signature is not None else ():
                value = values.get(param.name)
                if isinstance(param.type, TensorType) and isinstance(value, np.ndarray):
                    for axis, size in zip(param.type.axes or (), value.shape, strict=False):
                        if axis.name and axis.size.symbols() == {axis.name}:
                            sizes.setdefault(axis.name, int(size))
            self.frame.variables.update(values)
            if declaration.expr_body is not None:
                return self.eval(declaration.expr_body)
            try:
                self.run_block(declaration.body or [])
            except _Return as returned:
                return returned.value
            return None
        finally:
            self.frame = outer

    def run_block(self, statements: list[ast.Stmt]) -> None:
        for statement in statements:
            self.run_statement(statement)

    def run_statement(self, statement: ast.Stmt) -> None:
        if isinstance(statement, ast.Return):
            raise _Return(None if statement.value is None else self.eval(statement.value))
        if isinstance(statement, ast.Assign):
            value = self.eval(statement.value)
            if len(statement.targets) == 1:
                self.frame.variables[statement.targets[0].name] = value
            else:
                for target, part in zip(statement.targets, value, strict=True):
                    self.frame.variables[target.name] = part
            return
        if isinstance(statement, ast.For) and isinstance(statement.iterable, ast.Range):
            low = int(self.eval(statement.iterable.lo))
            high = int(self.eval(statement.iterable.hi))
            for index in range(low, high):
                self.frame.variables[statement.var.name] = index
                self.run_block(statement.body)
            return
        if isinstance(statement, ast.For):
            items = self.eval(statement.iterable)
            if not isinstance(items, list):
                raise Unsupported("a `for` over this", self.line(statement))
            for item in items:
                self.frame.variables[statement.var.name] = item
                self.run_block(statement.body)
            return
        if isinstance(statement, ast.If):
            if bool(self.eval(statement.condition)):
                self.run_block(statement.then_body)
            elif statement.else_body is not None:
                self.run_block(statement.else_body)
            return
        if isinstance(statement, ast.ExprStmt):
            self.eval(statement.expr)
            return
        if isinstance(statement, ast.Assert):
            if not bool(self.eval(statement.condition)):
                span = statement.condition.span
                base = self.frame.base
                text = written_text(self.checked.source.text, base + span.start, base + span.end)
                raise AssertFailed(text, self.line(statement))
            return
        raise Unsupported(f"the statement `{type(statement).__name__}`", self.line(statement))

    # -- expressions ---------------------------------------------------------------

    def line(self, node: Any) -> int:
        return self.checked.source.position(self.frame.base + node.span.start).line

    def names(self, node: Any) -> tuple[str | None, ...] | None:
        """The axis names the checker recorded for an expression, or None."""
        span = Span(node.span.start + self.frame.base, node.span.end + self.frame.base)
        type_ = self.checked.type_of(span)
        if isinstance(type_, TensorType) and type_.axes is not None:
            return tuple(axis.name for axis in type_.axes)
        return None

    def apply(self, label: str, node: Any, function: Op, *inputs: Any) -> Any:
        """One operation: exactly, and (tracing) in float32 on the rounded exact inputs."""
        try:
            result = function(self.ar, *inputs)
        except (ZeroDivisionError, ValueError, TypeError) as exc:
            raise Unsupported(f"`{label}` ({exc})", self.line(node)) from exc
        self._bind_sizes(node, result)
        if self.trace and _is_real(result):
            rounded = [_round(value) for value in inputs]
            pairs = zip(inputs, rounded, strict=True)
            if not any(_overflowed(before, after) for before, after in pairs):
                with np.errstate(all="ignore"):
                    try:
                        approximate = function(FLOAT32, *rounded)
                    except (ValueError, TypeError, ZeroDivisionError):
                        approximate = None
                if approximate is not None:
                    worst = compare(approximate, result)
                    self.op_errors.append(OpError(label, self.line(node), worst))
        return result

    def _bind_sizes(self, node: Any, result: Any) -> None:
        """Learn the sizes of the axes a result's type names (a pattern's new `m`)."""
        names = self.names(node) if isinstance(result, np.ndarray) else None
        if names is None or len(names) != result.ndim:
            return
        for name, size in zip(names, result.shape, strict=True):
            if name is not None:
                self.frame.sizes.setdefault(name, int(size))

    def eval(self, node: Any) -> Any:
        method = getattr(self, "eval_" + type(node).__name__, None)
        if method is None:
            raise Unsupported(f"`{type(node).__name__}`", self.line(node))
        return method(node)

    def eval_Name(self, node: ast.Name) -> Any:
        if node.name in self.frame.variables:
            return self.frame.variables[node.name]
        if node.name in self.frame.sizes:
            return self.frame.sizes[node.name]
        raise Unsupported(f"the name `{node.name}`", self.line(node))

    def eval_IntLit(self, node: ast.IntLit) -> Any:
        return node.value

    def eval_FloatLit(self, node: ast.FloatLit) -> Any:
        return self.ar.scalar(node.value)

    def eval_BoolLit(self, node: ast.BoolLit) -> Any:
        return node.value

    def eval_InfLit(self, node: ast.InfLit) -> Any:
        return self.ar.scalar(float("inf"))

    def eval_Cast(self, node: ast.Cast) -> Any:
        if node.kind == "to":
            return self.convert(node, node.type, self.eval(node.operand))
        if node.kind != "as":
            raise Unsupported(f"`{node.kind}`", self.line(node))
        return self.eval(node.operand)

    def convert(self, node: Any, written: ast.TypeExpr, value: Any) -> Any:
        """`value to T` for a dtype T: rounded to the dtype as torch rounds."""
        if written.words:
            raise Unsupported("`to` a domain", self.line(node))
        span = Span(node.span.start + self.frame.base, node.span.end + self.frame.base)
        type_ = self.checked.type_of(span)
        dtype = type_.resolved_dtype if isinstance(type_, TensorType) else written.dtype
        if dtype is None:
            return value
        if isinstance(value, np.ndarray):
            return self.apply(f"to {dtype}", node, lambda ar, v: ar.convert(v, dtype), value)
        array = np.asarray(value) if isinstance(value, bool | int) else self.ar.array(0.0)
        if not isinstance(value, bool | int):
            array[()] = value
        return self.apply(f"to {dtype}", node, lambda ar, v: ar.convert(v, dtype), array)[()]

    def eval_Member(self, node: ast.Member) -> Any:
        target = self.eval(node.target)
        if isinstance(target, ModelValue) and node.name in target.fields:
            return target.fields[node.name]
        raise Unsupported(f"`.{node.name}`", self.line(node))

    def eval_Unary(self, node: ast.Unary) -> Any:
        value = self.eval(node.operand)
        if node.op == "-":
            if not isinstance(value, np.ndarray):
                return -value
            return self.apply("-", node, lambda ar, x: -x, value)
        if node.op == "!":
            return np.logical_not(value) if isinstance(value, np.ndarray) else not value
        raise Unsupported(f"the operator `{node.op}`", self.line(node))

    def eval_Binary(self, node: ast.Binary) -> Any:
        left, right = self.eval(node.left), self.eval(node.right)
        if node.op == "@":
            return self.apply("@", node, lambda ar, a, b: np.matmul(a, b), left, right)
        left = self._aligned(left, node.left, node)
        right = self._aligned(right, node.right, node)
        operations: dict[str, Op] = {
            "+": lambda ar, a, b: a + b,
            "-": lambda ar, a, b: a - b,
            "*": lambda ar, a, b: a * b,
            "/": lambda ar, a, b: a / b,
            "**": lambda ar, a, b: a**b,
            "%": lambda ar, a, b: a % b,
        }
        comparisons: dict[str, Op] = {
            "<": np.less,
            "<=": np.less_equal,
            ">": np.greater,
            ">=": np.greater_equal,
            "==": np.equal,
            "!=": np.not_equal,
            "&&": np.logical_and,
            "||": np.logical_or,
            "and": np.logical_and,
            "or": np.logical_or,
        }
        if node.op in comparisons:
            result = comparisons[node.op](left, right)
            return result if isinstance(result, np.ndarray) else bool(result)
        if node.op not in operations:
            raise Unsupported(f"the operator `{node.op}`", self.line(node))
        if not isinstance(left, np.ndarray) and not isinstance(right, np.ndarray):
            if node.op == "/" and isinstance(left, int) and isinstance(right, int):
                return self.ar.scalar(left) / right
            return operations[node.op](self.ar, left, right)
        return self.apply(node.op, node, operations[node.op], left, right)

    def _aligned(self, value: Any, operand: Any, result: Any) -> Any:
        """An operand's axes put in the result's order by name, with new axes of size 1."""
        if not isinstance(value, np.ndarray):
            return value
        mine, theirs = self.names(operand), self.names(result)
        if mine is None or theirs is None or None in mine or None in theirs:
            return value
        if len(set(mine)) != len(mine) or not set(mine) <= set(theirs):
            return value
        if value.ndim != len(mine):
            return value
        order = sorted(range(len(mine)), key=lambda index: theirs.index(mine[index]))
        moved = value.transpose(order)
        shape = [moved.shape[[mine[i] for i in order].index(n)] if n in mine else 1 for n in theirs]
        return moved.reshape(shape)

    def eval_Index(self, node: ast.Index) -> Any:
        if isinstance(node.target, ast.Name) and node.target.name == "causal":
            items = node.items[0].items if isinstance(node.items[0], ast.SpacedIndex) else []
            if len(items) == 2:
                rows, columns = (self._size_of(item) for item in items)
                return np.tril(np.ones((rows, columns), dtype=bool))
        target = self.eval(node.target)
        if isinstance(target, list) and len(node.items) == 1:
            return target[int(self.eval(node.items[0]))]
        index: list[Any] = []
        for item in node.items:
            if isinstance(item, ast.Slice):
                parts = (item.lo, item.hi, item.step)
                index.append(slice(*(None if p is None else int(self.eval(p)) for p in parts)))
            elif isinstance(item, ast.SpacedIndex):
                raise Unsupported("a spaced index", self.line(item))
            else:
                value = self.eval(item)
                index.append(value if isinstance(value, np.ndarray) else int(value))
        return self.apply("[]", node, lambda ar, x: x[tuple(index)], target)

    def _size_of(self, node: Any) -> int:
        """A size written in an index (`causal[n m]`): an axis's before a variable's."""
        if isinstance(node, ast.Name) and node.name in self.frame.sizes:
            return self.frame.sizes[node.name]
        return int(self.eval(node))

    def eval_Pipe(self, node: ast.Pipe) -> Any:
        value = self.eval(node.input)
        previous: Any = node.input
        for stage in node.stages:
            self.piped_from = previous
            previous = stage
            if isinstance(stage, ast.Call):
                value = self.eval_Call(stage, piped=value)
            elif isinstance(stage, ast.Name):
                value = self.call_named(stage.name, stage, [value], {}, [])
            elif isinstance(stage, ast.ToStage):
                value = self.convert(stage, stage.type, value)
            else:
                raise Unsupported("this pipe stage", self.line(stage))
        return value

    def eval_Call(self, node: ast.Call, piped: Any = None) -> Any:
        if not isinstance(node.callee, ast.Name):
            raise Unsupported("calling this", self.line(node))
        positional: list[Any] = [] if piped is None else [piped]
        keywords: dict[str, Any] = {}
        pattern_list: list[ast.Pattern] = []
        for argument in node.args:
            value = argument.value
            if isinstance(value, ast.Pattern):
                pattern_list.append(value)
            elif argument.name == "over" and isinstance(value, ast.Name):
                keywords["over"] = value.name
            elif argument.name is not None:
                keywords[argument.name] = self.eval(value)
            else:
                positional.append(self.eval(value))
        return self.call_named(node.callee.name, node, positional, keywords, pattern_list)

    def call_named(
        self,
        name: str,
        node: Any,
        positional: list[Any],
        keywords: dict[str, Any],
        pattern_list: list[ast.Pattern],
    ) -> Any:
        from shapescript.verify.builtins import BUILTINS

        if name in self.functions:
            return self.call(name, positional, keywords)
        builtin = BUILTINS.get(name)
        if builtin is None:
            raise Unsupported(f"`{name}`", self.line(node))
        return builtin(self, node, positional, keywords, pattern_list)

    def pattern(self, node: Any, kind: str, arrays: list[Any], pattern: ast.Pattern) -> Any:
        sizes = dict(self.frame.sizes)
        try:
            if kind == "einsum":
                return self.apply(
                    kind, node, lambda ar, *xs: patterns.einsum(list(xs), pattern), *arrays
                )
            return self.apply(
                kind, node, lambda ar, x: patterns.rearrange(x, pattern, sizes), arrays[0]
            )
        except ValueError as exc:
            raise Unsupported(f"`{kind}` with this pattern ({exc})", self.line(node)) from exc


def _is_real(value: Any) -> bool:
    return isinstance(value, np.ndarray) and value.dtype == object


def _round(value: Any) -> Any:
    """An exact value as float32 (arrays of ints and bools, and host numbers, as they are)."""
    if isinstance(value, np.ndarray):
        return FLOAT32.array(value) if value.dtype == object else value
    if isinstance(value, tuple):
        return tuple(_round(part) for part in value)
    if isinstance(value, (bool, int)) or value is None:
        return value
    try:
        return np.float32(float(value))
    except TypeError:
        return value


def _overflowed(before: Any, after: Any) -> bool:
    """Whether rounding to float32 made a finite exact input infinite."""
    if not _is_real(before):
        return False
    with np.errstate(all="ignore"):
        exact_finite = np.isfinite(np.array([float(v) for v in before.reshape(-1)]))
    return bool(
        (exact_finite & ~np.isfinite(np.asarray(after, dtype=np.float64).reshape(-1))).any()
    )


__all__ = ["Interpreter", "OpError"]
