"""Model declarations: their fields (E0902), initializers (E0903) and what they record."""

from __future__ import annotations

import keyword
import math

from shapescript.check.algebra import fixes
from shapescript.check.algebra.ranges import Interval
from shapescript.check.algebra.types import (
    FLOAT_DTYPES,
    INT_DTYPES,
    UNKNOWN,
    TensorType,
    Type,
    UnknownType,
    format_type,
    interval_of,
)
from shapescript.check.declarations.constant_numbers import ALLOWED, constant_number
from shapescript.check.declarations.declaration_checker import DeclarationChecker, has_unknown_axis
from shapescript.check.declarations.model_info import FieldInfo, Initializer, ModelInfo, Number
from shapescript.check.declarations.model_memo import DeclarationPass, PlacedInfos
from shapescript.check.declarations.module_scope import ModuleScope, suggestion
from shapescript.check.declarations.nested_models import (
    held_model_misdeclared,
    nested_model_type,
)
from shapescript.check.declarations.symbols import Reference
from shapescript.diagnostics.diagnostic import Label
from shapescript.syntax import ast
from shapescript.syntax.source import Span

#: Each initializer's parameters in order, with their defaults (None: required).
INITIALIZERS: dict[str, tuple[tuple[str, float | None], ...]] = {
    "zeros": (),
    "ones": (),
    "full": (("value", None),),
    "normal": (("mean", 0.0), ("std", 1.0)),
    "uniform": (("lo", 0.0), ("hi", 1.0)),
}

#: Attributes of torch.nn.Module that a field's name would hide.
MODULE_ATTRIBUTES = frozenset(
    {
        "T_destination",
        "add_module",
        "apply",
        "bfloat16",
        "buffers",
        "call_super_init",
        "children",
        "compile",
        "cpu",
        "cuda",
        "double",
        "dump_patches",
        "eval",
        "extra_repr",
        "float",
        "forward",
        "get_buffer",
        "get_extra_state",
        "get_parameter",
        "get_submodule",
        "half",
        "ipu",
        "load_state_dict",
        "modules",
        "mtia",
        "named_buffers",
        "named_children",
        "named_modules",
        "named_parameters",
        "parameters",
        "register_backward_hook",
        "register_buffer",
        "register_forward_hook",
        "register_forward_pre_hook",
        "register_full_backward_hook",
        "register_full_backward_pre_hook",
        "register_load_state_dict_post_hook",
        "register_load_state_dict_pre_hook",
        "register_module",
        "register_parameter",
        "register_state_dict_post_hook",
        "register_state_dict_pre_hook",
        "requires_grad_",
        "set_extra_state",
        "set_submodule",
        "share_memory",
        "state_dict",
        "to",
        "to_empty",
        "train",
        "training",
        "type",
        "xpu",
        "zero_grad",
    }
)
#: Domains a buffer can't have: a model's values are changed by training or by assignment,
#: which keeps no semantic meaning.
BUFFER_FORBIDDEN_DOMAINS = frozenset({"Logit", "Prob", "LogProb", "Binary", "Additive"})


def check_models(scope: ModuleScope, run: DeclarationPass) -> PlacedInfos:
    """Check every model declaration; the declaration facts of each go to its item, and a
    model unchanged since the previous analysis reuses its result (`DeclarationPass`)."""
    return run.check(
        ast.ModelDecl,
        scope.models,
        "models",
        lambda item, reporter, facts, base: _ModelChecker(scope, reporter, facts, base).check(item),
    )


class _ModelChecker(DeclarationChecker):
    def check(self, decl: ast.ModelDecl) -> ModelInfo:
        fields: dict[str, FieldInfo] = {}
        for field_decl in decl.fields:
            if field_decl.name in fields:
                self._error(
                    "E0302",
                    f"`{decl.name}` has two fields named `{field_decl.name}`",
                    field_decl.name_span,
                    "second declaration",
                    secondary=[
                        Label(self.reporter.local(fields[field_decl.name].span), "first here")
                    ],
                    help="rename one of them",
                )
                continue
            fields[field_decl.name] = self._field(decl, field_decl)
        return ModelInfo(
            decl.name,
            self._absolute(decl.name_span),
            fields,
            decl.doc.text if decl.doc is not None else None,
            self.ok,
        )

    # ------------------------------------------------------------------ fields

    def _field(self, model: ast.ModelDecl, decl: ast.FieldDecl) -> FieldInfo:
        self._check_name(decl)
        if decl.kind == "model":
            return self._nested_field(model, decl)
        type_ = self._field_type(decl)
        shape: tuple[int, ...] | None = None
        dtype = "f32"
        if isinstance(type_, TensorType) and type_.axes is not None:
            values = [axis.size.substitute(self.scope.dim_values).value for axis in type_.axes]
            shape = tuple(values) if all(v is not None for v in values) else None
            dtype = type_.resolved_dtype
        initializer = self._initializer(decl, type_) if isinstance(type_, TensorType) else None
        symbol = self._declare_field(
            model.name, decl, type_, f"{decl.kind} {decl.name}: {format_type(type_)}"
        )
        return FieldInfo(
            decl.name,
            decl.kind,
            type_,
            shape,
            dtype,
            initializer,
            symbol.span,
            symbol,
            symbol.doc,
        )

    def _nested_field(self, model: ast.ModelDecl, decl: ast.FieldDecl) -> FieldInfo:
        """`attn: Attention` holds one model, `h: [L] Block` a stack of L of them."""
        type_, held, count = nested_model_type(self, decl)
        symbol = self._declare_field(model.name, decl, type_, f"{decl.name}: {format_type(type_)}")
        return FieldInfo(
            decl.name,
            "model",
            type_,
            None,
            "f32",
            None,
            symbol.span,
            symbol,
            symbol.doc,
            held,
            count,
        )

    def _check_name(self, decl: ast.FieldDecl) -> None:
        name = decl.name
        problem = None
        if name == "init":
            problem = "`init` is what makes a model, as in `Mlp.init(seed=0)`"
        elif keyword.iskeyword(name) or keyword.issoftkeyword(name):
            problem = f"`{name}` is a Python keyword"
        elif name.startswith("_"):
            problem = "a field's name can't start with `_`"
        elif name in MODULE_ATTRIBUTES:
            problem = f"`{name}` is an attribute of torch.nn.Module, which a model compiles to"
        if problem is not None:
            self._error(
                "E0902",
                f"a field can't be named `{name}`: {problem}",
                decl.name_span,
                "reserved name",
                help="choose another name for the field",
            )

    def _names_broken_dim(self, written: ast.TypeExpr) -> bool:
        """Whether the written shape names a dim whose declaration failed."""
        broken = self.scope.broken_names
        if written.shape is None or not broken:
            return False
        pending: list[object] = list(written.shape.axes)
        while pending:
            item = pending.pop()
            if isinstance(item, ast.SizeName) and item.name in broken:
                return True
            if isinstance(item, ast.SizeAxis):
                pending.append(item.size)
            elif isinstance(item, ast.GroupAxis):
                pending.extend(item.items)
            elif isinstance(item, ast.GroupedSizeAxis) and item.name in broken:
                return True
            elif isinstance(item, ast.SizeBinary):
                pending += [item.left, item.right]
        return False

    def _field_type(self, decl: ast.FieldDecl) -> Type:
        written = decl.type
        if written is None:
            self._error("E0902", f"field `{decl.name}` has no type", decl.name_span, "no type")
            return UNKNOWN
        if written.shape is not None and has_unknown_axis(written.shape.axes):
            self._error(
                "E0902",
                "a field's shape can't have an unknown size `?k`: every model of a type has "
                "the same shapes",
                written.span,
                "unknown size",
                help="use numbers and dims only",
            )
            return UNKNOWN
        if held_model_misdeclared(self, decl):
            return UNKNOWN
        type_ = self._resolve_field_type(written)
        if type_ is None:
            return UNKNOWN
        if isinstance(type_, UnknownType) and self._names_broken_dim(written):
            self.ok = False  # a dim it names failed, reported where that dim is declared
            return UNKNOWN
        if not isinstance(type_, TensorType) or type_.axes is None:
            what = (
                "a host scalar"
                if format_type(type_) in ("int", "float", "bool")
                else "a type without a shape"
                if isinstance(type_, TensorType)
                else format_type(type_)
            )
            self._error(
                "E0902",
                f"a field holds a tensor with a shape, not {what}",
                written.span,
                "not a tensor shape",
                help="write a shape, as `[D]`, or `[]` for a single number",
            )
            return UNKNOWN
        dtype = type_.resolved_dtype
        domain = type_.domain
        if decl.kind == "param":
            if dtype not in FLOAT_DTYPES:
                self._error(
                    "E0902",
                    f"a param holds floats, not {dtype}: training changes it by gradients",
                    written.dtype_span or written.span,
                    "not a float dtype",
                    help="make it a buffer if it isn't trained",
                )
                return UNKNOWN
            if written.words:
                self._error(
                    "E0902",
                    "a param has no domain, since training can change it to any value",
                    written.span,
                    "domain on a param",
                    help="remove the domain, or make the field a buffer",
                )
                return UNKNOWN
        elif domain.name in BUFFER_FORBIDDEN_DOMAINS:
            self._error(
                "E0902",
                f"a buffer can't have the domain {domain.name}: only a range, Index[V] or Mask",
                written.span,
                "domain not allowed",
            )
            return UNKNOWN
        return type_

    # ------------------------------------------------------------------ initializers

    def _initializer(self, decl: ast.FieldDecl, type_: TensorType) -> Initializer | None:
        init = decl.init
        if init is None:
            self._error(
                "E0903",
                f"field `{decl.name}` has no initializer",
                decl.name_span,
                "no initializer",
                help="give it one after `=`: zeros, ones, full(v), normal(std=s) or "
                "uniform(lo, hi)",
            )
            return None
        if isinstance(init, ast.Name):
            name, args, callee_span = init.name, [], init.span
        elif isinstance(init, ast.Call) and isinstance(init.callee, ast.Name):
            name, args, callee_span = init.callee.name, init.args, init.callee.span
        else:
            self._error(
                "E0903",
                "a field's initializer is zeros, ones, full, normal or uniform",
                init.span,
                "not an initializer",
            )
            return None
        params = INITIALIZERS.get(name)
        if params is None:
            self._error(
                "E0903",
                f"`{name}` isn't an initializer",
                callee_span,
                "unknown initializer",
                help=suggestion(name, INITIALIZERS)
                or "the initializers are zeros, ones, full, normal and uniform",
                fixes=fixes.spelling(name, INITIALIZERS, callee_span),
            )
            return None
        values = self._arguments(name, params, args, init.span)
        if values is None:
            return None
        kind = _dtype_kind(type_.resolved_dtype)
        if name in ("normal", "uniform") and kind != "float":
            self._error(
                "E0903",
                f"`{name}` draws floats, so it can't fill a {type_.resolved_dtype} field",
                init.span,
                "not a float field",
                help="use zeros, ones or full",
            )
            return None
        if name == "full" and not self._full_value_fits(values["value"], kind, args[0]):
            return None
        if name == "normal" and values["std"] < 0:
            self._error("E0903", "`normal`'s std can't be negative", init.span, "negative std")
            return None
        if name == "uniform" and values["lo"] > values["hi"]:
            self._error(
                "E0903",
                f"`uniform`'s lo ({values['lo']:g}) is more than its hi ({values['hi']:g})",
                init.span,
                "lo > hi",
            )
            return None
        if not self._fits_domain(name, values, type_, init.span):
            return None
        return Initializer(name, values)

    def _arguments(self, name, params, args: list[ast.Arg], span: Span):
        """Match the arguments to the initializer's parameters: Python numbers (E0903)."""
        by_name = {param: index for index, (param, _) in enumerate(params)}
        slots: dict[str, Number] = {}
        position = 0
        for arg in args:
            if arg.name is None:
                if position >= len(params):
                    self._error(
                        "E0903",
                        f"`{name}` takes {len(params)} argument(s), but got more",
                        arg.span,
                        "one too many",
                    )
                    return None
                param = params[position][0]
                position += 1
            else:
                if arg.name not in by_name:
                    self._error(
                        "E0903",
                        f"`{name}` has no parameter `{arg.name}`",
                        arg.span,
                        "unknown name",
                        help=suggestion(arg.name, by_name),
                        fixes=fixes.spelling(arg.name, by_name, arg.name_span or arg.span),
                    )
                    return None
                param = arg.name
            if param in slots:
                self._error("E0903", f"`{param}` is given twice", arg.span, "second time")
                return None
            value = self._number(arg.value)
            if value is None:
                self._error(
                    "E0903",
                    f"an initializer's argument is a constant number: {ALLOWED}",
                    arg.span,
                    "not a constant number",
                )
                return None
            slots[param] = value
        for param, default in params:
            if param not in slots:
                if default is None:
                    self._error("E0903", f"`{name}` needs its `{param}`", span, f"no `{param}`")
                    return None
                slots[param] = default
        return {param: slots[param] for param, _ in params}

    def _number(self, expr: ast.Expr) -> Number | None:
        return constant_number(expr, self.scope.dim_values, self._dim_reference)

    def _dim_reference(self, name: str, span: Span) -> None:
        self.facts.references.append(Reference(span, module_name=name))

    def _full_value_fits(self, value: Number, kind: str, arg: ast.Arg) -> bool:
        want = {"float": (int, float), "int": (int,), "bool": (bool,)}[kind]
        fits = isinstance(value, want) and (kind == "bool" or not isinstance(value, bool))
        if not fits:
            self._error(
                "E0502",
                f"`full` of a {kind} field takes a {kind}, not {_number_kind(value)}",
                arg.span,
                f"not a {kind}",
            )
        return fits

    def _fits_domain(self, name: str, values: dict, type_: TensorType, span: Span) -> bool:
        """The values an initializer gives must lie in the field's domain (E0903)."""
        if type_.domain.name == "Mask":
            return True
        allowed = interval_of(type_)
        domain = type_.domain
        if domain.name == "Index" and domain.size is not None:
            top = domain.size.substitute(self.scope.dim_values).value
            if top is not None:
                allowed = Interval.make(0.0, float(top - 1))
        if allowed is None:
            return True
        if name == "normal":
            given = Interval.make(-math.inf, math.inf) if values["std"] > 0 else None
            given = given or Interval.point(float(values["mean"]))
        elif name == "uniform":
            given = Interval.make(float(values["lo"]), float(values["hi"]))
        else:
            point = {"zeros": 0.0, "ones": 1.0}.get(name)
            given = Interval.point(float(values["value"]) if point is None else point)
        if allowed.contains(given):
            return True
        self._error(
            "E0903",
            f"`{name}` gives values in {given}, outside the field's domain "
            f"{format_type(type_).split(' ', 1)[-1]}",
            span,
            "doesn't fit the domain",
            help="choose an initializer whose values lie in the domain",
        )
        return False


def _dtype_kind(dtype: str) -> str:
    if dtype == "bool":
        return "bool"
    return "int" if dtype in INT_DTYPES else "float"


def _number_kind(value: Number) -> str:
    if isinstance(value, bool):
        return "a bool"
    return "an int" if isinstance(value, int) else "a float"
