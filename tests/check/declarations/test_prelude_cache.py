"""The prelude's analysis comes from the user cache when it is sound, else is rebuilt."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from shapescript.check.algebra.types import format_type
from shapescript.check.declarations import prelude as prelude_module
from shapescript.check.declarations import prelude_cache
from shapescript.check.declarations.prelude import STUB_FILES, Prelude, build_prelude, load_prelude


def _texts() -> dict[str, str]:
    return {origin: path.read_text(encoding="utf-8") for origin, path in STUB_FILES.items()}


def _summary(prelude: Prelude) -> dict[str, object]:
    """What consumers read of the prelude, in comparable form."""
    return {
        name: (
            [(param.name, format_type(param.type), param.has_default) for param in sig.params],
            format_type(sig.return_type) if sig.return_type is not None else None,
            sorted((generic, str(size)) for generic, size in sig.generics.items()),
            prelude.symbols[name],
        )
        for name, sig in prelude.signatures.items()
    }


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(prelude_cache.CACHE_VARIABLE, str(tmp_path))
    return tmp_path


def _load(texts: dict[str, str]) -> Prelude:
    return prelude_cache.cached(texts, Prelude, lambda: build_prelude(texts))


def test_stored_once_then_read_back_equal(folder: Path) -> None:
    texts = _texts()
    built = _load(texts)
    (entry,) = folder.glob("prelude-*.pickle")
    read = _load(texts)
    assert read is not built and _summary(read) == _summary(built)
    assert list(folder.glob("prelude-*.pickle")) == [entry]
    size = next(iter(read.signatures.values())).generics
    assert all(hash(value) == hash(pickle.loads(pickle.dumps(value))) for value in size.values())


def test_a_corrupt_entry_is_rebuilt(folder: Path) -> None:
    texts = _texts()
    expected = _summary(_load(texts))
    (entry,) = folder.glob("prelude-*.pickle")
    for junk in (b"", b"not a pickle", pickle.dumps({"wrong": "type"})):
        entry.write_bytes(junk)
        assert _summary(_load(texts)) == expected
        assert isinstance(pickle.loads(entry.read_bytes())[1], Prelude)


def test_other_stub_text_uses_another_entry(folder: Path) -> None:
    texts = _texts()
    _load(texts)
    extra = 'extern fn extra_stub(x: Real) -> Real = "torch.abs"\n'
    changed = dict(texts, nn=texts["nn"] + "\n" + extra)
    assert "extra_stub" in _load(changed).signatures
    assert len(list(folder.glob("prelude-*.pickle"))) == 2
    assert "extra_stub" not in _load(texts).signatures


def test_an_unwritable_folder_still_gives_the_prelude(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv(prelude_cache.CACHE_VARIABLE, str(blocker / "below"))
    assert _summary(_load(_texts())) == _summary(build_prelude(_texts()))


def test_an_entry_made_from_other_inputs_is_not_used(folder: Path) -> None:
    """Even under the same file name (a checksum collision), other inputs mean rebuild."""
    texts = _texts()
    _load(texts)
    (entry,) = folder.glob("prelude-*.pickle")
    source, value = pickle.loads(entry.read_bytes())
    value.signatures.clear()
    entry.write_bytes(pickle.dumps((source + "changed", value)))
    assert _summary(_load(texts)) == _summary(build_prelude(texts))


def test_load_prelude_is_the_built_one() -> None:
    assert prelude_module.load_prelude is load_prelude
    assert _summary(load_prelude()) == _summary(build_prelude(_texts()))
