"""`shapescript build` output for the examples, pinned, and standalone builds run with torch
alone (UPDATE_EXPECT=1 rewrites the snapshots)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shapescript.analysis import check
from shapescript.codegen import BuildOptions, generate
from shapescript.syntax.source import SourceFile
from tests.snapshot import assert_matches_snapshot

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.ss"))
#: Examples that import another example: a standalone build holds one file (E2305).
IMPORTING = {"train_gpt"}
STANDALONE = [path for path in EXAMPLES if path.stem not in IMPORTING]
SNAPSHOTS = Path(__file__).parent / "snapshots"

#: For each example, a call of one of its functions that runs without models.
CALLS = {
    "attention": (
        "causal_attention(torch.randn(2, 5, 768), torch.randn(768, 2304) * 0.02, "
        "torch.randn(768, 768) * 0.02).shape"
    ),
    "patchify": (
        "embed224(torch.rand(2, 3, 224, 224), torch.randn(768, 768) * 0.02, torch.zeros(768)).shape"
    ),
    "train_mlp": None,
    "gpt": None,
    "train_gpt": None,
    "vit": None,
    "gpt2": "gelu_tanh(torch.randn(2, 3, 256)).shape",
    "gpt2_hf": "gelu_new(torch.randn(2, 3, 256)).shape",
    "llama": "inv_freq().shape",
}
EXPECTED_SHAPES = {
    "attention": "torch.Size([2, 5, 768])",
    "patchify": "torch.Size([2, 196, 768])",
    "gpt2": "torch.Size([2, 3, 256])",
    "gpt2_hf": "torch.Size([2, 3, 256])",
    "llama": "torch.Size([8])",
}


def build(path: Path, standalone: bool) -> str:
    relative = path.relative_to(ROOT).as_posix()
    checked = check(SourceFile.from_text(relative, path.read_text(encoding="utf-8")))
    generated = generate(checked, BuildOptions(devices="cpu", standalone=standalone))
    assert generated.tree is not None, generated.diagnostics
    return generated.source


@pytest.mark.parametrize(
    ("path", "standalone"),
    [(path, False) for path in EXAMPLES] + [(path, True) for path in STANDALONE],
    ids=lambda value: (
        value.stem if isinstance(value, Path) else ("standalone" if value else "module")
    ),
)
def test_build_output_is_pinned(path: Path, standalone: bool) -> None:
    source = build(path, standalone)
    suffix = ".standalone.py.expected" if standalone else ".py.expected"
    assert_matches_snapshot(source, SNAPSHOTS / f"{path.stem}{suffix}")


@pytest.mark.parametrize("stem", sorted(IMPORTING))
def test_an_example_that_imports_has_no_standalone_build(stem: str) -> None:
    path = ROOT / "examples" / f"{stem}.ss"
    relative = path.relative_to(ROOT).as_posix()
    checked = check(SourceFile.from_text(relative, path.read_text(encoding="utf-8")))
    generated = generate(checked, BuildOptions(devices="cpu", standalone=True))
    assert generated.tree is None
    assert [d.code for d in generated.diagnostics] == ["E2305"]


@pytest.mark.parametrize("path", STANDALONE, ids=lambda path: path.stem)
def test_standalone_build_runs_with_torch_alone(path: Path, tmp_path: Path) -> None:
    built = tmp_path / f"{path.stem}_built.py"
    built.write_text(build(path, standalone=True), encoding="utf-8")
    call = CALLS[path.stem]
    script = textwrap.dedent(
        f"""
        import sys
        sys.modules["shapescript"] = None  # any import of shapescript now fails
        import runpy, torch
        module = runpy.run_path({str(built)!r})
        globals().update(module)
        print({call or "'imported'"})
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    text = built.read_text(encoding="utf-8")
    assert "import shapescript" not in text and "from shapescript" not in text
    assert result.stdout.strip() == EXPECTED_SHAPES.get(path.stem, "imported")


def test_a_standalone_nested_model_is_the_runtimes_model(tmp_path: Path) -> None:
    import runpy

    import torch

    import shapescript

    path = ROOT / "examples" / "gpt2_hf.ss"
    built = tmp_path / "gpt2_hf_built.py"
    built.write_text(build(path, standalone=True), encoding="utf-8")
    standalone = runpy.run_path(str(built))
    model = standalone["Gpt2LMHead"].init(seed=1)
    assert isinstance(model.transformer.h, torch.nn.ModuleList)
    source = shapescript.compile(path.read_text(), str(path), devices="cpu")
    reference = source.Gpt2LMHead.init(seed=1)
    mine, theirs = model.state_dict(), reference.state_dict()
    assert list(mine) == list(theirs)
    for name, value in theirs.items():
        assert torch.equal(mine[name], value), name
    ids = torch.tensor([[1, 2, 3]])
    with torch.no_grad():
        torch.testing.assert_close(
            standalone["forward"](model, ids), source.forward(reference, ids)
        )
