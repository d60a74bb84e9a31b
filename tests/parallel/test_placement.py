"""The checker's placement on several devices: where each function runs, what is split."""

from __future__ import annotations

from pathlib import Path

from shapescript.check.analyses.placement import ANYWHERE, CONTROLLER, WORKERS
from shapescript.check.checker import check_parsed
from shapescript.cli import main
from shapescript.syntax.parser import parse
from shapescript.syntax.source import SourceFile

README = Path(__file__).resolve().parents[2] / "examples" / "train_mlp.ss"


def _on(devices: str) -> str:
    text = README.read_text(encoding="utf-8")
    return text.replace("## Pixels in one", f"devices {devices}\n\n## Pixels in one", 1)


def _check(text: str):
    return check_parsed(parse(SourceFile.from_text("t.ss", text)))


def test_readme_on_three_devices_checks_clean_and_places_each_function() -> None:
    checked = _check(_on("cpu[0 1 2]"))
    assert checked.errors == []
    placement = checked.placement
    assert placement.device_count == 3
    assert placement.places == {
        "forward": WORKERS,
        "loss": WORKERS,
        "accuracy": WORKERS,
        "train_step": WORKERS,
        "run": CONTROLLER,
        "fit": CONTROLLER,
        "resume": CONTROLLER,
    }
    # The split follows batch.img into forward's x, along its first axis.
    assert placement.split_params["forward"] == {"x": 0}
    assert placement.split_params["train_step"] == {"batch": None}
    assert placement.split_sizes["forward"] == frozenset({"b"})
    # cross_entropy and accuracy's mean are the operations across the batch.
    assert [c.kind for c in placement.collectives["loss"]] == ["mean"]
    assert [c.kind for c in placement.collectives["accuracy"]] == ["mean"]
    assert "forward" not in placement.collectives


def test_one_device_places_nothing() -> None:
    placement = _check(_on("cpu")).placement
    assert not placement.several
    assert placement.places == {}


def test_a_function_of_ints_runs_anywhere() -> None:
    text = "devices cpu[0 1]\n\nfn twice(k: int) -> int = k * 2\n"
    assert _check(text).placement.places == {"twice": ANYWHERE}


def test_shard_params_and_split_are_recorded() -> None:
    text = "devices cpu[0 1 2]\n    shard params\n    split H\n\ndim H = 12\n"
    checked = _check(text)
    assert checked.errors == []
    assert checked.placement.shard_params
    assert checked.placement.split_dim == "H"


def test_standalone_build_for_several_devices_is_e1805(tmp_path: Path, capsys) -> None:
    source = tmp_path / "model.ss"
    source.write_text("devices cuda[0 1 2]\n\nfn double(x: [n]) -> [n] = x * 2\n")
    status = main(["build", "--standalone", str(source), "-o", str(tmp_path / "model.py")])
    assert status == 1
    err = capsys.readouterr().err
    assert "error[E1805]: a standalone build can't run on 3 devices" in err
    assert f" --> {source}:1:1" in err
