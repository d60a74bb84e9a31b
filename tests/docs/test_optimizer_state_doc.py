"""docs/optimizers.md describes `opt.state_dict()` as it is: ShapeScript's wrapper, with
torch's own optimizer state under "torch"."""

from __future__ import annotations

import re
from pathlib import Path

import torch

import shapescript
import shapescript.rt as rt

ROOT = Path(__file__).resolve().parents[2]
SOURCE = """\
dim D = 3
dim C = 2

model Mlp:
    param w: [D C] = normal(std=0.02)
    param b: [C] = zeros

fn loss(m: Mlp, x: [n D]) -> []:
    return sum(x @ m.w + m.b)

fn step(mut m: Mlp, mut opt: AdamW[Mlp], x: [n D]) -> []:
    l, g = value_and_grad(loss, m, x)
    update(mut m, mut opt, g)
    return l
"""


def _section() -> str:
    page = (ROOT / "docs" / "optimizers.md").read_text(encoding="utf-8")
    assert "## `opt.state_dict()`" in page
    return page.split("## `opt.state_dict()`", 1)[1].split("\n## ", 1)[0]


def _table_keys(section: str) -> list[str]:
    return re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE)


def _state() -> dict:
    compiled = shapescript.compile(SOURCE, "mlp.ss", devices="cpu")
    m = compiled.Mlp.init(seed=0)
    opt = rt.adamw(m, lr=rt.warmup(10, rt.cosine(1e-3, 100)), weight_decay=0.1)
    compiled.step(m, opt, torch.ones(4, 3))
    return opt.state_dict()


def test_the_page_lists_the_keys_of_state_dict_in_order() -> None:
    state = _state()
    assert _table_keys(_section()) == list(state)


def test_the_page_names_torchs_keys_and_the_schedules() -> None:
    section = _section()
    state = _state()
    for key in state["torch"]:
        assert f'"{key}"' in section, key
    assert "lr_scale" in state["torch"]["param_groups"][0]
    assert '"lr_scale"' in section
    schedule = state["lr"]
    for key in (*schedule, *schedule["then"]):
        assert f'"{key}"' in section, key
    assert f'"{schedule["schedule"]}"' in section
    assert f'"{schedule["then"]["schedule"]}"' in section
