"""LaTeX math in doc comments, for hovers: Unicode text everywhere, typeset images where shown.

The text is written from the checker's parse tree (`math_comments.parse_math`), with
`unicodeit`'s tables for single symbols; images are typeset by `ziamath` and rasterised with
cairosvg. Both libraries are imported only when a doc holding math is shown. Math outside the
subset, or malformed, is shown as written in a code span (its H0601/H0602 hint stays).
"""

from __future__ import annotations

import functools
import re
import unicodedata
import warnings
from html import escape

from shapescript.check.analyses.math_comments import (
    Command,
    CommentLine,
    Delimited,
    Environment,
    Group,
    LineBreak,
    Math,
    Node,
    Scripts,
    Symbol,
    Text,
    find_math,
)
from shapescript.records import record
from shapescript_lsp.render.raster import png_from_svg

_SPACED = frozenset("=<>+")
_BIG_OPERATORS = frozenset(["\\sum", "\\prod", "\\int"])
_OPERATOR_PAREN = re.compile(r"\b(sin|cos|tan|tanh|exp|log|ln|max|min|arg|det) \(")
_SPACED_COMMANDS = frozenset(
    [
        "\\le",
        "\\leq",
        "\\ge",
        "\\geq",
        "\\ne",
        "\\neq",
        "\\approx",
        "\\sim",
        "\\equiv",
        "\\in",
        "\\notin",
        "\\subset",
        "\\subseteq",
        "\\to",
        "\\mapsto",
        "\\propto",
        "\\cdot",
        "\\times",
        "\\odot",
        "\\otimes",
        "\\oplus",
        "\\pm",
        "\\circ",
    ]
)
_FONT_COMMANDS = frozenset(["\\mathit", "\\mathrm", "\\mathbf", "\\boldsymbol"])
_STYLED_COMMANDS = frozenset(["\\mathbb", "\\mathcal"])
_ACCENTS = {
    "\\hat": "\u0302",
    "\\bar": "\u0304",
    "\\tilde": "\u0303",
    "\\vec": "\u20d7",
    "\\dot": "\u0307",
    "\\overline": "\u0305",
}
_SPACES = {"\\,": " ", "\\;": " ", "\\ ": " ", "\\!": "", "\\quad": "  ", "\\qquad": "    "}
_DELIMITERS = {
    ".": "",
    "\\{": "{",
    "\\}": "}",
    "\\|": "‖",
    "\\vert": "|",
    "\\Vert": "‖",
    "\\langle": "⟨",
    "\\rangle": "⟩",
}
_ROOT = re.compile(r"<svg\b[^>]*>")
_WIDTH = re.compile(r'\swidth="([0-9.]+)"')
_HEIGHT = re.compile(r'\sheight="([0-9.]+)"')
_VIEWBOX = re.compile(r'viewBox="([^"]+)"')
_ROOTS = {"": "√", "3": "∛", "4": "∜"}
_BRACKETS = {"cases": ("{ ", " }"), "pmatrix": ("(", ")"), "bmatrix": ("[", "]")}
_SUPERSCRIPTS = dict(
    zip(
        "0123456789+-−=()abcdefghijklmnoprstuvwxyz",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ",
        strict=True,
    )
)
_SUBSCRIPTS = dict(
    zip("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True)
)


@functools.cache
def _symbols() -> dict[str, str]:
    from unicodeit.data import REPLACEMENTS

    return dict(REPLACEMENTS)


def _symbol(name: str) -> str:
    """A command without arguments as Unicode (`\\epsilon` as ε), or its name (`\\max` as max)."""
    return _symbols().get(name, name[1:])


def supported(node: object) -> bool:
    """Whether every command and environment in the tree is in the subset."""
    if isinstance(node, Command):
        return node.supported and all(supported(arg) for arg in node.args)
    if isinstance(node, Environment):
        return node.supported and all(supported(cell) for row in node.rows for cell in row)
    if isinstance(node, Group):
        return all(supported(item) for item in node.items)
    if isinstance(node, Scripts):
        return all(supported(part) for part in (node.base, node.sup, node.sub) if part)
    if isinstance(node, Delimited):
        return supported(node.body)
    return True


def unicode_math(node: Node | None) -> str:
    """A parsed piece of math as readable Unicode text."""
    if node is None:
        return ""
    text = unicodedata.normalize("NFC", " ".join(_text(node).split()))
    return _OPERATOR_PAREN.sub(r"\1(", text).replace(" ,", ",")


def _text(node: Node) -> str:
    if isinstance(node, Symbol):
        if node.text == "-":
            return " − "
        if node.text == ",":
            return ", "
        return f" {node.text} " if node.text in _SPACED else node.text
    if isinstance(node, Text):
        return node.text
    if isinstance(node, Group):
        return _group(node)
    if isinstance(node, Scripts):
        base = _text(node.base).rstrip() if node.base is not None else ""
        sub = _script(node.sub, _SUBSCRIPTS, "_") if node.sub is not None else ""
        sup = _script(node.sup, _SUPERSCRIPTS, "^") if node.sup is not None else ""
        big = isinstance(node.base, Command) and not node.base.args
        return base + sub + sup + (" " if big else "")
    if isinstance(node, Delimited):
        left = _DELIMITERS.get(node.left, node.left)
        right = _DELIMITERS.get(node.right, node.right)
        return left + _text(node.body) + right
    if isinstance(node, Environment):
        between = ", " if node.name == "cases" else " "
        rows = [between.join(_text(cell).strip() for cell in row) for row in node.rows]
        left, right = _BRACKETS.get(node.name, ("", ""))
        return left + "; ".join(rows) + right
    if isinstance(node, LineBreak):
        return "; "
    return _command(node)


def _group(node: Group) -> str:
    """The items in order; a minus with nothing before it to subtract from is a sign."""
    out = ""
    for item in node.items:
        if isinstance(item, Symbol) and item.text == "-" and _opens(out):
            out += "−"
        else:
            out += _text(item)
    return out


def _opens(text: str) -> bool:
    stripped = text.rstrip()
    return not stripped or stripped[-1] in "([{=<>+−,;≤≥≈⋅×"


def _command(node: Command) -> str:
    name = node.name
    args = [_text(arg).strip() for arg in node.args]
    if name in ("\\frac", "\\dfrac", "\\tfrac") and len(args) == 2:
        return f"{_operand(args[0])}/{_operand(args[1])}"
    if name == "\\sqrt" and args:
        index = _text(node.optional).strip() if node.optional is not None else ""
        root = _ROOTS.get(index) or _script_text(index, _SUPERSCRIPTS, "^") + "√"
        return root + (f"({args[0]})" if _compound(args[0]) else args[0])
    if name in _ACCENTS and args:
        return args[0] + _ACCENTS[name] if len(args[0]) == 1 else f"{args[0]}{_ACCENTS[name]}"
    if name in _FONT_COMMANDS and args:
        return args[0]
    if name in _STYLED_COMMANDS and args:
        return "".join(_symbol(f"{name}{{{char}}}") for char in args[0])
    if name in _SPACES:
        return _SPACES[name]
    if name in ("\\{", "\\}", "\\$", "\\%", "\\&", "\\#", "\\_"):
        return name[1]
    if name in _SPACED_COMMANDS:
        return f" {_symbol(name)} "
    text = _symbol(name)
    return f" {text} " if text.isalpha() and len(text) > 1 else text


def _compound(text: str) -> bool:
    """Whether a part is more than one term, so that it needs brackets."""
    plain = text.replace("(", "").replace(")", "")
    return any(char in plain for char in " +−-/")


def _operand(text: str) -> str:
    return f"({text})" if _compound(text) else text


def _script(node: Node, table: dict[str, str], mark: str) -> str:
    return _script_text(_text(node).strip(), table, mark)


def _script_text(text: str, table: dict[str, str], mark: str) -> str:
    compact = text.replace(" ", "")
    if compact and all(char in table for char in compact):
        return "".join(table[char] for char in compact)
    return f"{mark}{text}" if len(text) == 1 else f"{mark}({text})"


def math_svg(source: str, dark: bool = False, size: int = 18, centred: bool = False) -> str:
    """One piece of math typeset as SVG, in the theme's text colour; `centred`: its
    baseline at its vertical middle (`centred_on_baseline`), for an HTML image."""
    with warnings.catch_warnings():
        # ziamath finds its font with importlib.resources' deprecated `path`.
        warnings.simplefilter("ignore", DeprecationWarning)
        import ziamath

        colour = "#e8e8e8" if dark else "#1e1e1e"
        svg = ziamath.Latex(source, size=size, color=colour).svg()
        return centred_on_baseline(svg) if centred else svg


def _svg_number(value: float) -> str:
    return f"{round(value, 3):g}"


def centred_on_baseline(svg: str) -> str:
    """ziamath's SVG grown at the top or the bottom so that its baseline (y = 0 in its
    viewBox) is its vertical middle: an image aligned by its middle (`align="middle"`,
    which Chromium draws as `vertical-align: -webkit-baseline-middle`) then has the math's
    baseline on the text's. Markdown images sit on the baseline by their bottom, which
    lifted the math by its depth; VS Code keeps no `style` on an image, but keeps `align`."""
    root = _ROOT.search(svg)
    box = _VIEWBOX.search(root.group(0)) if root is not None else None
    if root is None or box is None:
        return svg
    left, top, width, height = (float(part) for part in box.group(1).split())
    half = max(-top, top + height)
    tag = _VIEWBOX.sub(
        f'viewBox="{_svg_number(left)} {_svg_number(-half)} {_svg_number(width)} '
        f'{_svg_number(2 * half)}"',
        root.group(0),
    )
    tag = _HEIGHT.sub(f' height="{_svg_number(2 * half)}"', tag)
    return svg[: root.start()] + tag + svg[root.end() :]


@record(frozen=True)
class MathImage:
    """A piece of math as a PNG `data:` URI (drawn at 2x) and the size to show it at."""

    uri: str
    width: int
    height: int

    def markdown(self, alt: str) -> str:
        """A Markdown image: it sits on the text's baseline by its bottom."""
        return f"![{_alt_escape(alt)}]({self.uri}|width={self.width})"

    def html(self, alt: str) -> str:
        """An HTML image aligned by its middle, where the math's baseline is."""
        return (
            f'<img src="{self.uri}" width="{self.width}" height="{self.height}" '
            f'align="middle" alt="{escape(alt)}">'
        )


def _math_image(math: Math, dark: bool, html: bool) -> MathImage | None:
    """The math typeset as an image (for an HTML image, centred on its baseline), or None
    where it can't be."""
    try:
        svg = math_svg(math.source.replace("\n", " "), dark, centred=html)
    except Exception:  # noqa: BLE001 - a typesetting failure falls back to text
        return None
    # Transparent: the math sits in a line of text on the hover's own background, which
    # differs from theme to theme (an opaque white showed as a box on a light grey hover).
    uri = png_from_svg(svg, None)
    root = _ROOT.search(svg)
    width = _WIDTH.search(root.group(0)) if root is not None else None
    height = _HEIGHT.search(root.group(0)) if root is not None else None
    if uri is None or width is None or height is None:
        return None
    return MathImage(uri, round(float(width.group(1))), round(float(height.group(1))))


def _alt_escape(text: str) -> str:
    """Text inside a Markdown image's brackets: only what would end or break them."""
    return "".join("\\" + char if char in "\\[]" else char for char in text)


def _markdown_escape(text: str) -> str:
    """Math's text form inside Markdown prose, escaping only the characters that would
    start Markdown there: clients that draw Markdown as text show every backslash (Neovim
    showed `x \\> 0` for x > 0)."""
    out = []
    for index, char in enumerate(text):
        following = text[index + 1 : index + 2]
        if char in "\\`*_[]" or (char == "<" and (following.isalpha() or following in "/!?")):
            out.append("\\" + char)
        elif char == ">" and not text[:index].strip():
            # Only at the start of a line does `>` open a quote.
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out)


def _comments(doc: str) -> list[CommentLine]:
    lines: list[CommentLine] = []
    start = 0
    for number, line in enumerate(doc.split("\n")):
        lines.append(CommentLine(line, start, number, True, False))
        start += len(line) + 1
    return lines


def render_doc(
    doc: str | None, images: bool = False, dark: bool = False, html: bool = False
) -> str:
    """A doc comment as hover Markdown, its math as images or Unicode text; with `html`
    (the client renders HTML in it), images are HTML set on the text's baseline."""
    if not doc or "$" not in doc:
        return doc or ""
    found = find_math(_comments(doc))
    if not found:
        return doc
    parts: list[str] = []
    position = 0
    for math in found:
        parts.append(doc[position : math.start])
        parts.append(_render(doc[math.start : math.end], math, images, dark, html))
        position = math.end
    parts.append(doc[position:])
    return "".join(parts)


def _render(written: str, math: Math, images: bool, dark: bool, html: bool) -> str:
    if math.tree is None or not supported(math.tree):
        return f"`{written}`"
    text = unicode_math(math.tree)
    if images:
        image = _math_image(math, dark, html)
        if image is not None:
            shown = image.html(text) if html else image.markdown(text)
            return f"\n\n{shown}\n\n" if math.display else shown
    shown = _markdown_escape(text)
    return f"\n\n{shown}\n\n" if math.display else shown


def math_markdown(math: Math, images: bool = False, dark: bool = False, html: bool = False) -> str:
    """One piece of math on its own, as a hover on it shows it: its image where the client
    shows images, then its text form; as written, in a code span, outside the subset."""
    written = f"`{math.source}`"
    if math.tree is None or not supported(math.tree):
        return f"{written}: not in the LaTeX subset hovers render."
    text = unicode_math(math.tree)
    shown = [_markdown_escape(text)]
    image = _math_image(math, dark, html) if images else None
    if image is not None:
        shown.insert(0, image.html(text) if html else image.markdown(text))
    return "\n\n".join(shown)
