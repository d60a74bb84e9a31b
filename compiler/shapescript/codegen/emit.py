"""Python source built line by line, each line tied to the `.ss` position it comes from."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field


@dataclass(slots=True)
class Origin:
    """A 1-based line and a 0-based column of the `.ss` file (UTF-8 bytes, as Python's
    positions are), and where the line ends."""

    line: int
    column: int
    end_column: int | None = None


@dataclass(slots=True)
class SourceBuilder:
    """Lines of Python, and for each the `.ss` position its code comes from (or None)."""

    lines: list[str] = field(default_factory=list)
    origins: list[Origin | None] = field(default_factory=list)
    #: Notes for the next line added, which it gets as a trailing comment.
    notes: list[str] = field(default_factory=list)

    def add(self, indent: int, text: str, origin: Origin | None = None) -> None:
        for part in text.split("\n"):
            if self.notes:
                part += "  # " + "; ".join(dict.fromkeys(self.notes))
                self.notes.clear()
            self.lines.append("    " * indent + part)
            self.origins.append(origin)

    def note(self, text: str) -> None:
        """Say on the next line added what its code is (`lowered: einsum as matmul`).

        Expressions are built as text before the line that holds them is added, so a note
        made while building one lands on its line."""
        self.notes.append(text)

    def extend(self, other: SourceBuilder) -> None:
        """Add another builder's lines, with their origins."""
        self.lines.extend(other.lines)
        self.origins.extend(other.origins)

    def blank(self) -> None:
        self.add(0, "")

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def tree(self) -> ast.Module:
        """The source parsed, with every node's position moved to its `.ss` position.

        Lines with no `.ss` origin keep the position of the last line that had one, so a
        traceback through generated helper lines still lands in the `.ss` file.
        """
        tree = ast.parse(self.text)
        mapped: list[Origin] = []
        last = Origin(1, 0)
        for origin in self.origins:
            if origin is not None:
                last = origin
            mapped.append(last)
        final = len(mapped)
        for node in _positioned_nodes(tree):
            line = node.lineno
            start = mapped[min(line, final) - 1]
            end = mapped[min(getattr(node, "end_lineno", None) or line, final) - 1]
            node.lineno = start.line
            node.col_offset = start.column
            node.end_lineno = max(end.line, start.line)
            # To the end of the .ss line: tracebacks underline the rest of the line from
            # where the code starts (nothing when that is the whole line).
            last = end if end.line > start.line else start
            node.end_col_offset = last.column if last.end_column is None else last.end_column
        return tree


def _positioned_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of `tree` that has a position, in no particular order.

    `ast.walk` does the same through a generator per node and `iter_fields`; a module of a
    big file has a million nodes, and this loop reads each node's fields directly."""
    found: list[ast.AST] = []
    stack = [tree]
    node_type = ast.AST
    while stack:
        node = stack.pop()
        if getattr(node, "lineno", None) is not None:
            found.append(node)
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                stack.extend(child for child in value if isinstance(child, node_type))
            elif isinstance(value, node_type):
                stack.append(value)
    return found
