"""The padding analysis follows calls from function to function with explicit stacks:
a hover on a file whose functions call each other thousands deep works out its padding
facts (off the checker's deep thread, as the language server does) without a
`RecursionError`, and finds what the chain's last function does."""

from __future__ import annotations

import pytest

from shapescript.check.analyses.padding import PaddingFacts, complete_facts
from shapescript.check.checker import check_source
from shapescript.check.program import Checked
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.hover import HoverRenderer
from tests.hostile import programs

#: Past the interpreter's default recursion limit, whatever a level costs in frames.
LONG = 1_500


def facts_of(name: str, n: int) -> tuple[Checked, PaddingFacts]:
    """A chain's check as the server makes it (padding left for a hover), then the
    facts a hover works out."""
    text = programs.PADDING_CHAINS[name](n)
    checked = check_source(SourceFile.from_text(f"{name}.ss", text), padding_later=True)
    facts = complete_facts(checked)
    assert facts is not None
    return checked, facts


def assert_followed_to_the_end(name: str, n: int, facts: PaddingFacts) -> None:
    if name == "padding_chain_blocked":
        blocker = facts.axes["f0"]["n"]
        assert blocker is not None and blocker.function == f"f{n}"
        assert "`sort`" in blocker.text
    elif name == "padding_chain_masked":
        assert facts.axes["f0"]["n"] is None
        assert facts.needs["f0"] == {"n"} and facts.needs[f"f{n}"] == {"n"}
    elif name == "padding_chain_elementwise":
        assert facts.axes["f"]["n"] is None
    elif name == "padding_chain_step":
        blocker = facts.steps["step"]
        assert blocker is not None and blocker.function == f"f{n}"
        assert "`print`" in blocker.text
    else:
        blocker = facts.axes["f"]["n"]
        assert blocker is not None and "torch.a.a" in blocker.text


@pytest.mark.parametrize("name", list(programs.PADDING_CHAINS))
def test_a_hover_follows_a_long_chain_of_calls(name: str) -> None:
    checked, facts = facts_of(name, LONG)
    assert_followed_to_the_end(name, LONG, facts)
    offset = checked.source.text.index("f")
    HoverRenderer(images=False).hover(checked, offset)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(programs.PADDING_CHAINS))
def test_a_hover_follows_a_chain_of_10000_calls(name: str) -> None:
    _, facts = facts_of(name, programs.DEPTH)
    assert_followed_to_the_end(name, programs.DEPTH, facts)
