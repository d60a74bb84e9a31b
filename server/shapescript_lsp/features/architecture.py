"""A model's architecture in the editor: the hover section and `shapescript/architecture`.

Both read `shapescript.architecture`, which reads only the checker's result. The hover
names the functions read, with links, then shows the drawing: a PNG in clients that
show images, the text list in others, or only the one-line summary with a link to the
client's own view (`architecturePanel`).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import quote

from shapescript.architecture import DETAILS, FileModel, architecture, model_at
from shapescript.architecture.nodes import Architecture, walk
from shapescript.architecture.operations import takes_model
from shapescript.architecture.text import architecture_text
from shapescript.check.checker import check_source
from shapescript.check.program import Checked
from shapescript.records import record
from shapescript.syntax.source import SourceFile, Span
from shapescript_lsp.features.context import word_at
from shapescript_lsp.features.imported import Reader, text_of
from shapescript_lsp.positions import range_of
from shapescript_lsp.render.architecture_png import architecture_png
from shapescript_lsp.render.architecture_svg import architecture_svg

SHOW_COMMAND = "shapescript.architecture.show"
TOGGLE_COMMAND = "shapescript.architecture.toggleDetail"
CACHE_SIZE = 16
#: How many of a file's models have their hover pictures drawn ahead.
PREPARED = 2


@record
class ArchitectureSettings:
    """The initialization options: the level drawn (`architectureDetail`), whether the
    client shows the drawing in a view of its own (`architecturePanel`), and whether it
    runs the command that switches the level from a hover link (`architectureToggle`)."""

    detail: str = "layers"
    panel: bool = False
    toggle: bool = False

    @staticmethod
    def from_options(options: dict) -> ArchitectureSettings:
        return ArchitectureSettings(
            detail=detail_name(options.get("architectureDetail")) or "layers",
            panel=options.get("architecturePanel") is True,
            toggle=options.get("architectureToggle") is True,
        )


def detail_name(value: object) -> str | None:
    """`layers` or `operations`, or None for anything else."""
    return value if isinstance(value, str) and value in DETAILS else None


_cache: OrderedDict[tuple, tuple[object, object]] = OrderedDict()
#: Held while the cache is read or filled, so a hover asking for a picture that is being
#: drawn ahead (`prepare_pictures`, in another thread) waits for it instead of drawing it
#: again.
_cache_lock = threading.RLock()


def _remember(key: tuple, owner: object, make):
    """What `make` gives for `owner` (an analysis or a drawing), made once while it is
    among the last few asked for."""
    with _cache_lock:
        found = _cache.get(key)
        if found is not None and found[0] is owner:
            _cache.move_to_end(key)
            return found[1]
        value = make()
        _cache[key] = (owner, value)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
        return value


def _png(found: Architecture, theme: str) -> tuple[str, int] | None:
    return _remember((id(found), "png", theme), found, lambda: architecture_png(found, theme))


def prepare_pictures(
    checked: Checked,
    uri: str,
    detail: str,
    theme: str,
    search_path: Sequence[str] = (),
    read: Reader | None = None,
    current: Callable[[], bool] = lambda: True,
) -> None:
    """Draw the hover pictures of the file's models ahead of the hovers that show them (a
    PNG of a large model takes a good part of a second); stops once `current()` says the
    analysis is no longer the document's."""
    for model in list(checked.models)[:PREPARED]:
        if not current():
            return
        drawing = drawn(checked, uri, model, detail, search_path, read)
        if drawing is not None and current():
            _png(drawing.found, theme)


@record
class Drawn:
    """A drawing, the checked file that declares its model (this one, or an imported
    model's own file) with that file's URI, and every file it was read from, by path."""

    found: Architecture
    home: Checked
    uri: str
    files: dict[str, Checked]

    def location(self, path: str, span: Span) -> dict:
        """`{uri, range}` of a span in one of the files read."""
        checked = self.files.get(path, self.home)
        return _location(checked, _uri_of(path, self.uri, self.home), span)

    def line_uri(self, path: str, span: Span) -> str:
        """The URI of the line a span starts on, in one of the files read."""
        checked = self.files.get(path, self.home)
        line = range_of(checked.source, span).start.line + 1
        return f"{_uri_of(path, self.uri, self.home)}#L{line}"


def drawn(
    checked: Checked,
    uri: str,
    model: str,
    detail: str,
    search_path: Sequence[str] = (),
    read: Reader | None = None,
) -> Drawn | None:
    """The model's drawing. An imported model (`attention.Attention`) is declared in its
    own file, checked as the import read it, and read from the functions that take it
    first in this file, in its file and in the other files this one imports."""
    if model in checked.models:
        found = _remember(
            (id(checked), model, detail), checked, lambda: architecture(checked, model, detail)
        )
        if found is None:
            return None
        return Drawn(found, checked, uri, {checked.source.path: checked})
    table = checked.imports
    symbol = table.symbols.get(model) if table is not None else None
    if symbol is None or symbol.kind != "model":
        return None
    home = _checked_file(checked, symbol.path, search_path, read)
    if home is None:
        return None
    name = model.rpartition(".")[2]
    files: list[FileModel] = [(checked, model), (home, name)]
    for path, exports in table.modules.items():
        prefix = exports.prefixes.get(symbol.path)
        if path in (symbol.path, checked.source.path) or prefix is None:
            continue
        written = f"{prefix}.{name}"
        if any(takes_model(signature.decl, written) for signature in exports.functions.values()):
            other = _checked_file(checked, path, search_path, read)
            if other is not None:
                files.append((other, written))
    found = _remember(
        (id(checked), model, detail), checked, lambda: architecture(home, name, detail, files)
    )
    if found is None:
        return None
    read_from = {reader.source.path: reader for reader, _ in files}
    return Drawn(found, home, Path(symbol.path).as_uri(), read_from)


def _checked_file(
    checked: Checked, path: str, search_path: Sequence[str], read: Reader | None
) -> Checked | None:
    """An imported file, checked as the import read it (once while it is cached)."""
    text = text_of(checked, path, read)
    if text is None:
        return None
    return _remember(
        (id(checked), "file", path),
        checked,
        lambda: check_source(SourceFile.from_text(path, text), search_path=search_path, read=read),
    )


def model_named_at(checked: Checked, offset: int) -> str | None:
    """The model at a name: a model's name anywhere, or a function that takes one first."""
    if word_at(checked.source.text, offset) is None:
        return None
    return model_at(checked, offset)


def _uri_of(path: str, uri: str, checked: Checked) -> str:
    return uri if path == checked.source.path else Path(path).as_uri()


def _location(checked: Checked, uri: str, span: Span) -> dict:
    found = range_of(checked.source, span)
    return {
        "uri": uri,
        "range": {
            "start": {"line": found.start.line, "character": found.start.character},
            "end": {"line": found.end.line, "character": found.end.character},
        },
    }


def architecture_answer(
    checked: Checked,
    uri: str,
    offset: int,
    detail: str,
    probe: bool = False,
    search_path: Sequence[str] = (),
    read: Reader | None = None,
) -> dict | None:
    """The answer to `shapescript/architecture`: null where no model is named."""
    model = model_named_at(checked, offset)
    if model is None:
        return None
    if probe:
        return {"model": model}
    drawing = drawn(checked, uri, model, detail, search_path, read)
    if drawing is None:
        return None
    found, home, uri = drawing.found, drawing.home, drawing.uri
    svg, width, height = _remember((id(found), "svg"), found, lambda: architecture_svg(found))
    return {
        "model": model,
        "title": found.title,
        "summary": found.summary,
        "detail": found.detail,
        "svg": svg,
        "width": width,
        "height": height,
        "text": architecture_text(found),
        "declaration": _location(home, uri, found.declaration),
        "links": [
            {
                "label": link.label,
                "place": link.place,
                "kind": link.kind,
                **drawing.location(link.path, link.span),
            }
            for link in found.links
        ],
        "nodes": [
            {"id": node.id, **drawing.location(section.path, node.span)}
            for section in found.sections
            for node in walk(section.nodes)
            if node.span is not None and node.id
        ],
    }


def _command(name: str, arguments: list) -> str:
    return f"command:{name}?{quote(json.dumps(arguments))}"


def architecture_hover(
    checked: Checked,
    uri: str,
    offset: int,
    settings: ArchitectureSettings,
    images: bool,
    theme: str,
    budget: list[int] | None = None,
    search_path: Sequence[str] = (),
    read: Reader | None = None,
) -> str:
    """The hover's architecture section, or "" where no model is named. The picture is
    drawn as text instead when it doesn't fit in what is left of `budget[0]`, the
    characters the hover's images may still take (and takes its share of it)."""
    model = model_named_at(checked, offset)
    if model is None:
        return ""
    drawing = drawn(checked, uri, model, settings.detail, search_path, read)
    if drawing is None:
        return ""
    found, checked, uri = drawing.found, drawing.home, drawing.uri
    position = range_of(checked.source, found.declaration).start
    show = _command(SHOW_COMMAND, [uri, position.line, position.character])
    toggle = ""
    if settings.toggle:
        other = "operations" if settings.detail == "layers" else "layers"
        label = "Show every operation" if other == "operations" else "Show layers"
        toggle = f"[{label}]({_command(TOGGLE_COMMAND, [other])})"
    if settings.panel:
        return f"{found.summary} · [Open architecture]({show})" + (f" · {toggle}" if toggle else "")
    sources = [link for link in found.links if link.kind == "source"]
    named = " and ".join(
        f"[{link.label}]({drawing.line_uri(link.path, link.span)}) ({link.place})"
        for link in sources
    )
    lines = [f"**Architecture of {model}**" + (f", from {named}" if named else "")]
    picture = ""
    if images:
        png = _png(found, theme)
        room = budget[0] if budget is not None else None
        if png is not None and (room is None or len(png[0]) < room):
            picture = f"![architecture of {model}]({png[0]}|width={png[1]})"
            if budget is not None:
                budget[0] -= len(png[0])
    lines.append(picture or "```text\n" + architecture_text(found) + "\n```")
    if toggle:
        lines.append(toggle)
    return "\n\n".join(lines)
