"""How a run finds its hosts: the env:// variables torchrun sets, and the `shapescript run`
flags that stand for them."""

from __future__ import annotations

import argparse

import pytest

from shapescript.commands import run_hosts
from shapescript.commands.support import UsageError
from shapescript.rt.errors import DeviceError
from shapescript.rt.parallel import hosts

VARIABLES = ("WORLD_SIZE", "RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


@pytest.fixture(autouse=True)
def no_hosts(monkeypatch):
    for name in (*VARIABLES, "TORCHELASTIC_USE_AGENT_STORE"):
        monkeypatch.delenv(name, raising=False)


def _set(monkeypatch, **values: str) -> None:
    for name, value in values.items():
        monkeypatch.setenv(name, value)


def test_one_host_without_the_variables(monkeypatch) -> None:
    assert hosts.current() is None
    _set(monkeypatch, WORLD_SIZE="1", RANK="0")
    assert hosts.current() is None
    assert hosts.is_first()


def test_the_hosts_as_torchrun_sets_them(monkeypatch) -> None:
    _set(monkeypatch, WORLD_SIZE="2", RANK="1", MASTER_ADDR="10.0.0.5", MASTER_PORT="4000")
    assert hosts.current() == hosts.Hosts(2, 1, "10.0.0.5", 4000, agent_store=False)
    assert not hosts.is_first()
    _set(monkeypatch, TORCHELASTIC_USE_AGENT_STORE="True")
    assert hosts.current().agent_store


@pytest.mark.parametrize(
    ("values", "named"),
    [
        ({"WORLD_SIZE": "2", "MASTER_ADDR": "a"}, "$RANK"),
        ({"WORLD_SIZE": "2", "RANK": "2", "MASTER_ADDR": "a"}, "0 to 1"),
        ({"WORLD_SIZE": "2", "RANK": "0"}, "$MASTER_ADDR"),
        ({"WORLD_SIZE": "two"}, "$WORLD_SIZE"),
        ({"WORLD_SIZE": "2", "RANK": "0", "MASTER_ADDR": "a", "LOCAL_WORLD_SIZE": "2"}, "nproc"),
    ],
)
def test_variables_that_dont_make_hosts_are_named(monkeypatch, values, named) -> None:
    _set(monkeypatch, **values)
    with pytest.raises(DeviceError, match=named.replace("$", r"\$")):
        hosts.current()


def _flags(*words: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    run_hosts.add_arguments(parser)
    return parser.parse_args(list(words))


def test_the_run_flags_are_the_env_variables() -> None:
    assert run_hosts.environment(_flags()) == {}
    found = run_hosts.environment(_flags("--nnodes", "2", "--node-rank", "1"))
    assert found["WORLD_SIZE"] == "2" and found["RANK"] == "1"
    assert found["MASTER_ADDR"] == "127.0.0.1" and found["MASTER_PORT"] == "29500"
    flags = _flags("--nnodes", "3", "--node-rank", "0", "--master-addr", "h0", "--master-port", "7")
    assert run_hosts.environment(flags)["MASTER_ADDR"] == "h0"
    assert run_hosts.environment(flags)["MASTER_PORT"] == "7"


@pytest.mark.parametrize(
    ("words", "named"),
    [
        (("--node-rank", "1"), "--nnodes"),
        (("--nnodes", "2"), "--node-rank"),
        (("--nnodes", "2", "--node-rank", "2"), "0 to 1"),
        (("--nnodes", "0", "--node-rank", "0"), "at least 1"),
        (("--nnodes", "2", "--node-rank", "0", "--master-port", "70000"), "--master-port"),
    ],
)
def test_flags_that_dont_make_hosts_are_named(words, named) -> None:
    with pytest.raises(UsageError, match=named):
        run_hosts.environment(_flags(*words))


class _Store:
    """The two calls of a torch.distributed store that the devices check makes."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = values

    def set(self, key: str, value: str) -> None:
        self.values[key] = value

    def get(self, key: str) -> bytes:
        return self.values[key].encode()


def test_hosts_with_different_numbers_of_devices_are_refused() -> None:
    one = hosts.Hosts(2, 1, "a", 1, agent_store=False)
    hosts._same_devices(_Store({"d/0": "cpu[0 1]"}), one, "cpu[2 3]", "d")
    with pytest.raises(DeviceError, match=r"host 0 runs the program on `cpu\[0 1 2\]`"):
        hosts._same_devices(_Store({"d/0": "cpu[0 1 2]"}), one, "cpu[0 1]", "d")
