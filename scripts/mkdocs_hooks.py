"""MkDocs hooks for the docs site (mkdocs.yml's `hooks:`).

The navigation is made from the folders (no `nav:` in mkdocs.yml, so a new page needs no
edit); this only puts its top level in reading order: the home page, the guide and the
reference first, the topic pages, the editors, then a page per diagnostic code. Pages and
folders not named here come after the named ones that precede `diagnostics`.

The pages' `<picture>` elements pick their dark image by the reader's system theme, which is
right on GitHub; on the site the palette toggle decides, so they become one image per palette
(Material shows `#only-light` and `#only-dark` images in their palette only).
"""

from __future__ import annotations

import re

from mkdocs.structure.nav import Navigation, Section

#: The top level in order, by file name (pages) or folder name (sections).
READING_ORDER = (
    "index.md",
    "guide",
    "reference",
    "builtins.md",
    "patterns.md",
    "models.md",
    "optimizers.md",
    "param-groups.md",
    "pytorch-weights.md",
    "running.md",
    "several-devices.md",
    "modal.md",
    "export.md",
    "packages.md",
    "verify.md",
    "lowering.md",
    "torch-compile.md",
    "editors",
    "json-format.md",
    "diagnostics",
    "architecture.md",
    "decisions.md",
    "contributing-docs.md",
)
_UNNAMED = READING_ORDER.index("diagnostics") - 0.5


def _name(item: object) -> str:
    """A top-level item's file name, or its folder's name for a section."""
    if isinstance(item, Section):
        for child in item.children:
            file = getattr(child, "file", None)
            if file is not None:
                return file.src_uri.split("/")[0]
        return item.title.lower()
    file = getattr(item, "file", None)
    return file.src_uri if file is not None else ""


def _place(item: object) -> float:
    name = _name(item)
    return READING_ORDER.index(name) if name in READING_ORDER else _UNNAMED


def on_nav(nav: Navigation, config: object, files: object) -> Navigation:
    nav.items.sort(key=_place)
    return nav


_PICTURE = re.compile(
    r"<picture>\s*"
    r'<source media="\(prefers-color-scheme: dark\)" srcset="(?P<dark>[^"]+)">\s*'
    r'<img (?P<before>(?:[\w-]+="[^"]*"\s*)*)src="(?P<light>[^"]+)"'
    r'(?P<after>(?:\s*[\w-]+="[^"]*")*)\s*>\s*'
    r"</picture>"
)


def _one_image_per_palette(match: re.Match[str]) -> str:
    before, after = match["before"], match["after"]
    return (
        f'<img {before}src="{match["light"]}#only-light"{after}>'
        f'<img {before}src="{match["dark"]}#only-dark"{after}>'
    )


def on_page_content(html: str, page: object, config: object, files: object) -> str:
    return _PICTURE.sub(_one_image_per_palette, html)
