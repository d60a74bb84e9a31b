"""The Hugging Face class as transformers users call it: keyword inputs, attention masks,
labels with HF's shifted loss, AutoModel's hidden states, and a Trainer step."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

import shapescript
from shapescript.rt import devices
from tests.export.test_hf_cli import GPT2, POSITIONS_FROM_N

transformers = pytest.importorskip("transformers")
pytest.importorskip("safetensors")
pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)
    devices._reset_for_tests()
    yield
    devices._reset_for_tests()


def exported(text: str, folder: str = "lm_hf"):
    Path("lm.ss").write_text(text)
    shapescript.export_hf("lm.ss", folder, seed=3)
    auto = transformers.AutoModelForCausalLM
    return auto.from_pretrained(folder, trust_remote_code=True).eval()


IDS = torch.tensor([[3, 4, 5, 6, 7], [9, 8, 7, 6, 5]])


def test_labels_give_hfs_shifted_loss_ignoring_minus_100() -> None:
    model = exported(GPT2)
    labels = IDS.clone()
    labels[1, 3] = -100
    with torch.no_grad():
        out = model(input_ids=IDS, labels=labels)
        plain = model(IDS).logits
    torch.testing.assert_close(out.logits, plain)
    want = F.cross_entropy(
        plain[:, :-1].reshape(-1, plain.shape[-1]), labels[:, 1:].reshape(-1), ignore_index=-100
    )
    torch.testing.assert_close(out.loss, want)


def test_automodel_takes_input_ids_and_gives_hidden_states() -> None:
    exported(GPT2)
    base = transformers.AutoModel.from_pretrained("lm_hf", trust_remote_code=True).eval()
    with torch.no_grad():
        by_name = base(input_ids=IDS).last_hidden_state
        by_position = base(IDS, torch.arange(5).expand(2, 5)).last_hidden_state
    assert by_name.shape == (2, 5, 64)
    torch.testing.assert_close(by_name, by_position)


def test_a_left_padded_batch_gives_each_prompt_its_own_logits() -> None:
    model = exported(GPT2)
    padded = torch.tensor([[0, 0, 5, 6, 7], [1, 2, 3, 4, 5]])
    mask = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])
    with torch.no_grad():
        together = model(input_ids=padded, attention_mask=mask).logits
        alone = model(input_ids=torch.tensor([[5, 6, 7]])).logits
        whole = model(input_ids=padded[1:]).logits
        ones = model(input_ids=padded, attention_mask=torch.ones_like(mask)).logits
        plain = model(input_ids=padded).logits
    torch.testing.assert_close(together[0, 2:], alone[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(together[1], whole[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(ones, plain)
    assert torch.isfinite(together).all()


def test_a_model_that_cant_mask_says_so_for_a_mask_with_zeros() -> None:
    model = exported(POSITIONS_FROM_N)
    assert model.config.shapescript["vllm"] is False
    mask = torch.tensor([[0, 1, 1, 1, 1], [1, 1, 1, 1, 1]])
    with torch.no_grad():
        plain = model(input_ids=IDS).logits
        torch.testing.assert_close(
            model(input_ids=IDS, attention_mask=torch.ones_like(mask)).logits, plain
        )
        with pytest.raises(ValueError, match="can't apply an attention_mask with zeros"):
            model(input_ids=IDS, attention_mask=mask)
        assert model(input_ids=IDS, labels=IDS).loss.isfinite()


def test_trainer_trains_it_for_a_step(tmp_path: Path) -> None:
    model = exported(GPT2)
    model.train()
    before = model.model.w_fc.detach().clone()
    rows = [{"input_ids": [1, 2, 3, 4, 5, 6], "labels": [1, 2, 3, 4, 5, 6]} for _ in range(4)]
    rows = [dict(row, attention_mask=[1] * 6) for row in rows]
    arguments = transformers.TrainingArguments(
        output_dir=str(tmp_path / "trained"),
        use_cpu=True,
        report_to=[],
        max_steps=1,
        per_device_train_batch_size=2,
        learning_rate=1e-2,
        save_strategy="no",
        logging_strategy="no",
        dataloader_num_workers=0,
    )
    trainer = transformers.Trainer(model=model, args=arguments, train_dataset=rows)
    result = trainer.train()
    assert result.global_step == 1
    assert torch.isfinite(torch.tensor(result.training_loss))
    assert not torch.equal(model.model.w_fc.detach(), before)


def test_an_as_claim_stays_in_the_folders_code() -> None:
    # 32 positions: 40 tokens break `m.wpe[0:n] as [n D]`, which must say so itself.
    model = exported(POSITIONS_FROM_N.replace("dim P = 128", "dim P = 32"))
    assert model.config.max_position_embeddings == 32
    with torch.no_grad():
        assert model(input_ids=torch.zeros((1, 32), dtype=torch.long)).logits.shape[1] == 32
        with pytest.raises(ValueError, match=r"lm.ss:63:\d+: in fn forward: `as` expected shape"):
            model(input_ids=torch.zeros((1, 40), dtype=torch.long))


#: gpt2 with dropout on its embeddings: one forward function for training and serving.
WITH_DROPOUT = GPT2.replace(
    "fn forward(m: Gpt2, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:\n"
    "    x = embedding(ids, m.wte) + embedding(pos, m.wpe)\n",
    "fn forward(m: Gpt2, ids: [b n] Index[V], pos: [b n] Index[P], mode: Mode)"
    " -> [b n V] Logit over V:\n"
    "    x = embedding(ids, m.wte) + embedding(pos, m.wpe) |> dropout(0.5, mode)\n",
)


def test_a_forward_with_a_mode_runs_eval_in_eval_and_drops_out_in_training() -> None:
    assert WITH_DROPOUT != GPT2
    model = exported(WITH_DROPOUT)
    assert model.config.shapescript["vllm"] is True
    source = shapescript.compile(WITH_DROPOUT, "lm.ss", devices="cpu")
    from shapescript.rt.randomness import Eval

    with torch.no_grad():
        want = source.forward(source.Gpt2.init(seed=3), IDS, torch.arange(5).expand(2, 5), Eval)
        torch.testing.assert_close(model(input_ids=IDS).logits, want, atol=1e-5, rtol=1e-5)
        model.train()
        dropped = model(input_ids=IDS).logits
    assert not torch.allclose(dropped, want, atol=1e-3)
