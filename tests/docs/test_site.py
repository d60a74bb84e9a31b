"""The docs site: `mkdocs build --strict` succeeds (no broken link, no missing page), every
page is built, ShapeScript is highlighted by the project's lexer, search and both palettes
are there; and in headless Chromium the pages look right in both palettes and search finds
`cross_entropy`. The screenshots are kept in docs/screenshots/ with UPDATE_SCREENSHOTS=1
(docs/contributing-docs.md), else in tests/e2e/artifacts/site/."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from shapescript.atomic_write import write_bytes

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
DRIVE = Path(__file__).with_name("site_drive.js")
SCREENSHOTS = DOCS / "screenshots"
ARTIFACTS = ROOT / "tests" / "e2e" / "artifacts" / "site"
PROBE_HOME = Path(
    os.environ.get("VSCODE_PROBE_HOME") or Path(tempfile.gettempdir()) / "vscode-probe-home"
)
PLAYWRIGHT = PROBE_HOME / "pw" / "node_modules"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built as README says, into a folder of the test's own."""
    folder = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, f"mkdocs build --strict failed:\n{built.stderr[-6000:]}"
    return folder


def built_page(site: Path, page: Path) -> Path:
    """Where MkDocs writes a docs page: `a/b.md` as `a/b.html` (`use_directory_urls: false`)."""
    return site / page.relative_to(DOCS).with_suffix(".html")


def test_every_page_is_built(site: Path) -> None:
    missing = [
        page.relative_to(DOCS).as_posix()
        for page in sorted(DOCS.rglob("*.md"))
        if not built_page(site, page).is_file()
    ]
    assert missing == []


def test_shapescript_is_highlighted_by_the_projects_lexer(site: Path) -> None:
    home = (site / "index.html").read_text(encoding="utf-8")
    # Keyword.Declaration, Name.Function, Name.Builtin and a doc comment: Pygments' classes.
    for span in (
        '<span class="kd">fn</span>',
        '<span class="nf">attention</span>',
        '<span class="nb">softmax</span>',
        '<span class="sd">## Causal self-attention',
    ):
        assert span in home, f"{span} not in the home page: is the `shapescript` lexer installed?"


def test_search_indexes_the_pages(site: Path) -> None:
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert any("cross_entropy" in document["text"] for document in index["docs"])


def test_both_palettes_and_a_toggle(site: Path) -> None:
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'data-md-color-media="(prefers-color-scheme: light)"' in home
    assert 'data-md-color-media="(prefers-color-scheme: dark)"' in home
    assert 'data-md-color-scheme="slate"' in home
    assert "Switch to the dark palette" in home


def test_the_editor_pictures_are_shown(site: Path) -> None:
    pictures = sorted((DOCS / "editors").rglob("*.png"))
    assert pictures
    for picture in pictures:
        assert (site / picture.relative_to(DOCS)).is_file(), picture
    vscode = site / "editors" / "vscode.html"
    html = vscode.read_text(encoding="utf-8")
    for source, palette in (
        ("pictures/call-hover-light.png", "light"),
        ("pictures/call-hover-dark.png", "dark"),
    ):
        assert f'="{source}#only-{palette}"' in html and (vscode.parent / source).is_file(), source
    assert "<picture>" not in html, "a <picture> follows the system theme, not the palette toggle"


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The site over HTTP on a free local port (search runs in a worker, which file:// bars)."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """No line per request on stderr."""


def _browser_missing() -> str | None:
    chromium = os.environ.get("CHROMIUM_BIN") or "chromium"
    missing = [
        what
        for what, there in (
            (f"chromium ({chromium})", shutil.which(chromium)),
            ("node", shutil.which("node")),
            (f"playwright-core under {PLAYWRIGHT}", (PLAYWRIGHT / "playwright-core").is_dir()),
        )
        if not there
    ]
    if missing:
        return "missing " + ", ".join(missing) + "; `bash scripts/install-editors.sh` installs them"
    return None


def guide_page() -> str:
    """The address of the guide's first chapter, or of its index while it has none."""
    chapters = sorted(page for page in (DOCS / "guide").glob("*.md") if page.name != "index.md")
    return f"guide/{chapters[0].stem}.html" if chapters else "guide/index.html"


def test_the_site_in_headless_chromium(served: str, tmp_path: Path) -> None:
    missing = _browser_missing()
    if missing:
        pytest.skip(missing)
    config = {
        "base": served,
        "chromium": shutil.which(os.environ.get("CHROMIUM_BIN") or "chromium"),
        "pages": {"home": "", "guide": guide_page()},
        "search": "cross_entropy",
        "picture_pages": ["editors/vscode.html", "editors/semantic-highlighting.html"],
        "out_dir": str(tmp_path),
    }
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    driven = subprocess.run(
        ["node", str(DRIVE), str(tmp_path / "config.json")],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "NODE_PATH": str(PLAYWRIGHT)},
    )
    assert driven.returncode == 0, f"site_drive.js failed:\n{driven.stderr[-4000:]}"
    result = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    _keep_screenshots(tmp_path)

    assert result["schemes"] == {
        "home-light": "default",
        "guide-light": "default",
        "home-dark": "slate",
        "guide-dark": "slate",
    }
    assert result["toggled"] == "slate"
    assert any("cross_entropy" in item for item in result["search"]), result["search"]
    for address, pictures in result["images"].items():
        assert pictures, f"no pictures on {address}"
        assert [src for src, width in pictures if width == 0] == [], f"not shown on {address}"
    assert result["shown"]["light"], "no picture shown in the light palette"
    assert all(src.endswith("-light.png#only-light") for src in result["shown"]["light"])
    assert result["shown"]["dark"], "no picture shown after toggling to the dark palette"
    assert all(src.endswith("-dark.png#only-dark") for src in result["shown"]["dark"])
    for name in ("home", "guide"):
        light = _brightness(tmp_path / f"site-{name}-light.png")
        dark = _brightness(tmp_path / f"site-{name}-dark.png")
        assert dark < light / 2, (name, light, dark)


def _brightness(picture: Path) -> float:
    """The mean grey level of a screenshot, 0 to 255."""
    from PIL import Image, ImageStat

    with Image.open(picture) as image:
        return ImageStat.Stat(image.convert("L")).mean[0]


def _keep_screenshots(folder: Path) -> None:
    keep = SCREENSHOTS if os.environ.get("UPDATE_SCREENSHOTS") else ARTIFACTS
    keep.mkdir(parents=True, exist_ok=True)
    for shot in sorted(folder.glob("site-*.png")):
        write_bytes(keep / shot.name, shot.read_bytes())
