"""The server command of the protocol tests: a small process that has the zygote
(server_zygote.py) fork a server on its stdin, stdout and stderr, and exits with that
server's status. Stopping it stops the server."""

import contextlib
import json
import os
import signal
import socket
import sys
import time


def main() -> int:
    path, argv = sys.argv[1], sys.argv[2:]
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    deadline = time.monotonic() + 60
    while True:
        try:
            connection.connect(path)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    request = {"cwd": os.getcwd(), "env": dict(os.environ), "argv": argv}
    socket.send_fds(connection, [json.dumps(request).encode()], [0, 1, 2])
    for fd in (0, 1, 2):
        os.close(fd)
    reader = connection.makefile("r")
    pid = int(reader.readline())

    def forward(signum, _frame):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    status = reader.readline()
    code = int(status) if status.strip() else 1
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    # Its stdout is the server's now, already closed here: exit without flushing it.
    os._exit(main())
