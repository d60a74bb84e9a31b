"""What `shapescript verify` found: per output, dtype and input set, the largest errors
against the exact run, and the operation that adds the most error in float32."""

from __future__ import annotations

from dataclasses import dataclass, field

from shapescript.verify.values import Worst


@dataclass
class Row:
    """One output's errors in one dtype on one input set."""

    output: str
    dtype: str
    inputs: str
    worst: Worst


@dataclass
class Blame:
    """The operation whose own float32 result is furthest from exact, on one input set."""

    operation: str
    line: int
    inputs: str
    worst: Worst


@dataclass
class Report:
    """The reference run's findings for one function."""

    function: str
    dims: dict[str, int]
    digits: int
    seed: int
    rows: list[Row] = field(default_factory=list)
    blame: Blame | None = None
    tolerance: float | None = None

    def _chosen(self, dtype: str | None, inputs: str | None) -> list[Row]:
        """The rows of a dtype and input set (all: None)."""
        return [
            row
            for row in self.rows
            if (dtype is None or row.dtype == dtype) and (inputs is None or row.inputs == inputs)
        ]

    def largest_relative(self, dtype: str | None = None, inputs: str | None = None) -> float:
        """The largest relative error over the rows of a dtype and input set (all: None)."""
        return max((row.worst.relative for row in self._chosen(dtype, inputs)), default=0.0)

    def largest_absolute(self, dtype: str | None = None, inputs: str | None = None) -> float:
        """The largest absolute error over the rows of a dtype and input set (all: None)."""
        return max((row.worst.absolute for row in self._chosen(dtype, inputs)), default=0.0)

    @property
    def passed(self) -> bool:
        return self.tolerance is None or self.largest_relative() <= self.tolerance

    def markdown(self) -> str:
        """The error table and the blamed operation, as Markdown."""
        dims = ", ".join(f"{name}={value}" for name, value in sorted(self.dims.items()))
        lines = [
            f"**verify `{self.function}`**: exact run at {self.digits} digits, seed {self.seed}"
            + (f", dims {dims}" if dims else ""),
            "",
            "| output | dtype | inputs | max rel. error | at | max abs. error | at |",
            "|---|---|---|---|---|---|---|",
        ]
        for row in self.rows:
            worst = row.worst
            cells = [
                row.output,
                row.dtype,
                row.inputs,
                _number(worst.relative),
                _at(worst.relative_at),
                _number(worst.absolute),
                _at(worst.absolute_at),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        if self.blame is not None:
            blame = self.blame
            what = (
                "overflows to inf or gives NaN"
                if blame.worst.not_finite
                else f"adds a relative error of {_number(blame.worst.relative)}"
            )
            lines.append(
                f"Most error added by one operation in f32: `{blame.operation}` at line "
                f"{blame.line}, which {what} on the {blame.inputs} inputs."
            )
        if self.tolerance is not None:
            verdict = "is within" if self.passed else "exceeds"
            lines.append(
                f"The largest relative error, {_number(self.largest_relative())}, {verdict} "
                f"the tolerance {_number(self.tolerance)}."
            )
        return "\n".join(lines)


def _number(value: float) -> str:
    return "0" if value == 0 else f"{value:.3g}"


def _at(index: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(i) for i in index) + "]"
