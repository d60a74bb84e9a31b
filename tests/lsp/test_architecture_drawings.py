"""The architecture SVG's structure (each `<g data-node>` box with its kind and texts) and
its PNG, pinned for the examples (UPDATE_EXPECT=1 rewrites the snapshots)."""

from __future__ import annotations

import base64
import io
import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from shapescript.analysis import check
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.architecture import architecture_answer
from shapescript_lsp.render.architecture_png import architecture_png
from shapescript_lsp.render.architecture_svg import architecture_svg
from shapescript_lsp.render.themes import PALETTES
from tests.architecture.test_architecture_snapshots import DRAWINGS, drawn
from tests.snapshot import assert_matches_snapshot

SNAPSHOTS = Path(__file__).resolve().parents[1] / "architecture" / "snapshots"
SVG = "{http://www.w3.org/2000/svg}"


def structure(svg: str) -> str:
    """One line per box: its id, its kind, and the texts drawn in it."""
    root = ElementTree.fromstring(svg)
    lines = []
    for group in root.iter(f"{SVG}g"):
        node = group.get("data-node")
        if node is None:
            continue
        texts = [text.text or "" for text in group.iter(f"{SVG}text")]
        lines.append(f"{node} {group.get('data-kind')}: " + " | ".join(texts))
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("name", "path", "model", "detail"), DRAWINGS, ids=[drawing[0] for drawing in DRAWINGS]
)
def test_svg_structure_is_pinned(name: str, path: Path, model: str, detail: str) -> None:
    svg, width, height = architecture_svg(drawn(path, model, detail))
    assert 'color="currentColor"' in svg and "<rect width=" not in svg  # no background
    assert width > 0 and height > 0
    assert_matches_snapshot(structure(svg), SNAPSHOTS / f"{name}.svg.expected")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_png_is_opaque_on_the_theme_background(theme: str) -> None:
    image_module = pytest.importorskip("PIL.Image")
    found = drawn(*DRAWINGS[2][1:])
    uri, width = architecture_png(found, theme)
    image = image_module.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB")
    assert image.width == 2 * width
    corner = "#{:02x}{:02x}{:02x}".format(*image.getpixel((1, 1)))
    assert corner == PALETTES[theme].background
    assert len(uri) < 90_000  # fits in a hover with room to spare


def test_an_imported_model_is_drawn_from_its_own_file(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    shutil.copy(root / "examples" / "attention.ss", tmp_path / "attention.ss")
    text = (
        "import attention\n\n"
        "fn run(layer: attention.Attention, x: [b n attention.D]) -> [b n attention.D]:\n"
        "    return attention.forward(layer, x)\n"
    )
    main = tmp_path / "main.ss"
    main.write_text(text, encoding="utf-8")
    checked = check(SourceFile.from_text(str(main), text))
    assert not checked.errors
    for needle in ("Attention,", "run("):
        answer = architecture_answer(checked, main.as_uri(), text.index(needle) + 1, "layers")
        assert answer is not None, needle
        assert answer["model"] == "attention.Attention"
        assert answer["summary"] == "Architecture of Attention: Multi-head attention"
        home = (tmp_path / "attention.ss").as_uri()
        assert answer["declaration"]["uri"] == home
        assert {node["uri"] for node in answer["nodes"]} == {home}
        assert [link["label"] for link in answer["links"]] == ["forward", "causal_attention"]


MODEL_FILE = """\
dim D = 8
dim Hd = 16
dim C = 4

model Mlp:
    param w1: [D Hd] = normal(0.02)
    param w2: [Hd C] = normal(0.02)
"""
FORWARD = "fn forward(m: Mlp, x: [b D]) -> [b C] = gelu(x @ m.w1) @ m.w2\n"
IMPORTED_FORWARD = "fn forward(m: a.Mlp, x: [b a.D]) -> [b a.C] = gelu(x @ m.w1) @ m.w2\n"
LOSS = (
    "fn loss(m: a.Mlp, x: [b a.D], y: [b] Index[a.C]) -> []:\n"
    "    return cross_entropy(a.forward(m, x), y, over=a.C)\n"
)


def _files(tmp_path: Path, **texts: str) -> dict[str, tuple[Path, str]]:
    """Each file written under tmp_path, with its text."""
    files = {}
    for name, text in texts.items():
        path = tmp_path / f"{name}.ss"
        path.write_text(text, encoding="utf-8")
        files[name] = (path, text)
    return files


def _answer(path: Path, text: str, needle: str) -> dict:
    checked = check(SourceFile.from_text(str(path), text))
    assert not checked.errors, [error.message for error in checked.errors]
    answer = architecture_answer(checked, path.as_uri(), text.index(needle) + 1, "layers")
    assert answer is not None
    return answer


def test_the_forward_of_an_imported_file_and_the_loss_of_this_one(tmp_path: Path) -> None:
    files = _files(tmp_path, a=MODEL_FILE + FORWARD, b="import a\n\n" + LOSS)
    answer = _answer(*files["b"], "Mlp,")
    assert answer["model"] == "a.Mlp"
    assert [(link["label"], link["place"]) for link in answer["links"]] == [
        ("forward", "a.ss:8"),
        ("loss", "b.ss:3"),
    ]
    assert [link["uri"] for link in answer["links"]] == [
        files["a"][0].as_uri(),
        files["b"][0].as_uri(),
    ]
    assert answer["links"][1]["range"]["start"] == {"line": 2, "character": 3}
    assert {node["uri"] for node in answer["nodes"]} == {
        files["a"][0].as_uri(),
        files["b"][0].as_uri(),
    }
    assert "↓ forward (above)" in answer["text"]
    assert "Cross-entropy over a.C" in answer["text"]
    # In the model's own file, which imports neither, only its forward is read.
    own = _answer(*files["a"], "Mlp:")
    assert [link["label"] for link in own["links"]] == ["forward"]


def test_a_forward_in_the_importing_file_is_drawn_from_there(tmp_path: Path) -> None:
    files = _files(tmp_path, a=MODEL_FILE, b="import a\n\n" + IMPORTED_FORWARD)
    answer = _answer(*files["b"], "Mlp,")
    assert answer["summary"] == "Architecture of Mlp: MLP"
    assert [(link["label"], link["uri"]) for link in answer["links"]] == [
        ("forward", files["b"][0].as_uri())
    ]
    assert answer["declaration"]["uri"] == files["a"][0].as_uri()
    # Hovered in its own file, which has no function taking it, its fields are listed.
    own = _answer(*files["a"], "Mlp:")
    assert own["summary"] == "Architecture of Mlp: 2 fields, no function takes it first"


def test_functions_of_another_imported_file_are_read(tmp_path: Path) -> None:
    files = _files(
        tmp_path,
        a=MODEL_FILE,
        lib="import a\n\n" + IMPORTED_FORWARD,
        main="import a\nimport lib\n\nfn make(seed: int) -> a.Mlp = a.Mlp.init(seed=seed)\n",
    )
    answer = _answer(*files["main"], "Mlp =")
    assert answer["summary"] == "Architecture of Mlp: MLP"
    assert [(link["label"], link["place"]) for link in answer["links"]] == [("forward", "lib.ss:3")]
    assert {node["uri"] for node in answer["nodes"]} == {files["lib"][0].as_uri()}


@pytest.mark.parametrize("current", [True, False])
def test_pictures_drawn_ahead_are_what_the_hover_shows(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, current: bool
) -> None:
    pytest.importorskip("PIL.Image")
    from shapescript_lsp.features import architecture as feature

    drawings: list[str] = []

    def counted(found, theme):
        drawings.append(found.model)
        return architecture_png(found, theme)

    monkeypatch.setattr(feature, "architecture_png", counted)
    path, text = _files(tmp_path, a=MODEL_FILE + FORWARD)["a"]
    checked = check(SourceFile.from_text(str(path), text))
    settings = feature.ArchitectureSettings()
    feature.prepare_pictures(checked, path.as_uri(), "layers", "dark", current=lambda: current)
    assert drawings == (["Mlp"] if current else [])
    hover = feature.architecture_hover(
        checked, path.as_uri(), text.index("Mlp:") + 1, settings, True, "dark"
    )
    assert "![architecture of Mlp](data:image/png;base64," in hover
    assert drawings == ["Mlp"]  # drawn once: ahead, or by the hover when nothing was


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_png_keeps_each_kinds_tint(theme: str) -> None:
    """The palette the PNG is cut to keeps the boxes' tints apart: a norm, an attention, a
    linear layer and the loss each keep a fill close to their accent over the background."""
    image_module = pytest.importorskip("PIL.Image")
    from shapescript_lsp.render.architecture_svg import ACCENTS

    found = drawn(*DRAWINGS[2][1:])
    uri, _ = architecture_png(found, theme)
    image = image_module.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB")
    present = {colour for _, colour in image.getcolors(maxcolors=1 << 16)}
    background = PALETTES[theme].background

    def channels(hex_colour: str) -> tuple[int, ...]:
        return tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))

    for name in ("blue", "purple", "orange", "red"):
        accent, under = channels(ACCENTS[theme][name]), channels(background)
        tint = tuple(round(0.14 * a + 0.86 * b) for a, b in zip(accent, under, strict=True))
        nearest = min(
            max(abs(c - t) for c, t in zip(colour, tint, strict=True)) for colour in present
        )
        assert nearest <= 8, f"{name} tint {tint} is lost in the {theme} PNG"
