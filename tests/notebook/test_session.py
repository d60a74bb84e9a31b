"""Notebook cells checked together in the order they ran, without a kernel."""

from __future__ import annotations

import traceback

import pytest

from shapescript.notebook.session import Outcome, Session

torch = pytest.importorskip("torch")


class Notebook:
    """A session and its Python variables, cells numbered as Jupyter numbers them."""

    def __init__(self) -> None:
        self.session = Session()
        self.namespace: dict[str, object] = {"torch": torch}
        self.count = 0

    def cell(self, body: str, cell_id: str | None = None) -> Outcome:
        self.count += 1
        return self.session.run(
            "%%shapescript\n" + body,
            f"[{self.count}]",
            self.namespace,
            f"<cell {self.count}>",
            cell_id,
        )


def codes(outcome: Outcome) -> list[str]:
    return [diag.code for diag in outcome.diagnostics]


def test_a_later_cell_uses_what_an_earlier_one_declared_and_made() -> None:
    notebook = Notebook()
    assert (
        codes(notebook.cell("devices cpu\ndim D = 4\nfn double(a: [n D]) -> [n D] = a * 2\n")) == []
    )
    made = notebook.cell("x = torch.ones(2, 4) as [2 D]\n")
    assert made.ran and notebook.session.made["x"].type_text == "[2 D]"
    used = notebook.cell("y = double(x)\n")
    assert used.ran
    assert notebook.namespace["y"].tolist() == [[2.0] * 4] * 2
    assert notebook.session.made["y"].type_text == "[2 D]"


def test_a_type_error_across_cells_is_reported_in_the_cell_that_has_it() -> None:
    notebook = Notebook()
    notebook.cell("devices cpu\ndim D = 4\ndim E = 3\n")
    notebook.cell("x = torch.ones(2, 4) as [2 D]\nz = torch.ones(2, 3) as [2 E]\n")
    outcome = notebook.cell("w = x + z\n")
    assert codes(outcome) == ["E0404"]
    assert outcome.source.position(outcome.diagnostics[0].span.start).line == 2


def test_a_cell_with_errors_runs_nothing_and_changes_nothing() -> None:
    notebook = Notebook()
    notebook.cell("devices cpu\ndim D = 4\nx = torch.ones(2, 4) as [2 D]\n")
    before = notebook.namespace["x"]
    outcome = notebook.cell("x = x * 3\ny = nowhere + 1\n")
    assert codes(outcome) == ["E0301"] and not outcome.ran
    assert notebook.namespace["x"] is before
    assert "y" not in notebook.namespace


def test_the_latest_declaration_wins() -> None:
    notebook = Notebook()
    notebook.cell("devices cpu\ndim D = 4\nfn f(a: [D]) -> [D] = a + 1\n")
    notebook.cell("fn f(a: [D]) -> [D] = a + 10\n")
    outcome = notebook.cell("f(torch.zeros(4) as [D])\n")
    assert outcome.shown.tolist() == [10.0] * 4


def test_a_rerun_cell_replaces_its_earlier_declarations() -> None:
    notebook = Notebook()
    notebook.cell("devices cpu\n")
    notebook.cell("dim D = 4\nfn g(a: [D]) -> [D] = a\n", cell_id="a")
    notebook.cell("dim D = 4\n", cell_id="a")
    assert codes(notebook.cell("h = g\n")) == ["E0301"]


def test_values_first_bound_in_a_block_are_python_values_later() -> None:
    notebook = Notebook()
    notebook.cell("devices cpu\ndim D = 4\nx = torch.ones(4) as [D]\n")
    outcome = notebook.cell("for i in 0..2:\n    q = x + 1\n")
    assert outcome.ran and "q" in notebook.namespace and "q" not in notebook.session.made
    assert notebook.cell("r = q * 2\n").ran


def test_a_cell_ending_with_a_tensor_shows_it_with_its_type() -> None:
    notebook = Notebook()
    notebook.cell("devices cpu\ndim D = 4\n")
    outcome = notebook.cell("x = torch.ones(2, 4) as [2 D]\nx * 2\n")
    assert outcome.has_shown and outcome.shown.tolist() == [[2.0] * 4] * 2
    from shapescript.check.algebra.types import format_type

    assert format_type(outcome.shown_type) == "[2 D]"


def test_python_code_that_assigns_a_value_puts_it_out_of_date() -> None:
    notebook = Notebook()
    notebook.cell("devices cpu\ndim D = 4\nx = torch.ones(4) as [D]\n")
    notebook.namespace["x"] = torch.zeros(3)
    outcome = notebook.cell("y = x + 1\n")
    assert codes(outcome) == ["E0701"]
    assert outcome.diagnostics[0].message == "`x` is out of date; run [1] again to use this"


def test_a_run_time_error_names_the_cell_and_its_line() -> None:
    notebook = Notebook()
    notebook.cell("devices cpu\ndim D = 4\n")
    with pytest.raises(Exception) as raised:
        notebook.cell("a = torch.ones(4) as [D]\nb = torch.ones(3, 5) as [2 D]\n")
    error = raised.value
    assert (error.path, error.line) == ("<cell 2>", 3)
    assert str(error).startswith("<cell 2>:3:5: `as` expected shape (2, 4), got (3, 5)")
    assert "a" not in notebook.namespace
    last = traceback.extract_tb(error.__traceback__)
    assert any(
        (frame.filename, frame.lineno, frame.name) == ("<cell 2>", 3, "In [2]") for frame in last
    )


def test_a_model_made_in_one_cell_is_used_in_another() -> None:
    notebook = Notebook()
    notebook.cell("devices cpu\ndim D = 4\nx = torch.ones(4) as [D]\n")
    made = notebook.cell(
        "model Lin:\n    param w: [D D] = normal(0, 1)\n\n"
        "fn fwd(m: Lin, v: [D]) -> [D] = m.w @ v\nlin = Lin.init(seed=0)\n"
    )
    assert made.ran and notebook.session.made["lin"].type_text == "Lin"
    used = notebook.cell("y = fwd(lin, x)\ny\n")
    assert used.ran and used.shown.shape == (4,)


def test_a_model_whose_fields_changed_shape_is_out_of_date() -> None:
    notebook = Notebook()
    notebook.cell("devices cpu\ndim D = 4\n")
    notebook.cell(
        "model Lin:\n    param w: [D D] = normal(0, 1)\n\nfn fwd(m: Lin) -> [D D] = m.w\n"
        "lin = Lin.init(seed=0)\n"
    )
    notebook.cell("dim D = 8\n")
    outcome = notebook.cell("w = fwd(lin)\n")
    assert [diag.message for diag in outcome.diagnostics] == [
        "`fwd` is out of date; run [2] again to use this",
        "`lin` is out of date; run [2] again to use this",
    ]
    assert outcome.diagnostics[0].notes == ["`fwd` is out of date: `D` has changed since [2] ran"]


def test_without_devices_cells_run_until_one_needs_a_device() -> None:
    from shapescript.rt import DeviceError, devices

    devices._reset_for_tests()
    try:
        notebook = Notebook()
        notebook.cell("dim D = 4\nfn g(a: [D]) -> [D] = a + 1\n")
        shown = notebook.cell("x = torch.ones(4) as [D]\ny = x * 2\ny\n")
        assert shown.ran and shown.shown.tolist() == [2.0] * 4
        assert notebook.cell("for i in 0..2:\n    q = x + y\n").ran
        with pytest.raises(DeviceError) as raised:
            notebook.cell("z = g(x)\n")
        assert "a `devices cpu` line in a %%shapescript cell" in str(raised.value)
        assert notebook.cell("devices cpu\n").ran
        assert notebook.cell("z = g(x)\nz\n").shown.tolist() == [2.0] * 4
    finally:
        devices._reset_for_tests()


def test_a_cell_s_assert_is_decided_or_checked_when_the_cell_runs() -> None:
    notebook = Notebook()
    assert codes(notebook.cell("devices cpu\ndim D = 4\nassert D >= 2\n")) == []
    assert codes(notebook.cell("k = 3\nassert D + 1 <= D\n")) == ["E3501"]
    ran = notebook.cell("m = 2\nassert m < D\nz = m + 1\n")
    assert codes(ran) == [] and ran.ran and notebook.namespace["z"] == 3
