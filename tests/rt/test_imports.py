"""Compiled files that import other `.ss` files: calls across files, one module per file,
and the hook's cache entry, which follows every import."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
import torch

import shapescript
from shapescript import analysis
from shapescript.check.declarations import import_session, module_paths
from shapescript.rt import cache, modes
from shapescript.rt.imports import import_ss

ATTENTION = """\
dim D = 4
dim Hd = 3

model Mlp:
    param w1: [D Hd] = normal(std=0.1)
    param w2: [Hd D] = normal(std=0.1)

fn scale(x: [b D]) -> [b D] = x * 2

fn forward(m: Mlp, x: [b D]) -> [b D]:
    return (x @ m.w1) @ m.w2
"""

MAIN = """\
devices cpu

import attention

fn scaled(x: [b attention.D]) -> [b attention.D] = attention.scale(x)

fn make() -> attention.Mlp = attention.Mlp.init(seed=0)

fn predict(m: attention.Mlp, x: [b attention.D]) -> [b attention.D]:
    return softmax(attention.forward(m, x), over=attention.D)

fn size() -> int = attention.D
"""


@pytest.fixture(autouse=True)
def fresh_checks():
    import_session.clear_cache()
    yield
    import_session.clear_cache()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder on sys.path with the hook installed."""
    sys.path.insert(0, str(tmp_path))
    shapescript.install()
    return tmp_path


def _import_fresh(*names: str):
    for name in names:
        sys.modules.pop(name, None)
    importlib.invalidate_caches()
    return importlib.import_module(names[0])


def _checked_paths(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the hook checks from now on (each compile checks one)."""
    seen: list[str] = []
    original = analysis.check

    def check(source, **options):
        seen.append(Path(source.path).name)
        return original(source, **options)

    monkeypatch.setattr(analysis, "check", check)
    return seen


def test_a_file_calls_another_files_functions_and_models(folder: Path) -> None:
    (folder / "attention.ss").write_text(ATTENTION)
    (folder / "main.ss").write_text(MAIN)
    main = _import_fresh("main", "attention")
    attention = sys.modules["attention"]
    assert main.attention is attention
    assert main.scaled(torch.ones(2, 4)).tolist() == [[2.0] * 4] * 2
    model = main.make()
    assert type(model) is attention.Mlp
    expected = torch.softmax(attention.forward(model, torch.ones(2, 4)), -1)
    assert torch.equal(main.predict(model, torch.ones(2, 4)), expected)
    assert main.size() == 4


def test_a_model_made_in_python_from_the_other_module_is_accepted(folder: Path) -> None:
    (folder / "attention.ss").write_text(ATTENTION)
    (folder / "main.ss").write_text(MAIN)
    attention = _import_fresh("attention")
    main = _import_fresh("main")
    assert main.attention is attention
    model = attention.Mlp.init(seed=1)
    assert main.predict(model, torch.zeros(1, 4)).shape == (1, 4)
    with pytest.raises(shapescript.ShapeError):
        main.predict(model, torch.zeros(1, 5))


def test_compile_finds_the_import_next_to_its_path(tmp_path: Path) -> None:
    (tmp_path / "attention.ss").write_text(ATTENTION)
    path = tmp_path / "program.ss"
    module = shapescript.compile(MAIN, str(path))
    assert module.scaled(torch.ones(1, 4)).tolist() == [[2.0] * 4]
    assert module.attention.__file__ == str(tmp_path / "attention.ss")


def test_importers_compile_again_when_an_import_changes(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / "attention.ss").write_text(ATTENTION)
    (folder / "main.ss").write_text(MAIN)
    _import_fresh("main", "attention")
    checked = _checked_paths(monkeypatch)
    assert _import_fresh("main", "attention").scaled(torch.ones(1, 4)).tolist() == [[2.0] * 4]
    assert checked == []
    (folder / "attention.ss").write_text(ATTENTION.replace("x * 2", "x * 3"))
    main = _import_fresh("main", "attention")
    assert main.scaled(torch.ones(1, 4)).tolist() == [[3.0] * 4]
    assert sorted(checked) == ["attention.ss", "main.ss"]


def test_importers_compile_again_when_an_import_would_find_another_file(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = tmp_path / "library"
    library.mkdir()
    program = tmp_path / "program"
    program.mkdir()
    sys.path.insert(1, str(library))
    (library / "attention.ss").write_text(ATTENTION)
    (program / "main.ss").write_text(MAIN)
    sys.path.insert(0, str(program))
    assert _import_fresh("main", "attention").scaled(torch.ones(1, 4)).tolist() == [[2.0] * 4]
    checked = _checked_paths(monkeypatch)
    (program / "attention.ss").write_text(ATTENTION.replace("x * 2", "x * 5"))
    main = _import_fresh("main", "attention")
    assert main.attention.__file__ == str(program / "attention.ss")
    assert main.scaled(torch.ones(1, 4)).tolist() == [[5.0] * 4]
    assert "main.ss" in checked


def test_the_cache_entry_records_each_import(folder: Path) -> None:
    (folder / "attention.ss").write_text(ATTENTION)
    (folder / "main.ss").write_text(MAIN)
    _import_fresh("main", "attention")
    entry = Path(cache.cache_path(str(folder / "main.ss"), modes.installed()))
    expected = cache.header((folder / "main.ss").read_bytes(), modes.installed())
    assert cache.load(str(entry), expected) is None
    assert cache.load(str(entry), expected, lambda imports: True) is not None
    assert cache.load(str(entry), expected, lambda imports: False) is None


def test_files_that_import_each_other_are_an_error_not_a_hang(folder: Path) -> None:
    (folder / "cycle_a.ss").write_text("devices cpu\n\nimport cycle_b\n")
    (folder / "cycle_b.ss").write_text("import cycle_a\n")
    with pytest.raises(shapescript.ShapeScriptError) as caught:
        _import_fresh("cycle_a")
    assert "error[E2302]" in str(caught.value)


def test_a_missing_file_at_run_time_is_an_import_error(tmp_path: Path) -> None:
    with pytest.raises(ImportError, match="no file `gone.ss`"):
        import_ss("main", str(tmp_path / "main.ss"), "gone")


def test_a_file_beside_a_package_module_joins_its_package(folder: Path) -> None:
    package = folder / "pkg_of_ss"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "attention.ss").write_text(ATTENTION)
    (package / "main.ss").write_text(MAIN)
    main = _import_fresh("pkg_of_ss.main")
    assert main.attention.__name__ == "pkg_of_ss.attention"
    assert sys.modules["pkg_of_ss.attention"] is main.attention


def test_the_standard_library_is_found_without_the_search_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    std = tmp_path / "std"
    std.mkdir()
    (std / "tools.ss").write_text("fn twice(x: [n]) -> [n] = x * 2\n")
    monkeypatch.setattr(module_paths, "STD_FOLDER", str(std))
    text = (
        "devices cpu\n\nimport shapescript.std.tools as tools\n\n"
        "fn f(x: [n]) -> [n] = tools.twice(x)\n"
    )
    module = shapescript.compile(text, str(tmp_path / "program" / "uses_std.ss"))
    assert module.f(torch.ones(2)).tolist() == [2.0, 2.0]
    assert module.tools.__name__ == "shapescript.std.tools"
    sys.modules.pop("shapescript.std.tools", None)


def test_training_a_model_of_another_file(folder: Path) -> None:
    (folder / "classifier.ss").write_text(
        """\
dim D = 4
dim C = 3

model Linear:
    param w: [D C] = normal(std=0.1)

fn logits(m: Linear, x: [b D]) -> [b C] = x @ m.w

fn loss(m: Linear, x: [b D], y: [b] Index[C]) -> [] = cross_entropy(logits(m, x), y, over=C)
"""
    )
    (folder / "trainer.ss").write_text(
        """\
devices cpu

import classifier

fn step(mut m: classifier.Linear, x: [b classifier.D], y: [b] Index[classifier.C]) -> []:
    opt = sgd(m, lr=0.5)
    l, g = value_and_grad(classifier.loss, m, x, y)
    update(mut m, mut opt, g)
    return l

fn probs(m: classifier.Linear, x: [b classifier.D]) -> [b classifier.C] Prob over classifier.C:
    return x |> classifier.logits(m, _) |> softmax(over=classifier.C)
"""
    )
    trainer = _import_fresh("trainer", "classifier")
    model = sys.modules["classifier"].Linear.init(seed=0)
    x = torch.randn(8, 4, generator=torch.Generator().manual_seed(0))
    y = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    losses = [float(trainer.step(model, x, y)) for _ in range(5)]
    assert losses == sorted(losses, reverse=True)
    assert torch.allclose(trainer.probs(model, x).sum(-1), torch.ones(8))


NETS = """\
dim D = 4
dim C = 3

model A:
    param w: [D C] = normal(std=0.1)

model B:
    param v: [D C] = normal(std=0.1)

fn forward(m: A, x: [b D]) -> [b C] = x @ m.w
fn forward(m: B, x: [b D]) -> [b C] = x @ m.v * 2

fn loss(m: A, x: [b D], y: [b] Index[C]) -> [] = cross_entropy(forward(m, x), y, over=C)

fn step(mut m: M, mut opt: SGD[M], x: [b D], y: [b] Index[C]) -> []:
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g)
    return l
"""


def test_calls_find_the_models_files_functions(folder: Path) -> None:
    (folder / "nets.ss").write_text(NETS)
    (folder / "uses_nets.ss").write_text(
        """\
devices cpu

import nets

fn of_a(m: nets.A, x: [b nets.D]) -> [b nets.C] = forward(m, x)
fn of_b(m: nets.B, x: [b nets.D]) -> [b nets.C] = nets.forward(m, x)

fn train(mut m: M, x: [b nets.D], y: [b] Index[nets.C]) -> []:
    opt = sgd(m, lr=0.5)
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g)
    return l

fn train_a(mut m: nets.A, x: [b nets.D], y: [b] Index[nets.C]) -> [] = train(mut m, x, y)

fn theirs(mut m: nets.A, x: [b nets.D], y: [b] Index[nets.C]):
    opt = sgd(m, lr=0.5)
    return nets.step(mut m, mut opt, x, y)
"""
    )
    module = _import_fresh("uses_nets", "nets")
    nets = sys.modules["nets"]
    a, b = nets.A.init(seed=0), nets.B.init(seed=0)
    x = torch.randn(6, 4, generator=torch.Generator().manual_seed(1))
    y = torch.tensor([0, 1, 2, 2, 1, 0])
    assert torch.equal(module.of_a(a, x), x @ a.w)
    assert torch.equal(module.of_b(b, x), x @ b.v * 2)
    losses = [float(module.train_a(a, x, y)) for _ in range(4)]
    assert losses == sorted(losses, reverse=True)
    # nets.step is nets.ss's generic function: its instance for nets.A is made here, and
    # takes the same steps as this file's own generic train.
    fresh, again = nets.A.init(seed=0), nets.A.init(seed=0)
    ours = [float(module.train_a(fresh, x, y)) for _ in range(3)]
    theirs = [float(module.theirs(again, x, y)) for _ in range(3)]
    assert theirs == ours
    assert torch.equal(fresh.w, again.w)
    assert callable(module._ss_step__nets_A)


def test_another_files_logs_record_is_its_class(folder: Path) -> None:
    (folder / "metrics.ss").write_text("logs StepLogs:\n    loss: [] mean\n")
    (folder / "logging_main.ss").write_text(
        "devices cpu\n\nimport metrics\n\n"
        "fn make(l: []) -> metrics.StepLogs = metrics.StepLogs(loss=l)\n"
        "fn read(r: metrics.StepLogs) -> [] = r.loss\n"
    )
    module = _import_fresh("logging_main", "metrics")
    made = module.make(torch.tensor(2.0))
    assert type(made) is sys.modules["metrics"].StepLogs
    assert float(module.read(made)) == 2.0


DIGITS = """\
dim D = 4
dim C = 3

data Digit:
    img: [D]
    label: [] Index[C]

model Net:
    param w: [D C] = normal(std=0.5)

fn loss(m: Net, batch: [b] Digit) -> [] = cross_entropy(batch.img @ m.w, batch.label, over=C)
"""

DIGITS_MAIN = """\
devices cpu

import digits

fn batch_loss(m: digits.Net, batch: [b] digits.Digit) -> [] = digits.loss(m, batch)

fn images(batch: [b] digits.Digit) -> [b digits.D] = batch.img * 2

fn epoch_loss(m: digits.Net, train: Dataset[digits.Digit]) -> []:
    total = 0.0 to f32
    for batch in train |> shuffle(seed=3) |> batches(4):
        total = total + digits.loss(m, batch) * (b to f32)
    return total
"""


def test_batches_and_datasets_of_another_files_record(folder: Path) -> None:
    (folder / "digits.ss").write_text(DIGITS)
    (folder / "digits_main.ss").write_text(DIGITS_MAIN)
    module = _import_fresh("digits_main", "digits")
    digits = sys.modules["digits"]
    model = digits.Net.init(seed=0)
    generator = torch.Generator().manual_seed(0)
    images = torch.randn(10, 4, generator=generator)
    labels = torch.randint(0, 3, (10,), generator=generator)

    def expected(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.cross_entropy(x @ model.w, y)

    batch = {"img": images, "label": labels}
    assert torch.allclose(module.batch_loss(model, batch), expected(images, labels))
    assert torch.equal(module.images(batch), images * 2)
    dataset = torch.utils.data.TensorDataset(images, labels)
    whole = expected(images, labels) * 10
    assert torch.allclose(module.epoch_loss(model, dataset), whole, atol=1e-5)
    with pytest.raises(shapescript.ShapeError, match="img"):
        module.images({"img": torch.zeros(2, 5), "label": torch.zeros(2, dtype=torch.long)})


LIBRARY = """\
model Toy:
    param w: [4] = zeros

fn describe(m: Toy) -> [] = sum(m.w)

fn summary(m: M) -> [] = describe(m) + size(m)

fn size(m: M) -> [] = norm(m.w)
"""


def test_an_instance_of_another_files_generic_function_runs_here(folder: Path) -> None:
    """library.summary's instance for this file's model is this module's function: it
    calls this file's `describe` for the model, the library's own `size` (not this
    file's), and the built-in `norm` (not this file's)."""
    (folder / "library.ss").write_text(LIBRARY)
    (folder / "uses_library.ss").write_text(
        """\
devices cpu

import library

model Mine:
    param w: [4] = normal(std=1.0)

fn describe(m: Mine) -> [] = mean(m.w)
fn size(m: Mine) -> [] = mean(m.w) * 100
fn norm(x: [4]) -> [4] = x

fn use(m: Mine) -> [] = library.summary(m)
"""
    )
    module = _import_fresh("uses_library", "library")
    model = module.Mine.init(seed=0)
    expected = model.w.mean() + torch.linalg.vector_norm(model.w)
    assert torch.allclose(module.use(model), expected)
    assert callable(module._ss_summary__Mine) and callable(module._ss_library_size__Mine)


def test_an_instance_names_what_the_generic_functions_file_imports(folder: Path) -> None:
    """The library's generic function uses a file it imports itself, under its own name
    for it; its instance here reaches that file through the library's module."""
    (folder / "helpers.ss").write_text(
        "logs Rec:\n    v: [] mean\n\nfn twice(x: []) -> [] = x * 2\n"
    )
    (folder / "chained_lib.ss").write_text(
        "import helpers as h\n\nfn score(m: M) -> h.Rec = h.Rec(v=h.twice(total(m)))\n"
    )
    (folder / "chained_main.ss").write_text(
        """\
devices cpu

import chained_lib

model Mine:
    param w: [4] = normal(std=1.0)

fn total(m: Mine) -> [] = sum(m.w)

fn use(m: Mine) = chained_lib.score(m)
"""
    )
    module = _import_fresh("chained_main", "chained_lib", "helpers")
    model = module.Mine.init(seed=0)
    record = module.use(model)
    assert type(record) is sys.modules["helpers"].Rec
    assert torch.allclose(record.v, model.w.detach().sum() * 2)
