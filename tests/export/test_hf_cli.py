"""`shapescript export --hf`'s checks, before any folder is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import shapescript
from shapescript import cli
from shapescript.analysis import check
from shapescript.export.hf import serving_form
from shapescript.syntax.source import SourceFile
from tests.export.programs import ENCODER, MODEL_SECOND

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_a_function_without_the_model_first_is_e3306(capsys: pytest.CaptureFixture[str]) -> None:
    Path("asr.ss").write_text(MODEL_SECOND)
    assert cli.main(["export", "asr.ss", "--fn", "transcribe", "--hf", "asr_hf"]) == 1
    err = capsys.readouterr().err
    assert "error[E3306]" in err and "asr.ss:6:15" in err
    assert not Path("asr_hf").exists()


def test_another_parameter_without_a_shape_is_e1705(capsys: pytest.CaptureFixture[str]) -> None:
    Path("k.ss").write_text(ENCODER.replace("x: [b t D])", "x: [b t D], k: int)"))
    assert cli.main(["export", "k.ss", "--hf", "k_hf"]) == 1
    assert "error[E1705]" in capsys.readouterr().err


def test_someone_elses_folder_is_never_replaced(capsys: pytest.CaptureFixture[str]) -> None:
    Path("enc.ss").write_text(ENCODER)
    Path("theirs").mkdir()
    (Path("theirs") / "config.json").write_text(json.dumps({"model_type": "bert"}))
    assert cli.main(["export", "enc.ss", "--hf", "theirs", "--no-verify"]) == 1
    assert "didn't write it" in capsys.readouterr().err
    assert json.loads((Path("theirs") / "config.json").read_text()) == {"model_type": "bert"}


def test_a_forward_that_isnt_a_language_models_is_a_note_or_with_vllm_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path("enc.ss").write_text(ENCODER)
    assert cli.main(["export", "enc.ss", "--hf", "enc_hf", "--vllm"]) == 1
    assert "error[E3301]" in capsys.readouterr().err


GPT2 = (ROOT / "examples" / "gpt2.ss").read_text()

#: The gpt2 example broken one rule at a time: (code, line, old text, new text).
BROKEN = [
    (
        "E3301",
        62,
        "pos: [b n] Index[P]) -> [b n V]",
        "pos: [b n] Index[P], shift: [D]) -> [b n V]",
    ),
    ("E3302", 66, "|> linear(m.wte)\n", "|> linear(m.wte) |> tanh\n"),
    (
        "E3303",
        63,
        "embedding(ids, m.wte) + embedding(pos, m.wpe)",
        "embedding(ids, m.wte) + embedding(pos, m.wpe) + mean(m.wte, over=V)",
    ),
    (
        "E3304",
        49,
        "    return scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])\n",
        "    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)\n"
        "        |> masked_fill(!causal[n m], -inf)\n"
        "        |> softmax(over=m)\n"
        "    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)\n",
    ),
    (
        "E3305",
        62,
        "    h = x + attention(m, layer_norm(x, over=D, weight=m.ln1_w[l], bias=m.ln1_b[l], "
        "eps=1e-5), l)\n",
        "    h = x\n",
    ),
]

#: Attention written by hand breaks E3304 three times: the mask, the softmax over keys and
#: the contraction of the keys' axis each work across the sequence.
COUNTS = {"E3304": 3}

#: Work across the sequence anywhere the forward function passes n: (line, old, new).
ACROSS = [
    (58, "    h = x + attention(", "    h = softmax(x, over=n) + attention("),
    (43, "    return 0.5 * x *", "    return einsum(x, x: b n F, b m F -> b n F) * x *"),
    (
        54,
        "    return linear(x, m.w_fc[l], m.b_fc[l]) |>",
        "    t = n |> map(i => i to f32)\n"
        "    return linear(x * rearrange(t, n -> 1 n 1), m.w_fc[l], m.b_fc[l]) |>",
    ),
    (
        54,
        "    return linear(x, m.w_fc[l], m.b_fc[l]) |>",
        "    g = rearrange(x, b n D -> b D n) @ x\n"
        "    return linear(x @ g, m.w_fc[l], m.b_fc[l]) |>",
    ),
]


@pytest.mark.parametrize(
    ("line", "old", "new"), ACROSS, ids=["softmax", "einsum", "positions", "matmul"]
)
def test_work_across_n_in_a_called_function_is_e3304(
    line: int, old: str, new: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert old in GPT2
    Path("lm.ss").write_text(GPT2.replace(old, new))
    assert cli.main(["check", "lm.ss"]) == 0
    capsys.readouterr()
    assert cli.main(["export", "lm.ss", "--hf", "lm_hf", "--vllm"]) == 1
    err = capsys.readouterr().err
    assert err.count("error[E3304]") == err.count("error[") == 1 and f"lm.ss:{line}:" in err


def test_work_across_features_is_not_e3304(capsys: pytest.CaptureFixture[str]) -> None:
    old = "    h = x + attention("
    Path("lm.ss").write_text(GPT2.replace(old, "    h = softmax(x, over=D) + attention("))
    assert cli.main(["export", "lm.ss", "--hf", "lm_hf", "--vllm", "--no-verify"]) == 0
    assert "E3304" not in capsys.readouterr().err


@pytest.mark.parametrize("example", ["gpt2", "llama"])
def test_the_examples_keep_the_serving_rules(example: str) -> None:
    from shapescript.export.serving import serving_diagnostics

    text = (ROOT / "examples" / f"{example}.ss").read_text()
    checked = check(SourceFile.from_text(f"{example}.ss", text))
    assert serving_diagnostics(checked, "forward") == []


@pytest.mark.parametrize(("code", "line", "old", "new"), BROKEN, ids=[case[0] for case in BROKEN])
def test_each_serving_rule_is_an_error_with_vllm_and_gguf(
    code: str, line: int, old: str, new: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert old in GPT2
    Path("lm.ss").write_text(GPT2.replace(old, new))
    assert cli.main(["check", "lm.ss"]) == 0
    capsys.readouterr()
    for target in (["--hf", "lm_hf", "--vllm"], ["--gguf", "lm.gguf"]):
        assert cli.main(["export", "lm.ss", *target]) == 1
        err = capsys.readouterr().err
        assert f"error[{code}]" in err and f"lm.ss:{line}:" in err
        assert err.count("error[") == err.count(f"error[{code}]") == COUNTS.get(code, 1)
    assert not Path("lm_hf").exists() and not Path("lm.gguf").exists()


def test_the_gpt2_example_has_the_serving_form() -> None:
    text = (ROOT / "examples" / "gpt2.ss").read_text()
    checked = check(SourceFile.from_text("gpt2.ss", text))
    assert serving_form(checked, "forward") == (True, None, "V")


#: gpt2's forward with its positions computed from n: a slice of the table by the length.
POSITIONS_FROM_N = GPT2.replace(
    "fn forward(m: Gpt2, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:\n"
    "    x = embedding(ids, m.wte) + embedding(pos, m.wpe)\n",
    "fn forward(m: Gpt2, ids: [b n] Index[V]) -> [b n V] Logit over V:\n"
    "    x = embedding(ids, m.wte) + m.wpe[0:n] as [n D]\n",
)


def test_positions_sliced_by_n_are_e3304_with_vllm_and_gguf(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert POSITIONS_FROM_N != GPT2
    Path("lm.ss").write_text(POSITIONS_FROM_N)
    assert cli.main(["check", "lm.ss"]) == 0
    capsys.readouterr()
    for target in (["--hf", "lm_hf", "--vllm"], ["--gguf", "lm.gguf"]):
        assert cli.main(["export", "lm.ss", *target]) == 1
        err = capsys.readouterr().err
        assert "error[E3304]" in err and "lm.ss:63:" in err and "`n`" in err
        assert err.count("error[") == 1
    assert not Path("lm_hf").exists() and not Path("lm.gguf").exists()


#: gpt2's forward with positions made by `positions(n)` and looked up in the table.
POSITIONS_MADE = POSITIONS_FROM_N.replace(
    "m.wpe[0:n] as [n D]\n", "m.wpe[positions(n) as [n] Index[P]]\n"
)


def test_positions_made_from_n_are_e3304_with_vllm_and_gguf(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert POSITIONS_MADE != POSITIONS_FROM_N
    Path("lm.ss").write_text(POSITIONS_MADE)
    assert cli.main(["check", "lm.ss"]) == 0
    capsys.readouterr()
    for target in (["--hf", "lm_hf", "--vllm"], ["--gguf", "lm.gguf"]):
        assert cli.main(["export", "lm.ss", *target]) == 1
        err = capsys.readouterr().err
        assert "error[E3304]" in err and "lm.ss:63:" in err and "positions computed from `n`" in err
    assert not Path("lm_hf").exists() and not Path("lm.gguf").exists()
    # Without --vllm the folder is written, unservable, with the table's 128 positions.
    assert cli.main(["export", "lm.ss", "--hf", "lm_hf", "--no-verify"]) == 0
    config = json.loads(Path("lm_hf/config.json").read_text())
    assert config["shapescript"]["vllm"] is False
    assert config["max_position_embeddings"] == 128


def test_positions_sliced_by_n_are_never_reported_servable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path("lm.ss").write_text(POSITIONS_FROM_N)
    assert cli.main(["export", "lm.ss", "--hf", "lm_hf", "--no-verify"]) == 0
    assert "note: [E3304]" in capsys.readouterr().err
    config = json.loads(Path("lm_hf/config.json").read_text())
    assert config["shapescript"]["vllm"] is False
    assert config["shapescript"]["unservable"].startswith("E3304")
    # The table has P = 128 rows: that many positions, not a made-up number.
    assert config["max_position_embeddings"] == 128


def test_a_forward_without_any_positions_claims_no_position_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    no_positions = POSITIONS_FROM_N.replace(" + m.wpe[0:n] as [n D]\n", "\n")
    Path("lm.ss").write_text(no_positions)
    assert cli.main(["export", "lm.ss", "--hf", "lm_hf", "--no-verify"]) == 0
    config = json.loads(Path("lm_hf/config.json").read_text())
    assert "max_position_embeddings" not in config
    assert cli.main(["export", "lm.ss", "--hf", "lm_hf", "--no-verify", "--max-len", "64"]) == 0
    assert json.loads(Path("lm_hf/config.json").read_text())["max_position_embeddings"] == 64


def test_gguf_of_a_forward_without_positions_is_e3307(capsys: pytest.CaptureFixture[str]) -> None:
    no_positions = POSITIONS_FROM_N.replace(" + m.wpe[0:n] as [n D]\n", "\n")
    Path("lm.ss").write_text(no_positions)
    assert cli.main(["export", "lm.ss", "--gguf", "lm.gguf"]) == 1
    err = capsys.readouterr().err
    assert "error[E3307]" in err and "lm.ss:62:" in err and "internal error" not in err
    assert err.count("error[") == 1
    assert not Path("lm.gguf").exists()
    from shapescript.rt.errors import ShapeScriptError

    with pytest.raises(ShapeScriptError, match="E3307"):
        shapescript.export_gguf("lm.ss", "lm.gguf")


def test_weights_may_be_a_model_of_the_same_source_imported_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib
    import sys

    import torch
    from safetensors.torch import load_file

    from shapescript.rt import devices, hook

    Path("nanogpt.ss").write_text(GPT2)
    monkeypatch.syspath_prepend(str(Path.cwd()))
    devices._reset_for_tests()
    hook.install()
    try:
        shapescript.devices("cpu")
        nanogpt = importlib.import_module("nanogpt")
        model = nanogpt.Gpt2.init(seed=5)
        shapescript.export_hf("nanogpt.ss", "out_hf", weights=model, verify=False)
        stored = load_file("out_hf/model.safetensors")
        torch.testing.assert_close(stored["model.embed_tokens.weight"], model.wte.detach())
        torch.testing.assert_close(stored["model.w_fc"], model.w_fc.detach())
        other = shapescript.compile("dim D = 4\nmodel Gpt2:\n    param w: [D] = zeros\n", "x.ss")
        with pytest.raises(ValueError, match="`Gpt2`.*fields"):
            shapescript.export_hf(
                "nanogpt.ss", "out_hf", weights=other.Gpt2.init(seed=0), verify=False
            )
        with pytest.raises(ValueError, match="weights is a checkpoint's path or a model"):
            shapescript.export_hf("nanogpt.ss", "out_hf", weights=3, verify=False)
    finally:
        hook.uninstall()
        sys.modules.pop("nanogpt", None)
        devices._reset_for_tests()


def test_export_hf_from_python_warns_of_each_serving_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from shapescript.export.hf import ServingWarning, export_hf

    Path("lm.ss").write_text(POSITIONS_FROM_N)
    with pytest.warns(ServingWarning, match=r"lm\.ss:63: \[E3304\].*transformers only"):
        export_hf("lm.ss", "lm_hf", verify=False)
    assert json.loads(Path("lm_hf/config.json").read_text())["shapescript"]["vllm"] is False
    # The command line prints the note with its line once, not also as a Python warning.
    assert cli.main(["export", "lm.ss", "--hf", "lm_hf2", "--no-verify"]) == 0
    err = capsys.readouterr().err
    assert err.count("[E3304]") == 1 and "ServingWarning" not in err
