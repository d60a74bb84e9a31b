"""What a whole-file check keeps per function, counted rather than measured: a file of
many small functions keeps only the tables each one fills."""

from __future__ import annotations

from shapescript.check.checker import check_source
from shapescript.check.declarations.symbols import _BITS, _FACT_TABLES, Facts, read_table
from shapescript.syntax.source import SourceFile

SMALL = """
dim D = 4

fn scale(x: [b n D]) -> [b n D] = x * 2.0

fn shift(x: [b n D], y: [b n D]) -> [b n D]:
    s = scale(x) + y
    return s * 0.5
"""


def _made_tables(facts: Facts) -> set[str]:
    """The tables `facts` holds, which its bits of made tables say too."""
    made = set()
    for name in _FACT_TABLES:
        try:
            object.__getattribute__(facts, name)
        except AttributeError:
            continue
        made.add(name)
    assert {name for name in _FACT_TABLES if facts._made_tables & _BITS[name]} == made
    return made


def test_a_new_facts_holds_no_tables_until_one_is_used() -> None:
    facts = Facts()
    assert _made_tables(facts) == set()
    facts.types["x"] = "t"  # type: ignore[index]
    assert facts.types == {"x": "t"}
    assert _made_tables(facts) == {"types"}
    assert facts == facts and Facts() == Facts() and facts != Facts()
    assert "types={'x': 't'}" in repr(facts)


def test_reading_a_table_that_was_never_made_does_not_make_it() -> None:
    facts = Facts()
    assert list(read_table(facts, "call_targets").values()) == []
    assert not read_table(facts, "gradients")
    assert _made_tables(facts) == set()
    facts.gradients.append(("span", "f", "M"))  # type: ignore[arg-type]
    assert read_table(facts, "gradients") == [("span", "f", "M")]


def test_a_check_keeps_only_the_tables_a_small_function_fills() -> None:
    checked = check_source(SourceFile.from_text("small.ss", SMALL), all_facts=False)
    assert not checked.errors
    bodies = [item.body.facts for item in checked.items if item.body is not None]
    assert len(bodies) == 2
    for facts in bodies:
        # Its types and the names it refers to; not the dozen tables it has nothing for.
        assert _made_tables(facts) <= {"types", "references", "call_targets"}
        assert facts.types and facts.references


def test_a_type_written_many_times_is_one_object() -> None:
    text = SMALL + "\nfn twice(z: [b n D], w: [b n D] Unit) -> [b n D] = z + w\n"
    checked = check_source(SourceFile.from_text("small.ss", text), all_facts=False)
    assert not checked.errors
    signatures: dict = checked.signatures
    x = signatures["scale"].params[0].type
    y = signatures["shift"].params[1].type
    z = signatures["twice"].params[0].type
    w = signatures["twice"].params[1].type
    assert x is y is z
    assert w.axes == x.axes and w is not x and w.domain.interval is not None
    # The axes themselves are shared too, across types that differ otherwise.
    assert all(a is b for a, b in zip(w.axes, x.axes, strict=True))


def test_a_grouped_axis_keeps_how_it_was_written() -> None:
    from shapescript.check.algebra.types import format_type

    text = (
        "dim H = 2\ndim Dh = 4\n"
        "fn a(x: [b (H Dh)]) -> [b (H Dh)] = x\n"
        "fn c(x: [b 8]) -> [b 8] = x\n"
    )
    checked = check_source(SourceFile.from_text("groups.ss", text), all_facts=False)
    assert not checked.errors
    signatures: dict = checked.signatures
    assert format_type(signatures["a"].params[0].type) == "[b (H Dh)]"
    assert format_type(signatures["c"].params[0].type) == "[b 8]"


def test_a_signatures_references_are_kept_as_two_tuples() -> None:
    from shapescript.check.declarations.module_scope import NamedSpans

    pairs = [("D", (1, 2)), ("n", (4, 5)), ("D", (7, 8))]
    kept = NamedSpans(pairs)  # type: ignore[arg-type]
    assert list(kept) == pairs and len(kept) == 3 and kept
    assert kept.names == ("D", "n", "D") and not NamedSpans([])
