"""Overloads and generic instances: the Python functions one `fn` declaration becomes,
and the function under its plain name that Python calls.

An overload is its own function, `_ss_forward__Mlp`, and a generic function's instance
too, `_ss_fit__Mlp__Digit`, made from the instance's own facts; ShapeScript calls them
directly. The plain name, `forward` or `fit`, is for calls from Python: it calls the one
for its first model argument's class (`rt.generics`).
"""

from __future__ import annotations

from shapescript.check.algebra.types import NamedType, format_type
from shapescript.check.declarations.overloads import python_name as overload_name
from shapescript.check.declarations.signatures import Signature
from shapescript.check.declarations.symbols import Facts, Instance, ItemFacts
from shapescript.check.declarations.type_variables import TYPE_VARIABLE
from shapescript.check.program import Checked
from shapescript.codegen.context import ModuleContext, Unsupported, python_name
from shapescript.codegen.emit import SourceBuilder
from shapescript.records import record

STANDALONE = "overloaded and generic functions need the shapescript runtime"


@record
class Compiled:
    """One Python function to generate: the facts it reads, its signature and name (None
    for the fn's own name)."""

    item: ItemFacts
    signature: Signature
    python: str | None = None


def functions_of(checked: Checked, item: ItemFacts) -> list[Compiled]:
    """What a fn declaration compiles to: the fn itself, an overload under its own name,
    or each instance of a generic fn that the file's code calls."""
    decl = item.item
    signature = checked.signatures.get(decl.name)
    if signature is not None and signature.decl is decl:
        if signature.is_generic:
            # Each instance is made from the declaration it checked, types put in.
            return [
                Compiled(
                    ItemFacts(
                        instance.decl or decl, item.base, item.declaration, instance.item.body
                    ),
                    instance.signature,
                    instance.python_name,
                )
                for instance in checked.instances
                if instance.item.item is decl
            ]
        if decl.name not in checked.overloads:
            return [Compiled(item, signature)]
    for model, member in checked.overloads.get(decl.name, {}).items():
        if member.decl is decl:
            return [Compiled(item, member, overload_name(decl.name, (model,)))]
    return []


def foreign_functions(checked: Checked) -> list[tuple[Instance, Compiled]]:
    """The instances of other files' generic functions that the file's code calls, each a
    function of this file's module, made from the declaration the instance checked."""
    return [
        (
            instance,
            Compiled(
                ItemFacts(instance.decl, instance.home.base, Facts(), instance.item.body),
                instance.signature,
                instance.python_name,
            ),
        )
        for instance in checked.instances
        if instance.home is not None and instance.home.prefix is not None
    ]


def dispatcher(context: ModuleContext, item: ItemFacts, body: SourceBuilder) -> None:
    """The function under the plain name, after a generic fn's instances or after the last
    overload of a name; nothing for any other fn."""
    checked = context.checked
    decl = item.item
    signature = checked.signatures.get(decl.name)
    overloads = checked.overloads.get(decl.name)
    origin = context.origin(item.base, decl.name_span)
    if signature is not None and signature.decl is decl and signature.is_generic:
        lines = _generic_dispatcher(context, signature)
    elif overloads and list(overloads.values())[-1].decl is decl:
        lines = _overload_dispatcher(context, decl.name, overloads)
    else:
        return
    if context.standalone:
        raise Unsupported(STANDALONE, decl.name_span)
    body.blank()
    for indent, line in lines:
        body.add(indent, line, origin)
    body.blank()


def _overload_dispatcher(
    context: ModuleContext, name: str, overloads: dict[str, Signature]
) -> list[tuple[int, str]]:
    entries = []
    firsts: dict[str, None] = {}
    docs = []
    for model, signature in overloads.items():
        function = overload_name(name, (model,))
        entries.append(f"({python_name(model)}, {function})")
        firsts.setdefault(signature.params[0].name, None)
        docs.append(_signature_text(signature))
    table = "(" + ", ".join(entries) + ("," if len(entries) == 1 else "") + ")"
    doc = f"Calls the `{name}` for the first argument's model:\n" + "\n".join(docs)
    return [
        (0, f"def {python_name(name)}(*args, **kwargs):"),
        (1, repr(doc)),
        (
            1,
            f"return _ss_rt.generics.call_overload({name!r}, {table}, "
            f"{tuple(firsts)!r}, args, kwargs)",
        ),
    ]


def _generic_dispatcher(context: ModuleContext, signature: Signature) -> list[tuple[int, str]]:
    """`fit`: the instance whose models are the classes of the model arguments."""
    name = signature.name
    entries = []
    for instance in context.checked.instances:
        if instance.item.item is not signature.decl:
            continue
        bound = dict(instance.bindings)
        checks = []
        for position, param in enumerate(signature.params):
            type_ = param.type
            if not (isinstance(type_, NamedType) and type_.args == TYPE_VARIABLE):
                continue
            if _is_model(context, bound.get(type_.name)):
                cls = python_name(bound[type_.name])
                checks.append(f"({position}, {param.name!r}, {cls})")
        checked = "(" + ", ".join(checks) + ("," if len(checks) == 1 else "") + ")"
        entries.append(f"({checked}, {instance.python_name})")
    table = "(" + ", ".join(entries) + ("," if len(entries) == 1 else "") + ")"
    doc = _signature_text(signature)
    if signature.decl.doc is not None:
        doc = signature.decl.doc.text + "\n\n" + doc
    return [
        (0, f"def {python_name(name)}(*args, **kwargs):"),
        (1, repr(doc)),
        (1, f"return _ss_rt.generics.call_instance({name!r}, {table}, args, kwargs)"),
    ]


def _is_model(context: ModuleContext, name: str | None) -> bool:
    return name is not None and name in context.checked.models


def _signature_text(signature: Signature) -> str:
    params = ", ".join(
        ("mut " if param.mut else "") + f"{param.name}: {format_type(param.type)}"
        for param in signature.params
    )
    returned = signature.return_type
    text = f"fn {signature.name}({params})"
    return text + (f" -> {format_type(returned)}" if returned is not None else "")
