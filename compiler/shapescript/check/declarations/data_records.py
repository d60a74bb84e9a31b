"""Data record declarations: their fields (E1302, E0302, E0301) and what they record."""

from __future__ import annotations

import keyword

from shapescript.check.algebra.reporter import Reporter
from shapescript.check.algebra.types import (
    DATA_TYPES,
    TRAINING_TYPES,
    HostType,
    TensorType,
    Type,
    UnknownType,
    format_type,
)
from shapescript.check.declarations.data_info import DataFieldInfo, DataInfo
from shapescript.check.declarations.declaration_checker import DeclarationChecker, has_unknown_axis
from shapescript.check.declarations.model_memo import DeclarationPass, PlacedInfos
from shapescript.check.declarations.module_scope import ModuleScope
from shapescript.check.declarations.symbols import Facts
from shapescript.diagnostics.diagnostic import Label
from shapescript.syntax import ast

FIELD_HELP = (
    "a field is a tensor whose shape has only numbers and dims, as `[D]`, or `[]` for one number"
)


def check_data_records(scope: ModuleScope, run: DeclarationPass) -> PlacedInfos:
    """Check every data record, as `check_models` checks models."""
    return run.check(
        ast.DataDecl,
        scope.records,
        "data",
        lambda item, reporter, facts, base: _RecordChecker(
            scope, reporter, facts, base, run.text
        ).check(item),
    )


class _RecordChecker(DeclarationChecker):
    def __init__(
        self, scope: ModuleScope, reporter: Reporter, facts: Facts, base: int, text: str
    ) -> None:
        super().__init__(scope, reporter, facts, base)
        self.text = text

    def check(self, decl: ast.DataDecl) -> DataInfo:
        fields: dict[str, DataFieldInfo] = {}
        seen: dict[str, ast.DataField] = {}
        for field_decl in decl.fields:
            first = seen.get(field_decl.name)
            if first is not None:
                self._error(
                    "E0302",
                    f"`{decl.name}` has two fields named `{field_decl.name}`",
                    field_decl.name_span,
                    "second declaration",
                    secondary=[Label(first.name_span, "first here")],
                    help="rename one of them",
                )
                continue
            seen[field_decl.name] = field_decl
            info = self._field(decl, field_decl)
            if info is not None:
                fields[field_decl.name] = info
        return DataInfo(
            decl.name,
            self._absolute(decl.name_span),
            fields,
            decl.doc.text if decl.doc is not None else None,
            self.ok,
        )

    def _field(self, record: ast.DataDecl, decl: ast.DataField) -> DataFieldInfo | None:
        name_ok = self._check_name(decl)
        type_ = self._field_type(decl)
        if not name_ok or type_ is None:
            return None
        shape = tuple(
            axis.size.substitute(self.scope.dim_values).value for axis in type_.axes or ()
        )
        if any(size is None for size in shape):
            self.ok = False
            return None
        written = decl.type.span
        type_text = " ".join(self.text[self.base + written.start : self.base + written.end].split())
        symbol = self._declare_field(record.name, decl, type_, f"{decl.name}: {format_type(type_)}")
        return DataFieldInfo(
            decl.name,
            type_,
            shape,
            type_.resolved_dtype,
            type_text,
            symbol.span,
            symbol,
            symbol.doc,
        )

    def _check_name(self, decl: ast.DataField) -> bool:
        name = decl.name
        if keyword.iskeyword(name):
            problem = f"`{name}` is a Python keyword"
        elif name.startswith("_"):
            problem = "a field's name can't start with `_`"
        else:
            return True
        self._error(
            "E1302",
            f"a data field can't be named `{name}`: {problem}",
            decl.name_span,
            "reserved name",
            help="fields are attributes of a batch in Python: choose another name",
        )
        return False

    def _field_type(self, decl: ast.DataField) -> TensorType | None:
        written = decl.type
        if written.shape is not None and has_unknown_axis(written.shape.axes):
            self._error(
                "E1302",
                "a data field's shape can't have an unknown size `?k`: every example of a "
                "record has the same shapes, so that examples stack into batches",
                written.span,
                "unknown size",
                help="pad the values to a dim and add a Mask field, as `mask: [T] Mask`",
            )
            return None
        type_ = self._resolve_field_type(written)
        if type_ is None or isinstance(type_, UnknownType):
            self.ok = False
            return None
        if isinstance(type_, TensorType) and type_.axes is not None:
            return type_
        self._error(
            "E1302",
            f"a data field is a tensor with a shape, not {_what(type_)}",
            written.span,
            "not a tensor shape",
            help=FIELD_HELP,
        )
        return None


def _what(type_: Type) -> str:
    """How an E1302 message names a type that can't be a field's."""
    if isinstance(type_, HostType):
        return f"the host scalar {type_.kind}"
    if isinstance(type_, TensorType):
        return "a type without a shape"
    if isinstance(type_, DATA_TYPES):
        return f"the data {format_type(type_)}"
    if isinstance(type_, TRAINING_TYPES):
        return format_type(type_)
    return f"`{format_type(type_)}`"
