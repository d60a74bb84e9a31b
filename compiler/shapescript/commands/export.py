"""`shapescript export FILE`: a function as a torch.export program or an AOTInductor package.

The command checks the file and writes the export module; another Python (--python,
$SHAPESCRIPT_PYTHON, or this one) runs it, so tracing needs torch and einops there only.
Exit codes: 0 written, 1 errors in the file or from torch, 2 a usage error (no such
function, no --fn where the file hasn't exactly one export fn).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

from shapescript.check_modes import ALIASES, DEFAULT_CHECKS, DEFAULT_VALUE_CHECKS, MODES, normalize
from shapescript.commands.support import (
    EXIT_ERRORS,
    EXIT_OK,
    UsageError,
    print_diagnostics,
    python_for,
    read_source,
    refuse_own_input,
    search_path_for,
    write_output,
)
from shapescript.shown_paths import shown

NAME = "export"
HELP = "export a function with torch.export (.pt2, or an AOTInductor package)"
DESCRIPTION = (
    "Export a function as a torch.export program whose example inputs and dynamic "
    "shapes come from its signature."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    modes = [*MODES, *ALIASES]
    parser.add_argument("file", metavar="FILE", help="the .ss file")
    parser.add_argument("--fn", metavar="F", help="the function (default: the only export fn)")
    parser.add_argument("-o", "--output", metavar="OUT", help="where (default: FILE.pt2)")
    parser.add_argument("--aoti", action="store_true", help="write an AOTInductor package")
    parser.add_argument("--checks", choices=modes, default=DEFAULT_CHECKS, help="shape checks kept")
    parser.add_argument(
        "--value-checks",
        choices=modes,
        default=DEFAULT_VALUE_CHECKS,
        help="value checks kept",
    )
    parser.add_argument("--devices", metavar="D", help='the devices, as "cpu" or "cuda[0]"')
    parser.add_argument("--python", metavar="PY", help="the Python that traces")
    parser.add_argument(
        "--emit-python", metavar="FILE", help="write the export module instead of running it"
    )
    models = parser.add_argument_group("models (Hugging Face folders)")
    models.add_argument("--hf", metavar="DIR", help="write a Hugging Face folder of the model")
    models.add_argument("--vllm", action="store_true", help="make the serving rules errors")
    models.add_argument("--gguf", metavar="FILE", help="write a GGUF file for llama.cpp")
    models.add_argument("--arch", choices=("llama", "gpt2"), help="the GGUF architecture")
    models.add_argument(
        "--gguf-tolerance",
        type=float,
        metavar="REL",
        help="write the closest GGUF pairing if its logits differ by at most REL of their size",
    )
    models.add_argument("--weights", metavar="FILE", help="a checkpoint `save` wrote")
    models.add_argument("--seed", type=int, default=0, help="new weights from this seed")
    models.add_argument("--dtype", choices=("float32", "bfloat16", "float16"), default="float32")
    models.add_argument("--tokenizer", metavar="DIR", help="a tokenizer folder to copy in")
    models.add_argument("--max-len", type=int, metavar="N", help="max_position_embeddings")
    models.add_argument("--no-verify", action="store_true", help="don't load it back to check")


def run(args: argparse.Namespace) -> int:
    from shapescript import analysis
    from shapescript.export.module import BuildFailed, build_export, with_lines
    from shapescript.export.prepare import NoSuchFunction, choose_function, problems
    from shapescript.export.spec import SpecError

    if not args.file.endswith(".ss") or not Path(args.file).is_file():
        raise UsageError(f"`{args.file}` isn't a .ss file")
    for option, output in (
        ("-o", args.output),
        ("--emit-python", args.emit_python),
        ("--gguf", args.gguf),
    ):
        refuse_own_input(output, args.file, option)
    source = read_source(args.file)
    checked = analysis.check(source, search_path=search_path_for(args))
    if args.hf is not None:
        return _run_hf(args, checked, source)
    if args.gguf is not None:
        return _run_gguf(args, checked, source)
    try:
        name = choose_function(checked, args.fn)
    except NoSuchFunction as exc:
        if checked.errors:
            print_diagnostics(checked.diagnostics, source)
        raise UsageError(str(exc)) from None
    found = problems(checked, name)
    if found:
        print_diagnostics(found, source)
        return EXIT_ERRORS
    try:
        module = build_export(
            checked,
            name,
            devices=args.devices,
            checks=normalize(args.checks, "--checks"),
            value_checks=normalize(args.value_checks, "--value-checks"),
        )
    except BuildFailed as failed:
        print_diagnostics(failed.diagnostics, source)
        return EXIT_ERRORS
    except SpecError as exc:
        print(f"{shown(args.file)}: error: can't export `{name}`: {exc}", file=sys.stderr)
        return EXIT_ERRORS
    text = with_lines(module)
    if args.emit_python is not None:
        write_output(args.emit_python, text)
        return EXIT_OK
    output = args.output or str(Path(args.file).with_suffix(".pt2"))
    with tempfile.TemporaryDirectory(prefix="shapescript-export-") as folder:
        script = os.path.join(folder, f"{Path(args.file).stem}_export.py")
        write_output(script, text)
        command = [python_for(args.python), script, "-o", output]
        if args.aoti:
            command.append("--aoti")
        if module.spec.model is not None:
            command += ["--seed", str(args.seed)]
            if args.weights is not None:
                command += ["--weights", args.weights]
        try:
            status = subprocess.call(command)
        except OSError as exc:
            raise UsageError(f"can't run `{command[0]}`: {exc.strerror or exc}") from exc
    return EXIT_OK if status == 0 else EXIT_ERRORS


def _model_function(args: argparse.Namespace, checked, source) -> str | None:
    """The function `--hf` and `--gguf` export (`--fn`, forward by default), or None after
    printing why the file or the function can't be exported."""
    from shapescript.export.hf import hf_problems
    from shapescript.export.prepare import NoSuchFunction, choose_function

    if checked.errors:
        print_diagnostics(checked.diagnostics, source)
        return None
    try:
        name = choose_function(checked, args.fn or "forward")
    except NoSuchFunction as exc:
        raise UsageError(str(exc)) from None
    found = hf_problems(checked, name)
    if found:
        print_diagnostics(found, source)
        return None
    return name


def _run_hf(args: argparse.Namespace, checked, source) -> int:
    """`--hf DIR`: the folder, or the diagnostics that say why it can't be written."""
    from shapescript.export.hf import NotOurFolder, ServingWarning, export_hf
    from shapescript.export.serving import vllm_diagnostics
    from shapescript.rt.errors import ShapeScriptError

    name = _model_function(args, checked, source)
    if name is None:
        return EXIT_ERRORS
    serving = vllm_diagnostics(checked, name)
    if serving and args.vllm:
        print_diagnostics(serving, source)
        return EXIT_ERRORS
    for diag in serving:
        line = source.position(diag.span.start).line
        print(
            f"{shown(args.file)}:{line}: note: [{diag.code}] {diag.message}; the folder is for "
            "transformers only",
            file=sys.stderr,
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ServingWarning)
            export_hf(
                args.file,
                args.hf,
                fn=name,
                weights=args.weights,
                seed=args.seed,
                dtype=args.dtype,
                tokenizer=args.tokenizer,
                max_len=args.max_len,
                verify=not args.no_verify,
                vllm=args.vllm,
            )
    except ShapeScriptError as exc:
        print_diagnostics(exc.diagnostics, source)
        return EXIT_ERRORS
    except (NotOurFolder, ValueError, OSError) as exc:
        print(f"{shown(args.file)}: error: {exc}", file=sys.stderr)
        return EXIT_ERRORS
    return EXIT_OK


def _run_gguf(args: argparse.Namespace, checked, source) -> int:
    """`--gguf FILE`: the GGUF file, or why the model isn't an architecture llama.cpp runs."""
    from shapescript.export.gguf_export import export_gguf
    from shapescript.export.serving import gguf_diagnostics, serving_diagnostics
    from shapescript.rt.errors import ShapeScriptError

    name = _model_function(args, checked, source)
    if name is None:
        return EXIT_ERRORS
    serving = serving_diagnostics(checked, name) or gguf_diagnostics(checked, name)
    if serving:
        print_diagnostics(serving, source)
        return EXIT_ERRORS
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UserWarning)
            arch = export_gguf(
                args.file,
                args.gguf,
                fn=name,
                arch=args.arch,
                weights=args.weights,
                seed=args.seed,
                dtype=args.dtype,
                tokenizer=args.tokenizer,
                max_len=args.max_len,
                tolerance=args.gguf_tolerance,
            )
        for warning in caught:
            print(f"{shown(args.file)}: note: {warning.message}", file=sys.stderr)
    except ShapeScriptError as exc:
        print_diagnostics(exc.diagnostics, source)
        return EXIT_ERRORS
    except (ValueError, OSError) as exc:
        print(f"{shown(args.file)}: error: {exc}", file=sys.stderr)
        return EXIT_ERRORS
    print(f"wrote {shown(args.gguf)} ({arch})", file=sys.stderr)
    return EXIT_OK
