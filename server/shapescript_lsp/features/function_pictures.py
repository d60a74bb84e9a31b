"""Hovering a function's name, or a call that computes (`call_pictures`): a picture of
what it does, from a run on a small example by the torch worker.

Nothing runs unless the client allows pictures and the server was given a Python; the
function must be one the reference allows running (`pictures.examples.why_not_run`).
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.structures import returned_structure
from shapescript.check.algebra.types import TensorType, format_type
from shapescript.check.program import Checked
from shapescript_lsp.features.call_hover import call_at
from shapescript_lsp.features.call_pictures import PICTURED, call_function, conversion_at
from shapescript_lsp.features.context import word_at
from shapescript_lsp.pictures import grids
from shapescript_lsp.pictures.examples import Example, example
from shapescript_lsp.pictures.png import png_uri
from shapescript_lsp.pictures.runs import Failed, PictureRuns
from shapescript_lsp.render.themes import DEFAULT_THEME


def allowed(pictures: bool, python: str | None) -> bool:
    """Whether functions may be run for pictures at all."""
    return bool(pictures and python)


async def function_picture(
    runs: PictureRuns,
    checked: Checked,
    offset: int,
    *,
    pictures: bool,
    python: str | None,
    images: bool,
    theme: str = DEFAULT_THEME,
) -> str:
    """The picture's Markdown for the function named at `offset` or the call there, or
    "" when there is none (or it may not run)."""
    if not allowed(pictures, python):
        return ""
    key = (checked.source.path, checked.source.text, offset)
    if key in runs.examples:
        built = runs.examples[key]
    else:
        built = await asyncio.to_thread(_example_at, checked, offset)
        runs.keep_example(key, built)
    if built is None:
        return ""
    assert python is not None
    answer = await runs.answer(python, built.request())
    if answer is None:
        return "*The picture is still being computed; hover again.*"
    if isinstance(answer, Failed):
        return f"*No picture: {answer.message}*" if answer.kind in ("time", "memory") else ""
    picture = markdown(picture_grids(built, answer), len(_drawn(built)), images, theme)
    # A stage's, a conversion's or a call's hover already shows the types before and after.
    if _says_no_types(built, checked, offset):
        return f"{_types_line(built)}\n\n{picture}"
    return picture


def _says_no_types(built: Example, checked: Checked, offset: int) -> bool:
    """Whether the hover the picture joins lacks the types: a pattern's `->` hovered."""
    if not built.label or built.label.startswith("|>"):
        return False
    return conversion_at(checked, offset) is None and call_at(checked, offset) is None


def _types_line(built: Example) -> str:
    """A pattern call's operand types and its result's, on a line."""
    operands = ", ".join(format_type(a.type) for a in built.arguments)
    result = format_type(built.return_type) if built.return_type is not None else "?"
    return f"```shapescript\n{operands}  →  {result}\n```"


def _example_at(checked: Checked, offset: int) -> Example | None:
    """The example for the function named at `offset`, or for the call there."""
    found = word_at(checked.source.text, offset)
    symbol = checked.definition_at(offset)
    if found is not None and symbol is not None and symbol.kind == "fn":
        if found[0] != symbol.name:
            return None
        built = example(checked, symbol.name)
        if built is not None:
            built.structure = returned_structure(checked, symbol.name)
        return built
    made = call_function(checked, offset)
    if made is None:
        return None
    built = example(made[0], PICTURED)
    if built is not None:
        built.label, built.return_type = made[1], made[2]
    return built


def markdown(drawn: list[grids.Grid], inputs: int, images: bool, theme: str = DEFAULT_THEME) -> str:
    """An image in the theme's colours where the client shows them and it fits in a
    hover, else the text."""
    if images:
        svg = grids.svg(drawn, inputs, theme)
        uri = png_uri(svg)
        if uri is not None:
            width = svg.split('viewBox="0 0 ', 1)[1].split(" ", 1)[0]
            alt = " → ".join(grid.caption for grid in drawn)
            return f"![{alt}]({uri}|width={width})"
    return "```text\n" + grids.text(drawn, inputs) + "\n```"


def _drawn(built: Example) -> list:
    """The arguments drawn: tensors that aren't weights."""
    return [a for a in built.arguments if isinstance(a.type, TensorType) and not a.weight]


#: Result domains that say something about the values, so the values are drawn.
TELLING = frozenset({"Prob", "LogProb", "Index", "Mask"})


def picture_grids(built: Example, answer: Any) -> list[grids.Grid]:
    """The inputs that aren't weights, then the result, as grids: their values, or, when
    the values say nothing (matrix products on random numbers), what depends on what."""
    runs = answer if isinstance(answer, list) else [answer]
    base = _results(runs[0])
    types = list(getattr(built.return_type, "items", ()) or [built.return_type])
    changed = built.changed()
    depends = changed is not None and len(runs) == 3 and not _values_tell(built, types, base)
    drawn = []
    for index, argument in enumerate(built.arguments):
        if argument.weight or not isinstance(argument.type, TensorType):
            continue
        caption = f"{argument.name}: {format_type(argument.type)}"
        marks: frozenset[tuple[int, int]] = frozenset()
        if depends and changed is not None and changed[0] == index:
            path = [0, *changed[1]] if len(changed[1]) < 2 else changed[1]
            marks = frozenset({(path[-2], path[-1])})
        picked = _picked(built, argument)
        if picked is not None:
            drawn.append(picked)
            continue
        drawn.append(_grid(caption, argument.type, argument.value["tensor"], built, marks))
    notes = _caption_notes(built)
    for index, result in enumerate(base):
        type_ = types[index] if index < len(types) else None
        shown = format_type(type_) if type_ is not None else "result"
        caption = f"{built.label or built.function + '(…)'}: {shown}"
        if notes and index == 0:
            caption += f"   ({', '.join(notes)})"
        marks = frozenset()
        if depends:
            moved = [_results(run)[index] for run in runs[1:]]
            marks = _changed_cells(result, moved)
        grid = _grid(caption, type_, _tensor(result), built, marks)
        if index == 0:
            grid.background = _background(built.structure, type_, grid)
        drawn.append(grid)
    return drawn


def _background(structure: Any, type_: Any, grid: grids.Grid) -> frozenset[tuple[int, int]]:
    """The cells of a result's grid that its structure promises are its background: those
    above the diagonal, when the grid's rows and columns are the structure's axes."""
    axes = getattr(type_, "axes", None)
    if structure is None or not axes or len(axes) < 2:
        return frozenset()
    if (axes[-2].name, axes[-1].name) != (structure.rows, structure.columns):
        return frozenset()
    columns = max((len(row) for row in grid.rows), default=0)
    return grids.above_diagonal(len(grid.rows), columns)


def _caption_notes(built: Example) -> list[str]:
    """What the result's caption says of the run: the weights not drawn, and the mode a
    `Mode` parameter was given (a model run in Eval mode skips dropout)."""
    notes = []
    weights = [a.name for a in built.arguments if a.weight]
    if weights:
        notes.append(f"weights: {', '.join(weights)}")
    modes = {
        a.value["mode"] for a in built.arguments if isinstance(a.value, dict) and "mode" in a.value
    }
    notes.extend(f"in {mode} mode" for mode in sorted(modes))
    return notes


def _picked(built: Example, index: Any) -> grids.Grid | None:
    """An index input that picks values of another input, as cross_entropy's `y: [n]
    Index[C]` does of `z: [n C]`: that input's values, the picked ones outlined."""
    type_ = index.type
    domain = getattr(type_, "domain", None)
    if not isinstance(type_, TensorType) or domain is None or domain.name != "Index":
        return None
    if domain.size is None or not type_.axes:
        return None
    for other in built.arguments:
        shape = other.type
        if other is index or other.weight or not isinstance(shape, TensorType) or not shape.axes:
            continue
        if shape.domain.name in ("Index", "Mask") or len(shape.axes) != len(type_.axes) + 1:
            continue
        leading = [axis.size for axis in shape.axes[:-1]]
        if leading != [axis.size for axis in type_.axes] or shape.axes[-1].size != domain.size:
            continue
        values = grids.slice_2d(other.value["tensor"])
        picks = grids.slice_2d(index.value["tensor"])
        if len(type_.axes) == 1:
            picks = [[pick] for pick in picks[0]]
        marks = frozenset(
            (r, int(row[0])) for r, row in enumerate(picks) if len(row) == 1 and r < len(values)
        )
        caption = f"{index.name}: {format_type(type_)}, the values of {other.name} it picks"
        return grids.grid(caption, other.value["tensor"], marks=marks)
    return None


def _results(run: Any) -> list[Any]:
    return run if isinstance(run, list) else [run]


def _tensor(result: Any) -> Any:
    return result["tensor"] if isinstance(result, dict) else result


def _values_tell(built: Example, types: list[Any], base: list[Any]) -> bool:
    """Whether the values going in and out are the picture: a result whose type says
    something about its values, one number, an index input, or −∞ in the result."""
    for type_ in types:
        domain = getattr(type_, "domain", None)
        if not isinstance(type_, TensorType) or not type_.axes:
            return True
        if domain is not None and domain.name in TELLING:
            return True
    for argument in built.arguments:
        domain = getattr(argument.type, "domain", None)
        if domain is not None and domain.name in ("Index", "Mask"):
            return True
    return any(
        value == -math.inf
        for result in base
        for row in grids.slice_2d(_tensor(result))
        for value in row
    )


def _changed_cells(result: Any, moved: list[Any]) -> frozenset[tuple[int, int]]:
    """The drawn cells of the result that aren't bit for bit the same in every run."""
    rows = grids.slice_2d(_tensor(result))
    others = [grids.slice_2d(_tensor(other)) for other in moved]
    return frozenset(
        (r, c)
        for r, row in enumerate(rows)
        for c, value in enumerate(row)
        if any(other[r][c] != value for other in others)
    )


def _grid(
    caption: str,
    type_: Any,
    value: Any,
    built: Example,
    marks: frozenset[tuple[int, int]] = frozenset(),
) -> grids.Grid:
    domain = getattr(type_, "domain", None)
    if domain is not None and domain.name == "Prob":
        return grids.grid(caption, value, "prob")
    if domain is not None and domain.name == "Mask":
        return grids.grid(caption, value, "mask")
    one_axis = isinstance(value, list) and not (value and isinstance(value[0], list))
    if domain is not None and domain.name == "Index" and domain.size is not None and one_axis:
        sizes = {name: Poly.const(size) for name, size in built.dims.items()}
        bound = domain.size.substitute(sizes).value
        if bound:
            return grids.grid(caption, value, "onehot", classes=min(bound, grids.MAX_COLUMNS))
    return grids.grid(caption, value, marks=marks)
