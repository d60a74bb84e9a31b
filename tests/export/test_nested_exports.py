"""Every export of a model that holds models: the Hugging Face folder, GGUF, .pt2 and
the export module keep each nested param by its full path and give the source's outputs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

import shapescript
from shapescript.rt import devices

ROOT = Path(__file__).resolve().parents[2]
GPT2_HF = ROOT / "examples" / "gpt2_hf.ss"


@pytest.fixture(autouse=True)
def cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)
    devices._reset_for_tests()
    yield
    devices._reset_for_tests()


@pytest.mark.slow
def test_a_nested_gpt2s_hf_folder_keeps_every_path_and_gives_its_logits() -> None:
    transformers = pytest.importorskip("transformers")
    from safetensors import safe_open

    Path("gpt2_hf.ss").write_text(GPT2_HF.read_text())
    config = shapescript.export_hf("gpt2_hf.ss", "out_hf", seed=2)
    source = shapescript.compile(GPT2_HF.read_text(), "gpt2_hf.ss", devices="cpu")
    model = source.Gpt2LMHead.init(seed=2)
    with safe_open("out_hf/model.safetensors", "pt") as stored:
        names = set(stored.keys())
        for path, value in model.state_dict().items():
            stored_name = next(n for n in names if n.endswith(path))
            torch.testing.assert_close(stored.get_tensor(stored_name), value)
    assert "model.transformer.h.1.attn.c_attn.weight" in names
    assert len(names) == len(model.state_dict())
    assert set(config["shapescript"]["fields"]) == set(model.state_dict())
    loaded = transformers.AutoModelForCausalLM.from_pretrained("out_hf", trust_remote_code=True)
    ids = torch.tensor([[3, 4, 5, 6], [9, 8, 7, 6]])
    with torch.no_grad():
        got = loaded(input_ids=ids).logits
        want = source.forward(model, ids)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


def _gpt2_hf_with_positions() -> str:
    """examples/gpt2_hf.ss whose forward takes the positions, as llama.cpp's gpt2 does."""
    text = GPT2_HF.read_text().split("## Mean cross-entropy")[0]
    text = text.replace(
        "fn forward(m: Gpt2LMHead, ids: [b n] Index[V])",
        "fn forward(m: Gpt2LMHead, ids: [b n] Index[V], pos: [b n] Index[P])",
    )
    return text.replace("(t.wpe.weight[0:n] as [n D])", "embedding(pos, t.wpe.weight)")


@pytest.mark.slow
def test_a_nested_gpt2s_gguf_file_holds_every_block_under_llama_cpps_names() -> None:
    gguf = pytest.importorskip("gguf")
    from shapescript import cli

    text = _gpt2_hf_with_positions()
    Path("gpt2_hf.ss").write_text(text)
    assert cli.main(["export", "gpt2_hf.ss", "--gguf", "out.gguf", "--seed", "2"]) == 0
    reader = gguf.GGUFReader("out.gguf")
    found = reader.fields["general.architecture"]
    assert bytes(found.parts[found.data[0]]).decode() == "gpt2"
    tensors = {tensor.name: torch.from_numpy(tensor.data.copy()) for tensor in reader.tensors}
    assert len(tensors) == 2 + 12 * 2 + 2 and "output.weight" not in tensors
    model = shapescript.compile(text, "gpt2_hf.ss", devices="cpu").Gpt2LMHead.init(seed=2)
    t = model.transformer
    # HF's Conv1D keeps [in out]; llama.cpp's gpt2 reads [out in], as the flat export writes.
    pairs = {
        "token_embd.weight": t.wte.weight,
        "position_embd.weight": t.wpe.weight,
        "blk.1.attn_qkv.weight": t.h[1].attn.c_attn.weight.T,
        "blk.0.attn_qkv.bias": t.h[0].attn.c_attn.bias,
        "blk.1.attn_output.weight": t.h[1].attn.c_proj.weight.T,
        "blk.0.ffn_up.weight": t.h[0].mlp.c_fc.weight.T,
        "blk.1.ffn_down.weight": t.h[1].mlp.c_proj.weight.T,
        "blk.0.ffn_down.bias": t.h[0].mlp.c_proj.bias,
        "blk.1.attn_norm.weight": t.h[1].ln_1.weight,
        "output_norm.bias": t.ln_f.bias,
    }
    for name, value in pairs.items():
        torch.testing.assert_close(tensors[name], value.detach(), atol=0, rtol=0)


#: A language model that keeps the serving rules but for its embedding table, which is a
#: held model's param: an engine reads the table from the model's own fields.
HELD_TABLE = """\
dim V = 32
dim D = 16
dim H = 2
dim Dh = D / H

model Embedding:
    param weight: [V D] = normal(std=0.02)

model Lm:
    wte: Embedding
    param wqkv: [D 3*D] = normal(std=0.02)

fn forward(m: Lm, ids: [b n] Index[V]) -> [b n V] Logit over V:
    x = embedding(ids, m.wte.weight)
    q, k, v = split(x @ m.wqkv, b n (3 H Dh) -> b H n Dh)
    a = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
    h = x + rearrange(a, b H n Dh -> b n (H Dh))
    return linear(h, m.wte.weight)
"""


def test_vllm_refuses_an_embedding_table_held_by_a_nested_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from shapescript import cli

    Path("lm.ss").write_text(HELD_TABLE)
    assert cli.main(["check", "lm.ss"]) == 0
    capsys.readouterr()
    assert cli.main(["export", "lm.ss", "--hf", "lm_hf", "--vllm"]) == 1
    err = capsys.readouterr().err
    assert err.count("error[E3303]") == err.count("error[") == 2, err
    assert "lm.ss:14:" in err and "lm.ss:18:" in err and "`m.wte.weight`" in err
    assert not Path("lm_hf").exists()
    with pytest.raises(shapescript.ShapeScriptError, match="E3303"):
        shapescript.export_hf("lm.ss", "lm_hf", vllm=True, verify=False)
    assert not Path("lm_hf").exists()


#: A model holding one model and a stack of two, read by index and by a loop.
NESTED_NET = """\
dim D = 4

model Lin:
    param w: [D D] = normal(std=0.1)
    param b: [D] = normal(std=0.1)

model Net:
    first: Lin
    h: [2] Lin

fn apply(l: Lin, x: [b D]) -> [b D]:
    return linear(x, l.w, l.b)

fn forward(m: Net, x: [b D]) -> [b D]:
    y = apply(m.first, x) + apply(m.h[1], x)
    for blk in m.h:
        y = apply(blk, y)
    return y
"""


@pytest.mark.slow
def test_a_pt2_of_a_function_taking_a_nested_model_holds_every_param_by_path() -> None:
    import importlib.util

    from shapescript import cli

    Path("net.ss").write_text(NESTED_NET)
    source = shapescript.compile(NESTED_NET, "net.ss", devices="cpu")
    model = source.Net.init(seed=5)
    shapescript.save("net.ckpt", model)
    # In process, from the model; and the export module --emit-python writes, from a
    # checkpoint, as `shapescript export -o` runs it.
    shapescript.export("net.ss", "forward", "api.pt2", weights=model)
    assert cli.main(["export", "net.ss", "--fn", "forward", "--emit-python", "net_export.py"]) == 0
    spec = importlib.util.spec_from_file_location("net_export", "net_export.py")
    assert spec is not None and spec.loader is not None
    emitted = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(emitted)
    run = [emitted.forward, emitted._SS_EXPORT_SPEC, torch.device("cpu"), "net.ss", {}]
    assert emitted._ss_main(*run, argv=["-o", "emitted.pt2", "--weights", "net.ckpt"]) == 0
    x = torch.randn(3, 4)
    with torch.no_grad():
        want = source.forward(model, x)
    for written in ("api.pt2", "emitted.pt2"):
        program = torch.export.load(written)
        assert set(program.state_dict) == {f"m.{path}" for path in model.state_dict()}
        torch.testing.assert_close(program.state_dict["m.h.1.w"], model.h[1].w.detach())
        torch.testing.assert_close(program.module()(x), want, atol=0, rtol=0)
