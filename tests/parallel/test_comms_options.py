"""What the communication hovers say for batch_norm's statistics and the devices options,
worked out by the checker (check/analyses/comms.py) without an editor."""

from __future__ import annotations

from shapescript.check.analyses.comms import Table
from shapescript.check.checker import check_parsed
from shapescript.syntax.parser import parse
from shapescript.syntax.source import SourceFile

BN = """devices cpu[0 1 2]

dim D = 4
dim C = 6

data Ex:
    x: [D C]

fn n(batch: [b] Ex, mode: Mode) -> [b D C] = batch_norm(batch.x, mode, over=C)
"""


def _checked(text: str):
    checked = check_parsed(parse(SourceFile.from_text("t.ss", text)))
    assert checked.errors == []
    return checked


def test_batch_norm_sends_two_values_a_channel_and_a_count_in_f64() -> None:
    table = Table(_checked(BN))
    text = table.line_text("n", 9)
    assert text is not None
    assert (
        "- all-reduce of `batch_norm` across the batch, each channel's sum and sum of squares, "
        "and a count: 13 × f64 = 104 bytes"
    ) in text
