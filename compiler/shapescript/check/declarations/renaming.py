"""Another file's declarations, renamed as the importing file names them.

An imported file is checked on its own, with its own names (`D`, `Mlp`, `layers.H`).
The importing file sees them under its qualified names (`attention.D`, `attention.Mlp`,
`attention.layers.H`): every dim, domain, model and record name in a type, a signature or
a model's fields is replaced, and axis names (`b`, `n`) are left alone.
"""

from __future__ import annotations

from collections.abc import Mapping

from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.types import (
    Axis,
    BatchType,
    Domain,
    FunctionType,
    GradType,
    HostType,
    ModelType,
    NamedType,
    OptimizerType,
    SeveralType,
    TensorType,
    Type,
)
from shapescript.check.declarations.model_info import FieldInfo, ModelInfo
from shapescript.check.declarations.qualified import map_axes, map_type_expr
from shapescript.check.declarations.signatures import ParamSig, Signature
from shapescript.records import replace
from shapescript.syntax import ast


class Renamer:
    """Renames one imported file's names: `names` maps its dims, aliases, domains, models and
    records (its own and those of the files it imports), `functions` its fns and externs."""

    def __init__(self, names: Mapping[str, str], functions: Mapping[str, str]) -> None:
        self.names = names
        self.functions = functions
        self.symbols = {old: Poly.symbol(new) for old, new in names.items()}

    def name(self, name: str) -> str:
        return self.names.get(name, name)

    def poly(self, size: Poly | None) -> Poly | None:
        return size.substitute(self.symbols) if size is not None else None

    def axis(self, axis: Axis) -> Axis:
        name = self.names.get(axis.name, axis.name) if axis.name is not None else None
        size = self.poly(axis.size)
        if size == axis.size:
            return Axis(size, name, axis.rest, axis.written, axis.parts)
        return Axis(size, name, axis.rest)

    def axes(self, axes):
        return tuple(self.axis(axis) for axis in axes) if axes is not None else None

    def domain(self, domain: Domain) -> Domain:
        over = self.names.get(domain.over, domain.over) if domain.over is not None else None
        return Domain(self.name(domain.name), over, self.poly(domain.size), domain.interval)

    def type(self, type_: Type | None) -> Type | None:
        if type_ is None:
            return None
        if isinstance(type_, TensorType):
            return TensorType(self.axes(type_.axes), self.domain(type_.domain), type_.dtype)
        if isinstance(type_, HostType):
            return HostType(type_.kind, self.poly(type_.size), type_.interval)
        if isinstance(type_, ModelType):
            return ModelType(self.name(type_.name))
        if isinstance(type_, GradType):
            return GradType(self.name(type_.model))
        if isinstance(type_, OptimizerType):
            return OptimizerType(type_.kind, self.name(type_.model))
        if isinstance(type_, BatchType):
            return BatchType(self.name(type_.record), self.axes(type_.axes))
        if isinstance(type_, NamedType):
            return NamedType(self.name(type_.name), tuple(self.name(arg) for arg in type_.args))
        if isinstance(type_, SeveralType):
            return SeveralType(tuple(self.type(item) for item in type_.items))
        if isinstance(type_, FunctionType):
            return FunctionType(self.functions.get(type_.name, type_.name), type_.kind)
        return self._other(type_)

    def _other(self, value):
        """A type this module doesn't know by name (one added later): each field renamed by
        what it holds."""
        fields = getattr(type(value), "__record_fields__", None)
        if not fields:
            return value
        changes = {}
        for item in fields:
            old = getattr(value, item.name)
            new = self._value(old)
            if new is not old:
                changes[item.name] = new
        return replace(value, **changes) if changes else value

    def _value(self, value):
        if isinstance(value, str):
            return self.names.get(value, value)
        if isinstance(value, Poly):
            return self.poly(value)
        if isinstance(value, Axis):
            return self.axis(value)
        if isinstance(value, Domain):
            return self.domain(value)
        if isinstance(value, Type):
            return self.type(value)
        if isinstance(value, tuple):
            return tuple(self._value(item) for item in value)
        return value

    # ------------------------------------------------------------------ declarations

    def written(self, written: ast.TypeExpr | None) -> ast.TypeExpr | None:
        """A written type with the file's names replaced (for types resolved again here)."""
        if written is None:
            return None
        return map_type_expr(written, lambda name, span: self.names.get(name, name))

    def written_axes(self, axes: list[ast.Axis]) -> list[ast.Axis]:
        return map_axes(axes, lambda name, span: self.names.get(name, name))

    def signature(self, signature: Signature, returned: Type | None) -> Signature:
        """A function's signature as the importing file calls it; `returned` stands in for
        a return type the function doesn't declare (the one its body was found to give)."""
        name = self.functions.get(signature.name, signature.name)
        decl = signature.decl
        params = []
        for param in signature.params:
            written = param.decl
            default = written.default
            if isinstance(default, ast.Name) and default.name in self.names:
                default = ast.Name(self.names[default.name], default.span)
            new_decl = ast.Param(
                written.name,
                written.name_span,
                self.written(written.type),
                default,
                written.span,
                written.mut,
            )
            params.append(
                ParamSig(
                    param.name,
                    self.type(param.type),
                    new_decl,
                    param.has_default,
                    param.special,
                    self.poly(param.special_size),
                    param.mut,
                )
            )
        return_written = self.written(decl.return_type)
        if isinstance(decl, ast.ExternFnDecl):
            new: ast.FnDecl | ast.ExternFnDecl = ast.ExternFnDecl(
                name,
                decl.name_span,
                [param.decl for param in params],
                return_written,
                decl.python_path,
                decl.span,
                decl.doc,
            )
        else:
            new = ast.FnDecl(
                name,
                decl.name_span,
                [param.decl for param in params],
                return_written,
                None,
                None,
                decl.span,
                decl.export,
                decl.doc,
            )
        return_type = signature.return_type if signature.return_type is not None else returned
        return Signature(
            name,
            params,
            self.type(return_type),
            new,
            {key: self.poly(value) for key, value in signature.generics.items()},
            signature.extern,
            signature.path,
            "import",
            dict(signature.type_variables),
        )

    def model(self, info: ModelInfo) -> ModelInfo:
        fields = {
            key: FieldInfo(
                field.name,
                field.kind,
                self.type(field.type),
                field.shape,
                field.dtype,
                field.initializer,
                field.span,
                field.symbol,
                field.doc,
            )
            for key, field in info.fields.items()
        }
        return ModelInfo(self.name(info.name), info.span, fields, info.doc, info.ok)
