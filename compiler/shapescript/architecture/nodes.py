"""The boxes an architecture drawing is made of, at either level."""

from __future__ import annotations

from shapescript.records import field, record
from shapescript.syntax.source import Span

#: What a box is, for its color and for the layer rules: `input`, `output`, `linear`,
#: `mlp`, `embedding`, `position`, `activation`, `norm`, `attention`, `softmax`, `loss`,
#: `conv`, `patch`, `patchify`, `dropout`, `residual`, `reshape`, `op`, `call`, `frame`,
#: `field`, `more`.
KINDS = (
    "input",
    "output",
    "linear",
    "mlp",
    "embedding",
    "position",
    "activation",
    "norm",
    "attention",
    "softmax",
    "loss",
    "conv",
    "patch",
    "patchify",
    "dropout",
    "residual",
    "reshape",
    "op",
    "call",
    "frame",
    "field",
    "more",
)


@record
class Held:
    """A param a box reads (`w1 [D Hd]`), or another input beside it (`batch.label`).
    `name` is the param's path in the model; `written`, how the function that reads it
    writes it (`net.w1`), where that differs."""

    name: str
    type: str
    shape: tuple[int, ...] | None = None
    written: str = ""

    @property
    def as_written(self) -> str:
        """The param as the code writes it, else its path."""
        return self.written or self.name


@record
class Node:
    """One box: a layer, an operation, or a frame holding others.

    `inputs` and `value` are the ids of the values it reads and gives, for the layer rules
    and for telling a line that reads the one above from a sum with a value from further
    up; `span` is the absolute span of the code it was drawn from.
    """

    kind: str
    label: str
    type: str = ""
    span: Span | None = None
    inputs: list[int] = field(default_factory=list)
    value: int = -1
    params: list[Held] = field(default_factory=list)
    beside: list[Held] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    #: A frame's count: `× L = 6`, `× 3`.
    repeat: str = ""
    #: The function a frame or a layer drawn for a call was read from.
    function: str = ""
    #: For a sum with a value from further up, that value's name (`x`).
    added: str = ""
    #: The operation's name and its `over=` axis, its constants, for the layer rules.
    op: str = ""
    over: str = ""
    consts: list[str] = field(default_factory=list)
    #: Whether its weight is read transposed (`m.wte.T`).
    transposed: bool = False
    #: `↓` reads the box above, `⊕` adds a value from further up, `•` an input.
    arrow: str = "↓"
    id: str = ""


@record
class Section:
    """One function the drawing was read from, with its boxes."""

    function: str
    path: str
    line: int
    span: Span
    nodes: list[Node]


@record
class Link:
    """A function the drawing was read from (`source`) or followed into (`followed`)."""

    label: str
    place: str
    kind: str
    path: str
    span: Span


@record
class Architecture:
    """A model's drawing at one level: its sections, the functions read, the summary."""

    model: str
    detail: str
    title: str
    summary: str
    sections: list[Section]
    links: list[Link]
    declaration: Span
    path: str


def walk(nodes: list[Node]):
    """Every box, frames' boxes included, in drawing order."""
    for node in nodes:
        yield node
        yield from walk(node.children)
