"""The declaration a generic function's instance checks: a copy with names put in.

An instance is its generic function with each type variable replaced by the model or
record it stands for, in the signature and in the body (`load("ckpt.pt", M, AdamW[M],
int)` loads an `Mlp`). An instance of another file's generic function is checked in the
calling file, so that file's own declarations are renamed too, to the qualified names the
calling file gives them (`StepLogs` becomes `std.StepLogs`, `run` becomes `std.run`);
the names it doesn't declare (`loss`, the built-ins) are left for the calls to find.
Spans stay those of the generic function's own file.
"""

from __future__ import annotations

from collections.abc import Mapping

from shapescript.check.declarations.qualified import map_type_expr
from shapescript.records import replace
from shapescript.syntax import ast
from shapescript.syntax.source import Span

_NODE_MODULE = ast.__name__


def instance_decl(
    decl: ast.FnDecl, names: Mapping[str, str], modules: Mapping[str, str] | None = None
) -> ast.FnDecl:
    """`decl` with every name it uses that `names` maps renamed, except where a parameter
    or a local of the function has that name. `modules` maps the names the function's file
    binds to its own imports to the prefix `names` knows their declarations by, so that
    `layers.f` (a Member) is renamed as `layers.f` would be."""
    bound = local_names(decl)
    renamer = _Rewriter(
        {name: new for name, new in names.items() if name not in bound},
        {name: prefix for name, prefix in (modules or {}).items() if name not in bound},
    )
    return renamer.node(decl)


def local_names(decl: ast.FnDecl) -> set[str]:
    """Every name the function binds: its parameters, assignment and loop targets, and
    its lambdas' parameters."""
    from shapescript.check.algebra.syntax_facts import walk

    found = {param.name for param in decl.params}
    for node in walk(decl):
        if isinstance(node, ast.Target | ast.LambdaParam):
            found.add(node.name)
    return found


class _Rewriter:
    def __init__(self, names: Mapping[str, str], modules: Mapping[str, str]) -> None:
        self.names = names
        self.modules = modules

    def type_name(self, name: str, span: Span) -> str:
        if "." in name:
            bound, _, rest = name.partition(".")
            prefix = self.modules.get(bound)
            if prefix is None:
                return name
            name = f"{prefix}.{rest}"
        return self.names.get(name, name)

    def node(self, value):
        if isinstance(value, list):
            items = [self.node(item) for item in value]
            changed = any(new is not old for new, old in zip(items, value, strict=True))
            return items if changed else value
        if type(value).__module__ != _NODE_MODULE:
            return value
        if isinstance(value, ast.Name):
            new = self.names.get(value.name)
            return value if new is None else ast.Name(new, value.span)
        if isinstance(value, ast.Member) and isinstance(value.target, ast.Name):
            prefix = self.modules.get(value.target.name)
            if prefix is not None:
                qualified = f"{prefix}.{value.name}"
                return ast.Name(self.names.get(qualified, qualified), value.span)
        if isinstance(value, ast.TypeExpr):
            return map_type_expr(value, self.type_name)
        fields = getattr(type(value), "__record_fields__", ())
        changes = {}
        for item in fields:
            old = getattr(value, item.name)
            if isinstance(old, str | int | float | bool | Span) or old is None:
                continue
            new = self.node(old)
            if new is not old:
                changes[item.name] = new
        return replace(value, **changes) if changes else value
