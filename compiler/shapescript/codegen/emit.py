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
        for node in ast.walk(tree):
            if not hasattr(node, "lineno") or node.lineno is None:
                continue
            start = mapped[min(node.lineno, len(mapped)) - 1]
            end_line = getattr(node, "end_lineno", None) or node.lineno
            end = mapped[min(end_line, len(mapped)) - 1]
            node.lineno = start.line
            node.col_offset = start.column
            node.end_lineno = max(end.line, start.line)
            # To the end of the .ss line: tracebacks underline the rest of the line from
            # where the code starts (nothing when that is the whole line).
            last = end if end.line > start.line else start
            node.end_col_offset = last.column if last.end_column is None else last.end_column
        return tree
