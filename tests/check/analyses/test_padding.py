"""Which axes the checker pads, and which steps it records (check/analyses/padding.py)."""

from __future__ import annotations

from shapescript.check.analyses.padding import PaddingFacts
from shapescript.check.checker import check_text

HEADER = """dim D = 4
dim C = 3

data Ex:
    x: [D]
    y: [] Index[C]

model Lin:
    param w: [D C] = normal(std=0.02)

fn loss(m: Lin, x: [b D], y: [b] Index[C]) -> [] = cross_entropy(x @ m.w, y, over=C)
"""


def facts(body: str) -> tuple[PaddingFacts, list[str]]:
    checked = check_text(HEADER + body)
    assert not checked.errors, [d.message for d in checked.errors]
    padding = checked.padding
    assert isinstance(padding, PaddingFacts)
    return padding, [d.code for d in checked.diagnostics]


def test_masked_operations_leave_a_generic_axis_paddable() -> None:
    padding, codes = facts(
        "fn f(x: [n D]) -> [D] = mean(x, over=n) + sum(softmax(x, over=n), over=n)\n"
    )
    assert padding.padded_axes("f") == ["n"]
    assert "H2001" not in codes


def test_the_first_operation_without_a_masked_version_is_named() -> None:
    padding, _ = facts("fn f(x: [n D]) -> [n D] = sort(x, over=n)\n")
    blocker = padding.axes["f"]["n"]
    assert blocker is not None
    assert blocker.text == "`sort` over `n` has no masked version"
    assert padding.padded_axes("f") == []


def test_an_operation_along_another_axis_does_not_block() -> None:
    padding, _ = facts("fn f(x: [n D]) -> [n D] = sort(x, over=D)\n")
    assert padding.padded_axes("f") == ["n"]


def test_indexing_that_keeps_the_padded_axis_whole_does_not_block() -> None:
    padding, _ = facts(
        "fn kept(x: [n D]) -> [n 4] = x[:, 0:4]\n"
        "fn sliced(x: [n D]) -> [?k D] = x[0:4]\n"
        "fn stepped(x: [n D]) -> [?k D] = x[::2]\n"
    )
    assert padding.padded_axes("kept") == ["n"]
    assert padding.axes["sliced"]["n"] is not None
    assert padding.axes["stepped"]["n"] is not None


def test_cross_entropy_over_the_classes_is_masked_but_over_the_axis_is_not() -> None:
    padding, _ = facts(
        "fn f(z: [n C], y: [n] Index[C]) -> [] = cross_entropy(z, y, over=C)\n"
        "fn g(z: [C n], y: [C] Index[n]) -> [] = cross_entropy(z, y, over=n)\n"
    )
    assert padding.padded_axes("f") == ["n"]
    assert padding.axes["g"]["n"] is not None


def test_a_blocker_is_found_through_the_functions_the_axis_is_passed_to() -> None:
    padding, _ = facts(
        "fn inner(v: [k D]) -> [k D] = sort(v, over=k)\n"
        "fn outer(x: [n D]) -> [n D] = inner(x) * 2.0\n"
    )
    blocker = padding.axes["outer"]["n"]
    assert blocker is not None and blocker.function == "inner"


def test_a_loop_over_batches_is_padded_unless_an_operation_prevents_it() -> None:
    padding, codes = facts(
        "fn ok(train: Dataset[Ex]):\n"
        "    for batch in train |> batches(8):\n"
        "        print(mean(batch.x))\n"
        "fn printed(train: Dataset[Ex]):\n"
        "    for batch in train |> batches(8):\n"
        "        print(batch.x)\n"
    )
    assert list(padding.loops.values())[0] is None
    blocked = list(padding.loops.values())[1]
    assert blocked is not None and blocked.what == "`print`"
    assert codes.count("H2001") == 1


def test_steps_are_recordable_unless_they_do_host_work() -> None:
    padding, codes = facts(
        "fn step(mut m: Lin, mut opt: SGD[Lin], x: [b D], y: [b] Index[C]) -> []:\n"
        "    l, g = value_and_grad(loss, m, x, y)\n"
        "    update(mut m, mut opt, g)\n"
        "    return l\n"
        "fn waits(mut m: Lin, mut opt: SGD[Lin], x: [b D], y: [b] Index[C]) -> []:\n"
        "    l, g = value_and_grad(loss, m, x, y)\n"
        "    if l > 1.0:\n"
        "        update(mut m, mut opt, g)\n"
        "    return l\n"
        "fn epoch(mut m: Lin, mut opt: SGD[Lin], train: Dataset[Ex]):\n"
        "    for batch in train |> batches(8):\n"
        "        step(mut m, mut opt, batch.x, batch.y)\n"
    )
    assert padding.steps["step"] is None
    waits = padding.steps["waits"]
    assert waits is not None and waits.why == "waits for the device"
    assert "epoch" not in padding.steps
    assert codes.count("H3101") == 1


def test_a_loop_that_returns_a_masked_value_is_padded() -> None:
    padding, codes = facts(
        "fn first(train: Dataset[Ex]) -> []:\n"
        "    for batch in train |> batches(8):\n"
        "        return sum(batch.x)\n"
        "    return 0.0 to f32\n"
    )
    assert list(padding.loops.values()) == [None]
    assert "H2001" not in codes


def test_a_batch_passed_to_another_file_or_python_is_not_padded() -> None:
    padding, _ = facts(
        "import python helpers\n"
        "fn f(train: Dataset[Ex]):\n"
        "    for batch in train |> batches(8):\n"
        "        helpers.show(batch.x)\n"
    )
    (blocker,) = padding.loops.values()
    assert blocker is not None and blocker.why == "is Python given a padded value"


#: A step that calls a function making a selection it can't keep (a running sum over it).
PICKY_STEP = (
    "fn running(v: [k D]) -> [k D] = cumsum(v, over=k)\n"
    "fn picky(m: Lin, x: [b D], y: [b] Index[C]) -> []:\n"
    "    keep = sum(x, over=D) > 0.0\n"
    "    return sum(running(x[keep]))\n"
    "fn step(mut m: Lin, mut opt: SGD[Lin], x: [b D], y: [b] Index[C]) -> []:\n"
    "    l, g = value_and_grad(loss, m, x, y)\n"
    "    update(mut m, mut opt, g)\n"
    "    return l + picky(m, x, y)\n"
)


def test_a_step_that_makes_a_boolean_selection_it_cant_keep_is_not_recorded() -> None:
    padding, codes = facts(PICKY_STEP)
    blocker = padding.steps["step"]
    assert blocker is not None and blocker.function == "picky"
    assert "depends on the data" in blocker.why
    assert codes.count("H3101") == 1


def test_a_pattern_that_keeps_or_moves_the_axis_passes_it_through() -> None:
    padding, _ = facts(
        "fn moved(x: [n D]) -> [D n] = rearrange(x, n D -> D n)\n"
        "fn split_up(x: [n 8]) -> [n 2 4] = rearrange(x, n (a e) -> n a e, a=2)\n"
        "fn grouped(x: [n D]) -> [(n D)] = rearrange(x, n D -> (n D))\n"
        "fn repeated(x: [n D]) -> [(n 2) D] = repeat(x, n D -> (n r) D, r=2)\n"
    )
    assert padding.padded_axes("moved") == ["n"]
    assert padding.padded_axes("split_up") == ["n"]
    grouped = padding.axes["grouped"]["n"]
    assert grouped is not None and grouped.text == "`rearrange` groups `n` with another axis"
    assert padding.axes["repeated"]["n"] is not None


def test_a_contraction_or_reduction_across_the_axis_is_masked() -> None:
    padding, _ = facts(
        "fn pairs(x: [n D], y: [n C]) -> [D C] = einsum(x, y: n D, n C -> D C)\n"
        "fn summed(x: [n D]) -> [D] = reduce(x, n D -> D, sum)\n"
        "fn product(x: [n D]) -> [D] = reduce(x, n D -> D, prod)\n"
    )
    assert padding.padded_axes("pairs") == ["n"]
    assert padding.padded_axes("summed") == ["n"]
    assert sorted(padding.needs["pairs"]) == ["n"]
    assert list(padding.operands.values())[:2] == [[(0, 0, "n")], [(0, 0, "n")]]
    assert padding.padded_axes("product") == ["n"]


def test_batch_norm_across_the_axis_is_masked_but_the_keys_of_attention_block() -> None:
    padding, _ = facts(
        "fn normed(x: [n D]) -> [n D] = batch_norm(x, Train(seed=0), over=D)\n"
        "fn attend(q: [n D], k: [m D], v: [m D]) -> [n D] = scaled_dot_product_attention(q, k, v)\n"
    )
    assert padding.padded_axes("normed") == ["n"]
    assert padding.needs["normed"] == frozenset({"n"})
    assert padding.padded_axes("attend") == ["n"]
    keys = padding.axes["attend"]["m"]
    assert keys is not None and keys.what == "`scaled_dot_product_attention`'s keys"


def test_the_gpt_and_vit_examples_pad_their_batches() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[3] / "examples"
    gpt = check_text((root / "gpt.ss").read_text(encoding="utf-8")).padding
    vit = check_text((root / "vit.ss").read_text(encoding="utf-8")).padding
    assert isinstance(gpt, PaddingFacts) and isinstance(vit, PaddingFacts)
    assert gpt.padded_axes("loss") == ["b"]
    assert gpt.padded_axes("attention") == ["b", "n"]
    # The position embedding is sliced with n as a number: forward's n stays unpadded.
    blocker = gpt.axes["forward"]["n"]
    assert blocker is not None and blocker.what == "`n` used as a number"
    assert vit.padded_axes("loss") == ["b"]


def test_elementwise_functions_and_externs_pass_the_axis_through() -> None:
    padding, _ = facts(
        'extern fn soft(x: Real) -> Real = "torch.nn.functional.softsign"\n'
        'extern fn flipped(x: [k]) -> [k] = "torch.flipud"\n'
        "fn twice(v: Real) -> Real = soft(v) * 2.0\n"
        "fn total(v: Real) -> [] = sum(v)\n"
        "fn a(x: [n D]) -> [n D] = twice(x)\n"
        "fn b(x: [n D]) -> [] = total(x)\n"
        "fn c(x: [n]) -> [n] = flipped(x)\n"
    )
    assert padding.padded_axes("a") == ["n"]
    shapeless = padding.axes["b"]["n"]
    assert shapeless is not None and shapeless.what == "`total`'s parameter without a shape"
    extern = padding.axes["c"]["n"]
    assert extern is not None and "isn't elementwise" in extern.why


def test_on_several_devices_batch_norms_statistics_keep_the_batch_unpadded() -> None:
    text = (
        "devices cpu[0 1]\n\ndim D = 4\n\ndata Ex:\n    x: [D]\n\n"
        "fn normed(batch: [b] Ex) -> [b D] = batch_norm(batch.x, Train(seed=0), over=D)\n"
    )
    checked = check_text(text)
    assert not checked.errors, [d.message for d in checked.errors]
    blocker = checked.padding.axes["normed"]["b"]
    assert blocker is not None and "on several devices" in blocker.why
    one = check_text(text.replace("devices cpu[0 1]\n\n", ""))
    assert one.padding.padded_axes("normed") == ["b"]
