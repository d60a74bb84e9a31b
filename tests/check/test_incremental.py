"""Re-checking an edited file reuses what didn't change, and answers as a fresh check does."""

from __future__ import annotations

from shapescript.check.algebra.types import format_type
from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile

PROGRAM = """\
dim D = 8

fn first(x: [n D]) -> [n D]:
    y = x * 2.0
    return y

fn second(x: [n D]) -> [n D]:
    z = x + x
    return z

fn third(x: [t D]) -> [t D] = second(x)
"""


def checked(text: str, previous=None):
    return check_source(SourceFile.from_text("main.ss", text), previous)


def summary(result) -> list[tuple[str, int, int]]:
    position = result.source.position
    return [
        (d.code, position(d.span.start).line, position(d.span.start).column)
        for d in result.diagnostics
    ]


def test_edit_inside_one_body_reuses_the_others() -> None:
    before = checked(PROGRAM)
    after = checked(PROGRAM.replace("y = x * 2.0", "y = x * 3.0"), before)
    bodies_before = {item.item.name: item.body for item in before.items if item.body}
    bodies_after = {item.item.name: item.body for item in after.items if item.body}
    assert bodies_after["second"] is bodies_before["second"]
    assert bodies_after["third"] is bodies_before["third"]
    assert bodies_after["first"] is not bodies_before["first"]


def test_insertion_above_moves_reused_facts() -> None:
    before = checked(PROGRAM)
    edited = PROGRAM.replace("y = x * 2.0", "y = x * 2.0\n    extra = x")
    after = checked(edited, before)
    fresh = checked(edited)
    second = next(item for item in after.items if item.item.name == "second")
    assert second.body is next(item.body for item in before.items if item.item.name == "second")
    offset = edited.index("z = x")
    assert format_type(after.type_at(offset)) == "[n D]"
    assert (
        after.definition_at(edited.index("x + x")).span
        == fresh.definition_at(edited.index("x + x")).span
    )
    assert summary(after) == summary(fresh) == []


def test_errors_in_reused_bodies_keep_their_positions() -> None:
    broken = PROGRAM.replace("z = x + x", "z = x + w")
    before = checked(broken)
    edited = "# a comment on top\n" + broken
    after = checked(edited, before)
    assert summary(after) == summary(checked(edited)) == [("E0301", 9, 13)]


def test_signature_change_rechecks_callers() -> None:
    before = checked(PROGRAM)
    after = checked(
        PROGRAM.replace("fn second(x: [n D]) -> [n D]", "fn second(x: [n 4]) -> [n 4]"), before
    )
    assert [d.code for d in after.diagnostics] == ["E0401"]


def test_signature_errors_of_reused_declarations_move_with_them() -> None:
    broken = PROGRAM + "\nfn bad(x) -> [n] = x\n"
    before = checked(broken)
    edited = broken.replace("y = x * 2.0", "y = x * 2.0\n    extra = x")
    after = checked(edited, before)
    assert summary(after) == summary(checked(edited))
    assert [code for code, _, _ in summary(after)] == ["E0306"]


def test_a_keystroke_moves_the_bases_of_the_functions_below_it() -> None:
    from shapescript.check.algebra.reporter import Reporter
    from shapescript.check.declarations.module_scope import collect, collect_reusing
    from shapescript.syntax.parser import parse

    text = (
        "fn f(x: [n]) -> [n]:\n    y = x\n    return y\n\n"
        'extern fn flipped(x: [k]) -> [k] = "torch.flipud"\n\n'
        "fn g(x: [n]) -> [n] = x\n"
    )
    parsed = parse(SourceFile.from_text("f.ss", text))
    scope, memo = collect_reusing(parsed.module, "f.ss", Reporter(), None)
    first_bases = dict(scope.function_bases)
    for line in ("    z = 1\n", "    z = 12\n"):
        edited = text.replace("    y = x\n", "    y = x\n" + line)
        parsed = parse(SourceFile.from_text("f.ss", edited), previous=parsed)
        scope, memo = collect_reusing(parsed.module, "f.ss", Reporter(), memo)
        assert memo is not None and memo.replaced == [0]
        fresh = collect(parsed.module, "f.ss", Reporter())
        assert scope.function_bases == fresh.function_bases
        assert scope.function_bases["g"] == first_bases["g"] + len(line)
        assert scope.function_bases["flipped"] == first_bases["flipped"] + len(line)


def test_the_items_index_after_an_edit_is_a_fresh_checks() -> None:
    text = "fn f(x: [n]) -> [n]:\n    y = x\n    return y\n\nfn g(x: [n]) -> [n] = f(x)\n"
    previous = check_source(SourceFile.from_text("f.ss", text))
    for line in ("    z = 1\n", "    z = 12\n"):
        edited = text.replace("    y = x\n", "    y = x\n" + line)
        previous = check_source(SourceFile.from_text("f.ss", edited), previous)
        items, index = previous.memo["item_index"]
        assert items is previous.module.items
        assert index == {id(item): at for at, item in enumerate(items)}
    fresh = check_source(SourceFile.from_text("f.ss", edited))
    assert previous.diagnostics == fresh.diagnostics
