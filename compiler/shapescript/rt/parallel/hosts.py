"""Several hosts: the same program run once per machine, the machines' workers one group.

Every host runs the whole program with its own controller, deterministically (the same
seeds, the same dataset), and starts a worker per device of its `devices` line as on one
machine. The workers of all hosts form one torch.distributed group of
hosts × devices workers (Gloo for `cpu[...]`, NCCL for `cuda[...]`), host h's worker d
having global rank h × devices + d; each batch is split across all of them and each
controller sends its own workers their part. Since every controller makes the same calls
in the same order, the workers meet at the same collectives, and the losses are those of
one device.

The hosts are found as torchrun finds its processes (env://): WORLD_SIZE is the number of
hosts (of controllers), RANK this host's, MASTER_ADDR and MASTER_PORT where host 0 keeps
the rendezvous store (a torch.distributed TCPStore). Under torchrun (its agent's store,
TORCHELASTIC_USE_AGENT_STORE) the controllers and workers use the agent's store; else host
0's controller starts it. `shapescript run --nnodes N --node-rank R` sets these variables.
"""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass
from typing import Any

from shapescript.rt.errors import DeviceError

#: The port torchrun uses when MASTER_PORT isn't given.
DEFAULT_PORT = 29500
_PREFIX = "shapescript"


@dataclass(frozen=True)
class Hosts:
    """The hosts of this run, from the env:// variables."""

    count: int
    rank: int
    address: str
    port: int
    #: Whether torchrun's agent keeps the store (the controllers connect to it).
    agent_store: bool


_store: Any = None
_generation = 0


def current() -> Hosts | None:
    """This run's hosts, or None when there is one (WORLD_SIZE unset or 1)."""
    count = _number("WORLD_SIZE", 1)
    if count <= 1:
        return None
    if _number("LOCAL_WORLD_SIZE", 1) > 1:
        raise DeviceError(
            f"$LOCAL_WORLD_SIZE is {os.environ['LOCAL_WORLD_SIZE']}: ShapeScript runs one "
            "program per host, which starts a worker per device itself; launch it with "
            "--nproc-per-node 1"
        )
    rank = _number("RANK", None)
    if rank is None or not 0 <= rank < count:
        raise DeviceError(
            f"$WORLD_SIZE is {count} (hosts), so $RANK must say which of them this is "
            f"(0 to {count - 1}), not {os.environ.get('RANK')!r}"
        )
    address = os.environ.get("MASTER_ADDR")
    if not address:
        raise DeviceError(
            f"$WORLD_SIZE is {count} (hosts), but $MASTER_ADDR isn't set: set it to host 0's "
            "address (or pass --master-addr to `shapescript run`)"
        )
    port = _number("MASTER_PORT", DEFAULT_PORT)
    agent = os.environ.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() == "true"
    return Hosts(count, rank, address, port or DEFAULT_PORT, agent)


def _number(name: str, default: int | None) -> int | None:
    text = os.environ.get(name)
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise DeviceError(f"${name} is {text!r}, not a whole number") from None


def backend_for(kind: str) -> str:
    """The torch.distributed backend of the workers of a `devices` line of this kind (on one
    host or several): NCCL between CUDA GPUs, Gloo between CPU workers."""
    return "nccl" if kind == "cuda" else "gloo"


def check_split(names: dict[str, Any], devices_per_host: int, host_count: int) -> None:
    """DeviceError, before any worker starts, unless every worker of every host gets as much
    of a `split H` dim: its size must be a multiple of hosts × devices per host."""
    found = names.get("_ss_split_heads")
    if found is None:
        return
    dim = found[0]
    size = names.get(dim)
    world = devices_per_host * host_count
    if not isinstance(size, int) or world <= 1 or size % world == 0:
        return
    fits = [count for count in range(2, size + 1) if size % count == 0]
    workers = (
        f"{world} workers ({host_count} hosts × {devices_per_host} devices each)"
        if host_count > 1
        else f"{world} workers (devices)"
    )
    raise DeviceError(
        f"`split {dim}`: {dim} = {size} is split across all {workers}, and {world} doesn't "
        f"divide {size}; run on a number of hosts × devices per host that divides {size} "
        f"({', '.join(map(str, fits))}), or split another dim"
    )


def is_first() -> bool:
    """Whether this is host 0 (or the only one): the one that writes checkpoints."""
    found = current()
    return found is None or found.rank == 0


def _tcp_store(hosts: Hosts, master: bool, timeout: float) -> Any:
    import torch.distributed as dist

    return dist.TCPStore(
        hosts.address,
        hosts.port,
        is_master=master,
        timeout=datetime.timedelta(seconds=timeout),
        wait_for_workers=False,
    )


def store(timeout: float) -> Any:
    """The controllers' store: started here on host 0 (unless torchrun's agent has it)."""
    global _store
    if _store is None:
        import torch.distributed as dist

        hosts = current()
        assert hosts is not None
        master = hosts.rank == 0 and not hosts.agent_store
        _store = dist.PrefixStore(_PREFIX, _tcp_store(hosts, master, timeout))
    return _store


def worker_rendezvous(devices: str, timeout: float) -> tuple[str, int, str]:
    """What this host's workers join the group by: host 0's address and port and the
    prefix of this start's keys (the controllers start their workers in the same order);
    DeviceError if the hosts' `devices` have different numbers of devices."""
    global _generation
    hosts = current()
    assert hosts is not None
    shared = store(timeout)  # host 0's store is up before any worker looks for it
    _generation += 1
    _same_devices(shared, hosts, devices, f"devices/{_generation}")
    return hosts.address, hosts.port, f"{_PREFIX}/workers/{_generation}"


def _same_devices(shared: Any, hosts: Hosts, devices: str, key: str) -> None:
    """DeviceError unless every host starts as many workers as this one."""
    shared.set(f"{key}/{hosts.rank}", devices)
    for rank in range(hosts.count):
        theirs = shared.get(f"{key}/{rank}").decode()
        if _count(theirs) != _count(devices):
            raise DeviceError(
                f"host {rank} runs the program on `{theirs}` and this host (host "
                f"{hosts.rank}) on `{devices}`: every host needs as many devices, since "
                "each batch is split evenly across all their workers"
            )


def _count(devices: str) -> int:
    return len(devices[devices.index("[") + 1 : -1].split()) if "[" in devices else 1


def join(address: str, port: int, prefix: str, timeout: float) -> Any:
    """A worker's store for init_process_group: a client of host 0's."""
    import torch.distributed as dist

    client = dist.TCPStore(
        address, port, is_master=False, timeout=datetime.timedelta(seconds=timeout)
    )
    return dist.PrefixStore(prefix, client)


_barriers = 0


def barrier(what: str, timeout: float) -> None:
    """Wait until every host's controller gets here (after host 0 wrote a checkpoint)."""
    global _barriers
    hosts = current()
    if hosts is None:
        return
    _barriers += 1
    key = f"barrier/{_barriers}"
    shared = store(timeout)
    if shared.add(key, 1) == hosts.count:
        shared.set(f"{key}/done", what)
    try:
        shared.wait([f"{key}/done"], datetime.timedelta(seconds=timeout))
    except Exception as error:  # noqa: BLE001 - torch raises its own store errors
        from shapescript.rt.parallel.errors import WorkerError

        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise WorkerError(
            f"another host didn't reach {what} within {timeout:g} s (the collective timeout): "
            f"it stopped, or is stuck ({first}); run the program again on every host (from "
            "a checkpoint)"
        ) from None
