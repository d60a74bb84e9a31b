"""What generating one module needs to know: the checked file, options, names in use."""

from __future__ import annotations

import keyword
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from shapescript.check.algebra.assertions import Verdict
from shapescript.check.algebra.types import TensorType, Type
from shapescript.check.declarations.symbols import CallTarget, ItemFacts
from shapescript.check.program import Checked
from shapescript.codegen.emit import Origin, SourceBuilder
from shapescript.syntax.source import SourceFile, Span

if TYPE_CHECKING:
    from shapescript.codegen.arguments import ArgumentPlan, ModuleDims

#: torch's name for each ShapeScript dtype.
TORCH_DTYPES = {
    "bool": "bool",
    "u8": "uint8",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
}


class Unsupported(Exception):
    """A construct the compiler doesn't compile yet; the message says which, at `span`."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(message)
        self.span = span


def python_name(name: str) -> str:
    """A ShapeScript name as a Python identifier: keywords and our own prefix get a `_`.

    Another file's name, `attention.Mlp`, is an attribute of the module its import binds,
    `_ss_mod_attention.Mlp` (through each file of a chain, `attention.layers.L`)."""
    if "." in name:
        *modules, last = name.split(".")
        return ".".join([*(module_variable(module) for module in modules), python_name(last)])
    if keyword.iskeyword(name) or name.startswith("_ss_") or name in ("None", "True", "False"):
        return name + "_"
    return name


def module_variable(bound: str) -> str:
    """The module variable an import of another `.ss` file binds: `_ss_mod_attention`."""
    return f"_ss_mod_{bound}"


@dataclass(slots=True)
class Foreign:
    """An instance of another file's generic function, generated in this module: that
    file's source, which its checks' locations name; the origin of all its lines (the
    import that brings the function); and the prefix this file gives that file's names."""

    source: SourceFile
    origin: Origin
    prefix: str


@dataclass(slots=True)
class ModuleContext:
    """State shared by the whole module's generation."""

    checked: Checked
    standalone: bool
    checks: str
    value_checks: str
    #: Whether int, float and bool parameters check their arguments (see BuildOptions).
    host_checks: bool = True
    #: The mode of `as` shape checks, when not `checks` (see BuildOptions).
    claim_checks: str | None = None
    #: Whether operations are compiled to faster equivalents the checker proves equal.
    lower: bool = True
    #: Whether function bodies are split off to run through torch.compile (see BuildOptions).
    torch_compile: bool = False
    #: Python import lines the module needs, in the order first asked for.
    imports: dict[str, None] = field(default_factory=dict)
    #: Module-level constants the generated code refers to (name -> Python expression).
    constants: dict[str, str] = field(default_factory=dict)
    uses_einops: bool = False
    #: The helper blocks of `standalone.BLOCKS` a standalone module needs, in order.
    helpers: dict[str, None] = field(default_factory=dict)
    #: While an instance of another file's generic function is generated: where it is.
    foreign: Foreign | None = None
    #: This module's functions that compiled callers call unchecked (`codegen.trusted`).
    trusted_copies: dict[str, None] = field(default_factory=dict)
    #: The dims arguments are checked against, made once (`arguments.module_dims`).
    argument_dims: ModuleDims | None = None
    #: Each signature's argument plan, by its id, with the signature
    #: (`arguments.planned`).
    argument_plans: dict[int, tuple[object, ArgumentPlan]] = field(default_factory=dict)
    #: Each dim's value as Python, made once for the domain tests of records' fields
    #: (`data.dim_numbers`).
    dim_numbers: dict[str, str] | None = None
    #: Each function's name uses and bindings, by its declaration's id, with the
    #: declaration: counted once for all its bodies (`lowering.attention`).
    name_counts: dict[int, tuple[object, dict[str, int], dict[str, int]]] = field(
        default_factory=dict
    )
    #: Each line of the file that an origin was asked on: its length when it is ASCII
    #: (-1 when not), and its length in UTF-8 bytes, without the line break.
    origin_lines: dict[int, tuple[int, int]] = field(default_factory=dict)
    #: The origin of each offset of this file asked for (one object per place: the
    #: lines of a statement share it).
    origins: dict[int, Origin] = field(default_factory=dict)
    #: Whether each function of this file makes masks of its own (`padding.makes_pads`),
    #: by its declaration's id, with the declaration: asked several times per body.
    pads_made: dict[int, tuple[object, bool]] = field(default_factory=dict)
    #: The bodies of the checked functions whose unchecked copies may be asked for, by
    #: compiled name: the declaration, the bodies and the generator's state after them
    #: (`FunctionGenerator.made_bodies`); a copy takes them instead of generating again.
    made_bodies: dict[str, tuple[object, list[SourceBuilder], dict[str, object]]] = field(
        default_factory=dict
    )

    @property
    def source(self) -> SourceFile:
        """The `.ss` source of the function being generated."""
        return self.foreign.source if self.foreign is not None else self.checked.source

    def written(self, name: str) -> str:
        """A function's name as the source of the function being generated writes it:
        in another file's generic function, that file's own names have no prefix."""
        if self.foreign is not None and name.startswith(self.foreign.prefix + "."):
            return name[len(self.foreign.prefix) + 1 :]
        return name

    def need(self, line: str) -> None:
        self.imports.setdefault(line, None)

    def standalone_helper(self, block: str) -> None:
        """Ask for one of `standalone.BLOCKS` in a standalone module."""
        self.need("import hashlib as _ss_hashlib")
        self.helpers.setdefault(block, None)

    def python_function(self, path: str) -> str:
        """A name bound to the Python function at a dotted path, imported once."""
        module, _, function = path.rpartition(".")
        alias = "_ss_x_" + path.replace(".", "_")
        self.need(f"from {module} import {function} as {alias}")
        return alias

    def builtin(self, name: str) -> str:
        """A module constant bound to a Python built-in (`max`, `range`, ...) before the
        file's own declarations, which may hide it."""
        constant = f"_ss_{name}"
        self.constants.setdefault(constant, name)
        return constant

    def dtype(self, name: str) -> str:
        """The module constant holding a torch dtype."""
        constant = f"_ss_{name}"
        self.constants.setdefault(constant, f"_ss_torch.{TORCH_DTYPES[name]}")
        return constant

    def origin(self, base: int, span: Span) -> Origin:
        if self.foreign is not None:
            return self.foreign.origin
        offset = base + span.start
        made = self.origins.get(offset)
        if made is not None:
            return made
        source = self.checked.source
        position = source.position(offset)
        line = self.origin_lines.get(position.line)
        if line is None:
            text = source.line_text(position.line).rstrip("\r\n")
            line_bytes = len(text.encode())
            # An ASCII line's byte columns are its character columns.
            line = self.origin_lines[position.line] = (
                len(text) if line_bytes == len(text) else -1,
                line_bytes,
            )
        ascii_length, line_bytes = line
        if ascii_length >= 0:
            column = min(position.column - 1, ascii_length)
        else:
            text = source.line_text(position.line).rstrip("\r\n")
            column = len(text[: position.column - 1].encode())
        made = self.origins[offset] = Origin(position.line, column, max(line_bytes, column))
        return made

    def location(self, base: int, span: Span) -> tuple[int, int]:
        position = self.source.position(base + span.start)
        return position.line, position.column


@dataclass(slots=True)
class ItemView:
    """The recorded facts of one function, read by item-relative span."""

    item: ItemFacts

    @property
    def base(self) -> int:
        return self.item.base

    def type(self, span: Span) -> Type | None:
        facts = self.item.body.facts if self.item.body is not None else None
        if facts is not None and span in facts.types:
            return facts.types[span]
        return self.item.declaration.types.get(span)

    def assert_verdict(self, span: Span) -> Verdict | None:
        """What the checker decided about the assert at `span`."""
        facts = self.item.body.facts if self.item.body is not None else None
        if facts is None:
            return None
        return facts.asserts.get(span)

    def tensor(self, span: Span) -> TensorType | None:
        found = self.type(span)
        return found if isinstance(found, TensorType) else None

    def alignment(self, span: Span) -> tuple[tuple[int, ...] | None, ...] | None:
        if self.item.body is None:
            return None
        return self.item.body.facts.alignments.get(span)

    def stage_element(self, span: Span) -> Type | None:
        """The element type a stage's function given by name is applied to."""
        if self.item.body is None:
            return None
        return self.item.body.facts.stage_elements.get(span)

    def zip_axis(self, span: Span) -> int:
        """The axis of zip's other tensor the checker found to iterate (0 if none)."""
        if self.item.body is None:
            return 0
        return self.item.body.facts.zip_axes.get(span, 0)

    def call_target(self, span: Span) -> CallTarget | None:
        """The overload or generic instance the function named at `span` is, if it is one."""
        if self.item.body is None:
            return None
        return self.item.body.facts.call_targets.get(span)

    def stage_kind(self, span: Span) -> str:
        if self.item.body is None:
            return "vmap"
        return self.item.body.facts.stage_kinds.get(span, "vmap")
