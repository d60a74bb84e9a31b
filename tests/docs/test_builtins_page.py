"""docs/builtins.md is what scripts/builtins_page.py writes from the declarations, so it
lists every built-in with the signature the checker uses."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "builtins_page.py"


def _script():
    spec = importlib.util.spec_from_file_location("builtins_page", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_page_is_the_scripts_output() -> None:
    committed = (ROOT / "docs" / "builtins.md").read_text(encoding="utf-8")
    assert committed == _script().page(), "run python scripts/builtins_page.py and commit"


def test_the_page_gives_signatures_as_declared_with_defaults() -> None:
    text = _script().page()
    for signature in (
        "`fn layer_norm(x: [... D], over: Axis[D], weight: [D] = none, bias: [D] = none, "
        "eps = 1e-5) -> [... D]`",
        "`fn gelu(x: Real) -> Real`",
        "`fn rearrange(x: [...], pattern: Pattern, name=size...) -> [...]`",
        "`fn cosine(peak: float, steps: int, end: float = 0.0) -> Schedule`",
        "`fn fit(mut m: M, train: Dataset[E], sink: LogSink, epochs: int, size: int, "
        "lr: float, mode: Mode)`",
    ):
        assert signature in text, signature


def test_the_script_writes_the_page_where_it_is_told(tmp_path: Path) -> None:
    script = _script()
    target = tmp_path / "builtins.md"
    assert script.main([str(target)]) == 0
    assert target.read_text(encoding="utf-8") == script.page()


def test_the_readme_links_the_page() -> None:
    assert "docs/builtins.md" in (ROOT / "README.md").read_text(encoding="utf-8")
