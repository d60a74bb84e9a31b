"""Colours of the pictures in each kind of editor theme, always on an opaque background."""

from __future__ import annotations

from shapescript.records import record

THEMES = ("light", "dark", "highContrast", "highContrastLight")
DEFAULT_THEME = "dark"


@record(frozen=True)
class Palette:
    background: str
    text: str
    stroke: str
    fill: str
    layer: str
    faint: str
    accent: str


PALETTES = {
    "light": Palette("#ffffff", "#1f1f1f", "#3b3b3b", "#b9d4ee", "#e3edf7", "#7d98b3", "#c2410c"),
    "dark": Palette("#1f1f1f", "#e8e8e8", "#c8c8c8", "#2f5f8f", "#263a4f", "#5d87b3", "#f59e0b"),
    "highContrast": Palette(
        "#000000", "#ffffff", "#ffffff", "#00335c", "#001a2e", "#6fc3ff", "#ffd700"
    ),
    "highContrastLight": Palette(
        "#ffffff", "#000000", "#000000", "#cce4ff", "#eef6ff", "#0f4a85", "#b5200d"
    ),
}


def theme_name(value: object) -> str:
    """A theme sent by a client, as one of THEMES: names, or VS Code's ColorThemeKind 1-4."""
    kinds = {1: "light", 2: "dark", 3: "highContrast", 4: "highContrastLight"}
    if isinstance(value, int) and value in kinds:
        return kinds[value]
    if isinstance(value, str):
        for name in THEMES:
            if value.replace("-", "").replace("_", "").lower() == name.lower():
                return name
    return DEFAULT_THEME


def palette(theme: str) -> Palette:
    return PALETTES.get(theme, PALETTES[DEFAULT_THEME])
