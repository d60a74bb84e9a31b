"""`shapescript run --nnodes N --node-rank R [--master-addr A --master-port P]`: the flags
that run a program on several hosts, as the env:// variables torchrun sets (see
rt/parallel/hosts.py, which reads them)."""

from __future__ import annotations

import argparse

from shapescript.commands.support import UsageError

#: torchrun's defaults for host 0's address and port.
DEFAULT_ADDRESS = "127.0.0.1"
DEFAULT_PORT = 29500


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--nnodes",
        type=int,
        metavar="N",
        help="run on N hosts, each running the program with its own devices (data parallelism)",
    )
    parser.add_argument(
        "--node-rank", type=int, metavar="R", help="which of the N hosts this is (0 to N-1)"
    )
    parser.add_argument(
        "--master-addr",
        metavar="A",
        help=f"host 0's address, where the hosts meet (default {DEFAULT_ADDRESS})",
    )
    parser.add_argument(
        "--master-port",
        type=int,
        metavar="P",
        help=f"host 0's port for the rendezvous store (default {DEFAULT_PORT})",
    )


def environment(args: argparse.Namespace) -> dict[str, str]:
    """The env:// variables the flags stand for; none without --nnodes."""
    if args.nnodes is None:
        for flag, value in (
            ("--node-rank", args.node_rank),
            ("--master-addr", args.master_addr),
            ("--master-port", args.master_port),
        ):
            if value is not None:
                raise UsageError(f"{flag} is for several hosts: give --nnodes N too")
        return {}
    if args.nnodes < 1:
        raise UsageError(f"--nnodes is the number of hosts, at least 1, not {args.nnodes}")
    if args.node_rank is None or not 0 <= args.node_rank < args.nnodes:
        given = "not given" if args.node_rank is None else f"{args.node_rank}"
        raise UsageError(
            f"--node-rank says which of the {args.nnodes} hosts this is, 0 to "
            f"{args.nnodes - 1} ({given})"
        )
    port = DEFAULT_PORT if args.master_port is None else args.master_port
    if not 0 < port < 65536:
        raise UsageError(f"--master-port is a TCP port, 1 to 65535, not {port}")
    return {
        "WORLD_SIZE": str(args.nnodes),
        "RANK": str(args.node_rank),
        "LOCAL_RANK": "0",
        "LOCAL_WORLD_SIZE": "1",
        "MASTER_ADDR": args.master_addr or DEFAULT_ADDRESS,
        "MASTER_PORT": str(port),
    }
