"""Control flow for torch.export: each `.ss` `if` and `for` of the compiled functions
becomes a call of a function per branch or of the loop's body, which the export helpers
run as Python when the condition or the ends are known while tracing, and as
`torch.cond` or `torch.while_loop` otherwise.

It rewrites the compiled module's Python tree, where a `.ss` `if` is `if _ss_bool(c):`
and a `.ss` loop `for i in _ss_range(a, b):`. A block's function takes the values from
before it that it may assign, and gives back those and the values it binds (both
branches, for an `if`). A block with a `return` stays Python.

A host number a block carries (and a loop's counter inside it) may be a 0-d tensor
from there on, so the statements that can see one are rewritten to take either: an `if`
on a host bool that mentions it is a block too (Python when the test is a bool while
tracing, torch.cond when it is a tensor), `not`, `and` and `or` on it are the helpers
`_ss_not`, `_ss_and` and `_ss_or`, indexing with it is `_ss_at`, and `to` a tensor of it
is `_ss_host_tensor`.
"""

from __future__ import annotations

import ast
import copy


def lower_control_flow(tree: ast.Module, hosts: dict[str, set[str]] | None = None) -> ast.Module:
    """A copy of the module's tree with its functions' `if`s and loops rewritten.

    `hosts` names each function's int, float and bool parameters, which a caller may give
    a block's 0-d tensor for: they are rewritten as such values are after a block."""
    tree = copy.deepcopy(tree)
    counter = [0]
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            bound = {arg.arg for arg in node.args.args + node.args.kwonlyargs}
            carried = set((hosts or {}).get(node.name, ())) & bound
            node.body = _block(node.body, bound, counter, carried)
    return ast.fix_missing_locations(tree)


def _block(
    body: list[ast.stmt], bound: set[str], counter: list[int], carried: set[str]
) -> list[ast.stmt]:
    """The statements with their blocks rewritten; `bound` grows with what they bind, and
    `carried` (the names that may hold a block's 0-d tensor) with what blocks give back."""
    out: list[ast.stmt] = []
    for stmt in body:
        if carried:
            stmt = _EitherHost(carried).visit(stmt)
        if _is_ss_if(stmt) and not _returns(stmt):
            out.extend(_lower_if(stmt, bound, counter, carried))
            carried |= _stores(out[-1:])
        elif _is_host_if(stmt, carried):
            stmt.test = ast.Call(ast.Name("_ss_bool", ast.Load()), [stmt.test], [])
            out.extend(_lower_if(stmt, bound, counter, carried))
            carried |= _stores(out[-1:])
        elif _is_ss_loop(stmt) and not _returns(stmt):
            out.extend(_lower_loop(stmt, bound, counter, carried))
            carried |= _stores(out[-1:])
        else:
            if isinstance(stmt, ast.If | ast.For | ast.While | ast.With | ast.Try):
                for name in ("body", "orelse", "finalbody"):
                    inner = getattr(stmt, name, None)
                    if inner:
                        setattr(stmt, name, _block(inner, set(bound), counter, set(carried)))
            out.append(stmt)
        bound |= _stores(out[-1:])
    return out


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(inner, ast.Name) and inner.id in names for inner in ast.walk(node))


def _is_host_if(stmt: ast.stmt, carried: set[str]) -> bool:
    """A Python `if` (on a host bool) whose test may now be a block's 0-d tensor; not an
    argument check, whose error reads the function's `locals()`."""
    return (
        isinstance(stmt, ast.If)
        and not _is_ss_if(stmt)
        and bool(carried)
        and _mentions(stmt.test, carried)
        and not _returns(stmt)
        and not any(
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "locals"
            for node in _own_nodes([stmt])
        )
    )


class _EitherHost(ast.NodeTransformer):
    """`not`, `and`, `or` and `_ss_torch.tensor(...)` on a value that may be a block's
    0-d tensor, as helpers that take a number or a tensor. Nested functions are left to
    their own blocks."""

    def __init__(self, carried: set[str]) -> None:
        self.carried = carried

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not) and _mentions(node.operand, self.carried):
            return ast.copy_location(_call("_ss_not", [node.operand]), node)
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        if not _mentions(node, self.carried):
            return node
        helper = "_ss_and" if isinstance(node.op, ast.And) else "_ss_or"
        made = node.values[0]
        for value in node.values[1:]:
            made = _call(helper, [made, value])
        return ast.copy_location(made, node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if (
            isinstance(node.ctx, ast.Load)
            and _mentions(node.slice, self.carried)
            and not any(isinstance(part, ast.Slice | ast.Starred) for part in parts)
        ):
            return ast.copy_location(_call("_ss_at", [node.value, *parts]), node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "tensor"
            and isinstance(func.value, ast.Name)
            and func.value.id == "_ss_torch"
            and node.args
            and _mentions(node.args[0], self.carried)
        ):
            node.func = ast.Name("_ss_host_tensor", ast.Load())
        return node


def _call(name: str, args: list[ast.expr]) -> ast.Call:
    return ast.Call(ast.Name(name, ast.Load()), args, [])


def _is_ss_if(stmt: ast.stmt) -> bool:
    test = stmt.test if isinstance(stmt, ast.If) else None
    return (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "_ss_bool"
        and len(test.args) == 1
    )


def _is_ss_loop(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.For) or not isinstance(stmt.target, ast.Name) or stmt.orelse:
        return False
    it = stmt.iter
    return (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "_ss_range"
        and len(it.args) == 2
    )


def _own_nodes(statements: list[ast.stmt]):
    """Every node of the statements, not looking into nested functions and lambdas."""
    stack: list[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.FunctionDef | ast.Lambda):
                stack.append(child)


def _returns(stmt: ast.stmt) -> bool:
    return any(isinstance(node, ast.Return) for node in _own_nodes([stmt]))


def _stores(statements: list[ast.stmt]) -> set[str]:
    found = {
        node.id
        for node in _own_nodes(statements)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    found |= {node.name for node in statements if isinstance(node, ast.FunctionDef)}
    return found


def _user(names: set[str]) -> list[str]:
    return sorted(name for name in names if not name.startswith("_ss_"))


def _function(name: str, params: list[str], body: list[ast.stmt], results: list[str]):
    returned = ast.Return(
        ast.Tuple([ast.Name(result, ast.Load()) for result in results], ast.Load())
    )
    return ast.FunctionDef(
        name=name,
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(param) for param in params],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        ),
        body=[*body, returned] if body else [returned],
        decorator_list=[],
        returns=None,
        type_params=[],
    )


def _assign(results: list[str], value: ast.expr) -> ast.stmt:
    if not results:
        return ast.Expr(value)
    target = ast.Tuple([ast.Name(result, ast.Store()) for result in results], ast.Store())
    return ast.Assign([target], value)


def _names(names: list[str]) -> ast.Tuple:
    return ast.Tuple([ast.Name(name, ast.Load()) for name in names], ast.Load())


def _lower_if(
    stmt: ast.If, bound: set[str], counter: list[int], carried: set[str]
) -> list[ast.stmt]:
    counter[0] += 1
    number = counter[0]
    then_stores = _stores(stmt.body)
    else_stores = _stores(stmt.orelse)
    operands = _user((then_stores | else_stores) & bound)
    results = _user(((then_stores | else_stores) & bound) | (then_stores & else_stores))
    inner = set(bound)
    then_body = _block(stmt.body, inner | set(operands), counter, carried | set(operands))
    else_body = _block(stmt.orelse, inner | set(operands), counter, carried | set(operands))
    then_fn = _function(f"_ss_then_{number}", operands, then_body, results)
    else_fn = _function(f"_ss_else_{number}", operands, else_body, results)
    call = ast.Call(
        ast.Name("_ss_cond", ast.Load()),
        [
            stmt.test.args[0],
            ast.Name(then_fn.name, ast.Load()),
            ast.Name(else_fn.name, ast.Load()),
            _names(operands),
        ],
        [],
    )
    made = [then_fn, else_fn, _assign(results, call)]
    return [ast.copy_location(node, stmt) for node in made]


def _lower_loop(
    stmt: ast.For, bound: set[str], counter: list[int], outer: set[str]
) -> list[ast.stmt]:
    counter[0] += 1
    number = counter[0]
    variable = stmt.target.id
    carried = _user((_stores(stmt.body) & bound) - {variable})
    inside = outer | set(carried) | {variable}
    body = _block(stmt.body, set(bound) | {variable}, counter, inside)
    body_fn = _function(f"_ss_body_{number}", [variable, *carried], body, carried)
    low, high = stmt.iter.args
    call = ast.Call(
        ast.Name("_ss_loop", ast.Load()),
        [low, high, ast.Name(body_fn.name, ast.Load()), _names(carried)],
        [],
    )
    made = [body_fn, _assign(carried, call)]
    return [ast.copy_location(node, stmt) for node in made]
