"""How much work the checker does per declaration, counted rather than timed: on a big
file each pass over the models reads each model's fields once."""

from __future__ import annotations

from shapescript.analysis import check
from shapescript.check.declarations import nested_models
from shapescript.syntax.source import SourceFile

MODELS = """
dim D = 4
dim L = 2

model Inner:
    param w: [D D] = zeros

model Middle:
    inner: Inner
    param b: [D] = zeros

model Outer:
    h: [L] Middle
    last: Inner
"""


def test_the_nesting_checks_read_each_models_held_models_once(monkeypatch) -> None:
    read: list[str] = []
    held = nested_models._held

    def counting(info):
        read.append(info.name)
        return held(info)

    monkeypatch.setattr(nested_models, "_held", counting)
    checked = check(SourceFile.from_text("models.ss", MODELS))
    assert not checked.errors
    assert sorted(read) == ["Inner", "Middle", "Outer"]
