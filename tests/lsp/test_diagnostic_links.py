"""Each diagnostic links to its code's page (`codeDescription.href`): the built docs
site's page when the site is built, else the Markdown source, as a file:// URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapescript.diagnostics import pages
from shapescript_lsp.features import diagnostics


@pytest.fixture
def docs_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "docs" / "diagnostics"
    folder.mkdir(parents=True)
    (folder / "E0404.md").write_text("# E0404\n")
    monkeypatch.setattr(pages, "explanation_dirs", lambda: iter([folder]))
    diagnostics.page_href.cache_clear()
    yield tmp_path
    diagnostics.page_href.cache_clear()


def test_the_link_is_the_markdown_page_when_the_site_is_not_built(docs_root: Path) -> None:
    expected = (docs_root / "docs" / "diagnostics" / "E0404.md").resolve().as_uri()
    assert diagnostics.page_href("E0404") == expected


def test_the_link_is_the_built_page_when_the_site_is_built(docs_root: Path) -> None:
    built = docs_root / "site" / "diagnostics" / "E0404.html"
    built.parent.mkdir(parents=True)
    built.write_text("<html></html>")
    assert diagnostics.page_href("E0404") == built.resolve().as_uri()


def test_a_code_without_a_page_has_no_link(docs_root: Path) -> None:
    assert diagnostics.page_href("E0301") is None
