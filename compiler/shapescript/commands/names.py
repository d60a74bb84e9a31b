"""The commands' names, in the order `shapescript --help` lists them.

`python -m shapescript` reads them to tell a command from a program to run, so this module
imports nothing: running a program doesn't load the command line.
"""

from __future__ import annotations

NAMES = ("check", "explain", "build", "run", "export", "fmt", "pymodules", "verify", "new")
