"""The layers level: operations grouped into the layers papers draw.

The rules read the boxes of one frame in code order and follow the values they read:
a matrix product with a 2-D param (and its bias and activation) is a Linear, linear
layers in a row are an MLP, a softmax over a product of two computed values (with its
projections) is attention, and so on. Reshapes are left out; what no rule claims stays
a box with a readable name.
"""

from __future__ import annotations

import re

from shapescript.architecture.finish import fold_repeats
from shapescript.architecture.nodes import Held, Node, walk
from shapescript.architecture.operations import LOSSES, NORMS, RESHAPES, outside_inputs
from shapescript.records import replace

ACTIVATION_NAMES = {
    "gelu": "GELU",
    "relu": "ReLU",
    "silu": "SiLU",
    "swish": "SiLU",
    "tanh": "Tanh",
    "sigmoid": "Sigmoid",
    "softplus": "Softplus",
    "elu": "ELU",
    "leaky_relu": "LeakyReLU",
    "mish": "Mish",
}
#: Names of user functions drawn as a norm when they compute one themselves.
NORM_FUNCTIONS = {
    **NORMS,
    "layernorm": "LayerNorm",
    "rmsnorm": "RMSNorm",
    "batchnorm": "BatchNorm",
    "groupnorm": "GroupNorm",
}
READABLE = {"multiply": "×", "divide": "÷", "add": "+", "subtract": "−"}
LINEAR_OPS = ("matmul", "linear", "einsum")


def axes_of(type_text: str) -> list[str]:
    """The axes of a printed type, `[b (H Dh) D]` → `b`, `(H Dh)`, `D`."""
    match = re.match(r"\[([^\]]*)\]", type_text)
    if match is None:
        return []
    return re.findall(r"\([^)]*\)|[^\s()]+", match.group(1))


class Grouper:
    """Groups one drawing's boxes into layers; `tables` are the params embeddings read."""

    def __init__(self, tables: set[str], types: dict[int, str] | None = None) -> None:
        self.tables = tables
        #: Every value's type, frames' values included, for rules that look further up.
        self.types = types or {}
        self.alias: dict[int, int] = {}

    def resolve(self, value: int) -> int:
        while value in self.alias:
            value = self.alias[value]
        return value

    def reads(self, node: Node, other: Node) -> bool:
        return any(self.resolve(value) == other.value for value in node.inputs)

    # ------------------------------------------------------------------ one frame

    def group(self, nodes: list[Node]) -> list[Node]:
        nodes = [self.frame(node) if node.kind == "frame" else node for node in nodes]
        nodes = fold_repeats(self.without_reshapes(nodes))
        for node in nodes:
            node.inputs = [self.resolve(value) for value in node.inputs]
        nodes = self.attention(nodes)
        nodes = self.linears(nodes)
        nodes = self.mlps(nodes)
        return [self.name(node, nodes) for node in nodes]

    def frame(self, node: Node) -> Node:
        children = self.group(node.children)
        node.children = children
        inner = [child for child in children if child.kind not in ("input", "output")]
        if node.op == "for":
            if len(inner) == 1:
                child = inner[0]
                if not child.repeat:
                    child.repeat = node.repeat
                    child.value = node.value
                    child.inputs = node.inputs
                    return child
            return node
        norm = NORM_FUNCTIONS.get(node.function.lower())
        if norm is not None:
            return replace(
                node, kind="norm", label=norm, children=[], params=held_in(children), op="norm"
            )
        if is_transformer_block(children):
            node.label = "Transformer block"
            return node
        if len(inner) == 1 and inner[0].kind != "frame":
            child = inner[0]
            child.function = node.function
            child.value = node.value
            child.inputs = node.inputs
            return child
        return node

    def without_reshapes(self, nodes: list[Node]) -> list[Node]:
        kept = []
        for node in nodes:
            if node.op in RESHAPES and node.kind == "reshape":
                patches = patch_size(node, self.types)
                if node.op == "rearrange" and patches is not None:
                    node.kind = "patchify"
                    node.label = f"Patchify {patches}"
                    kept.append(node)
                    continue
                if node.inputs:
                    self.alias[node.value] = node.inputs[0]
                continue
            kept.append(node)
        return kept

    def attention(self, nodes: list[Node]) -> list[Node]:
        for index, node in enumerate(nodes):
            if node.op == "scaled_dot_product_attention" or (
                node.op == "softmax" and self.scores_of_products(nodes, index)
            ):
                members = self.attention_members(nodes, index)
                first, last = min(members), max(members)
                group = [nodes[i] for i in sorted(members)]
                heads = axes_of(node.type)
                causal = any("causal" in member.consts for member in group)
                label = "Multi-head attention"
                if len(heads) >= 3:
                    label += f" · {heads[-3]} heads"
                if causal:
                    label += " · causal"
                box = Node(
                    "attention",
                    label,
                    type=group[-1].type,
                    span=cover(group),
                    inputs=outside_inputs(group),
                    value=group[-1].value,
                    params=held_in(group),
                    op="attention",
                )
                rest = [nodes[i] for i in range(first, last + 1) if i not in members]
                return nodes[:first] + [box] + rest + self.attention(nodes[last + 1 :])
        return nodes

    def scores_of_products(self, nodes: list[Node], index: int) -> bool:
        """Whether the softmax's input comes from a product of two computed values."""
        for i in self.ancestors(nodes, index, stop_at_linear=True):
            node = nodes[i]
            if node.op in ("einsum", "matmul") and not node.params and len(node.inputs) >= 2:
                return True
        return False

    def ancestors(self, nodes: list[Node], index: int, stop_at_linear: bool) -> set[int]:
        by_value = {node.value: i for i, node in enumerate(nodes)}
        found: set[int] = set()
        queue = [index]
        while queue:
            current = queue.pop()
            for value in nodes[current].inputs:
                source = by_value.get(value)
                if source is None or source in found or source >= current:
                    continue
                if nodes[source].kind in ("input", "frame", "norm", "embedding"):
                    continue
                found.add(source)
                if stop_at_linear and is_linear(nodes[source]):
                    continue
                queue.append(source)
        return found

    def attention_members(self, nodes: list[Node], index: int) -> set[int]:
        members = {index} | self.ancestors(nodes, index, stop_at_linear=True)
        chain = {nodes[index].value}
        position = index + 1
        while position < len(nodes):
            node = nodes[position]
            if not any(value in chain for value in node.inputs):
                break
            members.add(position)
            chain.add(node.value)
            if is_linear(node):
                following = nodes[position + 1] if position + 1 < len(nodes) else None
                if following is not None and is_bias(following, node):
                    members.add(position + 1)
                break
            position += 1
        return members

    def linears(self, nodes: list[Node]) -> list[Node]:
        result: list[Node] = []
        index = 0
        while index < len(nodes):
            node = nodes[index]
            if not is_linear(node):
                result.append(node)
                index += 1
                continue
            group = [node]
            weight = node.params[0]
            sizes = axes_of(weight.type)[-2:]
            if node.op == "linear" or node.transposed:
                sizes = sizes[::-1]
            label = f"Linear {' → '.join(sizes)}" if len(sizes) == 2 else "Linear"
            following = nodes[index + 1] if index + 1 < len(nodes) else None
            if following is not None and is_bias(following, group[-1]):
                group.append(following)
                following = nodes[index + len(group)] if index + len(group) < len(nodes) else None
            activation = ""
            if (
                following is not None
                and following.kind == "activation"
                and self.reads(following, group[-1])
            ):
                group.append(following)
                activation = ACTIVATION_NAMES.get(following.op, following.op)
                label += f" · {activation}"
            if weight.name in self.tables:
                label += f" · tied to {weight.name}"
            result.append(
                Node(
                    "linear",
                    label,
                    type=group[-1].type,
                    span=cover(group),
                    inputs=outside_inputs(group),
                    value=group[-1].value,
                    params=held_in(group),
                    op="linear",
                    over=activation,
                    consts=[size for size in sizes],
                    function=node.function,
                )
            )
            index += len(group)
        return result

    def mlps(self, nodes: list[Node]) -> list[Node]:
        result: list[Node] = []
        index = 0
        while index < len(nodes):
            run = [index]
            dropout = ""
            position = index
            while (
                nodes[position].op == "linear"
                and nodes[position].over
                and "tied" not in nodes[position].label
            ):
                step = position + 1
                if (
                    step < len(nodes)
                    and nodes[step].op == "dropout"
                    and self.reads(nodes[step], nodes[position])
                ):
                    dropout = dropout or (nodes[step].consts[0] if nodes[step].consts else "")
                    step += 1
                if (
                    step < len(nodes)
                    and nodes[step].op == "linear"
                    and "tied" not in nodes[step].label
                ):
                    run.append(step)
                    position = step
                else:
                    break
            if len(run) < 2 or nodes[index].op != "linear":
                result.append(nodes[index])
                index += 1
                continue
            group = nodes[index : run[-1] + 1]
            linears = [nodes[i] for i in run]
            sizes = [linears[0].consts[0]] + [layer.consts[-1] for layer in linears]
            label = "MLP " + " → ".join(sizes)
            activation = linears[0].over
            if activation:
                label += f" · {activation}"
            if dropout:
                label += f" · dropout {dropout}"
            result.append(
                Node(
                    "mlp",
                    label,
                    type=group[-1].type,
                    span=cover(group),
                    inputs=outside_inputs(group),
                    value=group[-1].value,
                    params=held_in(group),
                    op="mlp",
                    function=group[0].function,
                )
            )
            index = run[-1] + 1
        return result

    @staticmethod
    def activated_linear(node: Node) -> bool:
        return (
            node.op == "linear" and bool(node.over) and "tied" not in node.label and not node.repeat
        )

    # ------------------------------------------------------------------ names

    def name(self, node: Node, nodes: list[Node]) -> Node:
        op = node.op
        if node.kind == "call" and node.function.lower() in NORM_FUNCTIONS:
            node.kind, node.label = "norm", NORM_FUNCTIONS[node.function.lower()]
            return node
        if node.kind in ("call", "frame") and node.function in LOSSES:
            node.kind, node.label, node.children = "loss", LOSSES[node.function], []
            return node
        if node.kind in ("input", "output", "frame", "call", "linear", "mlp", "attention"):
            return node
        if node.kind == "patchify" or node.kind == "norm" and op == "norm":
            return node
        if op in NORMS:
            node.label = NORMS[op]
        elif op in LOSSES:
            node.label = LOSSES[op] + (f" over {node.over}" if node.over else "")
        elif op == "embedding" and node.params:
            sizes = axes_of(node.params[0].type)
            node.label = "Embedding" + (f" {sizes[0]} → {sizes[-1]}" if len(sizes) == 2 else "")
        elif op == "dropout":
            node.label = "Dropout" + (f" {node.consts[0]}" if node.consts else "")
        elif op in ("softmax", "log_softmax"):
            node.label = ("Softmax" if op == "softmax" else "Log-softmax") + (
                f" over {node.over}" if node.over else ""
            )
        elif node.kind == "activation":
            node.label = ACTIVATION_NAMES.get(op, op)
        elif op in ("conv2d", "conv1d") and node.params:
            node.kind, node.label = conv_label(node)
        elif op == "add" and node.params and len(axes_of(node.params[0].type)) >= 2:
            node.kind = "position"
            node.label = "Position embedding"
        elif op == "add" and len(node.inputs) == 2 and not node.params:
            node.kind = "residual"
            node.label = ""
        elif op in READABLE:
            operand = (
                node.params[0].name if node.params else (node.consts[0] if node.consts else "")
            )
            node.label = f"{READABLE[op]} {operand}".strip()
        else:
            node.label = (
                op[:1].upper()
                + op[1:].replace("_", " ")
                + (f" over {node.over}" if node.over else "")
            )
        return node


def is_linear(node: Node) -> bool:
    """A matrix product of a computed value with one 2-D param (`linear` may add a bias)."""
    if node.op not in LINEAR_OPS or not node.params or not node.inputs:
        return False
    if node.label.startswith("Linear"):
        return False
    if node.op == "einsum" and len(node.inputs) != 1:
        return False
    return len(axes_of(node.params[0].type)) == 2 and (len(node.params) == 1 or node.op == "linear")


def is_bias(node: Node, before: Node) -> bool:
    """An add of a 1-D param to the box before's result."""
    return (
        node.op == "add"
        and len(node.params) == 1
        and len(axes_of(node.params[0].type)) == 1
        and before.value in node.inputs
    )


def is_transformer_block(children: list[Node]) -> bool:
    kinds = {node.kind for node in walk(children)}
    return "attention" in kinds and "residual" in kinds and bool(kinds & {"mlp", "linear"})


def patch_size(node: Node, types: dict[int, str]) -> str | None:
    """`16×16` for a rearrange that cuts images into patches, read from its input's axes."""
    pattern = node.label.partition(" ")[2]
    source, _, target = pattern.partition("→")
    if source.count("(") < 2 or "(" not in target:
        return None
    before = types.get(node.inputs[0], "") if node.inputs else ""
    sizes = re.findall(r"\b(\d+)[A-Za-z_]", before)
    if len(sizes) >= 2:
        return f"{sizes[-2]}×{sizes[-1]}"
    numbers = re.findall(r"\((?:\w+ )?(\d+)\)|\((\d+) \w+\)", source)
    found = [a or b for a, b in numbers]
    return f"{found[0]}×{found[1]}" if len(found) >= 2 else ""


def conv_label(node: Node) -> tuple[str, str]:
    weight = node.params[0]
    sizes = axes_of(weight.type)
    shape = weight.shape or ()
    kernel = f"{shape[-2]}×{shape[-1]}" if len(shape) >= 2 else "k×k"
    channels = f"{sizes[1]} → {sizes[0]}" if len(sizes) >= 2 else ""
    stride = next((text[7:] for text in node.consts if text.startswith("stride=")), "1")
    if len(shape) >= 2 and shape[-1] == shape[-2] and stride == str(shape[-1]):
        return "patch", f"Patch embedding {kernel} · {channels}"
    return "conv", f"Conv {kernel} · {channels}"


def held_in(nodes: list[Node]) -> list[Held]:
    """The params the boxes read, each once, in order."""
    found: list[Held] = []
    for node in walk(nodes):
        for held in node.params:
            if all(other.name != held.name for other in found):
                found.append(held)
    return found


def cover(nodes: list[Node]):
    spans = [node.span for node in nodes if node.span is not None]
    if not spans:
        return None
    first = spans[0]
    for span in spans[1:]:
        first = first.cover(span)
    return first
