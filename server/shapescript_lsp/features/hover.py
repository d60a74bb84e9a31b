"""Hover: a type as the reference prints it, its docs, and a drawing of its shape."""

from __future__ import annotations

from lsprotocol import types

from shapescript.check.algebra.ranges import NAMED_RANGES, Interval
from shapescript.check.algebra.ranges import REAL as REAL_RANGE
from shapescript.check.algebra.structures import Structure, returned_structure
from shapescript.check.algebra.types import TensorType, Type, format_type
from shapescript.check.declarations.builtin_table import BUILTINS
from shapescript.check.declarations.symbols import Symbol
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.source import Span
from shapescript_lsp.features.assert_hover import (
    assert_keyword_at,
    assert_markdown,
    verdict_of,
)
from shapescript_lsp.features.call_hover import (
    call_at,
    call_line,
    laid_out,
    library_declaration,
    source_declaration,
)
from shapescript_lsp.features.call_pictures import conversion_at
from shapescript_lsp.features.context import bar_at, item_at, stage_input_span, word_at
from shapescript_lsp.features.curve_hover import (
    CURVE_KINDS,
    curve_section,
    range_text,
    stage_curve,
)
from shapescript_lsp.features.device_hover import device_sections
from shapescript_lsp.features.export_hover import export_keyword_at, export_section, is_export
from shapescript_lsp.features.generic_hover import generic_summary
from shapescript_lsp.features.imported import imported_file, in_other_file
from shapescript_lsp.features.imported_hover import imported_hover
from shapescript_lsp.features.model_hover import field_hover, model_hover
from shapescript_lsp.features.padding_hover import padding_notes
from shapescript_lsp.features.pattern_hover import (
    arrow_pattern,
    pattern_axis_hover,
    pattern_picture,
    stage_pattern,
)
from shapescript_lsp.features.regularity_hover import regularity_line
from shapescript_lsp.positions import range_of
from shapescript_lsp.render.math import render_doc
from shapescript_lsp.render.patterns import PatternPicture, svg_pattern, text_pattern
from shapescript_lsp.render.patterns import png_uri as pattern_png_uri
from shapescript_lsp.render.shapes import (
    png_data_uri,
    svg_before_after,
    svg_drawing,
    svg_width,
    text_before_after,
    text_drawing,
)
from shapescript_lsp.render.themes import DEFAULT_THEME

#: Kinds of symbol a call's hover is about.
CALLABLE = frozenset({"builtin", "prelude", "fn", "extern"})
MAX_GROUPS = 6
MAX_PER_GROUP = 4
#: VS Code drops a hover's Markdown over 100,000 characters: images stay well under it,
#: together, and a picture that doesn't fit is drawn as text instead.
IMAGE_BUDGET = 90_000


#: Said under every shape drawing: a side's length grows with the log of its size.
LOG_SCALE_NOTE = "*Sides are drawn on a log scale of the sizes.*"


def _fence(text: str) -> str:
    return f"```shapescript\n{text}\n```"


class HoverRenderer:
    """Builds hover Markdown; `images` says whether to show `data:` images (the client can
    and the user wants them), `theme` the editor theme's kind the pictures are drawn for,
    `html` whether the Markdown may hold HTML images (VS Code's hovers, not completion
    documentation)."""

    def __init__(self, images: bool, theme: str = DEFAULT_THEME, html: bool = False) -> None:
        self.images = images
        self.theme = theme
        self.html = html
        self.budget = IMAGE_BUDGET
        #: The first section of a call's hover (its types), which its picture follows.
        self.lead: str | None = None

    @property
    def dark(self) -> bool:
        """Whether the theme's background is dark, for the pictures that only know light and
        dark."""
        return self.theme in ("dark", "highContrast")

    def doc(self, text: str | None) -> str:
        """A doc comment with its math rendered for this client; as HTML images where
        allowed, which sit on the text's baseline."""
        return render_doc(text, self.images, self.dark, html=self.images and self.html)

    def noted_drawing(self, type_: Type, checked: Checked, over: str | None = None) -> str:
        """The drawing with the note that its sides are on a log scale."""
        drawing = self.drawing(type_, checked, over)
        return f"{drawing}\n\n{LOG_SCALE_NOTE}" if drawing else ""

    def drawing(self, type_: Type, checked: Checked, over: str | None = None) -> str:
        if not isinstance(type_, TensorType) or type_.axes is None:
            return ""
        if self.images:
            svg = svg_drawing(type_, checked.dim_values, self.theme, over)
            uri = png_data_uri(svg)
            if uri is not None and len(uri) < self.budget:
                self.budget -= len(uri)
                alt = _alt_text(format_type(type_))
                return f"![{alt}]({uri}|width={svg_width(svg)})"
        return "```text\n" + text_drawing(type_, checked.dim_values, over) + "\n```"

    def before_after_drawing(
        self, before: Type, after: Type, checked: Checked, over: str | None = None
    ) -> str:
        """Two shapes as one picture, the arrow between them: an image, or the text
        drawings side by side; "" when neither is a tensor with axes."""
        drawable = [
            isinstance(type_, TensorType) and type_.axes is not None for type_ in (before, after)
        ]
        if not all(drawable):
            first = self.drawing(before, checked, over)
            second = self.drawing(after, checked, over)
            return "\n\n→\n\n".join(part for part in (first, second) if part)
        assert isinstance(before, TensorType) and isinstance(after, TensorType)
        values = checked.dim_values
        if self.images:
            svg = svg_before_after(
                svg_drawing(before, values, self.theme, over),
                svg_drawing(after, values, self.theme, over),
                self.theme,
            )
            uri = png_data_uri(svg)
            if uri is not None and len(uri) < self.budget:
                self.budget -= len(uri)
                alt = _alt_text(f"{format_type(before)} → {format_type(after)}")
                return f"![{alt}]({uri}|width={svg_width(svg)})"
        drawn = text_before_after(
            text_drawing(before, values, over), text_drawing(after, values, over)
        )
        return "```text\n" + drawn + "\n```"

    def pattern_drawing(self, picture: PatternPicture) -> str:
        """A pattern's before → after: one image, or the text drawings."""
        if self.images:
            svg = svg_pattern(picture, self.theme)
            uri = pattern_png_uri(svg, self.budget)
            if uri is not None:
                self.budget -= len(uri)
                alt = ", ".join(side.text for side in picture.inputs)
                alt = f"{alt} → {picture.output.text}".replace("[", "").replace("]", "")
                return f"![{alt}]({uri}|width={svg_width(svg)})"
        return "```text\n" + text_pattern(picture) + "\n```"

    def hover(self, checked: Checked, offset: int) -> types.Hover | None:
        item = item_at(checked, offset)
        text = checked.source.text
        if item is not None:
            bar = bar_at(item, offset - item.base)
            if bar is not None:
                found = stage_pattern(bar.pipe.stages[bar.index])
                if found is not None:
                    span = _absolute(bar.pipe.bar_spans[bar.index], item.base)
                    before = stage_input_span(bar)
                    answer = self._pattern(checked, item, *found, span, before)
                    if answer is not None:
                        return answer
                return self._stage(checked, item, bar)
            arrow = arrow_pattern(item, offset)
            if arrow is not None:
                span = _absolute(arrow[0].arrow_span, item.base)
                answer = self._pattern(checked, item, *arrow, span)
                if answer is not None:
                    return answer
            asserted = assert_keyword_at(item, offset)
            if asserted is not None:
                stmt, keyword = asserted
                return types.Hover(
                    contents=types.MarkupContent(
                        kind=types.MarkupKind.Markdown,
                        value=assert_markdown(verdict_of(item, stmt)),
                    ),
                    range=range_of(checked.source, keyword),
                )
            axis = pattern_axis_hover(checked, item, offset)
            if axis is not None:
                markdown, span = axis
                return types.Hover(
                    contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown),
                    range=range_of(checked.source, span),
                )
        found = word_at(text, offset)
        if found is None:
            return None
        word, span = found
        conversion = conversion_at(checked, offset)
        if conversion is not None:
            return self._conversion(checked, *conversion, span)
        exported = export_keyword_at(item, offset)
        if exported is not None:
            symbol = checked.module_symbols.get(exported)
            sections = self._describe(checked, exported, symbol, None) if symbol else []
            return types.Hover(
                contents=types.MarkupContent(
                    kind=types.MarkupKind.Markdown,
                    value="\n\n---\n\n".join(s for s in sections if s),
                ),
                range=range_of(checked.source, span),
            )
        symbol = checked.definition_at(offset)
        type_ = checked.type_of(span) or (checked.type_at(offset) if symbol is None else None)
        line = None
        if symbol is not None and symbol.kind in CALLABLE:
            found_call = call_at(checked, offset)
            line = call_line(checked, found_call) if found_call is not None else None
        sections = self._describe(checked, word, symbol, type_, called=line is not None)
        if line is not None:
            self.lead = _fence(line)
            sections.insert(0, self.lead)
        if symbol is None or symbol.kind in ("param", "value"):
            sections.append(_structure_section(checked.structure_at(offset)))
        elif symbol.kind == "fn" and not in_other_file(symbol, checked):
            sections.append(_structure_section(returned_structure(checked, symbol.name)))
        if symbol is not None and symbol.kind in CURVE_KINDS:
            sections.append(curve_section(checked, symbol, offset, self.images, self.dark))
        sections.extend(device_sections(checked, offset, symbol, type_))
        sections.append(padding_notes(checked, word, span, symbol))
        if not sections:
            return None
        return types.Hover(
            contents=types.MarkupContent(
                kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(s for s in sections if s)
            ),
            range=range_of(checked.source, span),
        )

    def describe(self, checked: Checked, symbol: Symbol) -> list[str]:
        """The hover's sections for a declared name, without a place it is used at (for
        completion documentation)."""
        return [part for part in self._describe(checked, symbol.name, symbol, None) if part]

    def _describe(
        self,
        checked: Checked,
        word: str,
        symbol: Symbol | None,
        type_: Type | None,
        called: bool = False,
    ) -> list[str]:
        """The sections for a name; `called` when a call's line leads, so that a built-in's
        fixed example, about other values, is left out."""
        if symbol is None:
            if type_ is None:
                return []
            return [_fence(format_type(type_)), self.noted_drawing(type_, checked)]
        kind = symbol.kind
        if in_other_file(symbol, checked) and kind not in ("field", "metric"):
            return imported_hover(checked, symbol, self.doc)
        if kind == "import":
            return _import_hover(symbol)
        if kind == "model":
            return model_hover(checked, symbol, self.doc)
        if kind == "field":
            return field_hover(checked, symbol, self.noted_drawing, self.doc)
        if kind == "dim":
            return self._dim(checked, symbol)
        if kind == "alias":
            return [_fence(_declaration_text(checked, symbol)), self.doc(symbol.doc)]
        if kind == "builtin":
            entry = BUILTINS.get(symbol.name)
            if entry is None:
                return []
            parts = [_fence(laid_out(entry.signature)), self.doc(entry.summary)]
            if not called:
                parts.append(_fence(entry.example))
            if type_ is not None and not _is_function(type_) and not called:
                parts.append(_fence(format_type(type_)))
            return parts
        if kind in ("prelude", "fn", "extern"):
            header = _function_declaration(checked, symbol)
            generic = generic_summary(checked, symbol.name) if kind == "fn" else ""
            parts = [_fence(header), self.doc(symbol.doc), generic]
            if kind == "fn":
                parts.append(regularity_line(checked, symbol.name))
            if kind == "fn" and is_export(checked, symbol.name):
                parts.append(export_section(checked, symbol.name))
            return parts
        if kind in ("param", "value", "axis"):
            shown = type_ if type_ is not None else None
            if shown is None:
                return [_fence(f"{word}")]
            if kind == "axis":
                return [
                    _fence(f"{word} = {symbol.detail}")
                    if symbol.detail != word
                    else _fence(f"axis {word}")
                ]
            return [_fence(f"{word}: {format_type(shown)}"), self.noted_drawing(shown, checked)]
        parts = [_fence(f"{kind} {symbol.name}"), self.doc(symbol.doc)]
        return parts

    def _dim(self, checked: Checked, symbol: Symbol) -> list[str]:
        declaration = _declaration_text(checked, symbol)
        value = checked.dim_values.get(symbol.name)
        written = declaration.split("=", 1)[1].strip() if "=" in declaration else ""
        header = f"dim {symbol.name} = {written}"
        if value is not None and written != str(value):
            header += f" = {value}"
        return [_fence(header), self.doc(symbol.doc), _dim_uses(checked, symbol.name)]

    def _stage(self, checked: Checked, item, bar) -> types.Hover | None:
        before = checked.type_of(_absolute(stage_input_span(bar), item.base))
        stage = bar.pipe.stages[bar.index]
        after = checked.type_of(_absolute(stage.span, item.base))
        span = _absolute(bar.pipe.bar_spans[bar.index], item.base)
        over = _over_axis(stage, after)
        values = self._values_stage(checked, item, stage, before, after)
        if values is None and over is None and _same_shape(before, after):
            # Two equal drawings say nothing: what the stage does is to the values.
            assert isinstance(before, TensorType) and isinstance(after, TensorType)
            values = "\n\n".join((_fence(_types_text(before, after)), _values_line(before, after)))
        if values is not None:
            return types.Hover(
                contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=values),
                range=range_of(checked.source, span),
            )
        return self._before_after(checked, before, after, span, over)

    def _values_stage(
        self, checked: Checked, item, stage, before: Type | None, after: Type | None
    ) -> str | None:
        """An element-wise stage that keeps the shape (`|> gelu`): what it does to the
        values, the ranges before and after and its curve with the input's range marked;
        None for a stage of another kind."""
        if not _same_shape(before, after):
            return None
        assert isinstance(before, TensorType) and isinstance(after, TensorType)
        callee = stage.callee if isinstance(stage, ast.Call) else stage
        if not isinstance(callee, ast.Name):
            return None
        at = item.base + callee.span.start
        symbol = checked.definition_at(at)
        if symbol is None or symbol.kind not in CURVE_KINDS:
            return None
        given = value_range(before)
        curve = stage_curve(checked, symbol, at, given, self.images, self.dark)
        if not curve:
            return None
        header = _fence(_types_text(before, after))
        return "\n\n".join((header, _values_line(before, after), curve))

    def _conversion(
        self, checked: Checked, operand: Span, conversion: Span, span: Span
    ) -> types.Hover | None:
        """`x to T`: the types before and after, as a stage's hover shows them."""
        before, after = checked.type_of(operand), checked.type_of(conversion)
        return self._before_after(checked, before, after, span)

    def _before_after(
        self,
        checked: Checked,
        before: Type | None,
        after: Type | None,
        span: Span,
        over: str | None = None,
    ) -> types.Hover | None:
        if before is None or after is None:
            return None
        lines = [_fence(f"{format_type(before)}  →  {format_type(after)}")]
        drawn = self.before_after_drawing(before, after, checked, over)
        if drawn:
            lines.extend((drawn, LOG_SCALE_NOTE))
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n".join(lines)),
            range=range_of(checked.source, span),
        )

    def _pattern(
        self,
        checked: Checked,
        item,
        pattern: ast.Pattern,
        call: ast.Call,
        span: Span,
        stage_input: Span | None = None,
    ) -> types.Hover | None:
        found = pattern_picture(checked, item, pattern, call, stage_input)
        if found is None:
            return None
        picture, operands, after = found
        shown = [format_type(type_) if type_ is not None else "?" for type_ in operands]
        if len(shown) > 1:
            shown = [f"{side.title}: {t}" for side, t in zip(picture.inputs, shown, strict=True)]
        result = format_type(after) if after is not None else "?"
        line = f"{', '.join(shown)}  →  {result}"
        value = "\n\n".join((_fence(line), self.pattern_drawing(picture)))
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value),
            range=range_of(checked.source, span),
        )


def value_range(type_: TensorType) -> Interval:
    """The range the checker knows a tensor's values are in: its interval, its named
    domain's, or every number."""
    domain = type_.domain
    return domain.interval or NAMED_RANGES.get(domain.name) or REAL_RANGE


def _same_shape(before: Type | None, after: Type | None) -> bool:
    """Whether both are tensors with the same axes, as written."""
    if not isinstance(before, TensorType) or not isinstance(after, TensorType):
        return False
    if before.axes is None or after.axes is None:
        return False
    return format_type(before).split("]", 1)[0] == format_type(after).split("]", 1)[0]


def _types_text(before: Type, after: Type) -> str:
    return f"{format_type(before)}  →  {format_type(after)}"


def _values_line(before: TensorType, after: TensorType) -> str:
    """The values' range before and after, as the checker knows them."""
    return f"Values: {range_text(value_range(before))} → {range_text(value_range(after))}"


def _over_axis(stage: object, after: Type) -> str | None:
    """The axis a stage works over: its `over=` argument, or the result's `over` domain."""
    if isinstance(stage, ast.Call):
        for arg in stage.args:
            if arg.name == "over" and isinstance(arg.value, ast.Name):
                return arg.value.name
    if isinstance(after, TensorType):
        return after.domain.over
    return None


def _structure_section(structure: Structure | None) -> str:
    """What the checker knows of the value's background, as a causal mask's triangle."""
    if structure is None:
        return ""
    return (
        f"Structure: `{structure.describe()}` (its background, above the diagonal; "
        f"{structure.columns} ≤ {structure.rows} is the band)"
    )


def _absolute(span: Span, base: int) -> Span:
    return Span(span.start + base, span.end + base)


def _import_hover(symbol: Symbol) -> list[str]:
    """`import attention` and the file it found."""
    found = imported_file(symbol)
    return [_fence(f"import {symbol.name}"), f"`{found}`" if found else "no file found"]


def _is_function(type_: Type) -> bool:
    return format_type(type_).startswith("fn ")


def _declaration_text(checked: Checked, symbol: Symbol) -> str:
    """The declaration's header as written: up to a function's body."""
    for item in checked.items:
        node = item.item
        if getattr(node, "name", None) != symbol.name:
            continue
        end = node.span.end
        if isinstance(node, ast.FnDecl):
            body = node.body[0].span.start if node.body else None
            if node.expr_body is not None:
                body = node.expr_body.span.start
            if body is not None:
                end = body
        text = checked.source.text[item.base + node.span.start : item.base + end]
        return " ".join(text.split()).rstrip(":= ").rstrip()
    return symbol.name


def _function_declaration(checked: Checked, symbol: Symbol) -> str:
    """A function's declaration as its file lays it out: the library's, or this file's."""
    if symbol.kind == "prelude":
        return library_declaration(symbol) or laid_out(symbol.detail or symbol.name)
    for item in checked.items:
        node = item.item
        if isinstance(node, ast.FnDecl | ast.ExternFnDecl) and node.name == symbol.name:
            return source_declaration(checked, node, item.base)
    return _declaration_text(checked, symbol)


def _dim_uses(checked: Checked, name: str) -> str:
    """Named values whose types use the dim, grouped by function (at most six of four)."""
    groups: dict[str, list[str]] = {}
    for item in checked.items:
        if item.body is None:
            continue
        for entry in item.body.facts.entries:
            type_ = entry.type
            if not isinstance(type_, TensorType) or type_.axes is None:
                continue
            if any(name in axis.size.symbols() or axis.name == name for axis in type_.axes):
                groups.setdefault(item.item.name, []).append(
                    f"`{entry.name}: {format_type(type_)}`"
                )
    if not groups:
        return ""
    lines = ["Used in:"]
    hidden = 0
    for index, (owner, values) in enumerate(groups.items()):
        if index >= MAX_GROUPS:
            hidden += len(values)
            continue
        shown = values[:MAX_PER_GROUP]
        hidden += len(values) - len(shown)
        lines.append(f"- **{owner}**: " + ", ".join(shown))
    if hidden:
        lines.append(f"- and {hidden} more")
    return "\n".join(lines)


def _alt_text(text: str) -> str:
    """A type as an image's alt text: brackets escaped, so intervals keep both ends."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
