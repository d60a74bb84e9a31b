"""Check modes: always, debug and never (or off), set by install() or given to compile()."""

from __future__ import annotations

import pytest

import shapescript
from shapescript.rt import cache, modes


def test_defaults() -> None:
    assert modes.installed() == modes.CheckModes("always", "debug")


def test_install_sets_the_modes_the_hook_compiles_with() -> None:
    shapescript.install(checks="debug", value_checks="off")
    assert modes.installed() == modes.CheckModes("debug", "never")
    assert modes.resolve(None, "always") == modes.CheckModes("debug", "always")
    shapescript.install()
    assert modes.installed() == modes.CheckModes()


@pytest.mark.parametrize("bad", ["sometimes", "ALWAYS", "", None, 1])
def test_invalid_mode_lists_the_valid_ones(bad: object) -> None:
    with pytest.raises(ValueError) as caught:
        shapescript.install(checks=bad)  # type: ignore[arg-type]
    assert "always, debug, never" in str(caught.value)
    assert modes.installed() == modes.CheckModes()


def test_invalid_value_checks_leaves_the_installed_modes_alone() -> None:
    shapescript.install(checks="never")
    with pytest.raises(ValueError, match="value_checks"):
        shapescript.install(checks="always", value_checks="maybe")
    assert modes.installed().checks == "never"


def test_cache_key_has_the_modes_and_the_optimize_level() -> None:
    a = modes.CheckModes("always", "debug")
    b = modes.CheckModes("never", "debug")
    assert a.cache_key() != b.cache_key()
    assert a.cache_key().endswith(f"-O{__import__('sys').flags.optimize}")
    assert cache.cache_path("/x/model.ss", a) != cache.cache_path("/x/model.ss", b)
    assert cache.header(b"text", a) != cache.header(b"text", b)
