"""The `shapescript` command line: one module per command, registered with `entry`.

`entry` builds the parser from its `COMMANDS` and runs the one asked for; each command
module (`check`, `explain`, `build`, `run`, `export`, `fmt`, `pymodules`) has a `NAME`,
its `HELP` and `DESCRIPTION`, `add_arguments(parser)` and `run(args) -> int`, and imports
no other command. `runner` runs a program for `python -m shapescript PROGRAM`. Below them,
`support` has what they share (reading sources, printing diagnostics, usage errors, exit
statuses) and `names` the commands' names.
"""
