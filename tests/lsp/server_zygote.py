"""A language server forked, for the protocol tests, from a process that has already
imported it.

Each pytest-lsp test starts a server of its own, and most of a server's start is
importing lsprotocol, pygls and the checker (about a second of CPU, 500 times over).
`python server_zygote.py SOCKET` imports the server once, then waits on a Unix socket.
`launch.py`, the command the tests give pytest-lsp, sends it its stdin, stdout and stderr,
its environment, folder and arguments; the zygote forks a child that takes them and runs
the server's `main` as `python -m shapescript_lsp` would, and sends the launcher the
child's exit status when it ends. The zygote is single-threaded: it never forks with a
thread running. Tests of how the server starts as a process use `python -m
shapescript_lsp` itself (tests/lsp/raw_client.py, tests/e2e).
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import socket
import sys
import traceback


def _serve_child(connection: socket.socket, fds: list[int], request: dict) -> None:
    """In the forked child: become the server the launcher asked for."""
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        connection.close()
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = ["shapescript_lsp", *request["argv"]]
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        from shapescript_lsp.__main__ import main

        code = main(request["argv"])
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:  # noqa: BLE001 - the child reports and exits, as a process would
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


def serve(path: str) -> None:
    import shapescript_lsp.__main__  # noqa: F401 - what every child would import
    import shapescript_lsp.server  # noqa: F401

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.replace(path + ".tmp", path)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    waiting: dict[int, socket.socket] = {}
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(wake_read, selectors.EVENT_READ, "child")
    while True:
        for key, _ in selector.select():
            if key.data == "accept":
                connection, _ = listener.accept()
                message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
                request = json.loads(message)
                pid = os.fork()
                if pid == 0:
                    listener.close()
                    _serve_child(connection, fds, request)
                for fd in fds:
                    os.close(fd)
                connection.sendall(f"{pid}\n".encode())
                waiting[pid] = connection
            else:
                os.read(wake_read, 4096)
            while waiting:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
                connection = waiting.pop(pid, None)
                if connection is not None:
                    with contextlib.suppress(OSError):
                        connection.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
                    connection.close()


if __name__ == "__main__":
    serve(sys.argv[1])
