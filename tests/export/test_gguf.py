"""GGUF files of the examples, read back with the gguf package, and the architecture each
is found to be."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

import shapescript
from shapescript import cli
from shapescript.export import gguf_export
from shapescript.rt import devices

gguf = pytest.importorskip("gguf")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)
    devices._reset_for_tests()
    yield
    devices._reset_for_tests()


def field_text(reader, key: str) -> str:
    found = reader.fields[key]
    return bytes(found.parts[found.data[0]]).decode()


def field_number(reader, key: str):
    found = reader.fields[key]
    return found.parts[found.data[0]][0]


@pytest.mark.parametrize(
    ("example", "arch", "count"),
    [("llama", "llama", 1 + 9 * 2 + 2), ("gpt2", "gpt2", 2 + 12 * 2 + 2)],
)
def test_the_examples_gguf_file_holds_their_weights(example: str, arch: str, count: int) -> None:
    text = (ROOT / "examples" / f"{example}.ss").read_text()
    Path(f"{example}.ss").write_text(text)
    out = f"{example}.gguf"
    assert cli.main(["export", f"{example}.ss", "--gguf", out, "--seed", "2"]) == 0
    # Found at the reference's 1e-8, in f64 throughout, and f32 is the default again after.
    assert gguf_export.AGREE == 1e-8 and torch.get_default_dtype() is torch.float32
    reader = gguf.GGUFReader(out)
    assert field_text(reader, "general.architecture") == arch
    assert field_number(reader, f"{arch}.block_count") == 2
    assert field_number(reader, f"{arch}.attention.head_count") == 4
    tensors = {tensor.name: torch.from_numpy(tensor.data.copy()) for tensor in reader.tensors}
    assert len(tensors) == count
    source = shapescript.compile(text, f"{example}.ss", devices="cpu")
    model = getattr(source, "Llama" if arch == "llama" else "Gpt2").init(seed=2)
    if arch == "llama":
        assert field_number(reader, "llama.attention.head_count_kv") == 2
        pairs = {
            "token_embd.weight": model.embed,
            "blk.1.attn_k.weight": model.w_k[1],
            "blk.0.ffn_gate.weight": model.w_gate[0],
            "output.weight": model.output,
        }
    else:
        assert "output.weight" not in tensors  # tied to the token embeddings
        pairs = {
            "position_embd.weight": model.wpe,
            "blk.1.attn_qkv.weight": model.w_qkv[1],
            "blk.0.ffn_down.bias": model.b_proj[0],
            "output_norm.bias": model.lnf_b,
        }
    for name, value in pairs.items():
        torch.testing.assert_close(tensors[name], value.detach(), atol=0, rtol=0)
    vocabulary = reader.fields["tokenizer.ggml.tokens"]
    assert bytes(vocabulary.parts[vocabulary.data[5]]).decode() == "<|5|>"
    # Without a tokenizer, prompts are ids: llama.cpp loads a "none" vocabulary without merges.
    assert field_text(reader, "tokenizer.ggml.model") == "none"


def test_a_model_that_isnt_an_architecture_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    # No pairing can agree (exact GELU isn't gpt2's tanh one): the first 100 say so as well
    # as all 2000 the search would compute, in a fraction of the suite's time.
    monkeypatch.setattr(gguf_export, "MAX_TRIES", 100)
    text = (ROOT / "examples" / "gpt2.ss").read_text()
    exact = text.replace("|> gelu_tanh |>", "|> gelu |>")
    assert exact != text
    Path("exact.ss").write_text(exact)
    with pytest.raises(ValueError, match="gpt2: the closest pairing's logits differ by") as raised:
        shapescript.export_gguf("exact.ss", "exact.gguf")
    message = str(raised.value)
    # The cause, named: the activation, and by how much the logits differ.
    assert "exact GELU" in message and "tanh" in message, message
    assert "largest logit difference" in message and "--gguf-tolerance" in message, message
    assert not Path("exact.gguf").exists()


def test_a_stated_tolerance_accepts_the_closest_pairing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(gguf_export, "MAX_TRIES", 100)
    text = (ROOT / "examples" / "gpt2.ss").read_text()
    Path("exact.ss").write_text(text.replace("|> gelu_tanh |>", "|> gelu |>"))
    with pytest.raises(ValueError, match="exact GELU"):
        shapescript.export_gguf("exact.ss", "exact.gguf", tolerance=1e-9)
    with pytest.warns(UserWarning, match="exact GELU.*accepted by the tolerance 0.01"):
        assert shapescript.export_gguf("exact.ss", "exact.gguf", tolerance=1e-2) == "gpt2"
    reader = gguf.GGUFReader("exact.gguf")
    assert field_text(reader, "general.architecture") == "gpt2"
    argv = ["export", "exact.ss", "--gguf", "cli.gguf", "--gguf-tolerance", "0.01"]
    assert cli.main(argv) == 0
    err = capsys.readouterr().err
    assert "note:" in err and "exact GELU" in err and Path("cli.gguf").is_file()


#: Token ids of the prompt llama.cpp and the source both score.
PROMPT = [3, 141, 59, 26, 5, 35, 89, 79, 32, 38]


@pytest.mark.parametrize(("example", "model_name"), [("llama", "Llama"), ("gpt2", "Gpt2")])
def test_llama_cpp_gives_the_sources_log_probabilities(example: str, model_name: str) -> None:
    llama_cpp = pytest.importorskip(
        "llama_cpp",
        reason="llama-cpp-python isn't installed: PyPI has only its sdist here, and building "
        "llama.cpp takes longer than CI allows; it isn't in the dev extras",
    )
    text = (ROOT / "examples" / f"{example}.ss").read_text()
    Path(f"{example}.ss").write_text(text)
    assert cli.main(["export", f"{example}.ss", "--gguf", f"{example}.gguf", "--seed", "1"]) == 0
    options = {"n_ctx": 64, "logits_all": True, "n_gpu_layers": 0, "verbose": False}
    try:
        # The reference's 1e-3 holds on the CPU with the cache in f32 (GGML_TYPE_F32 is 0).
        llm = llama_cpp.Llama(model_path=f"{example}.gguf", type_k=0, type_v=0, **options)
    except TypeError:
        llm = llama_cpp.Llama(model_path=f"{example}.gguf", **options)
    llm.eval(PROMPT)
    logits = torch.from_numpy(llm.scores[: len(PROMPT)].copy()).double()
    got = logits.log_softmax(-1)
    source = shapescript.compile(text, f"{example}.ss", devices="cpu")
    model = getattr(source, model_name).init(seed=1)
    ids = torch.tensor([PROMPT])
    with torch.no_grad():
        want = source.forward(model, ids, torch.arange(len(PROMPT))[None])[0].double()
    torch.testing.assert_close(got, want.log_softmax(-1), atol=1e-3, rtol=0)


def test_fields_are_paired_in_the_order_the_forward_function_first_reads_them() -> None:
    # wpe is declared first but read second; ln_f is never read by this forward.
    text = """\
dim V = 16
dim D = 8
dim P = 32

model Tiny:
    param wpe: [P D] = normal(std=0.02)
    param ln_f: [D] = ones()
    param wte: [V D] = normal(std=0.02)

fn forward(m: Tiny, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V]:
    x = m.wte[ids] + m.wpe[pos]
    return linear(x, m.wte)
"""
    source = shapescript.compile(text, "tiny.ss", devices="cpu")
    model = source.Tiny.init(seed=0)
    fields = [(field.name, tuple(field.shape)) for field in source.Tiny._ss_fields]
    assert [name for name, _ in fields] == ["wpe", "ln_f", "wte"]
    ordered = gguf_export._in_reading_order(fields, model, source.forward)
    assert [name for name, _ in ordered] == ["wte", "wpe", "ln_f"]
    assert type(model) is source.Tiny, "the model's own class is given back"
