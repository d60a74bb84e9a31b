"""Issue 31, item 8: the architecture view's labels name params as the code writes them,
its texts fit the drawing, and a group's box covers every line of its operations."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from shapescript.analysis import check
from shapescript.architecture import architecture
from shapescript.architecture.nodes import Architecture, walk
from shapescript.architecture.text import architecture_text
from shapescript.syntax.source import SourceFile
from shapescript_lsp.render.architecture_svg import architecture_svg

ROOT = Path(__file__).resolve().parents[2]
GPT = ROOT / "examples" / "gpt.ss"
SVG = "{http://www.w3.org/2000/svg}"
#: A generous average glyph width, in ems, of the sans-serif fonts the views use.
GLYPH = 0.62
BOLD_GLYPH = 0.68


def _checked(text: str, path: str = "gpt.ss"):
    checked = check(SourceFile.from_text(path, text))
    assert not checked.errors, [error.message for error in checked.errors]
    return checked


def _drawn(text: str, model: str, detail: str, path: str = "gpt.ss") -> Architecture:
    found = architecture(_checked(text, path), model, detail)
    assert found is not None
    return found


def _renamed(text: str) -> str:
    """gpt.ss with the model parameter written `net` instead of `m` (the axis `m` kept)."""
    text = text.replace("m: Gpt", "net: Gpt").replace("(m, ", "(net, ")
    return re.sub(r"\bm\.(?=[a-z])", "net.", text)


def _forward_renamed(text: str) -> str:
    """gpt.ss with only `forward` writing the model `net`; the other functions keep `m`."""
    head, tail = text.split("fn forward(", 1)
    body, rest = tail.split("\n\n", 1)
    return head + _renamed("fn forward(" + body) + "\n\n" + rest


def _side_labels(svg: str) -> list[str]:
    root = ElementTree.fromstring(svg)
    texts = [text.text or "" for text in root.iter(f"{SVG}text")]
    return [text for text in texts if text.startswith("←")]


def test_operation_labels_use_the_name_the_code_gives_the_model() -> None:
    found = _drawn(_renamed(GPT.read_text(encoding="utf-8")), "Gpt", "operations")
    listed = architecture_text(found)
    assert "net.wte [V D]" in listed and "net.w_qkv [D 3*D]" in listed, listed
    assert not re.search(r"\bm\.\w", listed), listed
    labels = _side_labels(architecture_svg(found)[0])
    assert "← net.wte [V D]" in labels, labels
    assert "← net.w_o [D D]" in labels, labels
    assert not [label for label in labels if label.startswith("← m.")], labels


def test_each_function_s_operations_use_its_own_parameter_name() -> None:
    found = _drawn(_forward_renamed(GPT.read_text(encoding="utf-8")), "Gpt", "operations")
    labels = _side_labels(architecture_svg(found)[0])
    # forward reads the embedding tables as `net`; attention and mlp write `m`.
    assert "← net.wte [V D]" in labels and "← net.lnf_w [D]" in labels, labels
    assert "← m.w_qkv [D 3*D]" in labels and "← m.w_fc [D Dff]" in labels, labels
    assert "← net.w_qkv [D 3*D]" not in labels, labels


def test_attention_box_selects_every_line_of_its_operations() -> None:
    text = GPT.read_text(encoding="utf-8")
    checked = _checked(text)
    found = architecture(checked, "Gpt", "layers")
    box = next(n for s in found.sections for n in walk(s.nodes) if n.kind == "attention")
    assert [h.name for h in box.params] == ["w_qkv", "w_o"]
    selected = text[box.span.start : box.span.end]
    lines = text.splitlines()
    split_line = next(i for i, line in enumerate(lines) if "|> split(" in line)
    w_o_line = next(i for i, line in enumerate(lines) if "m.w_o[l]" in line)
    # Whole lines: from the split's line (its `q, k, v =` included) to the w_o projection.
    assert selected.startswith(lines[split_line].lstrip()), selected
    assert selected.endswith(lines[w_o_line].strip()), selected


def test_a_split_on_its_own_line_is_in_the_attention_box() -> None:
    text = GPT.read_text(encoding="utf-8").replace(
        "    q, k, v = x @ m.w_qkv[l] |> split(b n (3 H Dh) -> b H n Dh)\n",
        "    qkv = x @ m.w_qkv[l]\n    q, k, v = split(qkv, b n (3 H Dh) -> b H n Dh)\n",
    )
    checked = _checked(text)
    found = architecture(checked, "Gpt", "layers")
    box = next(n for s in found.sections for n in walk(s.nodes) if n.kind == "attention")
    selected = text[box.span.start : box.span.end]
    assert selected.startswith("qkv = x @ m.w_qkv[l]\n    q, k, v = split(qkv"), selected


#: Long names, as a port of a published model has them.
LONG_NAMES = ROOT / "tests/architecture/data/long_names.ss"

DRAWN = [
    ("gpt", GPT, "Gpt", "layers"),
    ("gpt.operations", GPT, "Gpt", "operations"),
    ("gpt2_hf.operations", ROOT / "examples/gpt2_hf.ss", "Gpt2LMHead", "operations"),
    ("gpt2_hf", ROOT / "examples/gpt2_hf.ss", "Gpt2LMHead", "layers"),
    ("llama.operations", ROOT / "examples/llama.ss", "Llama", "operations"),
    ("long_names", LONG_NAMES, "TransformerLanguageModel", "layers"),
    ("long_names.operations", LONG_NAMES, "TransformerLanguageModel", "operations"),
]


def _extent(text: ElementTree.Element) -> tuple[float, float]:
    """The left and right edges a text can take, at a generous glyph width."""
    size = float(text.get("font-size") or 12)
    glyph = BOLD_GLYPH if text.get("font-weight") else GLYPH
    width = len(text.text or "") * size * glyph
    x = float(text.get("x") or 0)
    anchor = text.get("text-anchor")
    return (x - width, x) if anchor == "end" else (x, x + width)


@pytest.mark.parametrize(("name", "path", "model", "detail"), DRAWN, ids=[d[0] for d in DRAWN])
def test_every_label_fits_the_drawing_and_its_box(
    name: str, path: Path, model: str, detail: str
) -> None:
    found = _drawn(path.read_text(encoding="utf-8"), model, detail, path.name)
    svg, width, _ = architecture_svg(found)
    root = ElementTree.fromstring(svg)
    assert int(root.get("width")) == width
    for text in root.iter(f"{SVG}text"):
        left, right = _extent(text)
        assert left >= 0 and right <= width, f"{text.text!r} runs past the edge {width}: {right}"
    for group in root.iter(f"{SVG}g"):
        rect = group.find(f"{SVG}rect")
        if group.get("data-node") is None or rect is None or group.get("data-kind") == "frame":
            continue
        box_left = float(rect.get("x"))
        box_right = box_left + float(rect.get("width"))
        inside = [t for t in group.findall(f"{SVG}text") if float(t.get("x")) < box_right]
        for text in inside:
            left, right = _extent(text)
            assert box_left <= left and right <= box_right, (
                f"{text.text!r} runs out of its box [{box_left}, {box_right}]: {right}"
            )
