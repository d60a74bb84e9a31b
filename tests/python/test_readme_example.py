"""The README shows examples/train_mlp.ss exactly."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_training_example_is_examples_train_mlp_ss() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Training a model", 1)[1]
    shown = section.split("```shapescript\n", 1)[1].split("```", 1)[0]
    assert shown == (ROOT / "examples" / "train_mlp.ss").read_text(encoding="utf-8")
