"""The text list of the examples' architectures, pinned (UPDATE_EXPECT=1 rewrites them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapescript.analysis import check
from shapescript.architecture import architecture
from shapescript.architecture.text import architecture_text
from shapescript.syntax.source import SourceFile
from tests.snapshot import assert_matches_snapshot

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent

#: (snapshot name, file, model, level)
DRAWINGS = [
    ("mlp", ROOT / "examples/train_mlp.ss", "Mlp", "layers"),
    ("mlp.operations", ROOT / "examples/train_mlp.ss", "Mlp", "operations"),
    ("gpt", ROOT / "examples/gpt.ss", "Gpt", "layers"),
    ("gpt.operations", ROOT / "examples/gpt.ss", "Gpt", "operations"),
    ("vit", ROOT / "examples/vit.ss", "Vit", "layers"),
    ("patchify", ROOT / "examples/patchify.ss", "PatchEmbed", "layers"),
    ("no_forward", HERE / "data/no_forward.ss", "Probe", "layers"),
    ("no_function", HERE / "data/no_function.ss", "Table", "layers"),
]


def drawn(path: Path, model: str, detail: str):
    relative = path.relative_to(ROOT).as_posix()
    checked = check(SourceFile.from_text(relative, path.read_text(encoding="utf-8")))
    assert not checked.errors
    found = architecture(checked, model, detail)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("name", "path", "model", "detail"), DRAWINGS, ids=[drawing[0] for drawing in DRAWINGS]
)
def test_text_list_is_pinned(name: str, path: Path, model: str, detail: str) -> None:
    found = drawn(path, model, detail)
    text = f"{found.summary}\n\n{architecture_text(found)}\n"
    assert_matches_snapshot(text, HERE / "snapshots" / f"{name}.txt.expected")


def test_gpt_is_what_the_issue_asks_for() -> None:
    found = drawn(ROOT / "examples/gpt.ss", "Gpt", "layers")
    assert found.summary == (
        "Architecture of Gpt: Embedding → Transformer block × 6 → LayerNorm → Linear · tied"
    )
    labels = [node.label for node in found.sections[0].nodes]
    assert labels[1:3] == ["Embedding V → D", "Position embedding"]
    block = found.sections[0].nodes[3]
    assert (block.label, block.repeat, block.function) == ("Transformer block", "× L = 6", "block")
    inside = [node.label for node in block.children if node.kind != "residual"]
    assert inside == [
        "LayerNorm",
        "Multi-head attention · H heads · causal",
        "LayerNorm",
        "MLP D → Dff → D · GELU",
    ]
    assert [node.kind for node in found.sections[1].nodes][-2] == "loss"
    assert [link.label for link in found.links] == ["forward", "loss", "block", "attention", "mlp"]


def test_no_model_function_lists_fields() -> None:
    found = drawn(HERE / "data/no_function.ss", "Table", "layers")
    assert [node.label for node in found.sections[0].nodes] == ["param w", "buffer count"]


def test_without_forward_other_functions_are_read_but_not_mut_ones() -> None:
    found = drawn(HERE / "data/no_forward.ss", "Probe", "layers")
    assert [section.function for section in found.sections] == ["scores", "best"]


def test_past_32_boxes_the_rest_are_counted() -> None:
    lines = "\n".join(f"    x = x * {index}.0 |> tanh" for index in range(40))
    text = (
        "dim D = 4\nmodel M:\n    param w: [D D] = ones\n"
        f"fn forward(m: M, x: [n D]) -> [n D]:\n{lines}\n    return x @ m.w\n"
    )
    checked = check(SourceFile.from_text("many.ss", text))
    assert not checked.errors
    found = architecture(checked, "M", "layers")
    nodes = found.sections[0].nodes
    assert len(nodes) == 32
    assert nodes[-1].kind == "more" and nodes[-1].label.endswith("more")
