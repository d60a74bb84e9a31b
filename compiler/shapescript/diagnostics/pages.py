"""Where a diagnostic code's page is: the built docs site's page when the site is built,
else the Markdown source. `shapescript explain` prints it and the language server links it.

The rule: the Markdown page is `docs/diagnostics/<CODE>.md` in the first folder above the
package that has one (a checkout), else in the package. The site is built beside `docs/`
(`mkdocs build --strict -d site/`), so the built page of `<root>/docs/diagnostics/E0301.md`
is `<root>/site/diagnostics/E0301.html` (mkdocs.yml's `use_directory_urls: false`), used
whenever that file exists.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import shapescript


def explanation_dirs() -> Iterator[Path]:
    """Folders that may hold `<CODE>.md` pages: `docs/diagnostics` above the package, then in it."""
    package = Path(shapescript.__file__).resolve().parent
    for folder in package.parents:
        yield folder / "docs" / "diagnostics"
    yield package / "docs" / "diagnostics"


def find_explanation(code: str) -> Path | None:
    """The Markdown page that explains a code, or None when none has been written."""
    wanted = f"{code}.md".upper()
    for folder in explanation_dirs():
        if not folder.is_dir():
            continue
        exact = folder / f"{code}.md"
        if exact.is_file():
            return exact
        for page in sorted(folder.iterdir()):
            if page.name.upper() == wanted and page.is_file():
                return page
    return None


def built_page(markdown: Path) -> Path | None:
    """The built site's page for a `docs/diagnostics/<CODE>.md` page, if the site is built."""
    docs = markdown.parent.parent
    built = docs.parent / "site" / markdown.parent.name / f"{markdown.stem}.html"
    return built if built.is_file() else None


def page_location(code: str) -> Path | None:
    """The page to show for a code: the built site's, else the Markdown; None if neither."""
    markdown = find_explanation(code)
    if markdown is None:
        return None
    return (built_page(markdown) or markdown).resolve()
