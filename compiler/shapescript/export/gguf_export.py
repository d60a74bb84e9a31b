"""`shapescript export --gguf FILE` and `shapescript.export_gguf`: a language model as a
GGUF file for llama.cpp.

Which architecture the source is, and which field is which of its tensors, is found by
computing the source and each architecture (`architectures`) on the same random weights in
f64: pairings consistent with the tensors' shapes are tried in the order the forward
function first reads the fields, with each head count and rotary base, and the first whose logits
agree to 1e-8 of their size is written.

A model that holds models is paired by its params' full paths, a stack of held models
(`h: [L] Block`) giving one `[L ...]` tensor per path below it (`transformer.h.*.ln_1.weight`),
as a flat model's `[L ...]` fields do. Matrices are paired as llama.cpp keeps them, [out in],
or else all as [in out] (Hugging Face's GPT-2 `Conv1D` layout), written transposed.
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

from shapescript.export.architectures import ARCHITECTURES, LOGITS, VARIANTS, Settings
from shapescript.records import replace

#: How close the architecture's logits must be to the source's, relative to their size, as
#: the reference says. Both are computed in f64: the source's own f32 (and f16, bf16) work,
#: such as llama's rotary angles from `pos to f32`, is widened for the search.
AGREE = 1e-8
#: The compiled module's names of the lower float dtypes, each f64 while searching.
NARROW_DTYPES = ("_ss_f32", "_ss_f16", "_ss_bf16")
#: Rotary bases tried for llama, the common ones first.
ROPE_BASES = (10000.0, 500000.0, 1000000.0, 100000.0)
#: At most this many pairings are computed per architecture.
MAX_TRIES = 2000
#: The kinds of tensor that are matrices a layer multiplies by, which a source may keep
#: transposed ([in out]).
MATRIX_KINDS = frozenset({"square", "kv", "qkv", "up", "down"})
#: A stack's index in a param's full path: `h.0.` in `transformer.h.0.attn.c_attn.weight`.
STACK_INDEX = re.compile(r"(?<=\.)\d+(?=\.)")


class NotAnArchitecture(ValueError):
    """The source computes neither architecture; the message says why for each."""


def _pairings(fields: list[tuple[str, tuple[int, ...]]], roles: list):
    """Assignments of fields to the architecture's tensors that fit their shapes, trying
    the fields in the order given, matrices as [out in] and then all as [in out]:
    (role -> field name, the sizes the shapes give, the roles whose fields are transposed)."""
    for transposed in (False, True):
        flipped = frozenset(name for name, _block, kind in roles if kind in MATRIX_KINDS)
        for chosen, sizes in _layout_pairings(fields, roles, transposed):
            yield chosen, sizes, (flipped & set(chosen)) if transposed else frozenset()


def _layout_pairings(fields: list[tuple[str, tuple[int, ...]]], roles: list, transposed: bool):
    """`_pairings` with every matrix kept as [out in], or with every one as [in out]."""
    optional = {"output.weight"}

    def fits(kind: str, shape: tuple[int, ...], sizes: dict) -> dict | None:
        want = {
            "embed": ("V", "D"),
            "positions": ("P", "D"),
            "vector": ("D",),
            "square": ("D", "D"),
            "kv": ("K", "D"),
            "qkv": ("Q", "D"),
            "qkv_bias": ("Q",),
            "up": ("F", "D"),
            "up_bias": ("F",),
            "down": ("D", "F"),
        }[kind]
        if transposed and kind in MATRIX_KINDS:
            want = want[::-1]
        if len(want) != len(shape):
            return None
        made = dict(sizes)
        for key, size in zip(want, shape, strict=True):
            if made.setdefault(key, size) != size:
                return None
        if "Q" in made and "D" in made and made["Q"] != 3 * made["D"]:
            return None
        return made

    def search(index: int, used: frozenset, chosen: dict, sizes: dict):
        if index == len(roles):
            if len(used) == len(fields):
                yield dict(chosen), sizes
            return
        name, per_block, kind = roles[index]
        for position, (field, shape) in enumerate(fields):
            if position in used:
                continue
            if per_block:
                if len(shape) < 2:
                    continue
                layers = sizes.get("L")
                if layers is not None and layers != shape[0]:
                    continue
                made = fits(kind, shape[1:], sizes)
                if made is not None:
                    made["L"] = shape[0]
            else:
                made = fits(kind, shape, sizes)
            if made is None:
                continue
            chosen[name] = field
            yield from search(index + 1, used | {position}, chosen, made)
            del chosen[name]
        if name in optional:
            yield from search(index + 1, used, chosen, sizes)

    yield from search(0, frozenset(), {}, {})


def _settings(arch: str, sizes: dict, eps: float):
    width = sizes["D"]
    for heads in range(1, width + 1):
        if width % heads:
            continue
        head = width // heads
        if arch == "llama":
            if head % 2 or sizes["K"] % head:
                continue
            kv = sizes["K"] // head
            if kv == 0 or heads % kv:
                continue
            for base in ROPE_BASES:
                yield Settings(sizes["L"], heads, kv, eps, base)
        else:
            yield Settings(sizes["L"], heads, heads, eps)


def _eps(text: str) -> float | None:
    found = {float(value) for value in re.findall(r"\beps\s*=\s*([0-9.]+(?:e-?[0-9]+)?)", text)}
    if len(found) > 1:
        raise NotAnArchitecture(
            "its norms use different eps values; a GGUF file holds one: "
            + ", ".join(map(str, sorted(found)))
        )
    return found.pop() if found else None


def _tensors(chosen: dict, values: dict, layers: int, transposed: frozenset = frozenset()) -> dict:
    """GGUF-named tensors from the fields the pairing chose, those of the `transposed`
    roles turned to [out in]."""
    made = {}
    for role, field in chosen.items():
        value = values[field]
        if role in transposed:
            value = value.transpose(-1, -2)
        if role in ("token_embd.weight", "position_embd.weight", "output.weight") or (
            role.startswith("output_norm")
        ):
            made[role] = value
        else:
            for layer in range(layers):
                made[f"blk.{layer}.{role}"] = value[layer]
    return made


def _stack_name(path: str) -> str:
    """The name of the stacked tensor a param's full path belongs to: its first stack
    index as `*` (`transformer.h.*.ln_1.weight`), a path without one as it is."""
    return STACK_INDEX.sub("*", path, count=1)


def _stacked(tensors: dict) -> dict:
    """The source's tensors as the pairing sees them: a held stack's params, one per
    model, as one `[L ...]` tensor under its `_stack_name`, every other param by its path."""
    groups: dict[str, list] = {}
    for path, value in tensors.items():
        groups.setdefault(_stack_name(path), []).append(value)
    import torch

    return {
        name: members[0] if "*" not in name else torch.stack(members)
        for name, members in groups.items()
    }


def _place(model, path: str, value) -> None:
    """Make `value` the model's param or buffer at the full path `path`."""
    import torch

    owner_path, _dot, name = path.rpartition(".")
    owner = model.get_submodule(owner_path) if owner_path else model
    if name in owner._parameters:
        owner._parameters[name] = torch.nn.Parameter(value)
    else:
        owner._buffers[name] = value


def find_architecture(text, path, function, model_name, arch=None, tolerance=None, modes=()):
    """(architecture, pairing, settings, sizes, accepted, transposed) of the source's forward
    function, or NotAnArchitecture saying why for each architecture tried. `accepted` is None
    when a pairing agrees to AGREE, else the note saying by how much the closest one, accepted
    by `tolerance` (relative to the logits' size), differs and why; `transposed` names the
    roles whose fields the source keeps as [in out]."""
    import torch

    import shapescript

    module = shapescript.compile(
        text, str(path), devices="cpu", checks="never", value_checks="never"
    )
    narrow = {name: getattr(module, name) for name in NARROW_DTYPES if hasattr(module, name)}
    default = torch.get_default_dtype()
    try:
        for name in narrow:
            setattr(module, name, torch.float64)
        torch.set_default_dtype(torch.float64)
        return _search(module, function, model_name, text, arch, tolerance, modes)
    finally:
        torch.set_default_dtype(default)
        for name, dtype in narrow.items():
            setattr(module, name, dtype)


def _search(module, function, model_name, text, arch, tolerance=None, modes=()):
    import functools

    import torch

    from shapescript.rt.models import tensors_of
    from shapescript.rt.randomness import Eval

    cls = getattr(module, model_name)
    forward = functools.partial(getattr(module, function), **{mode: Eval for mode in modes})
    generator = torch.Generator().manual_seed(0)
    model = cls.init(seed=0)
    paths = list(tensors_of(model))
    fields = [(name, tuple(value.shape)) for name, value in _stacked(tensors_of(model)).items()]
    values = {}
    for name, shape in fields:
        value = torch.randn(shape, generator=generator, dtype=torch.float64)
        value = 1.0 + 0.1 * value if len(shape) <= 2 and "norm" in name else 0.3 * value
        values[name] = value
    for path in paths:
        stacked = values[_stack_name(path)]
        index = STACK_INDEX.search(path)
        _place(model, path, stacked if index is None else stacked[int(index.group())])
    fields = _in_reading_order(fields, model, forward)
    eps = _eps(text)
    why = {}
    closest: list[tuple] = []
    computed: dict[int, tuple] = {}

    def source_logits(vocabulary: int):
        if vocabulary not in computed:
            ids = torch.randint(0, vocabulary, (2, 5), generator=generator)
            positions = torch.arange(5).expand(2, 5)
            with torch.no_grad():
                want = forward(model, ids, positions)
            computed[vocabulary] = (ids, positions, want, float(want.abs().max()) or 1.0)
        return computed[vocabulary]

    for name in [arch] if arch else list(ARCHITECTURES):
        roles = ARCHITECTURES[name]
        best = None
        tries = 0
        for chosen, sizes, transposed in _pairings(fields, roles):
            ids, positions, want, scale = source_logits(sizes["V"])
            tensors = _tensors(chosen, values, sizes["L"], transposed)
            for settings in _settings(name, sizes, eps if eps is not None else 1e-5):
                tries += 1
                with torch.no_grad():
                    got = LOGITS[name](tensors, settings, ids, positions)
                largest = float((got - want).abs().max())
                if largest / scale <= AGREE:
                    return name, chosen, settings, sizes, None, transposed
                if best is None or largest / scale < best[0]:
                    best = (
                        largest / scale,
                        largest,
                        scale,
                        chosen,
                        settings,
                        sizes,
                        tensors,
                        transposed,
                    )
                if tries >= MAX_TRIES:
                    break
            if tries >= MAX_TRIES:
                break
        if best is None:
            why[name] = "no pairing of the fields fits its tensors (a different number or shape)"
            continue
        relative, largest, scale, chosen, settings, sizes, tensors, transposed = best
        ids, positions, want, _scale = source_logits(sizes["V"])
        cause = _cause(name, tensors, settings, ids, positions, want, scale)
        why[name] = (
            f"the closest pairing's logits differ by {relative:.3g} of their size (largest "
            f"logit difference {largest:.3g}, on logits up to {scale:.3g}): {cause}"
        )
        closest.append((relative, name, chosen, settings, sizes, why[name], transposed))
    if tolerance is not None and closest:
        relative, name, chosen, settings, sizes, reason, transposed = min(
            closest, key=lambda c: c[0]
        )
        if relative <= tolerance:
            note = f"{name}: {reason}; accepted by the tolerance {tolerance:g}"
            return name, chosen, settings, sizes, note, transposed
    hint = ""
    if closest:
        needed = min(relative for relative, *_rest in closest)
        hint = (
            f"; to write the closest pairing anyway, accept its difference with "
            f"--gguf-tolerance {_round_up(needed)} (tolerance= from Python)"
        )
    raise NotAnArchitecture(
        "the model isn't one llama.cpp runs: "
        + "; ".join(f"{name}: {reason}" for name, reason in why.items())
        + hint
    )


def _round_up(value: float) -> str:
    """A tolerance just above `value`, with two significant digits."""
    return f"{float(f'{value * 1.05:.2g}'):g}"


def _cause(name, tensors, settings, ids, positions, want, scale) -> str:
    """Which one difference from the architecture (activation, norm, layout) makes the
    closest pairing agree, said as a sentence, or that no single one does."""
    import torch

    for extra, sentence in VARIANTS[name]:
        variant = replace(settings, extra={**settings.extra, **extra})
        with torch.no_grad():
            got = LOGITS[name](tensors, variant, ids, positions)
        if float((got - want).abs().max()) / scale <= AGREE:
            return sentence
    return (
        "no single difference in the activation, the norms or the layout explains it "
        "(compare the forward function with llama.cpp's " + name + ")"
    )


def _in_reading_order(fields: list, model, forward) -> list:
    """The fields in the order the forward function first reads them, those it never reads
    last in the order they are declared: the pairing search tries fields in this order."""
    import torch

    names = {name for name, _ in fields}
    first_read: dict[str, int] = {}
    # Each model in the tree (the one passed in, each held one) reads its own params: the
    # read is of the full path, which names a field or a stacked one (`_stack_name`).
    models = [
        (prefix + "." if prefix else "", held)
        for prefix, held in model.named_modules()
        if hasattr(type(held), "_ss_fields")
    ]
    readers: dict[type, type] = {}
    prefixes = {id(held): prefix for prefix, held in models}

    def reader(declared: type) -> type:
        class Reading(declared):  # type: ignore[misc, valid-type]
            def __getattr__(self, name: str):
                read = _stack_name(prefixes.get(id(self), "") + name)
                if read in names:
                    first_read.setdefault(read, len(first_read))
                return super().__getattr__(name)

        return readers.setdefault(declared, Reading)

    ids = torch.zeros((1, 2), dtype=torch.long)
    positions = torch.arange(2).expand(1, 2)
    declared = [(held, type(held)) for _prefix, held in models]
    for held, kind in declared:
        held.__class__ = readers.get(kind) or reader(kind)
    try:
        with torch.no_grad():
            forward(model, ids, positions)
    finally:
        for held, kind in declared:
            held.__class__ = kind
    unread = len(fields)
    return sorted(fields, key=lambda field: first_read.get(field[0], unread))


def export_gguf(
    path: str,
    output: str,
    *,
    fn: str = "forward",
    arch: str | None = None,
    weights=None,
    seed: int = 0,
    dtype: str = "float32",
    tokenizer: str | None = None,
    max_len: int | None = None,
    tolerance: float | None = None,
) -> str:
    """Write the GGUF file of `fn`'s model at `output`; its architecture's name.

    ValueError saying why when the model is neither architecture (what differs, and by
    how much); ShapeScriptError for a file with errors. `tolerance` (relative to the
    logits' size) accepts the closest pairing when none agrees to AGREE, with a
    UserWarning that says by how much it differs and why.
    """
    import gguf
    import numpy
    import torch

    import shapescript
    from shapescript import analysis, atomic_write
    from shapescript.export.hf import _model, _modes, _positions_bound, hf_problems
    from shapescript.export.prepare import choose_function
    from shapescript.rt.errors import ShapeScriptError
    from shapescript.syntax.source import SourceFile

    if arch is not None and arch not in ARCHITECTURES:
        raise ValueError(f"arch is one of {', '.join(ARCHITECTURES)}, not {arch!r}")
    text = Path(path).read_text(encoding="utf-8")
    source = SourceFile.from_text(str(path), text)
    checked = analysis.check(source, search_path=list(sys.path))
    if checked.errors:
        raise ShapeScriptError(checked.diagnostics, source)
    name = choose_function(checked, fn)
    from shapescript.export.serving import gguf_diagnostics, serving_diagnostics

    found = (
        hf_problems(checked, name)
        or serving_diagnostics(checked, name)
        or gguf_diagnostics(checked, name)
    )
    if found:
        raise ShapeScriptError(found, source)
    model_name = checked.signatures[name].params[0].type.name
    if tolerance is not None and not tolerance >= 0:
        raise ValueError(f"tolerance is a number at least 0, not {tolerance!r}")
    found_arch, chosen, settings, sizes, accepted, transposed = find_architecture(
        text, path, name, model_name, arch, tolerance, _modes(checked, name)
    )
    if accepted is not None:
        warnings.warn(
            f"the GGUF file computes other logits than the source: {accepted}", stacklevel=2
        )
    module = shapescript.compile(text, str(path), devices="cpu")
    model = _model(module, model_name, weights, seed)
    from shapescript.rt.models import tensors_of

    values = _stacked({path: t.detach().cpu() for path, t in tensors_of(model).items()})
    tensors = _tensors(chosen, values, settings.layers, transposed)
    # The GGUF writer opens its file by name: it writes a new file beside `output`, which
    # then replaces `output` (the file a link named `output` points to, since the user
    # named it), as `shapescript.atomic_write` does.
    with atomic_write.temporary_path(output, through_link=True) as temporary:
        writer = gguf.GGUFWriter(temporary, found_arch)
        writer.add_name(Path(path).stem)
        bound = sizes.get("P") or _positions_bound(checked, name)
        writer.add_context_length(max_len or bound or 4096)
        writer.add_embedding_length(sizes["D"])
        writer.add_block_count(settings.layers)
        writer.add_feed_forward_length(sizes["F"])
        writer.add_head_count(settings.heads)
        if found_arch == "llama":
            writer.add_head_count_kv(settings.kv_heads)
            writer.add_layer_norm_rms_eps(settings.eps)
            writer.add_rope_dimension_count(sizes["D"] // settings.heads)
            writer.add_rope_freq_base(settings.rope_base)
        else:
            writer.add_layer_norm_eps(settings.eps)
        writer.add_vocab_size(sizes["V"])
        _vocabulary(writer, sizes["V"], tokenizer)
        numpy_dtype = {"float32": numpy.float32, "float16": numpy.float16}.get(dtype)
        for tensor_name, value in tensors.items():
            value = value.to(torch.float32)
            if value.dim() >= 2 and dtype == "bfloat16":
                data = value.to(torch.bfloat16).view(torch.int16).numpy()
                writer.add_tensor(tensor_name, data, raw_dtype=gguf.GGMLQuantizationType.BF16)
            elif value.dim() >= 2 and numpy_dtype is not None:
                writer.add_tensor(tensor_name, value.numpy().astype(numpy_dtype))
            else:
                writer.add_tensor(tensor_name, value.numpy())
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
    return found_arch


def _vocabulary(writer, size: int, tokenizer: str | None) -> None:
    """The tokenizer's vocabulary, or `<|N|>` for each token id."""
    import json

    import gguf

    tokens = [f"<|{index}|>" for index in range(size)]
    merges: list[str] = []
    if tokenizer is not None:
        data = json.loads((Path(tokenizer) / "tokenizer.json").read_text(encoding="utf-8"))
        vocab = data["model"]["vocab"]
        by_id = {index: token for token, index in vocab.items()}
        tokens = [by_id.get(index, f"<|{index}|>") for index in range(size)]
        merges = [
            merge if isinstance(merge, str) else " ".join(merge)
            for merge in data["model"].get("merges", [])
        ]
    if tokenizer is None:
        # No tokenizer: prompts are token ids. llama.cpp refuses a BPE ("gpt2") vocabulary
        # without merges, so the vocabulary is its tokenizer-less kind, "none".
        writer.add_tokenizer_model("none")
        writer.add_token_list(tokens)
        writer.add_token_types([gguf.TokenType.NORMAL] * size)
        return
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types([gguf.TokenType.NORMAL] * size)
    writer.add_token_merges(merges)
