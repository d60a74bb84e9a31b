"""Hovering a function's name: a picture of what it does, from a run on a small example.

Nothing runs unless the client allows pictures and the server was given a Python; the
function must be one the reference allows running (`pictures.examples.why_not_run`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from shapescript.check.program import Checked
from shapescript.check.sizes import Poly
from shapescript.check.types import TensorType, format_type
from shapescript_lsp.features.context import word_at
from shapescript_lsp.pictures import grids
from shapescript_lsp.pictures.examples import Example, example
from shapescript_lsp.pictures.runs import Failed, PictureRuns


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
) -> str:
    """The picture's Markdown for the function named at `offset`, or ""."""
    if not allowed(pictures, python):
        return ""
    found = word_at(checked.source.text, offset)
    symbol = checked.definition_at(offset)
    if found is None or symbol is None or symbol.kind != "fn" or found[0] != symbol.name:
        return ""
    built = await asyncio.to_thread(example, checked, symbol.name)
    if built is None:
        return ""
    assert python is not None
    answer = await runs.answer(python, built.request())
    if answer is None:
        return "*The picture is still being computed; hover again.*"
    if isinstance(answer, Failed):
        return f"*No picture: {answer.message}*" if answer.kind in ("time", "memory") else ""
    return markdown(picture_grids(built, answer), len(_drawn(built)), images)


def markdown(drawn: list[grids.Grid], inputs: int, images: bool) -> str:
    if images:
        from shapescript_lsp.render.shapes import png_data_uri

        svg = grids.svg(drawn, inputs)
        uri = png_data_uri(svg)
        if uri is not None:
            width = svg.split('viewBox="0 0 ', 1)[1].split(" ", 1)[0]
            alt = " → ".join(grid.caption for grid in drawn)
            return f"![{alt}]({uri}|width={width})"
    return "```text\n" + grids.text(drawn, inputs) + "\n```"


def _drawn(built: Example):
    return [a for a in built.arguments if isinstance(a.type, TensorType) and not a.weight]


def picture_grids(built: Example, answer: Any) -> list[grids.Grid]:
    """The inputs that aren't weights, then the result, as grids."""
    drawn = [
        _grid(f"{a.name}: {format_type(a.type)}", a.type, a.value["tensor"], built)
        for a in _drawn(built)
    ]
    weights = [a.name for a in built.arguments if a.weight]
    results = answer if isinstance(answer, list) else [answer]
    types = getattr(built.return_type, "elements", None) or [built.return_type]
    for index, result in enumerate(results):
        type_ = types[index] if index < len(types) else None
        shown = format_type(type_) if type_ is not None else "result"
        caption = f"{built.function}(…): {shown}"
        if weights and index == 0:
            caption += f"   (weights: {', '.join(weights)})"
        value = result["tensor"] if isinstance(result, dict) else result
        drawn.append(_grid(caption, type_, value, built))
    return drawn


def _grid(caption: str, type_: Any, value: Any, built: Example) -> grids.Grid:
    domain = getattr(type_, "domain", None)
    if domain is not None and domain.name == "Prob":
        return grids.grid(caption, value, "prob")
    one_axis = isinstance(value, list) and not (value and isinstance(value[0], list))
    if domain is not None and domain.name == "Index" and domain.size is not None and one_axis:
        sizes = {name: Poly.const(size) for name, size in built.dims.items()}
        bound = domain.size.substitute(sizes).value
        if bound:
            return grids.grid(caption, value, "onehot", classes=min(bound, grids.MAX_COLUMNS))
    return grids.grid(caption, value)
