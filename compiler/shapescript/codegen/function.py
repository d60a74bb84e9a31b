"""One compiled function: the argument checks, then the body's statements and expressions.

Expressions become Python source text, each fully parenthesized, built from the types
the checker recorded for every node: the generator never works a type out itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from shapescript.check.algebra.types import (
    TRAINING_TYPES,
    FunctionType,
    HostType,
    PythonType,
    TensorType,
    Type,
    format_type,
)
from shapescript.check.declarations.signatures import Signature
from shapescript.check.declarations.symbols import ItemFacts
from shapescript.codegen import (
    arguments,
    asserts,
    builtins,
    casts,
    chains,
    compiled_bodies,
    data,
    devices,
    imports,
    logs,
    padding,
    training,
)
from shapescript.codegen import trusted as copies
from shapescript.codegen.context import ItemView, ModuleContext, Unsupported, python_name
from shapescript.codegen.emit import Origin, SourceBuilder
from shapescript.codegen.lowering import attention, linear
from shapescript.codegen.sizes import MissingSize, SizeNames, size_expr
from shapescript.syntax import ast
from shapescript.syntax.source import Span

#: The inline test of a host scalar argument: true when the runtime must look closer.
HOST_TESTS = {
    "int": "type({name}) is not int or not -0x8000000000000000 <= {name} <= 0x7FFFFFFFFFFFFFFF",
    "float": "type({name}) is not float and type({name}) is not int",
    "bool": "type({name}) is not bool",
}

#: A use of the device read at the function's start.
_USES_DEVICE = re.compile(r"\b_ss_dev\b")

#: The piped value in a list of call arguments.
PIPED = object()


@dataclass(slots=True)
class Lowered:
    """A lambda parameter bound to a whole tensor (iterated axis first) in a stage that the
    checker recorded as elementwise; `indices` marks the indices of a size from 0."""

    python: str
    indices: bool = False


@dataclass(slots=True)
class Element:
    """The element a stage's function given by name is applied to, standing in for the
    piped node: its recorded type, and whether it is the whole iterated tensor."""

    type: Type | None
    span: Span
    whole: bool


@dataclass(slots=True)
class CallArgs:
    """A call's arguments as written, with the piped value put in its place."""

    positional: list[object] = field(default_factory=list)
    keywords: dict[str, object] = field(default_factory=dict)
    spans: dict[str, Span] = field(default_factory=dict)


#: The generator's attributes that say which function it makes, not what its body left.
_OWN_STATE = frozenset({"context", "out", "trusted", "python", "shown"})


#: The literal nodes, which `FunctionGenerator.literal` writes.
_LITERALS = frozenset({ast.IntLit, ast.FloatLit, ast.BoolLit, ast.StringLit})

#: The kinds of state `_copied` copies (a tuple: isinstance is slower with a union).
_MUTABLE = (list, dict, set, SizeNames)


def _copied(state: dict[str, object]) -> dict[str, object]:
    """`state` with its lists, dicts and sets copied, so neither generator changes the
    other's."""
    return {
        name: value.copy() if isinstance(value, _MUTABLE) else value
        for name, value in state.items()
    }


class FunctionGenerator:
    """Generates one `fn`: its `def`, argument checks and body."""

    def __init__(
        self,
        context: ModuleContext,
        item: ItemFacts,
        signature: Signature,
        out: SourceBuilder,
        python: str | None = None,
        trusted: bool = False,
    ) -> None:
        self.context = context
        self.view = ItemView(item)
        self.decl: ast.FnDecl = item.item
        self.signature = signature
        #: The compiled function's name: the fn's own, or an overload's or a generic
        #: instance's (`_ss_forward__Mlp`); `key` names its module constants.
        self.python = python or python_name(self.decl.name)
        self.key = self.python.removeprefix("_ss_") if python else self.decl.name
        #: Whether this is the unchecked copy that compiled callers call
        #: (`codegen.trusted`): no checks, named `_ss_in_...`, shown as the function.
        self.trusted = trusted
        #: The name tracebacks show, the checked function's.
        self.shown = self.python
        if trusted:
            self.python = copies.copy_name(self.python)
        self.out = out
        self.locals: set[str] = set()
        self.sizes = SizeNames({})
        self.lowered: dict[str, Lowered] = {}
        self.temp_count = 0
        self.piped: list[str] = []
        #: The node whose value is being piped into the stage being generated.
        self.piped_nodes: list[ast.Expr] = []
        #: Statement-level pipes (by id), with the indentation of their statement, and
        #: where the last line of stages of each that is on several lines starts.
        self.pipe_lines: dict[int, int] = {}
        self.pipe_ends: dict[int, Origin] = {}
        #: Whether the body passes a mode on, so it needs a CallCounter; and the key of
        #: each enclosing loop's iteration, outermost first.
        self.uses_calls = False
        self.loops: list[str] = []
        #: Attention patterns compiled as one call, by their last einsum (`lowering`),
        #: and the statements they compute, which are left out.
        self.fused: dict[int, attention.Plan] = {}
        self.absorbed: set[int] = set()
        #: The matmuls that may take a bias in one fused call, by their code.
        self.products: dict[str, linear.Product] = {}
        #: The code of addmm's rows viewed back to a product's shape, and of elementwise
        #: functions of those, by their code: what a next addmm takes the rows of.
        self.row_views: dict[str, linear.RowView] = {}
        #: The axes no mask reaches in the body being generated: in the plain body of a
        #: function that takes masks, those its callers' masks would be for (padding.py).
        self.unpadded: frozenset[str] = frozenset()
        #: Where the prologue reads the device into `_ss_dev`, dropped if nothing uses it.
        self.device_line: int | None = None

    def context_python_function(self, path: str) -> str:
        return self.context.python_function(path)

    # ------------------------------------------------------------------ helpers

    @property
    def base(self) -> int:
        return self.view.base

    def origin(self, span: Span):
        return self.context.origin(self.base, span)

    def type(self, node) -> Type | None:
        if isinstance(node, Element):
            return node.type
        return self.view.type(node.span)

    def tensor(self, node) -> TensorType | None:
        return self.view.tensor(node.span)

    def temp(self, stem: str = "t") -> str:
        self.temp_count += 1
        return f"_ss_{stem}{self.temp_count}"

    def size(self, size, span: Span | None = None) -> str:
        try:
            return size_expr(size, self.sizes)
        except MissingSize as missing:
            raise Unsupported(
                f"the size {missing.args[0]} has no value at run time here", span
            ) from None

    def lowers(self, label: str) -> bool:
        """Whether to compile an operation to its faster equivalent; when so, the line that
        holds it says `lowered: {label}` in a comment."""
        if not self.context.lower:
            return False
        self.out.note(f"lowered: {label}")
        return True

    def unsupported(self, what: str, span: Span) -> Unsupported:
        return Unsupported(f"{what} can't be compiled yet", span)

    # ------------------------------------------------------------------ the function

    def generate(self) -> None:
        decl = self.decl
        params = []
        for param in self.signature.params:
            name = python_name(param.name)
            self.locals.add(param.name)
            if not isinstance(param.type, TensorType | HostType | PythonType) and not (
                training.is_training(param.type)
                or logs.is_logging(param.type)
                or data.is_data(param.type)
            ):
                raise self.unsupported(
                    f"a parameter of type `{format_type(param.type)}`", param.decl.span
                )
            if param.decl.default is not None:
                params.append(f"{name}={self.default(param.decl.default)}")
            elif self.checks_calls:
                params.append(f"{name}=_ss_missing")
            else:
                params.append(name)
        if self.checks_calls:
            params.append("*_ss_more")
        if padding.takes_pads(self):
            params.append("_ss_pad=None")
        origin = self.origin(decl.name_span)
        plan = arguments.planned(self.context, self.signature)
        batch = data.batch_sizes(self)
        self.sizes = plan.sizes.copy()
        self.sizes.update(batch)
        bodies = self.made_bodies()
        self.out.add(0, f"def {self.python}({', '.join(params)}):", origin)
        doc = decl.doc.text if decl.doc is not None and not self.trusted else None
        if doc:
            self.out.add(1, repr(doc), origin)
        self.prologue(plan, "".join(body.text for body in bodies))
        compiled_body = None
        if len(bodies) == 1:
            compiled_body = self.plain_body(plan, bodies[0], origin, 1)
        else:
            self.out.add(1, "if not _ss_pad:", origin)
            compiled_body = self.plain_body(plan, bodies[0], origin, 2)
            self.out.add(1, "else:", origin)
            self.out.extend(bodies[1])
        self.drop_unused_device()
        if self.trusted:
            self.out.add(0, f"_ss_rt.calls.shown_as({self.python}, {self.shown!r})", origin)
            if compiled_body is not None:
                self.out.extend(compiled_body)
            return
        described = padding.metadata(self)
        if described is not None:
            self.out.add(0, described, origin)
        recorded = padding.recorded(self)
        if recorded is not None:
            self.out.add(0, recorded, origin)
        if self.checks_calls:
            helper = (
                "_ss_written_signature"
                if self.context.standalone
                else ("_ss_rt.calls.written_signature")
            )
            self.out.add(0, f"{self.python}.__signature__ = {helper}({self.python})", origin)
        if compiled_body is not None:
            self.out.lines.extend(compiled_body.lines)
            self.out.origins.extend(compiled_body.origins)

    def plain_body(
        self, plan: arguments.ArgumentPlan, body: SourceBuilder, origin: Origin, indent: int
    ) -> SourceBuilder | None:
        """Add the body given no masks; with the torch.compile switch, a call of it as a
        function of its own instead, whose definition is returned to go after this one."""
        if not compiled_bodies.wanted(self, body):
            self.out.extend(body)
            return None
        call, definition = compiled_bodies.split(self, plan, body, origin, indent)
        self.out.add(indent, call, origin)
        return definition

    def drop_unused_device(self) -> None:
        """Leave out the read of the device where nothing after it uses `_ss_dev`."""
        at = self.device_line
        if at is None or any(_USES_DEVICE.search(line) for line in self.out.lines[at + 1 :]):
            return
        del self.out.lines[at]
        del self.out.origins[at]

    @property
    def checks_calls(self) -> bool:
        """Whether the function checks its number of arguments: with checks on, in any
        mode, since a parameter then has a default that stands for no argument; never in
        the unchecked copy."""
        return self.context.checks != "never" and not self.trusted

    def made_bodies(self) -> list[SourceBuilder]:
        """`bodies`, generated once for a function and its unchecked copy: the copy's body is
        the same code (only its `def` and prologue differ), so the copy takes the checked
        function's bodies and the generator's state after them."""
        made = self.context.made_bodies
        if self.trusted:
            found = made.pop(self.shown, None)
            if found is not None and found[0] is self.decl:
                _, bodies, state = found
                vars(self).update(_copied(state))
                return bodies
        stores = not self.trusted and copies.applies(self.context)
        # The sizes before the body hold every dim of the file: they are kept only where
        # the body changed them, since the copy starts from the same ones.
        before = self.sizes.copy() if stores else None
        bodies = self.bodies()
        if stores:
            state = {
                name: value
                for name, value in vars(self).items()
                if name not in _OWN_STATE and not (name == "sizes" and value == before)
            }
            made[self.python] = (self.decl, bodies, _copied(state))
        return bodies

    def bodies(self) -> list[SourceBuilder]:
        """The function's body; for one that takes masks, its plain body (for a call given
        none) and its padded body, each a level deeper, for `if not _ss_pad:` to choose."""
        if not padding.takes_pads(self):
            return [self.generated_body(1)]
        locals_, sizes, temps = set(self.locals), self.sizes.copy(), self.temp_count
        self.unpadded = padding.taken(self)
        plain = self.generated_body(2)
        self.locals, self.sizes, self.temp_count = locals_, sizes, temps
        self.unpadded = frozenset()
        return [plain, self.generated_body(2)]

    def generated_body(self, indent: int) -> SourceBuilder:
        """The body's lines, after `_ss_pads` where the body reads it."""
        outer = self.out
        self.out = SourceBuilder()
        if padding.keeps_pads(self):
            origin = self.origin(self.decl.name_span)
            # Masks come as a dict, or on a worker as (axis, mask) pairs.
            taken = not self.unpadded and padding.takes_pads(self)
            pads = "dict(_ss_pad)" if taken else "{}"
            self.out.add(indent, f"_ss_pads = {pads}", origin)
        self.body(indent)
        body, self.out = self.out, outer
        return body

    def body(self, indent: int = 1) -> None:
        decl = self.decl
        origin = self.origin(decl.name_span)
        attention.plan(self)
        if decl.expr_body is not None:
            value, last = self.statement_value(decl.expr_body, indent)
            self.out.add(
                indent,
                f"return {self.returned(value, decl.expr_body)}",
                last or self.origin(decl.expr_body.span),
            )
        else:
            self.block(decl.body or [], indent)
            if not decl.body:
                self.out.add(indent, "pass", origin)

    def default(self, node: ast.Expr) -> str:
        if isinstance(node, ast.Name) and node.name == "none":
            return "None"
        if isinstance(node, ast.IntLit | ast.FloatLit | ast.BoolLit | ast.StringLit):
            return self.literal(node)
        if isinstance(node, ast.Unary) and node.op == "-":
            return f"(-{self.default(node.operand)})"
        if isinstance(node, ast.Name) and node.name in self.context.checked.dim_values:
            return python_name(node.name)
        raise self.unsupported("this default value", node.span)

    def prologue(self, plan: arguments.ArgumentPlan, body: str) -> None:
        """Ask for the device, check the arguments, read the generic sizes.

        With checks off, only the sizes the body and the value checks use are read.
        """
        origin = self.origin(self.decl.name_span)
        context = self.context
        spec = f"_ss_fn_{self.key}"
        if self.checks_calls:
            self.spec(plan, spec)
            self.call_check(spec, origin)
        device = "_ss_device" if context.standalone else "_ss_devices._device or _ss_rt.device()"
        self.device_line = len(self.out.lines)
        self.out.add(1, f"_ss_dev = {device}", origin)
        model_checks = [
            line
            for index, param in enumerate(self.signature.params)
            if (line := training.check_line(self, index, param) or logs.check_line(self, param))
            is not None
        ]
        data_checks, data_lines, batch_checks = data.parameter_lines(self, plan.sizes)
        if self.trusted:
            checks, batch_checks = [], []
        else:
            checks = model_checks + data_checks + self.host_checks(spec)
        self.guarded(checks, context.checks, origin)
        for line in data_lines:
            self.out.add(1, line, origin)
        if self.uses_calls:
            counter = training.randomness(context, "CallCounter")
            self.out.add(1, f"_ss_calls = {counter}()", origin)
        self.tensor_prologue(plan, body)
        self.guarded(batch_checks, context.checks, origin)

    def call_check(self, spec: str, origin) -> None:
        """The test that every parameter without a default got an argument, and no more."""
        missing = [
            f"{python_name(param.name)} is _ss_missing"
            for param in self.signature.params
            if param.decl.default is None
        ]
        fail = "_ss_call_error" if self.context.standalone else "_ss_rt.calls.call_error"
        if not self.context.standalone:
            self.context.constants.setdefault("_ss_missing", "_ss_rt.calls.MISSING")
        self.out.add(1, f"if {' or '.join([*missing, '_ss_more'])}:", origin)
        self.out.add(2, f"{fail}({spec}, _ss_more, locals())", origin)

    def host_checks(self, spec: str) -> list[str]:
        """A test per int, float or bool parameter that its argument is one; the runtime
        looks closer at any other type, and raises when it isn't a number of that kind."""
        if not self.context.host_checks:
            return []
        lines = []
        fail = "_ss_host_error" if self.context.standalone else "_ss_rt.calls.host_error"
        for index, param in enumerate(self.signature.params):
            type_ = param.type
            if not isinstance(type_, HostType) or type_.kind not in HOST_TESTS:
                continue
            name = python_name(param.name)
            condition = HOST_TESTS[type_.kind].format(name=name)
            default = param.decl.default
            if isinstance(default, ast.Name) and default.name == "none":
                condition = f"{name} is not None and ({condition})"
            lines.append(f"if {condition}:\n    {fail}({spec}, {index}, {name}, {type_.kind!r})")
        return lines

    def tensor_prologue(self, plan: arguments.ArgumentPlan, body: str) -> None:
        """The tensor arguments' checks and the reads of the sizes they give."""
        origin = self.origin(self.decl.name_span)
        context = self.context
        if not plan.tensors:
            return
        spec = f"_ss_fn_{self.key}"
        value_lines = [] if self.trusted else self.value_check_lines(spec)
        if value_lines and not self.checks_calls:
            # A function that checks its calls made its spec in `prologue` already.
            self.spec(plan, spec)
        if context.checks == "never" or self.trusted:
            for line in arguments.used_reads(plan, body + "\n".join(value_lines)):
                self.out.add(1, line, origin)
            self.guarded(value_lines, context.value_checks, origin)
            return
        prefix = "_ss_" if context.standalone else "_ss_rt."
        rank_checks, reads, size_checks = arguments.check_lines(
            context, plan, spec, f"{prefix}argument_error"
        )
        # Anything without a shape fails here, and the runtime says which argument it is.
        self.out.add(1, "try:", origin)
        for index, name, _ in plan.tensors:
            self.out.add(2, f"_ss_s{index} = {name}.shape", origin)
        self.out.add(1, "except AttributeError:", origin)
        self.out.add(2, f"{prefix}not_tensors({spec}, locals())", origin)
        self.guarded(rank_checks, context.checks, origin)
        for line in reads:
            self.out.add(1, line, origin)
        self.guarded(size_checks, context.checks, origin)
        self.guarded(value_lines, context.value_checks, origin)

    def spec(self, plan: arguments.ArgumentPlan, spec: str) -> None:
        """The module constant describing this function, for the runtime's messages."""
        context = self.context
        locations = [
            context.location(self.base, param.decl.span) for param in self.signature.params
        ]
        context.constants[spec] = arguments.function_spec(
            context,
            self.signature,
            plan,
            context.location(self.base, self.decl.name_span),
            locations,
            [self.written_type(param) for param in self.signature.params],
        )

    def written_type(self, param) -> str | None:
        """A parameter's tensor type as the source writes it, when it writes a shape."""
        written = param.decl.type
        if not isinstance(param.type, TensorType) or written is None:
            return None
        start = self.base + written.span.start
        text = self.context.source.text[start : self.base + written.span.end]
        text = " ".join(text.split())
        return text if text.startswith("[") else None

    def guarded(self, lines: list[str], mode: str, origin) -> None:
        if not lines or mode == "never":
            return
        indent = 1
        if mode == "debug":
            self.out.add(1, "if __debug__:", origin)
            indent = 2
        for line in lines:
            self.out.add(indent, line, origin)

    def value_check_lines(self, spec: str) -> list[str]:
        """The value checks of the arguments whose domains have a test."""
        if self.context.value_checks == "never":
            return []
        lines = []
        fail = "_ss_domain_error" if self.context.standalone else "_ss_rt.domain_error"
        for index, param in enumerate(self.signature.params):
            type_ = param.type
            if not isinstance(type_, TensorType) or type_.axes is None:
                continue
            name = python_name(param.name)
            bound = (
                None
                if self.context.standalone
                else casts.index_bound(self.context, self.sizes, type_)
            )
            if bound is not None:
                top, what = bound
                lines.append(f"_ss_rt.index_error({name}, {top}, {spec}, {index}, {what!r})")
                continue
            test = casts.domain_test(self, name, type_)
            if test is None:
                continue
            condition, what = test
            lines.append(f"{fail}({condition}, {spec}, {index}, {what!r}, {name})")
        return lines

    def returned(self, value: str, node: ast.Expr) -> str:
        return value

    # ------------------------------------------------------------------ statements

    def block(self, stmts: list[ast.Stmt], indent: int) -> None:
        for stmt in stmts:
            if id(stmt) not in self.absorbed:
                self.stmt(stmt, indent)

    def stmt(self, stmt: ast.Stmt, indent: int) -> None:
        origin = self.origin(stmt.span)
        if isinstance(stmt, ast.Return):
            if stmt.value is None:
                self.out.add(indent, "return None", origin)
            else:
                value, last = self.statement_value(stmt.value, indent)
                self.out.add(indent, f"return {value}", last or origin)
        elif isinstance(stmt, ast.Assign):
            value, last = self.statement_value(stmt.value, indent)
            names = []
            for target in stmt.targets:
                self.locals.add(target.name)
                names.append("_" if target.name == "_" else python_name(target.name))
            self.out.add(indent, f"{', '.join(names)} = {value}", last or origin)
            self.note_sizes(stmt)
        elif isinstance(stmt, ast.ExprStmt):
            value, last = self.statement_value(stmt.expr, indent)
            self.out.add(indent, value, last or origin)
        elif isinstance(stmt, ast.If):
            self.out.add(indent, f"if {self.condition(stmt.condition)}:", origin)
            self.block(stmt.then_body, indent + 1)
            if not stmt.then_body:
                self.out.add(indent + 1, "pass", origin)
            if stmt.else_body is not None:
                self.out.add(indent, "else:", self.origin(stmt.else_span or stmt.span))
                self.block(stmt.else_body, indent + 1)
                if not stmt.else_body:
                    self.out.add(indent + 1, "pass", origin)
        elif isinstance(stmt, ast.For):
            self.for_loop(stmt, indent)
        elif isinstance(stmt, ast.FieldAssign):
            self.out.add(indent, training.field_assign(self, stmt), origin)
        elif isinstance(stmt, ast.Assert):
            asserts.emit_assert(self, stmt, indent)
        else:
            raise self.unsupported("this statement", stmt.span)

    def for_loop(self, stmt: ast.For, indent: int) -> None:
        """A loop; a call that passes a mode on in it is keyed by the iteration: the range's
        value, or the index of the iteration in a loop over anything else."""
        origin = self.origin(stmt.span)
        self.locals.add(stmt.var.name)
        variable = python_name(stmt.var.name)
        iterable = stmt.iterable
        index = self.temp("i")
        if isinstance(iterable, ast.Range):
            bounds = f"{self.expr(iterable.lo)}, {self.expr(iterable.hi)}"
            source = f"{self.context.builtin('range')}({bounds})"
            self.loops.append(variable)
        else:
            source = self.expr(iterable)
            self.loops.append(index)
            data.loop_sizes(self, stmt)
        padded, symbol, batches = padding.loop_padding(self, stmt)
        if padded and batches is not None:
            where = data.where(self.context, self.base, batches)
            source = f"_ss_rt.padding.batch_loop({source}, True, {where!r})"
            first = padding.batch_symbol(self, stmt)
            if first is not None and first in self.sizes:
                self.sizes[first] = f"_ss_rt.padding.real_size({variable})"
        outer = self.out
        self.out = SourceBuilder()
        if padded and symbol is not None:
            self.out.add(
                indent + 1, f"_ss_pads[{symbol!r}] = _ss_rt.padding.mask_of({variable})", origin
            )
        self.block(stmt.body, indent + 1)
        if not stmt.body:
            self.out.add(indent + 1, "pass", origin)
        body, self.out = self.out, outer
        self.loops.pop()
        if not isinstance(iterable, ast.Range) and re.search(rf"\b{index}\b", body.text):
            source = f"{self.context.builtin('enumerate')}({source})"
            variable = f"{index}, {variable}"
        self.out.add(indent, f"for {variable} in {source}:", origin)
        self.out.lines.extend(body.lines)
        self.out.origins.extend(body.origins)

    def loop_key(self) -> str | None:
        """The Python expression naming the current loop iteration, `f'{epoch}.{i}'`."""
        if not self.loops:
            return None
        return "f'" + ".".join("{" + part + "}" for part in self.loops) + "'"

    def statement_value(self, node: ast.Expr, indent: int) -> tuple[str, Origin | None]:
        """A statement's value, and the line of its last stages when it is a pipe whose
        stages are on lines of their own: such a pipe is computed a line at a time, so a
        traceback names the line of the stage that failed."""
        if not isinstance(node, ast.Pipe):
            return self.expr(node), None
        self.pipe_lines[id(node)] = indent
        value = self.expr(node)
        return value, self.pipe_ends.pop(id(node), None)

    def note_sizes(self, stmt: ast.Assign) -> None:
        """Unknown sizes (`?k`) of a bound tensor become readable from its shape."""
        for target in stmt.targets:
            type_ = self.view.type(target.span)
            if not isinstance(type_, TensorType) or type_.axes is None:
                continue
            for position, axis in enumerate(type_.axes):
                symbol = axis.size.single_symbol()
                if symbol is not None and symbol not in self.sizes:
                    self.sizes[symbol] = f"{python_name(target.name)}.shape[{position}]"

    def condition(self, node: ast.Expr) -> str:
        value = self.expr(node)
        type_ = self.type(node)
        if isinstance(type_, TensorType):
            return f"{self.context.builtin('bool')}({value})"
        return value

    # ------------------------------------------------------------------ expressions

    def expr(self, node: ast.Expr) -> str:
        return devices.gathered(self, node.span, self._expr(node))

    def _expr(self, node: ast.Expr) -> str:
        # The node classes have no subclasses: `type(x) is C` is `isinstance(x, C)`.
        kind = type(node)
        if kind is ast.Name:
            return self.name(node)
        if kind in _LITERALS:
            return self.literal(node)
        if kind is ast.InfLit:
            return "_ss_inf"
        if kind is ast.Unary:
            return self.unary(node)
        if kind is ast.Binary:
            return self.binary(node)
        if kind is ast.Call:
            return devices.wrap(self, node, self.call(node, None))
        if kind is ast.Pipe:
            return self.pipe(node)
        if kind is ast.Cast:
            return casts.cast(self, node, self.expr(node.operand))
        if kind is ast.Index:
            return self.index(node)
        if kind is ast.Member:
            named = imports.unqualified(self, node)
            return self.name(named) if named is not node else self.member(node)
        if kind is ast.Placeholder and self.piped:
            return self.piped[-1]
        raise self.unsupported("this expression", node.span)

    def literal(self, node) -> str:
        if isinstance(node, ast.FloatLit):
            return repr(node.value)
        return repr(node.value)

    def name(self, node: ast.Name) -> str:
        name = node.name
        lowered = self.lowered.get(name)
        if lowered is not None:
            return lowered.python
        if name in self.locals:
            return python_name(name)
        known = training.name(self, node)
        if known is not None:
            return known
        type_ = self.type(node)
        if isinstance(type_, TRAINING_TYPES):
            raise self.unsupported(f"`{name}`", node.span)
        if isinstance(type_, HostType) and type_.kind == "int" and type_.size is not None:
            if name in self.context.checked.dim_values:
                return python_name(name)
            return self.size(type_.size, node.span)
        if isinstance(type_, FunctionType) and type_.kind in ("builtin", "prelude"):
            raise self.unsupported(f"`{name}` as a value", node.span)
        return python_name(name)

    def unary(self, node: ast.Unary) -> str:
        operand = self.expr(node.operand)
        type_ = self.type(node.operand)
        if node.op == "!":
            if isinstance(type_, TensorType):
                return f"(~{operand})"
            return f"(not {operand})"
        return f"(-{operand})"

    def depends(self, node) -> bool:
        """Whether an expression uses a lambda parameter bound to a whole tensor."""
        if isinstance(node, Element):
            return node.whole
        if not self.lowered:
            return False
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, ast.Name) and current.name in self.lowered:
                return True
            if isinstance(current, ast.Lambda):
                stack.append(current.body)
                continue
            for name in getattr(current, "__slots__", ()):
                child = getattr(current, name, None)
                if isinstance(child, list):
                    stack.extend(c for c in child if hasattr(c, "__slots__"))
                elif hasattr(child, "__slots__") and not isinstance(child, Span):
                    stack.append(child)
        return False

    def aligned(self, value: str, plan: tuple[int, ...] | None, operand, result) -> str:
        """An operand permuted and unsqueezed as the checker lined it up with the result.

        `plan` is the recorded result position of each of the operand's axes, or None where
        it lines up from the right as it is. Inside an elementwise stage, an operand that
        uses a parameter is a whole tensor with the iterated axis in front, so it needs
        its size-1 axes written out after that axis, even where torch would add them on the
        left: a [] part becomes `x[:, None, ...]` to line up with the body.
        """
        result_rank = _rank(result)
        whole = self.depends(operand)
        if plan is None:
            operand_rank = _rank(self.type(operand))
            if not whole or operand_rank >= result_rank:
                return value
            plan = tuple(range(result_rank - operand_rank, result_rank))
        lead = 1 if whole else 0
        order = sorted(range(len(plan)), key=lambda j: plan[j])
        if order != list(range(len(plan))):
            dims = list(range(lead)) + [lead + j for j in order]
            value = f"{value}.permute({', '.join(map(str, dims))})"
        places = set(plan)
        first = 0 if whole or not plan else min(plan)
        parts = [":"] if whole else ["..."]
        parts += [":" if q in places else "None" for q in range(first, result_rank)]
        if "None" in parts:
            value = f"{value}[{', '.join(parts)}]"
        return value

    def binary(self, node: ast.Binary) -> str:
        left = self.expr(node.left)
        right = self.expr(node.right)
        op = node.op
        left_type = self.type(node.left)
        right_type = self.type(node.right)
        tensors = isinstance(left_type, TensorType) or isinstance(right_type, TensorType)
        if op == "@":
            return devices.wrap(
                self, node, self.matmul(node, (left, right), (node.left, node.right))
            )
        if tensors:
            plans = self.view.alignment(node.span) or (None, None)
            result = self.type(node)
            written = (left, right)
            left = self.aligned(left, plans[0], node.left, result)
            right = self.aligned(right, plans[1], node.right, result)
            if op == "+" and (left, right) == written:
                fused = linear.either_side(self, written, (left_type, right_type, result))
                if fused is not None:
                    return fused
        if op in ("and", "or"):
            if tensors:
                op = "&" if op == "and" else "|"
            return f"({left} {op} {right})"
        return f"({left} {op} {right})"

    def matmul(self, node, values: tuple[str, str], operands: tuple) -> str:
        """`x @ y`, with the batch axes permuted and unsqueezed as the checker lined them
        up by name."""
        plans = self.view.alignment(node.span)
        written = values
        result = self.type(node)
        if plans is not None:
            values = tuple(
                self.aligned(value, plan, operand, result)
                for value, plan, operand in zip(values, plans, operands, strict=True)
            )
        left = padding.contracted(self, node, values[0])
        text = f"_ss_torch.matmul({left}, {values[1]})"
        if values[1] == written[1]:
            types = (self.type(operands[0]), self.type(operands[1]), result)
            linear.remember(self, text, left, values[1], types)
        return text

    def member(self, node: ast.Member) -> str:
        target_type = self.type(node.target)
        if isinstance(target_type, PythonType):
            return f"{self.expr(node.target)}.{node.name}"
        field = training.member(self, node) or logs.member(self, node) or data.member(self, node)
        if field is not None:
            return field
        raise self.unsupported("a field of a model, batch or record", node.span)

    def index(self, node: ast.Index) -> str:
        if (
            isinstance(node.target, ast.Name)
            and node.target.name == "causal"
            and node.target.name not in self.locals
        ):
            return builtins.causal(self, node)
        target = self.expr(node.target)
        if self.lowered and len(node.items) == 1:
            item = node.items[0]
            if isinstance(item, ast.Name) and item.name in self.lowered:
                lowered = self.lowered[item.name]
                if lowered.indices and not self.depends(node.target):
                    return target
                return f"{target}[{lowered.python}]"
        parts = []
        for item in node.items:
            if isinstance(item, ast.Slice):
                pieces = [
                    "" if part is None else self.expr(part)
                    for part in (item.lo, item.hi, item.step)
                ]
                text = f"{pieces[0]}:{pieces[1]}"
                if item.step is not None:
                    text += f":{pieces[2]}"
                parts.append(text)
            elif isinstance(item, ast.SpacedIndex):
                raise self.unsupported("this index", item.span)
            else:
                parts.append(self.expr(item))
        if len(parts) == 1:
            selected = padding.selection(self, node, target, parts[0])
            if selected is not None:
                return selected
        return f"{target}[{', '.join(parts)}]"

    # ------------------------------------------------------------------ calls and pipes

    def call_args(self, node: ast.Call, piped: str | None) -> CallArgs:
        """The arguments as written, with the piped value first or at its `_`."""
        found = CallArgs()
        placed = piped is None
        for arg in node.args:
            value = imports.unqualified(self, arg.value)
            if isinstance(value, ast.Placeholder):
                value = PIPED
                placed = True
            if arg.name is not None:
                found.keywords[arg.name] = value
                found.spans[arg.name] = arg.span
            else:
                found.positional.append(value)
        if not placed:
            found.positional.insert(0, PIPED)
        return found

    def arg(self, value, piped: str | None) -> str:
        if value is PIPED:
            return piped
        return self.expr(value)

    def passed(self, value, piped: str | None, callee: str) -> str:
        """An argument of a call, a mode extended with the call's path."""
        return training.passed(self, value, self.arg(value, piped), callee)

    def call(self, node: ast.Call, piped: str | None) -> str:
        if id(node) in self.fused:
            return attention.emit(self, node)
        callee = imports.unqualified(self, node.callee)
        if callee is not node.callee:
            node = ast.Call(callee, node.args, node.span, node.operands_form)
        if isinstance(callee, ast.Name) and callee.name not in self.locals:
            callee_type = self.view.type(callee.span)
            name = callee.name
            signature = self.context.checked.signatures.get(name) or imports.signature(self, name)
            symbol = self.context.checked.module_symbols.get(name) or imports.symbol(self, name)
            if self.context.foreign is not None and name in builtins.HANDLERS:
                # A built-in in the other file, whatever this file declares.
                signature = symbol = None
            imported = imports.target_signature(self, self.view.call_target(callee.span), name)
            if imported is not None:
                return self.fn_call(node, imported, piped)
            if symbol is not None and symbol.kind == "fn":
                return self.fn_call(node, signature, piped)
            if signature is not None and getattr(signature, "extern", False):
                return attention.extern_call(self, node, signature, piped) or builtins.extern_call(
                    self, node, signature, piped
                )
            if (
                isinstance(callee_type, FunctionType)
                and callee_type.kind == "builtin"
                or (symbol is None and name in builtins.HANDLERS)
            ):
                return builtins.builtin_call(self, name, node, piped)
            if symbol is not None and symbol.kind == "logs":
                return logs.construct(self, name, node)
            if symbol is not None and symbol.kind in ("model", "data", "import"):
                raise self.unsupported(f"a {symbol.kind} call", node.span)
        made = training.model_init(self, node) or logs.sink_call(self, node, piped)
        if made is not None:
            return made
        callee_type = self.type(callee)
        if isinstance(callee_type, PythonType) or (
            isinstance(callee, ast.Member) and isinstance(self.type(callee.target), PythonType)
        ):
            args = self.call_args(node, piped)
            called = node.callee.name if isinstance(node.callee, ast.Member | ast.Name) else "?"
            parts = [self.passed(value, piped, called) for value in args.positional]
            parts += [
                f"{key}={self.passed(value, piped, called)}" for key, value in args.keywords.items()
            ]
            return f"{self.expr(callee)}({', '.join(parts)})"
        raise self.unsupported("this call", node.span)

    def fn_call(self, node: ast.Call, signature: Signature, piped: str | None) -> str:
        args = self.call_args(node, piped)
        plans = self.argument_plans(node, signature, args)
        result = self.type(node)
        params = [p.name for p in signature.params]
        parts = []
        for position, value in enumerate(args.positional):
            text = self.passed(value, piped, signature.name)
            if position < len(params) and params[position] in plans:
                plan = plans[params[position]]
                text = self.aligned(text, plan, self.operand_node(value), result)
            parts.append(text)
        for key, value in args.keywords.items():
            text = self.passed(value, piped, signature.name)
            if key in plans:
                text = self.aligned(text, plans[key], self.operand_node(value), result)
            parts.append(f"{python_name(key)}={text}")
        pads = padding.passed(self, node)
        if pads is not None:
            parts.append(pads)
        target = self.view.call_target(node.callee.span)
        called = imports.called(target.python_name) if target else python_name(signature.name)
        return f"{copies.called(self, called)}({', '.join(parts)})"

    def argument_plans(
        self, node: ast.Call, signature: Signature, args: CallArgs
    ) -> dict[str, tuple[int, ...] | None]:
        """How the checker lined up each argument of a call to an elementwise function with
        the result, by parameter name. It recorded one plan per parameter given an argument,
        in the signature's order."""
        recorded = self.view.alignment(node.span) if signature.is_elementwise else None
        if recorded is None:
            return {}
        names = [param.name for param in signature.params]
        given = set(names[: len(args.positional)]) | set(args.keywords)
        present = [name for name in names if name in given]
        return dict(zip(present, recorded, strict=False))

    def operand_node(self, value):
        """The node whose recorded type describes an argument: the piped input for `_`."""
        if value is PIPED:
            return self.piped_nodes[-1]
        return value

    def pipe(self, node: ast.Pipe) -> str:
        return chains.pipe(self, node)


def _rank(type_) -> int:
    if isinstance(type_, TensorType) and type_.axes is not None:
        return len(type_.axes)
    return 0
