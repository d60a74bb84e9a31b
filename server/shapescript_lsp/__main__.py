"""Entry point of `shapescript-lsp` and `python -m shapescript_lsp`."""

from __future__ import annotations

import argparse
import logging
import sys

from shapescript import __version__
from shapescript_lsp.allocator import fix_mmap_threshold
from shapescript_lsp.quiet_logs import quiet_cancellations


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="shapescript-lsp", description="The ShapeScript language server."
    )
    parser.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    parser.add_argument("--tcp", type=int, metavar="PORT", help="listen on a TCP port instead")
    parser.add_argument("--host", default="127.0.0.1", help="host for --tcp")
    parser.add_argument("--log-file", help="write the server's log here")
    parser.add_argument("--version", action="version", version=f"shapescript-lsp {__version__}")
    args, _unknown = parser.parse_known_args(argv)
    fix_mmap_threshold()
    handler = (
        logging.FileHandler(args.log_file) if args.log_file else logging.StreamHandler(sys.stderr)
    )
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=[handler],
    )
    logging.getLogger("pygls").setLevel(logging.WARNING)
    quiet_cancellations()
    from shapescript_lsp.server import server

    if args.tcp is not None:
        server.start_tcp(args.host, args.tcp)
    else:
        server.start_io()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
