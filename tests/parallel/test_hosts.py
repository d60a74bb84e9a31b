"""Two hosts as two launches on the loopback, each with `cpu[0 1]`: four workers in one
group, training the README example to one device's losses; a host killed midway ends the
other cleanly; checkpoints are written by host 0 only.

A launch of two hosts takes a minute or more on a small machine, so there are two: the
training run starts host 0 with the `shapescript run` flags and host 1 with the variables
as torchrun sets them (each host keeping to its own store, host 0's); the killed host's run
starts both with the variables. What torchrun's agent changes (the controllers use its
store) and what the flags set in the program's process are tested without two hosts."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

import shapescript
from shapescript.rt import data as rt_data
from shapescript.rt.parallel import controller
from tests.parallel import host_run
from tests.parallel.programs import alive, compiled, readme_on
from tests.python.datasets import ListDigits, ListSink

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _environment(extra: dict[str, str]) -> dict[str, str]:
    paths = [str(ROOT), str(ROOT / "compiler"), str(ROOT / "server")]
    old = os.environ.get("PYTHONPATH")
    variables = {**os.environ, "PYTHONPATH": os.pathsep.join([*paths, *([old] if old else [])])}
    for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR"):
        variables.pop(name, None)
    variables["SHAPESCRIPT_COLLECTIVE_TIMEOUT"] = "30"
    return variables | extra


def _launch(command: list[str], folder: Path, extra: dict[str, str]) -> subprocess.Popen:
    folder.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        command,
        cwd=folder,
        env=_environment(extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _by_env(
    rank: int, port: int, folder: Path, epochs: int, examples: int = host_run.EXAMPLES
) -> subprocess.Popen:
    """A host started as torchrun starts its process: the env:// variables set."""
    variables = {
        "WORLD_SIZE": "2",
        "RANK": str(rank),
        "LOCAL_RANK": "0",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(port),
    }
    program = ["-m", "tests.parallel.host_run", "out.jsonl", str(epochs), str(examples)]
    return _launch([sys.executable, *program], folder, variables)


def _by_flags(rank: int, port: int, folder: Path, epochs: int) -> subprocess.Popen:
    """A host started with `shapescript run --nnodes 2 --node-rank R`."""
    flags = ["--nnodes", "2", "--node-rank", str(rank), "--master-port", str(port)]
    command = [sys.executable, "-m", "shapescript", "run", *flags, "-m", "tests.parallel.host_run"]
    return _launch([*command, "out.jsonl", str(epochs)], folder, {})


def _by_flags_then_env(rank: int, port: int, folder: Path, epochs: int) -> subprocess.Popen:
    """Host 0 started with the `shapescript run` flags, host 1 with torchrun's variables."""
    return (_by_flags if rank == 0 else _by_env)(rank, port, folder, epochs)


def _workers(folder: Path) -> dict:
    """The host's workers' process ids and the group's size, as host_run noted them."""
    noted = folder / "out.workers.json"
    return json.loads(noted.read_text(encoding="utf-8")) if noted.exists() else {}


def _rows(folder: Path) -> list[dict]:
    out = folder / "out.jsonl"
    if not out.exists():
        return []
    lines = out.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.endswith("}")]


def _one_device(tmp_path: Path, epochs: int) -> tuple[list[float], torch.Tensor]:
    threads = torch.get_num_threads()
    loaders = rt_data.loader_workers()
    torch.set_num_threads(1)
    rt_data.loader_workers(0)
    try:
        module = compiled(readme_on("cpu", host_run.BATCH), tmp_path / "one.ss")
        sink = ListSink()
        m = module.Mlp.init(seed=0)
        os.chdir(tmp_path)
        module.fit(m, ListDigits(host_run.EXAMPLES), sink, epochs, shapescript.Eval)
        images = torch.stack([item["img"] for item in ListDigits(11, seed=1).items])
        logits = module.forward(m, images, shapescript.Eval)
    finally:
        os.chdir(ROOT)
        rt_data.loader_workers(loaders)
        torch.set_num_threads(threads)
    return [row["loss"] for row in sink.rows], logits


def _two_hosts(launch, tmp_path: Path, epochs: int) -> tuple[list[list[dict]], list[str]]:
    port = _free_port()
    folders = [tmp_path / f"host{rank}" for rank in range(2)]
    hosts = [launch(rank, port, folders[rank], epochs) for rank in range(2)]
    outputs = []
    try:
        for host in hosts:
            outputs.append(host.communicate(timeout=240)[0])
    finally:
        for host in hosts:
            if host.poll() is None:
                os.killpg(host.pid, signal.SIGKILL)
                host.wait()
    for host, output in zip(hosts, outputs, strict=True):
        assert host.returncode == 0, output
    return [_rows(folder) for folder in folders], outputs


def _check_same_losses(tmp_path: Path, rows: list[list[dict]], epochs: int) -> None:
    losses, logits = _one_device(tmp_path, epochs)
    assert len(losses) == 2 * epochs
    theirs = [row["loss"] for row in rows[0]]
    assert len(theirs) == len(losses), theirs
    for step, (one, two) in enumerate(zip(losses, theirs, strict=True)):
        assert abs(one - two) <= 1e-5, f"step {step}: {one} vs {two}"
    # Sinks are written on host 0 alone.
    assert rows[1] == []
    for host in range(2):
        folder = tmp_path / f"host{host}"
        # One group of four workers, two on each host, all stopped at the end.
        noted = _workers(folder)
        assert noted["world"] == 4
        assert len(noted["pids"]) == 2
        assert not any(alive(pid) for pid in noted["pids"])
        # Every host gets the whole result of a function returning one row per example.
        forward = json.loads((folder / "out.forward.json").read_text(encoding="utf-8"))
        assert torch.allclose(torch.tensor(forward), logits, atol=1e-5, rtol=0), f"host {host}"


@pytest.mark.slow
def test_two_hosts_train_as_one_device_does(tmp_path) -> None:
    rows, _ = _two_hosts(_by_flags_then_env, tmp_path, 2)
    _check_same_losses(tmp_path, rows, 2)
    # The checkpoint of each epoch is written by host 0 alone.
    assert (tmp_path / "host0" / "ckpt.pt").exists()
    assert not (tmp_path / "host1" / "ckpt.pt").exists()


def test_the_run_flags_reach_the_program(tmp_path) -> None:
    """`shapescript run --nnodes ...` runs the program with torchrun's variables."""
    program = tmp_path / "show.py"
    names = ("WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
    program.write_text(
        f"import json, os\nprint(json.dumps({{n: os.environ.get(n) for n in {names!r}}}))\n",
        encoding="utf-8",
    )
    flags = ["--nnodes", "2", "--node-rank", "1", "--master-addr", "10.0.0.5"]
    command = [sys.executable, "-m", "shapescript", "run", *flags, "--master-port", "4000"]
    done = subprocess.run(
        [*command, str(program)],
        env=_environment({}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {
        "WORLD_SIZE": "2",
        "RANK": "1",
        "LOCAL_RANK": "0",
        "LOCAL_WORLD_SIZE": "1",
        "MASTER_ADDR": "10.0.0.5",
        "MASTER_PORT": "4000",
    }


def test_under_torchrun_the_controllers_use_its_agents_store(monkeypatch) -> None:
    """With TORCHELASTIC_USE_AGENT_STORE, host 0's controller joins the store torchrun's
    agent keeps at MASTER_ADDR:MASTER_PORT; without it, host 0 keeps the store there."""
    import torch.distributed as dist

    from shapescript.rt.parallel import hosts

    made: list[tuple[hosts.Hosts, bool]] = []

    def tcp_store(found: hosts.Hosts, master: bool, _timeout: float) -> dist.Store:
        made.append((found, master))
        return dist.HashStore()

    monkeypatch.setattr(hosts, "_tcp_store", tcp_store)
    variables = {
        "WORLD_SIZE": "2",
        "RANK": "0",
        "LOCAL_RANK": "0",
        "LOCAL_WORLD_SIZE": "1",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": "4000",
    }
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    for agent in ("True", ""):
        monkeypatch.setenv("TORCHELASTIC_USE_AGENT_STORE", agent)
        monkeypatch.setattr(hosts, "_store", None)
        hosts.store(10.0)
    (under_torchrun, agent_keeps), (own, host_keeps) = made
    assert under_torchrun.address == own.address == "127.0.0.1"
    assert under_torchrun.port == own.port == 4000
    assert not agent_keeps
    assert host_keeps


@pytest.mark.slow
def test_a_killed_host_ends_the_other_cleanly(tmp_path) -> None:
    port = _free_port()
    folders = [tmp_path / f"host{rank}" for rank in range(2)]
    # 20 steps an epoch: host 1 is killed between two steps, host 0 left at a collective.
    hosts = [_by_env(rank, port, folders[rank], 100, 600) for rank in range(2)]
    try:
        # Starting takes long on a busy machine: each worker imports what torch's optimizers
        # need before the first step.
        deadline = time.monotonic() + 600
        while len(_rows(folders[0])) < 3 or not _workers(folders[1]):
            assert time.monotonic() < deadline, "the hosts didn't start training"
            assert all(host.poll() is None for host in hosts)
            time.sleep(0.2)
        os.killpg(hosts[1].pid, signal.SIGKILL)
        hosts[1].wait()
        output = hosts[0].communicate(timeout=120)[0]
    finally:
        for host in hosts:
            if host.poll() is None:
                os.killpg(host.pid, signal.SIGKILL)
                host.wait()
    assert hosts[0].returncode != 0
    assert "WorkerError" in output, output
    assert "another host" in output, output
    pids = [pid for folder in folders for pid in _workers(folder)["pids"]]
    assert len(pids) == 4
    assert not any(alive(pid) for pid in pids)


class _Alive:
    """A worker process that is still running (its sentinel never ready)."""

    def __init__(self) -> None:
        self._ends = multiprocessing.Pipe()
        self.sentinel = self._ends[0].fileno()


def _host_of_two_with_one_answer(error: Exception):
    """A controller of host 0 of two, `cpu[0 1]` each, running `train_step`: its worker 1
    answered with `error` at a collective, its worker 0 (alive) hasn't answered."""
    from shapescript.rt.parallel import controller, wire

    program = controller.Program("hosts.ss", "cpu[0 1]", {})
    program.world, program.first = 4, 0
    program.running = "`train_step` (hosts.ss:54:4)"
    # Each worker's pipe and its watch thread's: the test keeps the other ends.
    ends = [multiprocessing.Pipe() for _ in range(4)]
    program.workers = [
        controller._Worker(rank, _Alive(), ends[rank][0], ends[2 + rank][0]) for rank in range(2)
    ]
    program._ends = ends
    # The first call: worker 1, which answers only when it fails, failed in it.
    program.calls = 1
    wire.send(ends[1][1], ("error", error, "Traceback ...", "hosts.ss:46:12", 1))
    return program


def test_a_lost_host_is_named_though_a_worker_here_is_slow_to_answer(monkeypatch) -> None:
    """One of this host's workers lost its connection to another host's; the other, on a
    busy machine, hasn't answered yet when the grace time ends: the error still says that
    another host stopped (it once said a worker here didn't finish)."""
    from shapescript.rt.parallel import controller

    monkeypatch.setattr(controller, "_GRACE", 0.1)
    lost = RuntimeError("[gloo/transport/tcp/pair.cc:534] Connection closed by peer [::1]:4")
    program = _host_of_two_with_one_answer(lost)
    with pytest.raises(controller.WorkerError, match="the workers on another host stopped"):
        program._answers([0])


def test_a_timeout_here_with_a_silent_worker_names_the_worker(monkeypatch) -> None:
    """A worker here that timed out while the other, alive, doesn't answer: that may be
    this host's own worker stuck, so the error names it, as on one host."""
    from shapescript.rt.parallel import controller

    monkeypatch.setattr(controller, "_GRACE", 0.1)
    monkeypatch.setattr(controller, "_ASK", 0.1)
    late = RuntimeError("[gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1000ms")
    program = _host_of_two_with_one_answer(late)
    with pytest.raises(controller.WorkerError, match="worker 0: didn't answer"):
        program._answers([0])


@pytest.mark.parametrize(
    ("world", "expected"),
    [(4, "the workers on another host stopped answering"), (2, "after its result was returned")],
)
def test_a_late_error_of_a_lost_connection_names_another_host(world: int, expected: str) -> None:
    # A quiet worker's all-reduce fails after the first worker answered the step: with
    # workers on other hosts, the connection it lost was to another host's.
    program = controller.Program.__new__(controller.Program)
    program.world, program.count, program.first = world, 2, 0
    program.calls, program.called, program.running = 5, {5: "`train_step` (t.ss:54:4)"}, None
    stopped = []
    program.stop = lambda keep=True, why=None: stopped.append(why)
    worker = controller._Worker.__new__(controller._Worker)
    worker.rank = 1
    error = RuntimeError("[gloo/transport/tcp/pair.cc:537] Read error: Connection reset by peer")
    answer = ("error", error, "Traceback ...", None, 5)
    with pytest.raises(controller.WorkerError, match=expected):
        program._late(worker, answer)
    assert len(stopped) == 1
