"""Telling an analysis again without keeping it alive."""

from __future__ import annotations

from shapescript.check.program import Checked


class AnalysisKey:
    """Tells an analysis again without keeping it alive (an old analysis of a big file is a
    lot of memory): its id, with its text and module names, which are kept."""

    __slots__ = ("number", "text", "names")

    def __init__(self, checked: Checked) -> None:
        self.number = id(checked)
        self.text = checked.source.text
        self.names = checked.module_symbols

    def of(self, checked: Checked) -> bool:
        return (
            self.number == id(checked)
            and self.text is checked.source.text
            and self.names is checked.module_symbols
        )
