"""Every operation a model's functions do, read from the checker's facts in code order.

Each function body is walked once: an operation becomes a box with the type the checker
recorded for it, the params it reads and the values it reads (by id, so the layer rules
can follow the data). Calls that pass the model or its params are followed into frames
up to three calls deep; a loop's body is one frame, marked with its count. A model the
model holds (`m.attn`, `m.h[l]`, a loop's `blk` of `for blk in m.h:`) is followed like the
model itself, its params named by their paths (`h[l].attn.c_attn`).
"""

from __future__ import annotations

import itertools

from shapescript.architecture.nodes import Held, Node
from shapescript.check.algebra.types import StackType, TensorType, Type, format_type
from shapescript.check.declarations.symbols import ItemFacts
from shapescript.check.program import Checked
from shapescript.records import field, record, replace
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile, Span

MAX_DEPTH = 3

ACTIVATIONS = frozenset(
    {"gelu", "relu", "silu", "tanh", "sigmoid", "softplus", "elu", "leaky_relu", "mish", "swish"}
)
NORMS = {
    "layer_norm": "LayerNorm",
    "rms_norm": "RMSNorm",
    "batch_norm": "BatchNorm",
    "group_norm": "GroupNorm",
}
LOSSES = {
    "cross_entropy": "Cross-entropy",
    "mse_loss": "MSE loss",
    "mse": "MSE loss",
    "nll_loss": "NLL loss",
    "binary_cross_entropy": "Binary cross-entropy",
    "bce": "Binary cross-entropy",
}
RESHAPES = frozenset(
    {
        "rearrange",
        "split",
        "transpose",
        "reshape",
        "flatten",
        "permute",
        "squeeze",
        "unsqueeze",
        "as",
        "to",
        "index",
        "T",
    }
)
BINARY_OPS = {
    "@": "matmul",
    "+": "add",
    "-": "subtract",
    "*": "multiply",
    "/": "divide",
}


@record
class Value:
    """What an expression gives: a computed value (`id`), a param of the model (`field`,
    its path), the model itself, a model it holds (`held`, `field` its path: `h[l].attn`),
    or something else (`const`, its text). A param, the model or a held model also has
    `written`: how the function being walked names it (`net.wte`, `net`, `block`)."""

    kind: str
    id: int = -1
    field: str = ""
    type: str = ""
    shape: tuple[int, ...] | None = None
    transposed: bool = False
    text: str = ""
    written: str = ""


def model_named(name: str) -> Value:
    """The model, as a function's parameter `name` names it."""
    return Value("model", written=name)


def const(text: str) -> Value:
    return Value("const", text=text)


@record
class Context:
    """One function being walked: its facts, where its item starts, its names."""

    item: ItemFacts
    env: dict[str, Value]
    depth: int
    ops: list[Node] = field(default_factory=list)
    returned: Value | None = None


class Walker:
    """Walks the functions that take `model` first into boxes, one per operation."""

    def __init__(self, checked: Checked, model: str, drawn: set[str]) -> None:
        self.checked = checked
        self.model = model
        self.drawn = drawn
        self.ids = itertools.count()
        self.names: dict[int, str] = {}
        #: Functions followed into: name, span of its name, the file it is in.
        self.followed: list[tuple[str, Span, SourceFile]] = []
        #: Params an `embedding` reads, for `tied to`.
        self.embedding_tables: set[str] = set()
        self.functions: dict[str, list[ItemFacts]] = {}
        for item in checked.items:
            if isinstance(item.item, ast.FnDecl) and item.body is not None:
                self.functions.setdefault(item.item.name, []).append(item)

    def beside(self, checked: Checked, model: str) -> Walker:
        """A walker of another file's functions (the model as that file names it) that
        shares this one's values, names, drawn functions and followed calls."""
        other = Walker(checked, model, self.drawn)
        other.ids = self.ids
        other.names = self.names
        other.followed = self.followed
        other.embedding_tables = self.embedding_tables
        return other

    # ------------------------------------------------------------------ functions

    def function_for(self, name: str, model_first: bool) -> ItemFacts | None:
        """The function of that name; of overloads, the one taking this model first."""
        found = self.functions.get(name, [])
        for item in found:
            if takes_model(item.item, self.model):
                return item
        return None if model_first or not found else found[0]

    def section(self, item: ItemFacts) -> list[Node]:
        """The boxes of one function drawn at the top: its inputs, its body, its output."""
        decl = item.item
        context = Context(item, {}, 0)
        for param in decl.params:
            type_ = self.fact_type(context, param.name_span)
            if takes_model(decl, self.model) and param is decl.params[0]:
                context.env[param.name] = model_named(param.name)
            elif isinstance(type_, TensorType):
                node = self.add(context, "input", param.name, param.name_span, type_=type_)
                node.arrow = "•"
                context.env[param.name] = Value("value", node.value)
                self.names[node.value] = param.name
            else:
                context.env[param.name] = Value("data", text=param.name)
        self.body(context)
        output = self.add(
            context,
            "output",
            "output",
            decl.return_type.span if decl.return_type else decl.name_span,
        )
        output.type = self.return_text(context)
        if context.returned is not None and context.returned.kind == "value":
            output.inputs = [context.returned.id]
        return context.ops

    def return_text(self, context: Context) -> str:
        decl = context.item.item
        if decl.return_type is not None:
            start = context.item.base + decl.return_type.span.start
            end = context.item.base + decl.return_type.span.end
            return " ".join(self.checked.source.text[start:end].split())
        returned = context.returned
        if returned is not None and returned.kind == "value":
            for node in reversed(context.ops):
                if node.value == returned.id:
                    return node.type
        return ""

    def body(self, context: Context) -> None:
        decl = context.item.item
        if decl.expr_body is not None:
            context.returned = self.expr(context, decl.expr_body)
        else:
            self.statements(context, decl.body or [])

    def statements(self, context: Context, statements: list) -> None:
        for statement in statements:
            if context.returned is not None:
                return
            if isinstance(statement, ast.Assign):
                value = self.expr(context, statement.value)
                for target in statement.targets:
                    context.env[target.name] = as_named(value, target.name)
                    if value.kind == "value":
                        self.names.setdefault(value.id, target.name)
            elif isinstance(statement, ast.Return):
                if statement.value is not None:
                    context.returned = self.expr(context, statement.value)
            elif isinstance(statement, ast.ExprStmt):
                self.expr(context, statement.expr)
            elif isinstance(statement, ast.If):
                self.statements(context, statement.then_body)
            elif isinstance(statement, ast.For):
                self.loop(context, statement)

    def loop(self, context: Context, statement: ast.For) -> None:
        outer = context.ops
        context.ops = []
        context.env[statement.var.name] = self.loop_variable(context, statement)
        self.statements(context, statement.body)
        children, context.ops = context.ops, outer
        if not children:
            return
        frame = Node(
            "frame",
            "",
            type=children[-1].type,
            span=self.absolute(context, statement.span),
            inputs=outside_inputs(children),
            value=children[-1].value,
            children=children,
            repeat=self.count(context, statement.iterable),
            op="for",
        )
        outer.append(frame)

    def loop_variable(self, context: Context, statement: ast.For) -> Value:
        """What a loop binds: each model of a stack it runs over (`h[*]`), else a name."""
        if isinstance(self.fact_type(context, statement.iterable.span), StackType):
            stack = self.expr(context, statement.iterable)
            if stack.kind == "held":
                return Value("held", field=f"{stack.field}[*]", written=statement.var.name)
        return const(statement.var.name)

    def count(self, context: Context, iterable: object) -> str:
        """`× L = 6` for a loop over `0..L` or a stack `[L] Block` with L a dim, `× 6`, `× n`."""
        stack = self.fact_type(context, iterable.span) if hasattr(iterable, "span") else None
        if isinstance(stack, StackType):
            if stack.size and not stack.size.isdigit():
                return f"× {stack.size} = {stack.count}"
            return f"× {stack.count}"
        range_from_zero = isinstance(iterable, ast.Range) and isinstance(iterable.lo, ast.IntLit)
        if range_from_zero and iterable.lo.value == 0:
            iterable = iterable.hi
        if isinstance(iterable, ast.IntLit):
            return f"× {iterable.value}"
        if isinstance(iterable, ast.Name):
            value = self.checked.dim_values.get(iterable.name)
            return f"× {iterable.name} = {value}" if value is not None else f"× {iterable.name}"
        return "× …"

    # ------------------------------------------------------------------ expressions

    def expr(self, context: Context, node: object) -> Value:
        if isinstance(node, ast.Name):
            found = context.env.get(node.name)
            return found if found is not None else const(node.name)
        if isinstance(node, (ast.IntLit, ast.FloatLit)):
            return const(self.text(context, node.span))
        if isinstance(node, ast.InfLit):
            return const("inf")
        if isinstance(node, ast.Member):
            return self.member(context, node)
        if isinstance(node, ast.Index):
            return self.index(context, node)
        if isinstance(node, ast.Cast):
            operand = self.expr(context, node.operand)
            if operand.kind == "param":
                return Value(
                    "param",
                    field=operand.field,
                    type=self.fact_text(context, node.span) or operand.type,
                    shape=operand.shape,
                    transposed=operand.transposed,
                    written=operand.written,
                )
            if operand.kind != "value":
                return operand
            label = f"{node.kind} {self.text(context, node.type.span)}"
            return self.operation(context, node.kind, [operand], node.span, label=label)
        if isinstance(node, ast.Unary):
            operand = self.expr(context, node.operand)
            if operand.kind != "value":
                return operand
            name = "negate" if node.op == "-" else "not"
            return self.operation(context, name, [operand], node.span)
        if isinstance(node, ast.Binary):
            left = self.expr(context, node.left)
            right = self.expr(context, node.right)
            name = BINARY_OPS.get(node.op, node.op)
            return self.operation(context, name, [left, right], node.span)
        if isinstance(node, ast.Call):
            return self.call(context, node, None)
        if isinstance(node, ast.Pipe):
            value = self.expr(context, node.input)
            for stage in node.stages:
                value = self.stage(context, stage, value)
            return value
        return const(self.text(context, node.span) if hasattr(node, "span") else "")

    def member(self, context: Context, node: ast.Member) -> Value:
        relative = node.span
        facts = context.item.body.facts if context.item.body else None
        owner_field = facts.fields.get(relative) if facts is not None else None
        target = node.target
        if owner_field is not None:
            owner, name = owner_field
            base = self.expr(context, target) if not isinstance(target, ast.Name) else None
            if isinstance(target, ast.Name):
                base = context.env.get(target.name)
            if base is not None and base.kind in ("model", "held"):
                path = name if base.kind == "model" else f"{base.field}.{name}"
                written = f"{base.written}.{name}"
                info = self.checked.models.get(owner)
                held = info.fields.get(name) if info is not None else None
                if held is not None and held.is_model:
                    return Value("held", field=path, written=written)
                type_ = self.fact_type(context, node.span)
                return Value(
                    "param",
                    field=path,
                    type=format_type(type_) if type_ is not None else "",
                    shape=held.shape if held is not None else None,
                    written=written,
                )
            if isinstance(target, ast.Name):
                return const(name)
            return base or const(name)
        inner = self.expr(context, target)
        if inner.kind == "data" and isinstance(target, ast.Name):
            label = f"{target.name}.{node.name}"
            found = context.env.get(label)
            if found is None:
                found = self.input(context, label, node.span)
                context.env[label] = found
            return found
        if node.name == "T" and inner.kind == "param":
            type_ = self.fact_type(context, node.span)
            return Value(
                "param",
                field=inner.field,
                type=format_type(type_) if type_ is not None else inner.type,
                shape=inner.shape,
                transposed=not inner.transposed,
                written=inner.written,
            )
        if inner.kind == "value":
            return self.operation(
                context, "T" if node.name == "T" else node.name, [inner], node.span
            )
        return inner

    def input(self, context: Context, label: str, span: Span) -> Value:
        """A value given from outside, such as `batch.img`: an input box where it's first read."""
        node = self.add(context, "input", label, span, type_=self.fact_type(context, span))
        node.arrow = "•"
        self.names[node.value] = label
        return Value("value", node.value)

    def index(self, context: Context, node: ast.Index) -> Value:
        if isinstance(node.target, ast.Name) and node.target.name == "causal":
            return const("causal")
        target = self.expr(context, node.target)
        if target.kind == "held":
            written = ", ".join(self.text(context, item.span) for item in node.items)
            return Value(
                "held", field=f"{target.field}[{written}]", written=f"{target.written}[{written}]"
            )
        if target.kind == "param":
            type_ = self.fact_type(context, node.span)
            return Value(
                "param",
                field=target.field,
                type=format_type(type_) if type_ is not None else target.type,
                shape=target.shape,
                transposed=target.transposed,
                written=target.written,
            )
        if target.kind == "value":
            return self.operation(context, "index", [target], node.span)
        return target

    def stage(self, context: Context, stage: object, value: Value) -> Value:
        if isinstance(stage, ast.ToStage):
            if value.kind != "value":
                return value
            label = f"to {self.text(context, stage.type.span)}"
            return self.operation(context, "to", [value], stage.span, label=label)
        if isinstance(stage, ast.Call):
            return self.call(context, stage, value)
        if isinstance(stage, (ast.Name, ast.Member)):
            name = stage.name
            return self.named_call(context, name, [(None, value)], stage.span, stage, None)
        return value

    def call(self, context: Context, node: ast.Call, piped: Value | None) -> Value:
        callee = node.callee
        if not isinstance(callee, (ast.Name, ast.Member)):
            return const("")
        name = callee.name
        if isinstance(callee, ast.Member) and name == "init":
            return const("init")
        args: list[tuple[str | None, Value]] = []
        patterns: list[str] = []
        placeholder = any(isinstance(arg.value, ast.Placeholder) for arg in node.args)
        if piped is not None and not placeholder:
            args.append((None, piped))
        for arg in node.args:
            if isinstance(arg.value, ast.Pattern):
                patterns.append(self.text(context, arg.value.span))
                continue
            if arg.name == "over":
                args.append(("over", const(self.text(context, arg.value.span))))
                continue
            if isinstance(arg.value, ast.Placeholder):
                args.append((arg.name, piped or const("_")))
                continue
            if isinstance(arg.value, (ast.Lambda, ast.ToStage)):
                args.append((arg.name, const(self.text(context, arg.span))))
                continue
            args.append((arg.name, self.expr(context, arg.value)))
        return self.named_call(context, name, args, node.span, node, patterns)

    def named_call(
        self,
        context: Context,
        name: str,
        args: list[tuple[str | None, Value]],
        span: Span,
        node: object,
        patterns: list[str] | None,
    ) -> Value:
        symbol = self.checked.module_symbols.get(name)
        if symbol is not None and symbol.kind == "fn":
            return self.user_call(context, name, args, span)
        if args and args[0][1].kind == "model" and name in self.drawn:
            values = [value.id for _, value in args if value.kind == "value"]
            node = self.add(context, "call", f"{name} (above)", span, inputs=values)
            node.function = name
            return Value("value", node.value)
        over = next((value.text for key, value in args if key == "over"), "")
        consts = [value.text for key, value in args if value.kind == "const" and key != "over"]
        keyed = {key: value for key, value in args if key is not None}
        values = [value for key, value in args if key != "over"]
        label = ""
        if patterns:
            label = f"{name} " + ", ".join(" ".join(text.split()) for text in patterns)
            label = label.replace("->", "→")
        found = self.operation(context, name, values, span, label=label, over=over, consts=consts)
        box = context.ops[-1] if context.ops and context.ops[-1].value == found.id else None
        if box is not None:
            box.consts = consts
            stride = keyed.get("stride")
            if stride is not None:
                box.consts = [f"stride={stride.text}", *consts]
            if name == "dropout" and consts and not label:
                box.label = f"dropout {consts[0]}"
            if name == "embedding":
                self.embedding_tables.update(held.name for held in box.params)
        return found

    def user_call(
        self, context: Context, name: str, args: list[tuple[str | None, Value]], span: Span
    ) -> Value:
        model_first = bool(args) and args[0][1].kind == "model"
        item = self.function_for(name, model_first)
        passes = any(value.kind in ("model", "param", "held") for _, value in args)
        values = [value.id for _, value in args if value.kind == "value"]
        held = [
            Held(value.field, value.type, value.shape, value.written)
            for _, value in args
            if value.kind == "param"
        ]
        if item is None:
            return self.operation(context, name, [value for _, value in args], span)
        if name in self.drawn and model_first:
            node = self.add(context, "call", f"{name} (above)", span, inputs=values)
            node.function = name
            return Value("value", node.value)
        if not passes or context.depth + 1 > MAX_DEPTH:
            node = self.add(context, "call", name, span, inputs=values)
            node.params = held
            node.function = name
            return Value("value", node.value)
        decl = item.item
        inner = Context(item, {}, context.depth + 1)
        for index, (key, value) in enumerate(args):
            target = None
            if key is None and index < len(decl.params):
                target = decl.params[index].name
            elif key is not None:
                target = key
            if target is not None:
                inner.env[target] = as_named(value, target)
        self.followed.append(
            (
                name,
                Span(item.base + decl.name_span.start, item.base + decl.name_span.end),
                self.checked.source,
            )
        )
        self.body(inner)
        returned = inner.returned
        frame = Node(
            "frame",
            name,
            type=self.fact_text(context, span),
            span=self.absolute(context, span),
            inputs=values,
            children=inner.ops,
            function=name,
            op="call",
        )
        if returned is not None and returned.kind == "value":
            frame.value = returned.id
        else:
            frame.value = next(self.ids)
        context.ops.append(frame)
        return Value("value", frame.value)

    # ------------------------------------------------------------------ boxes

    def operation(
        self,
        context: Context,
        name: str,
        operands: list[Value],
        span: Span,
        label: str = "",
        over: str = "",
        consts: list[str] | None = None,
    ) -> Value:
        """A box for one operation, unless it computes nothing from values or params."""
        values = [value.id for value in operands if value.kind == "value"]
        params = [
            Held(value.field, value.type, value.shape, value.written)
            for value in operands
            if value.kind == "param"
        ]
        if not values and not params:
            texts = [value.text for value in operands if value.kind == "const"]
            return const(self.text(context, span) if texts else "")
        node = self.add(context, kind_of(name, params), name, span, inputs=values)
        node.params = params
        node.op = name
        node.over = over
        node.consts = (
            consts
            if consts is not None
            else [value.text for value in operands if value.kind == "const"]
        )
        node.label = label or (f"{name} over {over}" if over else name)
        if not label and name in ("multiply", "divide") and len(node.consts) == 1 and values:
            node.label = f"{name} by {node.consts[0]}"
        node.transposed = any(value.transposed for value in operands if value.kind == "param")
        return Value("value", node.value)

    def add(
        self,
        context: Context,
        kind: str,
        label: str,
        span: Span,
        type_: Type | None = None,
        inputs: list[int] | None = None,
    ) -> Node:
        if type_ is None:
            type_ = self.fact_type(context, span)
        node = Node(
            kind,
            label,
            type=format_type(type_) if type_ is not None else "",
            span=self.absolute(context, span),
            inputs=list(inputs or []),
            value=next(self.ids),
            op=label,
        )
        context.ops.append(node)
        return node

    def fact_type(self, context: Context, span: Span) -> Type | None:
        for facts in context.item.fact_tables():
            found = facts.types.get(span)
            if found is not None:
                return found
        return None

    def fact_text(self, context: Context, span: Span) -> str:
        type_ = self.fact_type(context, span)
        return format_type(type_) if type_ is not None else ""

    def absolute(self, context: Context, span: Span) -> Span:
        return Span(context.item.base + span.start, context.item.base + span.end)

    def text(self, context: Context, span: Span) -> str:
        start, end = self.absolute(context, span)
        return " ".join(self.checked.source.text[start:end].split())


def as_named(value: Value, name: str) -> Value:
    """A value passed to a function's parameter `name`: a param or a model is then written
    as that function names it."""
    if value.kind in ("model", "held", "param"):
        return replace(value, written=name)
    return value


def kind_of(name: str, params: list[Held]) -> str:
    """A box's kind from its operation alone, as the operations level colors it."""
    if name in RESHAPES:
        return "reshape"
    if name in ACTIVATIONS:
        return "activation"
    if name in NORMS:
        return "norm"
    if name in LOSSES:
        return "loss"
    if name in ("softmax", "log_softmax"):
        return "softmax"
    if name == "scaled_dot_product_attention":
        return "attention"
    if name == "embedding":
        return "embedding"
    if name == "dropout":
        return "dropout"
    if name in ("matmul", "linear") and params:
        return "linear"
    if name in ("conv2d", "conv1d"):
        return "conv"
    return "op"


def takes_model(decl: ast.FnDecl, model: str) -> bool:
    """Whether the function's first parameter is written as the model's type."""
    if not decl.params:
        return False
    type_ = decl.params[0].type
    return (
        type_ is not None
        and type_.shape is None
        and len(type_.words) == 1
        and type_.words[0].name == model
    )


def outside_inputs(nodes: list[Node]) -> list[int]:
    """The values boxes read that none of them gives."""
    given = set()
    read: list[int] = []
    for node in nodes:
        for value in node.inputs:
            if value not in given and value not in read:
                read.append(value)
        given.add(node.value)
    return read
