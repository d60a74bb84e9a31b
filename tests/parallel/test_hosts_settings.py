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


@pytest.mark.parametrize(
    ("kind", "backend"), [("cuda", "nccl"), ("cpu", "gloo")], ids=["cuda", "cpu"]
)
def test_gpus_are_joined_by_nccl_and_cpus_by_gloo(kind, backend) -> None:
    from shapescript.rt import devices

    spec = devices.parse_devices(f"{kind}[0 1]")
    assert hosts.backend_for(spec.kind) == backend


def test_torchrun_variables_and_the_run_flags_meet_at_the_same_rendezvous(monkeypatch) -> None:
    """A host started by torchrun (its variables as torchrun sets them for
    `--nnodes 2 --nproc-per-node 1 --node-rank 1`) and one started with the run flags find
    the same hosts, and their workers the same store and keys."""
    found = []
    flags = ("--nnodes", "2", "--node-rank", "1", "--master-addr", "10.0.0.5")
    by_flags = run_hosts.environment(_flags(*flags, "--master-port", "4000"))
    by_torchrun = {
        "WORLD_SIZE": "2",
        "RANK": "1",
        "LOCAL_RANK": "0",
        "LOCAL_WORLD_SIZE": "1",
        "GROUP_RANK": "1",
        "MASTER_ADDR": "10.0.0.5",
        "MASTER_PORT": "4000",
    }
    for variables in (by_flags, by_torchrun):
        with monkeypatch.context() as patch:
            for name, value in variables.items():
                patch.setenv(name, value)
            patch.setattr(hosts, "_store", _Store({}))
            patch.setattr(hosts, "_generation", 0)
            # Host 0 said it runs `cpu[0 1]` too.
            hosts._store.set("devices/1/0", "cpu[0 1]")
            found.append((hosts.current(), hosts.worker_rendezvous("cpu[0 1]", 5.0)))
    assert found[0] == found[1]
    assert found[0][0] == hosts.Hosts(2, 1, "10.0.0.5", 4000, agent_store=False)
    assert found[0][1] == ("10.0.0.5", 4000, "shapescript/workers/1")


def test_a_split_dim_the_world_size_doesnt_divide_is_refused() -> None:
    names = {"_ss_split_heads": ("H", {}), "H": 6}
    hosts.check_split(names, devices_per_host=2, host_count=1)
    hosts.check_split(names, devices_per_host=3, host_count=2)
    hosts.check_split({"H": 6}, devices_per_host=2, host_count=2)
    with pytest.raises(DeviceError) as caught:
        hosts.check_split(names, devices_per_host=2, host_count=2)
    text = str(caught.value)
    assert "`split H`: H = 6" in text
    assert "4 workers (2 hosts × 2 devices each)" in text
    assert "2, 3, 6" in text


SPLIT_H = """devices cpu[0 1]
    split H

dim D = 12
dim H = 6
dim Dh = D / H

model Heads:
    param w: [D (H Dh)] = normal(std=0.3)

fn heads(m: Heads, x: [b D]) -> [b H Dh] = x @ m.w |> rearrange(b (H Dh) -> b H Dh)
"""


def test_hosts_refuse_the_split_before_starting_workers(monkeypatch, tmp_path) -> None:
    """Each host refuses it by itself, before it waits for the others: no hang, no worker.
    (6 heads over the 2 devices of the devices line pass the checker.)"""
    import torch

    import shapescript

    _set(monkeypatch, WORLD_SIZE="2", RANK="1", MASTER_ADDR="127.0.0.1", MASTER_PORT="1")
    monkeypatch.setenv("SHAPESCRIPT_COLLECTIVE_TIMEOUT", "1")
    monkeypatch.setattr(hosts, "_store", None)
    path = tmp_path / "heads.ss"
    path.write_text(SPLIT_H, encoding="utf-8")
    module = shapescript.compile(SPLIT_H, str(path))
    m = module.Heads.init(seed=0)
    with pytest.raises(DeviceError, match=r"`split H`: H = 6 .*\(2 hosts × 2 devices"):
        module.heads(m, torch.zeros(3, 12))
    assert module._ss_program.workers == []
