"""The language server through real Neovim (0.7+), driven by `nvim_lsp_probe.py`.

The probe (shared/clients, or `$SHAPESCRIPT_CLIENTS`) runs `nvim --headless --clean`, starts
the server with Neovim's own LSP client (`vim.lsp.start_client` + `buf_attach_client`), runs
scripted steps and prints one JSON object. Each document gets one probe run (about a second);
the tests below read that JSON.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shapescript.diagnostics.pages import page_location
from tests.e2e.clients import clients_dir

REPO = Path(__file__).resolve().parents[2]
CLIENTS = clients_dir()
PROBE = CLIENTS / "nvim_lsp_probe.py"
NVIM = os.environ.get("NVIM_BIN", "nvim")
SERVER_CMD = shlex.join([sys.executable, "-m", "shapescript_lsp"])

pytestmark = [
    pytest.mark.skipif(
        shutil.which(NVIM) is None, reason=f"Neovim ({NVIM}) not found: apt-get install -y neovim"
    ),
    pytest.mark.skipif(
        not PROBE.is_file(),
        reason=f"no nvim_lsp_probe.py in {CLIENTS} (set SHAPESCRIPT_CLIENTS to its folder)",
    ),
]

# What a user types in the middle of `causal_attention`: a call whose `over=` is still empty.
TYPED = "s = softmax(x, over="

ATTENTION_STEPS = [
    {"op": "diagnostics", "name": "open"},
    {"op": "hover", "name": "hover x", "find": "x @ w_qkv"},
    {
        "op": "definition",
        "name": "definition of a call",
        "find": "causal_attention(x,",
        "jump": True,
    },
    {"op": "definition", "name": "definition of softmax", "find": "softmax(over=m)", "jump": True},
    {
        "op": "signature_help",
        "name": "signature help in softmax",
        "find": "softmax(over=m)",
        "offset": len("softmax(over="),
    },
    {"op": "hover", "name": "hover sqrt", "find": "sqrt(Dh)"},
    {"op": "definition", "name": "definition of sqrt", "find": "sqrt(Dh)", "jump": True},
    {
        "op": "completion",
        "name": "complete in a comment",
        "find": "# Each query against",
        "offset": len("# Each query "),
        "trigger_character": " ",
    },
    {"op": "inlay_hint", "name": "inlay hints", "force": True},
    {
        "op": "request",
        "name": "references",
        "method": "textDocument/references",
        "find": "causal_attention(x,",
        "params": {"context": {"includeDeclaration": True}},
    },
    {
        "op": "request",
        "name": "document highlight",
        "method": "textDocument/documentHighlight",
        "find": "softmax(over=m)",
        "offset": len("softmax(over="),
    },
    {"op": "request", "name": "folding ranges", "method": "textDocument/foldingRange"},
    {
        "op": "request",
        "name": "selection ranges",
        "method": "textDocument/selectionRange",
        "params": {"positions": [{"line": 20, "character": 5}]},
    },
    {
        "op": "edit",
        "name": "type a call",
        "find": "|> softmax(over=m)",
        "text": "|> softmax(over=m)\n    " + TYPED,
    },
    {"op": "completion", "name": "complete over=", "find": TYPED, "offset": len(TYPED)},
    {
        "op": "completion",
        "name": "complete over= on trigger",
        "find": TYPED,
        "offset": len(TYPED),
        "trigger_character": "=",
    },
    {
        "op": "signature_help",
        "name": "signature help while typing",
        "find": TYPED,
        "offset": len(TYPED),
    },
    {"op": "edit", "name": "finish the call", "find": TYPED, "text": "s = softmax(x, over=D)"},
    {
        "op": "edit",
        "name": "break the return type",
        "find": "|> matmul(w_o)",
        "text": "|> matmul(w_qkv)",
    },
    {"op": "diagnostics", "name": "diagnostics after the error"},
]

BROKEN = "fn f(x: [n D], y: [k D]) = x + y\n"
BROKEN_STEPS = [
    {"op": "diagnostics", "name": "open"},
    {"op": "edit", "name": "fix", "find": "y: [k D]", "text": "y: [n D]"},
]


class Run:
    """One probe run: the report, the document it opened and the library folder."""

    def __init__(self, report: dict, file: Path, library: Path) -> None:
        self.report = report
        self.file = file
        self.library = library
        self.steps = {step.get("name"): step for step in report.get("steps", [])}

    def step(self, name: str) -> dict:
        assert name in self.steps, f"no step {name!r}: {self.report.get('summary')}"
        step = self.steps[name]
        assert step.get("ok"), f"step {name!r} failed: {step.get('error')}\n{self.context()}"
        return step

    def context(self) -> str:
        return json.dumps(
            {key: self.report.get(key) for key in ("error", "summary", "server_stderr_tail")},
            indent=1,
        )


def probe(folder: Path, name: str, text: str, steps: list[dict]) -> Run:
    # The library folder lies outside the document's folder (the workspace root), as the
    # default one in the user's cache does.
    (folder / "work").mkdir(parents=True, exist_ok=True)
    file = (folder / "work" / name).resolve()
    file.write_text(text, encoding="utf-8")
    library = (folder / "library").resolve()
    process = subprocess.run(
        [
            sys.executable,
            str(PROBE),
            "--server-cmd",
            SERVER_CMD,
            "--nvim",
            NVIM,
            "--file",
            str(file),
            "--init-options",
            json.dumps({"libraryDir": str(library)}),
            "--steps-json",
            json.dumps(steps),
            "--compact",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert process.returncode in (0, 1), (
        f"the probe could not run (exit {process.returncode}):\n"
        f"{process.stdout[-3000:]}\n{process.stderr[-3000:]}"
    )
    return Run(json.loads(process.stdout), file, library)


def line_of(text: str, needle: str) -> int:
    """0-based line of the first occurrence of `needle`."""
    return text[: text.index(needle)].count("\n")


@pytest.fixture(scope="module")
def attention(tmp_path_factory) -> Run:
    text = (REPO / "examples" / "attention.ss").read_text(encoding="utf-8")
    return probe(tmp_path_factory.mktemp("nvim-attention"), "attention.ss", text, ATTENTION_STEPS)


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Run:
    return probe(tmp_path_factory.mktemp("nvim-broken"), "broken.ss", BROKEN, BROKEN_STEPS)


# ---------------------------------------------------------------------- the clean example


def test_every_step_passes_and_the_server_shuts_down_cleanly(attention: Run, broken: Run):
    for run in (attention, broken):
        report = run.report
        assert report["error"] is None, run.context()
        assert report["ok"], run.context()
        assert report["document"]["filetype"] == "shapescript"
        assert report["shutdown"]["ok"], report["shutdown"]
        exit_ = report["server_exit"]
        assert (exit_["code"], exit_["signal"]) == (0, 0), exit_


def test_opening_a_file_writes_no_python_module_beside_it(attention: Run):
    """Writing `attention.py` is opt-in (`pythonModules`), and the probe doesn't ask: after
    the whole session, with the server gone, the folder holds the `.ss` file alone."""
    assert attention.report["server_exit"]["code"] == 0, attention.context()
    assert sorted(path.name for path in attention.file.parent.iterdir()) == ["attention.ss"]


def test_clean_file_has_no_diagnostics(attention: Run):
    step = attention.step("open")
    assert step["count"] == 0, step["result"]
    assert step["nvim_view"] == []


def test_document_highlight_folding_and_selection_answer(attention: Run):
    """`vim.lsp.buf.document_highlight` and friends: no Method Not Found."""
    text = attention.file.read_text(encoding="utf-8")
    lit = attention.step("document highlight")["result"]
    lines = [text.splitlines()[spot["range"]["start"]["line"]] for spot in lit]
    assert len(lit) == 6, lit
    assert any("softmax(over=m)" in line for line in lines)
    assert any("causal[n m]" in line for line in lines)
    starts = {fold["startLine"] for fold in attention.step("folding ranges")["result"]}
    assert line_of(text, "fn causal_attention(") in starts
    assert line_of(text, "model Attention") in starts
    (chain,) = attention.step("selection ranges")["result"]
    assert chain["range"]["start"] == {"line": 20, "character": 4}
    assert "parent" in chain


def test_hover_shows_the_type_and_a_text_drawing(attention: Run):
    text = attention.step("hover x")["text"]
    assert "x: [b n D]" in text
    assert "```text" in text
    assert "┌" in text and "┘" in text, text
    assert "D = 768" in text, text
    assert "data:image" not in text and "![" not in text, text


def test_definition_of_a_call_lands_on_the_declaration(attention: Run):
    step = attention.step("definition of a call")
    text = attention.file.read_text(encoding="utf-8")
    declaration = line_of(text, "fn causal_attention(")
    (location,) = step["locations"]
    assert location["uri"] == attention.file.as_uri()
    assert location["range"]["start"]["line"] == declaration
    assert step["jumped_to"]["file"] == str(attention.file)
    assert step["jumped_to"]["line"] == declaration


def test_definition_of_softmax_lands_in_builtins(attention: Run):
    step = attention.step("definition of softmax")
    builtins = attention.library / "builtins.ss"
    (location,) = step["locations"]
    assert location["uri"] == builtins.as_uri()
    line = builtins.read_text(encoding="utf-8").splitlines()[location["range"]["start"]["line"]]
    assert line.startswith("fn softmax("), line
    assert step["jumped_to"]["file"] == str(builtins)
    assert step["jumped_to"]["line"] == location["range"]["start"]["line"]


def test_hover_on_a_prelude_function_shows_its_signature(attention: Run):
    text = attention.step("hover sqrt")["text"]
    assert "sqrt(x: Real) -> NonNeg" in text, text


def test_definition_of_a_prelude_function_lands_in_prelude(attention: Run):
    step = attention.step("definition of sqrt")
    prelude = attention.library / "prelude.ss"
    (location,) = step["locations"]
    assert location["uri"] == prelude.as_uri()
    line = prelude.read_text(encoding="utf-8").splitlines()[location["range"]["start"]["line"]]
    assert line.startswith("extern fn sqrt("), (location["range"], line)
    assert step["jumped_to"]["file"] == str(prelude)


def test_completion_offers_nothing_inside_a_comment(attention: Run):
    # " " is one of the server's trigger characters, so an editor asks after each space.
    step = attention.step("complete in a comment")
    assert step["labels"] == [], f"{step['count']} items: {step['labels'][:10]}"


def test_signature_help_marks_the_over_parameter(attention: Run):
    for name in ("signature help in softmax", "signature help while typing"):
        step = attention.step(name)
        (label,) = step["labels"]
        assert label.startswith("fn softmax("), label
        assert step["active_signature"] == 0
        assert step["active_parameter"] == 1, (name, step["result"])


def test_inlay_hints_end_each_pipe_line_with_its_shape(attention: Run):
    assert attention.report["initialize"]["capabilities"].get("inlayHintProvider")
    step = attention.step("inlay hints")
    text = attention.file.read_text(encoding="utf-8")
    lines = text.splitlines()
    # Two kinds: a pipe line's shape at the end of the line, and a bound name's type
    # right after the name.
    pipe = [hint for hint in step["hints"] if hint["character"] == len(lines[hint["line"]])]
    bound = [hint for hint in step["hints"] if hint not in pipe]
    named = {
        (lines[hint["line"]][: hint["character"]].split()[-1].rstrip(","), hint["label"])
        for hint in bound
    }
    assert named == {
        ("q", ": [b H n Dh]"),
        ("k", ": [b H n Dh]"),
        ("v", ": [b H n Dh]"),
        ("att", ": [b H n m] Prob over m"),
    }, bound
    labels = {hint["line"]: hint["label"] for hint in pipe}
    assert len(labels) == len(pipe), pipe
    rearranged = line_of(text, "|> rearrange(")
    assert labels.pop(rearranged) == ": [b n (H Dh)]"
    assert labels == {
        line_of(text, "q, k, v = "): ": ([b H n Dh], [b H n Dh], [b H n Dh])",
        line_of(text, "|> masked_fill("): ": [b H n m]",
        line_of(text, "|> softmax(over=m)"): ": [b H n m] Prob over m",
        line_of(text, "|> matmul(w_o)"): ": [b n D]",
    }
    for hint in step["hints"]:
        assert hint["kind"] == 1


def test_references_find_the_declaration_and_the_call(attention: Run):
    result = attention.step("references")["result"]
    text = attention.file.read_text(encoding="utf-8")
    assert {location["uri"] for location in result} == {attention.file.as_uri()}
    assert sorted(location["range"]["start"]["line"] for location in result) == [
        line_of(text, "fn causal_attention("),
        line_of(text, "= causal_attention(x,"),
    ]


def test_completion_after_over_lists_exactly_the_operands_axes(attention: Run):
    attention.step("type a call")
    for name in ("complete over=", "complete over= on trigger"):
        step = attention.step(name)
        assert sorted(step["labels"]) == ["D", "b", "n"], (name, step["labels"])
        assert sorted(step["nvim_menu"]) == ["D", "b", "n"], (name, step["nvim_menu"])


def test_finishing_the_call_leaves_no_diagnostics(attention: Run):
    step = attention.step("finish the call")
    assert step["diagnostics_count"] == 0, step["diagnostics"]


def test_an_edit_that_breaks_the_return_type_shows_one_error(attention: Run):
    edit = attention.step("break the return type")
    after = attention.step("diagnostics after the error")
    assert edit["diagnostics_version"] == edit["buffer_version"]
    (diagnostic,) = edit["diagnostics"]
    assert diagnostic["code"] == "E0401"
    assert diagnostic["severity"] == 1
    # The buffer now has the typed line above the return, so count from the original text.
    text = attention.file.read_text(encoding="utf-8")
    start = line_of(text, "return einsum(att") + 1
    end = line_of(text, "|> matmul(w_o)") + 1
    assert diagnostic["range"]["start"]["line"] == start
    assert diagnostic["range"]["end"]["line"] == end
    (shown,) = after["nvim_view"]
    assert (shown["code"], shown["severity"], shown["lnum"]) == ("E0401", "ERROR", start)


# ---------------------------------------------------------------------- a file with one error


def test_broken_file_has_exactly_one_diagnostic(broken: Run):
    step = broken.step("open")
    (diagnostic,) = step["result"]
    assert diagnostic["code"] == "E0404"
    assert diagnostic["severity"] == 1
    assert diagnostic["source"] == "shapescript"
    assert diagnostic["codeDescription"]["href"] == page_location("E0404").as_uri()
    assert diagnostic["range"]["start"] == {"line": 0, "character": BROKEN.index("+")}
    (shown,) = step["nvim_view"]
    assert (shown["code"], shown["severity"], shown["lnum"]) == ("E0404", "ERROR", 0)


def test_fixing_the_error_clears_the_diagnostic(broken: Run):
    step = broken.step("fix")
    assert step["diagnostics_count"] == 0, step["diagnostics"]
    assert step["nvim_view"] == []


# ---------------------------------------------------------------------- across files

TRAINER = """\
import train_mlp

## The README model's loss on a batch, from another file.
fn batch_loss(m: train_mlp.Mlp, batch: [b] train_mlp.Digit) -> []:
    return train_mlp.loss(m, batch, Eval)
"""

TRAINER_STEPS = [
    {"op": "diagnostics", "name": "open"},
    {"op": "definition", "name": "definition of the other file's fn", "find": "loss(m, batch"},
    {"op": "hover", "name": "hover the other file's model", "find": "Mlp, batch"},
    {
        "op": "edit",
        "name": "type a field read",
        "find": "return train_mlp.loss(m, batch, Eval)",
        "text": "return train_mlp.loss(m, batch, Eval) + mean(batch.",
        "wait_diagnostics": False,
    },
    {
        "op": "completion",
        "name": "complete a batch field",
        "find": "mean(batch.",
        "offset": len("mean(batch."),
        "trigger_character": ".",
    },
    {
        "op": "edit",
        "name": "misspell the import",
        "find": "import train_mlp",
        "text": "import train_mpl",
    },
]


@pytest.fixture(scope="module")
def trainer(tmp_path_factory) -> Run:
    folder = tmp_path_factory.mktemp("nvim-imports")
    (folder / "work").mkdir()
    example = (REPO / "examples" / "train_mlp.ss").read_text(encoding="utf-8")
    (folder / "work" / "train_mlp.ss").write_text(example, encoding="utf-8")
    return probe(folder, "trainer.ss", TRAINER, TRAINER_STEPS)


def test_a_file_that_imports_another_checks_clean_and_follows_it(trainer: Run):
    assert trainer.step("open")["count"] == 0, trainer.step("open")
    locations = trainer.step("definition of the other file's fn")["locations"]
    assert len(locations) == 1
    assert locations[0]["uri"].endswith("/work/train_mlp.ss")
    example = (REPO / "examples" / "train_mlp.ss").read_text(encoding="utf-8")
    assert locations[0]["range"]["start"]["line"] == line_of(example, "fn loss(")
    hover = trainer.step("hover the other file's model")["text"]
    assert "A two-layer classifier." in hover
    labels = trainer.step("complete a batch field")["labels"]
    assert {"img", "label"} <= set(labels), labels


def test_a_missing_import_is_reported_at_the_import_line(trainer: Run):
    diagnostics = trainer.step("misspell the import")["diagnostics"]
    codes = {(d.get("code"), d["range"]["start"]["line"]) for d in diagnostics}
    assert ("E2301", 0) in codes, diagnostics


# ---------------------------------------------------------------------- pictures as text

PICTURES = """\
dim D = 8
dim H = 2
dim Dh = D / H

## A smooth gate of one number.
fn act(x: [b n D]) -> [b n D] = x * sigmoid(1.702 * x)

fn heads(x: [b n (H Dh)], img: [b 3 16 16]) -> [b n (H Dh)]:
    y = x * 2.0
    g = y |> act
    p = img |> rearrange(b c (h p1) (w p2) -> b (h w) (p1 p2 c), p1=4, p2=4)
    return g
"""
PICTURES_STEPS = [
    {"op": "diagnostics", "name": "open"},
    {"op": "hover", "name": "hover a grouped tensor", "find": "y = x"},
    {"op": "hover", "name": "hover an activation", "find": "|> act", "offset": 4},
    {"op": "hover", "name": "hover a patchify", "find": "-> b (h w)"},
]
BRAILLE = range(0x2801, 0x2900)


@pytest.fixture(scope="module")
def pictures(tmp_path_factory) -> Run:
    return probe(tmp_path_factory.mktemp("nvim-pictures"), "pictures.ss", PICTURES, PICTURES_STEPS)


def test_a_tensor_hover_draws_its_sizes_and_groups_as_text(pictures: Run):
    assert pictures.step("open")["count"] == 0
    text = pictures.step("hover a grouped tensor")["text"]
    assert "y: [b n (H Dh)]" in text, text
    assert "data:image" not in text and "![" not in text, text
    drawing = text.split("```text\n", 1)[1].split("```", 1)[0]
    lines = drawing.splitlines()
    assert lines[0] == "(H Dh) = 2×4 = 8", drawing
    # The columns are H = 2 blocks: one ┬ in the top edge, one │ between them in each row.
    assert lines[1].startswith("┌") and lines[1].count("┬") == 1, drawing
    assert lines[2].count("│") == 3 and lines[2].endswith(" n"), drawing
    assert "(H Dh): H = 2 blocks of Dh = 4" in drawing
    assert "stack of b grids" in drawing


def test_an_activation_hover_plots_its_curve_in_braille(pictures: Run):
    text = pictures.step("hover an activation")["text"]
    assert "data:image" not in text, text
    plot = text.split("```text\n")[-1].split("```", 1)[0]
    dots = [char for char in plot if ord(char) in BRAILLE]
    assert len(dots) >= 20, plot
    assert len(set(dots)) >= 5, plot  # a curve, not one row of the same dots
    assert "`act(x) = x · σ(1.702 · x)`" in text, text
    assert "dashed: its derivative" in plot, plot


def test_a_pattern_hover_draws_before_and_after_as_text(pictures: Run):
    text = pictures.step("hover a patchify")["text"]
    assert "[b 3 16 16]  →  [b (h w) (p1 p2 c)]" in text, text
    assert "data:image" not in text, text
    assert "│▒▒│  │  │  │ (h p1) = 4×4 = 16  →" in text, text
    assert "h = 4   axis 3, outer of (h p1)  →  axis 2, outer of (h w)" in text, text
