"""The compiler: a checked program to plain Python that calls PyTorch.

It reads only what the checker recorded (types, alignments, how each iterator stage
runs, signatures) and never works a type out itself.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from shapescript.check.analyses.padding import complete_facts
from shapescript.check.program import Checked
from shapescript.codegen.context import ModuleContext
from shapescript.codegen.emit import SourceBuilder
from shapescript.codegen.module import generate_module
from shapescript.deep import run_deep
from shapescript.diagnostics.diagnostic import Diagnostic, Label
from shapescript.records import replace
from shapescript.syntax import ast as ss_ast

CHECK_MODES = ("always", "debug", "never")


@dataclass(slots=True)
class BuildOptions:
    """How to build: the devices (as a devices line says them), the check modes,
    whether the module may import `shapescript`, and whether batch loops and functions are
    compiled padded (off for code that leaves the runtime, as an export's). `host_checks`
    off leaves out the checks that host scalar arguments are Python numbers: an export's
    blocks pass 0-d tensors for them. `claim_checks`, when given, is the mode of the shape
    checks of `as` alone (a Hugging Face folder keeps them with the other checks off).
    `lower` off compiles every operation as written, without the faster equivalents the
    checker proves equal (for comparing the two). `torch_compile` on gives each function
    of tensor code its body as a function of its own, run through `torch.compile` by the
    runtime, with the argument checks left outside (`codegen.compiled_bodies`)."""

    devices: str | None = None
    checks: str = "always"
    value_checks: str = "debug"
    standalone: bool = False
    padding: bool = True
    host_checks: bool = True
    claim_checks: str | None = None
    lower: bool = True
    torch_compile: bool = False


@dataclass(slots=True)
class Generated:
    """The compiled module: readable source, and its Python `ast` with the `.ss` lines.

    `built` is None when `diagnostics` has errors, and so is `tree`, which is parsed from
    `built` when first read: `shapescript build` writes the source and never needs it.
    Declarations this compiler can't compile yet (models, records, ...) are listed in
    `unsupported` and compiled to names that raise NotImplementedError when used, so the
    rest of the file runs.
    """

    built: SourceBuilder | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    source: str = ""
    #: Constructs this compiler can't compile yet: (message, absolute span or None).
    unsupported: list[tuple[str, object]] = field(default_factory=list)
    devices: str | None = None
    _tree: ast.Module | None = field(default=None, init=False, repr=False)

    @property
    def tree(self) -> ast.Module | None:
        """The module's `ast`, every node at its `.ss` position (None after errors)."""
        if self._tree is None and self.built is not None:
            self._tree = self.built.tree()
        return self._tree


def devices_line(checked: Checked) -> tuple[str | None, ss_ast.DevicesDecl | None]:
    """The file's devices, as the text of its devices line, and the declaration."""
    for item in checked.module.items:
        if isinstance(item, ss_ast.DevicesDecl):
            numbers = "" if item.numbers is None else "[" + " ".join(map(str, item.numbers)) + "]"
            return item.device + numbers, item
    return None, None


def _normal(text: str) -> str:
    return (
        " ".join(text.replace("[", " [ ").replace("]", " ] ").split())
        .replace("[ ", "[")
        .replace(" ]", "]")
        .replace(" [", "[")
    )


def generate(checked: Checked, options: BuildOptions | None = None) -> Generated:
    """Compile a checked file; a file with errors gives no tree, only its diagnostics.

    The walks over the tree recurse, so they run where the deepest tree the parser lets
    through fits (`shapescript.deep.run_deep`).
    """
    return run_deep(_generate, checked, options or BuildOptions())


def _generate(checked: Checked, options: BuildOptions) -> Generated:
    for mode in (options.checks, options.value_checks):
        if mode not in CHECK_MODES:
            raise ValueError(f"unknown check mode {mode!r}: use one of {', '.join(CHECK_MODES)}")
    if checked.errors:
        return Generated(None, list(checked.errors))
    declared, decl = devices_line(checked)
    devices = declared
    problems: list[Diagnostic] = []
    if options.devices is not None:
        wanted = _normal(options.devices)
        if declared is not None and _normal(declared) != wanted:
            problems.append(
                Diagnostic(
                    "E1006",
                    f"the file declares `devices {declared}`, but `--devices` says `{wanted}`",
                    Label(_absolute_span(checked, decl), "declared here"),
                    help="remove one of them, or make them say the same",
                    path=checked.source.path,
                )
            )
        devices = wanted
    if options.standalone and devices is None:
        problems.append(
            Diagnostic(
                "E1005",
                "a standalone build needs to know its devices",
                Label(_file_start(checked), "no devices line"),
                help="add a devices line such as `devices cpu`, or build with `--devices cpu`",
                path=checked.source.path,
            )
        )
    if options.standalone:
        problems.extend(_standalone_imports(checked))
        problems.extend(_standalone_devices(checked, devices, decl))
    if problems:
        return Generated(None, problems)
    if not options.padding and checked.padding is not None:
        checked = replace(checked, padding=None)
    complete_facts(checked)
    context = ModuleContext(checked, options.standalone, options.checks, options.value_checks)
    context.host_checks = options.host_checks
    context.claim_checks = options.claim_checks
    context.lower = options.lower
    context.torch_compile = options.torch_compile
    builder, unsupported = generate_module(checked, context, devices)
    return Generated(
        builder,
        [],
        builder.text,
        unsupported=[(str(problem), problem.span) for problem in unsupported],
        devices=devices,
    )


def _standalone_imports(checked: Checked) -> list[Diagnostic]:
    """E2305: a standalone module needs only torch, so it can't import other `.ss` files,
    which come through the shapescript package's import hook."""
    table = checked.imports
    infos = getattr(table, "infos", None) or []
    return [
        Diagnostic(
            "E2305",
            "a standalone build can't import other `.ss` files",
            Label(info.span, "imports another .ss file"),
            help="build without --standalone, or put what you import into the file",
            path=checked.source.path,
        )
        for info in infos[:1]
    ]


def _standalone_devices(checked: Checked, devices: str | None, decl) -> list[Diagnostic]:
    """E1805: several devices run in a controller with a worker per device, which is the
    shapescript package's runtime, so a standalone module can't."""
    count = len(set(_numbers(devices)))
    if count < 2:
        return []
    span = _absolute_span(checked, decl) if decl is not None else _file_start(checked)
    return [
        Diagnostic(
            "E1805",
            f"a standalone build can't run on {count} devices",
            Label(span, "several devices"),
            help="build without --standalone, or for one device",
            path=checked.source.path,
        )
    ]


def _numbers(devices: str | None) -> list[str]:
    if devices is None or "[" not in devices:
        return []
    return devices[devices.index("[") + 1 : devices.rindex("]")].split()


def _absolute_span(checked: Checked, decl):
    from shapescript.syntax.source import Span

    for index, item in enumerate(checked.module.items):
        if item is decl:
            base = checked.module.base_of(index)
            return Span(base + item.span.start, base + item.span.end)
    return _file_start(checked)


def _file_start(checked: Checked):
    from shapescript.syntax.source import Span

    return Span(0, 0)
