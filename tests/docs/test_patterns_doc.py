"""docs/patterns.md: the pattern syntax and the two notations for a product size, with
examples that check as written."""

from __future__ import annotations

from pathlib import Path

from tests.docs.doc_blocks import errors_of, page, shapescript_blocks

ROOT = Path(__file__).resolve().parents[2]


def test_every_example_of_the_patterns_page_checks() -> None:
    blocks = shapescript_blocks(page(ROOT, "patterns.md"))
    assert len(blocks) >= 2
    for number, block in enumerate(blocks):
        assert errors_of(block, f"patterns-{number}.ss") == [], block


def test_the_patterns_page_says_what_both_product_notations_mean() -> None:
    text = page(ROOT, "patterns.md")
    for notation in ("`[D 3*D]`", "`[D (3 D)]`", "`(h d)`", "`p1=16`", "`16gh`"):
        assert notation in text, notation


def test_the_readme_links_the_patterns_page() -> None:
    assert "docs/patterns.md" in (ROOT / "README.md").read_text(encoding="utf-8")
