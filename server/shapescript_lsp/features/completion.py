"""Completion: what fits where the cursor is, ranked by the type expected there.

Contexts, from most to least specific: after `over=` exactly the operand's axes; after
`|>` the stages that take the piped value; in a type the types, domains and dtypes; in
a call's parentheses its keyword arguments first; elsewhere the names in scope, the
declarations, the built-ins and prelude, keywords and declaration snippets. Ranking is
in the manner of gopls: exact fits of the expected type, then fits, then the rest,
then misfits; the typed letters filter by fuzzy match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsprotocol import types

from shapescript.check.algebra.types import TensorType, Type, format_type
from shapescript.check.declarations.builtin_table import BUILTINS, split_top_level
from shapescript.check.declarations.symbols import Symbol
from shapescript.check.declarations.type_exprs import BUILTIN_DOMAINS
from shapescript.check.program import Checked
from shapescript.syntax.tokens import DTYPES, KEYWORDS
from shapescript_lsp.features.context import run_start
from shapescript_lsp.features.curve_hover import CURVE_KINDS, documentation_curve
from shapescript_lsp.features.hover import HoverRenderer
from shapescript_lsp.features.imported_names import imported_names
from shapescript_lsp.features.math_completion import math_items
from shapescript_lsp.features.member_chain import chain_at_end, follow
from shapescript_lsp.features.model_hover import model_infos
from shapescript_lsp.features.model_members import member_candidates
from shapescript_lsp.features.pattern_completion import pattern_names, written_pattern
from shapescript_lsp.features.python_members import PYTHON_NAMES, Listing
from shapescript_lsp.features.record_members import record_members
from shapescript_lsp.features.signature_help import CallSite, call_site, callable_params
from shapescript_lsp.import_edits import import_edit
from shapescript_lsp.import_graph import WorkspaceView
from shapescript_lsp.render.themes import DEFAULT_THEME

#: The most Python names one answer holds, after the typed letters filtered them.
PYTHON_CAP = 300
PYTHON_KINDS = {
    "module": types.CompletionItemKind.Module,
    "function": types.CompletionItemKind.Function,
    "class": types.CompletionItemKind.Class,
    "variable": types.CompletionItemKind.Variable,
}
_IMPORT_PYTHON_HEAD = re.compile(r"^\s*import\s+python\s+((?:[^\W\d]\w*\.)*)$")
_IMPORT_HEAD = re.compile(r"^\s*import\s+((?:[^\W\d]\w*\.)*)$")
STAGE_KINDS = frozenset({"reduction", "along_axis", "elementwise", "pattern", "matmul"})
KIND_OF_SYMBOL = {
    "dim": types.CompletionItemKind.Constant,
    "alias": types.CompletionItemKind.TypeParameter,
    "domain": types.CompletionItemKind.Enum,
    "fn": types.CompletionItemKind.Function,
    "extern": types.CompletionItemKind.Function,
    "prelude": types.CompletionItemKind.Function,
    "builtin": types.CompletionItemKind.Function,
    "model": types.CompletionItemKind.Class,
    "field": types.CompletionItemKind.Field,
    "data": types.CompletionItemKind.Struct,
    "logs": types.CompletionItemKind.Struct,
    "import": types.CompletionItemKind.Module,
    "python_module": types.CompletionItemKind.Module,
    "param": types.CompletionItemKind.Variable,
    "value": types.CompletionItemKind.Variable,
    "python": types.CompletionItemKind.Variable,
    "axis": types.CompletionItemKind.TypeParameter,
}
SNIPPETS = {
    "fn": (
        "fn ${1:name}(${2:x}: [${3:n D}]) -> [${4:n D}]:\n    ${0:return x}",
        "fn name(...) -> T:",
    ),
    "for": ("for ${1:i} in ${2:0}..${3:n}:\n    ${0}", "for i in a..b:"),
    "if": ("if ${1:condition}:\n    ${0}", "if condition:"),
    "dim": ("dim ${1:D} = ${0:768}", "dim D = 768"),
    "extern fn": (
        'extern fn ${1:name}(${2:x}: ${3:Real}) -> ${4:Real} = "${0:torch.name}"',
        'extern fn name(x) -> T = "module.function"',
    ),
}


@dataclass(slots=True)
class Candidate:
    label: str
    kind: types.CompletionItemKind
    detail: str = ""
    type: Type | None = None
    rank: int = 2
    insert: str | None = None
    snippet: bool = False
    data: dict | None = None
    #: Orders items of one rank that have an order of their own (axes, parameters).
    order: int = 0
    edits: list | None = None
    #: Replaces more than the word typed (`m.fo` becomes `forward(m, …)`).
    text_edit: types.TextEdit | None = None
    filter_text: str | None = None
    #: Markdown shown with the item at once (a built-in's keyword: what it means).
    documentation: str | None = None


def fuzzy(prefix: str, label: str) -> bool:
    """Whether the typed letters appear in order in the label (case-insensitive)."""
    if not prefix:
        return True
    position = 0
    label = label.lower()
    for char in prefix.lower():
        position = label.find(char, position)
        if position < 0:
            return False
        position += 1
    return True


def _fit(candidate: Type | None, expected: Type | None, dims=frozenset()) -> int:
    """0 exact fit, 1 fits, 2 unknown, 3 misfit (for a parameter type `expected`)."""
    if expected is None or candidate is None:
        return 2
    if format_type(candidate) == format_type(expected):
        return 0
    if isinstance(expected, TensorType) and isinstance(candidate, TensorType):
        if expected.axes is None or candidate.axes is None:
            return 1
        if len(expected.axes) != len(candidate.axes):
            return 3
        for want, have in zip(expected.axes, candidate.axes, strict=True):
            generic = want.size.single_symbol()
            if generic is not None and generic not in dims:
                continue
            if str(want.size) != str(have.size):
                return 3
        return 0
    if isinstance(expected, TensorType) != isinstance(candidate, TensorType):
        return 3
    return 1


class Completer:
    def __init__(self, snippets: bool, workspace: WorkspaceView | None = None) -> None:
        self.snippets = snippets
        self.dims: frozenset[str] = frozenset()
        #: The workspace's other files, seen from the document.
        self.workspace = workspace
        #: The Python interpreter whose modules `import python` names.
        self.python: str | None = None
        #: The user's folders (the file's and the workspace's): their Python modules are
        #: read with ast, never imported.
        self.python_roots: list[str] = []
        #: Set when a Python list isn't all there is (still being listed, or capped).
        self.incomplete = False
        self.prefix = ""
        #: The check of the very text being completed, when the one completion works from
        #: is an earlier version's (the text has errors): locals are looked up in it first,
        #: since the earlier version may not have the line being typed.
        self.current: Checked | None = None
        #: Installed packages' `.ss` modules by dotted name (`installed_index`).
        self.installed_modules: dict[str, str] = {}

    def complete(self, checked: Checked | None, text: str, offset: int) -> types.CompletionList:
        self.dims = frozenset(checked.dim_values) if checked is not None else frozenset()
        line_start = text.rfind("\n", 0, offset) + 1
        before = text[line_start:offset]
        if _in_comment(before):
            return types.CompletionList(is_incomplete=False, items=math_items(before))
        prefix = before[run_start(before, len(before), "_?") :]
        head = before[: len(before) - len(prefix)]
        self.prefix, self.incomplete = prefix, False
        candidates = self._candidates(checked, text, offset, head, prefix)
        general = candidates and candidates[-1].kind in (
            types.CompletionItemKind.Keyword,
            types.CompletionItemKind.Snippet,
        )
        incomplete = self.incomplete
        if general and self.workspace is not None and self.workspace.files:
            if prefix:
                candidates += self._other_files(checked, text, prefix)
            else:
                incomplete = True
        items = [self._item(c) for c in candidates if fuzzy(prefix, c.label)]
        items.sort(key=lambda item: item.sort_text or item.label)
        if items and candidates and items[0].sort_text and items[0].sort_text.startswith("0"):
            items[0].preselect = True
        return types.CompletionList(is_incomplete=incomplete, items=items)

    def _other_files(self, checked, text: str, prefix: str) -> list[Candidate]:
        """Other files' declarations, written `module.name`, with an edit adding the import
        when the file doesn't import that file yet (never one that would make a cycle)."""
        workspace = self.workspace
        table = checked.imports if checked is not None else None
        bound_names = {}
        for info in sorted(table.infos if table is not None else (), key=lambda i: i.aliased):
            if info.path is not None:
                bound_names.setdefault(info.path, info.name)
        candidates = []
        for path, indexed in sorted(workspace.files.items()):
            bound = bound_names.get(path) or indexed.module.rpartition(".")[2]
            offered = [
                (name, kind)
                for name, kind in indexed.names.items()
                if fuzzy(prefix, f"{bound}.{name}")
            ]
            if not offered or (path not in bound_names and not workspace.importable(path)):
                continue
            edits = None
            if path not in bound_names:
                module = workspace.module_name(path)
                if module is None:
                    continue
                edits = [import_edit(text, module)]
            for name, kind in offered:
                qualified = f"{bound}.{name}"
                candidates.append(
                    Candidate(
                        qualified,
                        KIND_OF_SYMBOL.get(kind, types.CompletionItemKind.Reference),
                        f"{kind} from {indexed.module}.ss",
                        rank=3,
                        insert=qualified,
                        edits=edits,
                    )
                )
        return candidates

    # ------------------------------------------------------------------ contexts

    def _candidates(self, checked, text, offset, head, prefix) -> list[Candidate]:
        stripped = head.rstrip()
        importing = _IMPORT_PYTHON_HEAD.match(head)
        if importing is not None:
            return self._python_modules(importing.group(1).rstrip("."))
        importing = _IMPORT_HEAD.match(head)
        if importing is not None:
            return self._ss_modules(importing.group(1).rstrip("."))
        site = call_site(text, offset)
        if re.search(r"\bover\s*=\s*$", head) and site is not None:
            return self._axes_of_operand(checked, text, site, last_first=True)
        if stripped.endswith("|>"):
            return self._stages(checked, text, offset - len(prefix) - (len(head) - len(stripped)))
        if stripped.endswith(".") and not stripped.endswith(".."):
            dot = offset - len(prefix) - (len(head) - len(stripped)) - 1
            return self._members(checked, stripped[:-1], text, dot, offset)
        written = written_pattern(site, text, offset - len(prefix)) if site is not None else None
        if written is not None:
            return self._pattern_names(checked, text, site, *written)
        if _in_type_position(stripped):
            return self._types(checked, offset)
        if (
            site is not None
            and site.callee in ("rearrange", "reduce", "repeat", "einsum", "split")
            and site.argument_index > 0
        ):
            return self._axes_of_operand(checked, text, site) + self._general(checked, offset, None)
        expected = None
        keyword_items: list[Candidate] = []
        if site is not None and not re.search(r"=\s*$", head):
            params = callable_params(checked, site.callee)
            builtin = _builtin_of_call(checked, site.callee)
            if params is not None:
                given = set(site.keywords)
                for index, (name, type_text) in enumerate(params):
                    if name in given or (index < site.argument_index and not site.keywords):
                        continue
                    keyword_items.append(
                        Candidate(
                            f"{name}=",
                            types.CompletionItemKind.Property,
                            type_text,
                            rank=1,
                            order=index,
                            documentation=builtin.param_doc(name) if builtin else None,
                        )
                    )
                expected = _expected_type(checked, site, offset)
        return keyword_items + self._general(checked, offset, expected)

    def _general(self, checked, offset, expected: Type | None) -> list[Candidate]:
        candidates: list[Candidate] = []
        seen: set[str] = set()
        if checked is not None:
            for name, (symbol, type_) in checked.names_in_scope(offset).items():
                if name in seen or symbol is None:
                    continue
                seen.add(name)
                candidates.append(self._from_symbol(name, symbol, type_, expected))
        for keyword in sorted(KEYWORDS):
            if keyword not in seen:
                candidates.append(Candidate(keyword, types.CompletionItemKind.Keyword, rank=4))
        if self.snippets:
            for label, (body, detail) in SNIPPETS.items():
                candidates.append(
                    Candidate(
                        label,
                        types.CompletionItemKind.Snippet,
                        detail,
                        rank=4,
                        insert=body,
                        snippet=True,
                    )
                )
        return candidates

    def _from_symbol(self, name: str, symbol: Symbol, type_, expected) -> Candidate:
        kind = KIND_OF_SYMBOL.get(symbol.kind, types.CompletionItemKind.Text)
        detail = format_type(type_) if type_ is not None else symbol.kind
        if symbol.kind == "builtin" and name in BUILTINS:
            detail = BUILTINS[name].signature
        elif symbol.kind in ("prelude", "python"):
            detail = symbol.detail
        rank = _fit(type_, expected, self.dims) if symbol.kind in ("param", "value") else 2
        if symbol.kind in ("builtin", "prelude", "python"):
            rank = max(rank, 3) if expected is not None else 3
        return Candidate(name, kind, detail, type_, rank, data={"name": name, "kind": symbol.kind})

    def _axes_of_operand(
        self, checked, text: str, site: CallSite, last_first: bool = False
    ) -> list[Candidate]:
        """The operand's named axes in order; after `over=` last first, as the stage snippet
        `softmax(over=${1|D,n,b|})` offers them."""
        operand = _operand_type(checked, text, site)
        if not isinstance(operand, TensorType) or operand.axes is None:
            return []
        result = []
        axes = list(enumerate(operand.axes))
        for index, axis in reversed(axes) if last_first else axes:
            if axis.name and axis.name not in {c.label for c in result}:
                result.append(
                    Candidate(
                        axis.name,
                        types.CompletionItemKind.TypeParameter,
                        f"axis of {format_type(operand)}",
                        rank=0,
                        order=len(axes) - 1 - index if last_first else index,
                    )
                )
        return result

    def _pattern_names(
        self, checked, text: str, site: CallSite, operands: list[str], pattern: str
    ) -> list[Candidate]:
        """Axis names inside a pattern: the operands' axes and the names written so far."""
        return [
            Candidate(
                name.label,
                types.CompletionItemKind.TypeParameter,
                name.detail,
                rank=name.rank,
                order=name.order,
            )
            for name in pattern_names(
                checked, site, operands, pattern, lambda: _operand_type(checked, text, site)
            )
        ]

    def _stages(self, checked, text: str, bar_end: int) -> list[Candidate]:
        piped = _type_ending_at(checked, text, bar_end) or (
            _name_before(checked, text, bar_end) if checked is not None else None
        )
        candidates = []
        for name, entry in BUILTINS.items():
            if entry.kind in STAGE_KINDS:
                snippet = self._over_snippet(name, entry.signature, piped)
                candidates.append(
                    Candidate(
                        name,
                        types.CompletionItemKind.Function,
                        entry.signature,
                        rank=2,
                        data={"name": name, "kind": "builtin"},
                        insert=snippet,
                        snippet=snippet is not None,
                    )
                )
        if checked is not None:
            for name, symbol in list(checked.module_symbols.items()) + list(
                checked.builtin_symbols.items()
            ):
                if symbol.kind not in ("fn", "extern", "prelude"):
                    continue
                params = callable_params(checked, name)
                if not params:
                    continue
                rank = 1 if piped is None else _first_param_fit(checked, name, piped)
                candidates.append(
                    Candidate(
                        name,
                        types.CompletionItemKind.Function,
                        symbol.detail or symbol.kind,
                        rank=rank,
                        data={"name": name, "kind": symbol.kind},
                    )
                )
        candidates.append(Candidate("to", types.CompletionItemKind.Keyword, "to T", rank=3))
        return candidates

    def _over_snippet(self, name: str, signature: str, piped: Type | None) -> str | None:
        """`softmax(over=${1|D,n,b|})`: a stage whose only other required parameter is
        `over`, with the piped value's axes to choose from, last first."""
        if not self.snippets or not isinstance(piped, TensorType) or piped.axes is None:
            return None
        inside = signature[signature.index("(") + 1 : signature.rindex(") ->")]
        required = [part for part in split_top_level(inside)[1:] if "=" not in part]
        if len(required) != 1 or not required[0].strip().startswith("over:"):
            return None
        names = list(dict.fromkeys(axis.name for axis in reversed(piped.axes) if axis.name))
        if not names:
            return None
        return f"{name}(over=${{1|{','.join(names)}|}})"

    def _members(self, checked, owner: str, text: str, dot: int, offset: int) -> list[Candidate]:
        chain = chain_at_end(owner)
        if checked is not None and chain is not None and chain[2]:
            through = self._chain_members(checked, text, dot, offset, chain)
            if through is not None:
                return through
        name = re.search(r"[\w.]*$", owner).group()
        if checked is None or not name:
            return []
        found = None
        if "." not in name:
            for source in (self.current, checked):
                if source is not None and source.source.text == text:
                    found = source.names_in_scope(dot).get(name)
                    if found is not None:
                        checked = source
                        break
            if found is None and checked.source.text != text:
                found = checked.names_in_scope(dot).get(name)
        if found is not None and found[0] is not None and found[0].kind in ("param", "value"):
            records = record_members(checked, found[1])
            if records is not None:
                return records
            return member_candidates(
                checked,
                text,
                name,
                found[1],
                dot - len(name),
                offset,
                self.snippets,
                self.workspace,
            )
        symbol = checked.module_symbols.get(name)
        if symbol is not None and symbol.kind == "import":
            return imported_names(checked, name)
        if symbol is not None and symbol.kind == "model" or _imported_model(checked, name):
            return [Candidate("init", types.CompletionItemKind.Method, f"{name}.init(seed=0)")]
        root = checked.module_symbols.get(name.split(".")[0])
        if root is not None and root.kind == "python_module":
            return self._python_members(name)
        return []

    def _chain_members(
        self, checked, text: str, dot: int, offset: int, chain
    ) -> list[Candidate] | None:
        """After `m.h[1].attn.`: the members of the model (or gradient) the chain leads to
        through the models its root holds; None when its root isn't a value in scope (an
        imported module's name, say)."""
        written, root, steps = chain
        found = None
        for source in (self.current, checked):
            if source is not None and source.source.text == text:
                found = source.names_in_scope(dot).get(root)
                if found is not None:
                    checked = source
                    break
        if found is None and checked.source.text != text:
            found = checked.names_in_scope(dot).get(root)
        if found is None or found[0] is None or found[0].kind not in ("param", "value"):
            return None
        value_type = follow(found[1], steps, model_infos(checked))
        if value_type is None:
            return []
        return member_candidates(
            checked,
            text,
            re.sub(r"\s+", "", written),
            value_type,
            dot - len(written),
            offset,
            self.snippets,
            self.workspace,
        )

    def _ss_modules(self, package: str) -> list[Candidate]:
        """After `import `: the next part of the workspace's and installed packages'
        `.ss` modules (and `python`, for a Python module)."""
        sources: dict[str, str] = {}
        workspace = self.workspace
        if workspace is not None:
            for path in workspace.files:
                if path in self.installed_modules.values():
                    continue
                dotted = workspace.module_name(path)
                if dotted is not None:
                    sources.setdefault(dotted, "")
        for dotted in self.installed_modules:
            sources.setdefault(dotted, "installed package")
        start = f"{package}." if package else ""
        parts: dict[str, tuple[bool, str]] = {}
        for dotted, origin in sources.items():
            if not dotted.startswith(start):
                continue
            rest = dotted[len(start) :].split(".")
            leaf = len(rest) == 1
            known = parts.get(rest[0])
            if known is None or (leaf and not known[0]):
                parts[rest[0]] = (leaf, origin)
        candidates = [
            Candidate(
                name,
                types.CompletionItemKind.File if leaf else types.CompletionItemKind.Module,
                " ".join(filter(None, [origin, f"{start}{name}.ss" if leaf else "package"])),
                rank=2,
            )
            for name, (leaf, origin) in sorted(parts.items())
        ]
        if not package:
            candidates.append(Candidate("python", types.CompletionItemKind.Keyword, rank=3))
        return candidates

    def _python_members(self, dotted: str) -> list[Candidate]:
        """A Python module's names, as far as they are known now: filtered by the typed
        letters first, then capped (the list is incomplete if that cut any, or while the
        module is still being listed)."""
        listing = PYTHON_NAMES.members(dotted, self.python, self.python_roots, wait=True)
        return self._python_candidates(listing, dotted)

    def _python_modules(self, package: str) -> list[Candidate]:
        """After `import python `: the modules on the path, or a package's submodules."""
        listing = PYTHON_NAMES.modules(package, self.python, self.python_roots, wait=True)
        return self._python_candidates(listing, package)

    def _python_candidates(self, listing: Listing, owner: str) -> list[Candidate]:
        prefix = self.prefix.lower()
        matching = [m for m in listing.members if fuzzy(prefix, m.name)]
        # Names starting with the letters typed come first, and survive the cap.
        matching.sort(key=lambda m: (not m.name.lower().startswith(prefix), m.name.lower()))
        if not listing.complete or len(matching) > PYTHON_CAP:
            self.incomplete = True
        return [
            Candidate(
                member.name,
                PYTHON_KINDS.get(member.kind, types.CompletionItemKind.Variable),
                member.signature or f"Python {member.kind}",
                rank=2,
                order=0 if member.name.lower().startswith(prefix) else 1,
                data={"kind": "python", "module": owner, "name": member.name},
            )
            for member in matching[:PYTHON_CAP]
        ]

    def _types(self, checked, offset) -> list[Candidate]:
        candidates = [
            Candidate(name, types.CompletionItemKind.Enum, "domain", rank=1)
            for name in sorted(BUILTIN_DOMAINS)
        ]
        candidates += [
            Candidate(name, types.CompletionItemKind.Keyword, "dtype", rank=2)
            for name in sorted(DTYPES)
        ]
        candidates += [
            Candidate(name, types.CompletionItemKind.Keyword, "host scalar", rank=2)
            for name in ("int", "float")
        ]
        candidates += [
            Candidate("Mode", types.CompletionItemKind.Class, "Train(seed=…) or Eval", rank=2),
            Candidate("Schedule", types.CompletionItemKind.Class, "a learning rate", rank=2),
        ]
        for model in checked.models if checked is not None else ():
            for wrapper, detail in (
                ("Grad", "gradient"),
                ("AdamW", "optimizer state"),
                ("SGD", "optimizer state"),
            ):
                candidates.append(
                    Candidate(
                        f"{wrapper}[{model}]",
                        types.CompletionItemKind.Class,
                        f"{detail} of {model}",
                        rank=2,
                    )
                )
        if checked is not None:
            for name, (symbol, _) in checked.names_in_scope(offset).items():
                if symbol is not None and symbol.kind in (
                    "dim",
                    "alias",
                    "domain",
                    "model",
                    "data",
                    "logs",
                    "axis",
                ):
                    candidates.append(self._from_symbol(name, symbol, None, None))
        return candidates

    # ------------------------------------------------------------------ items

    def _item(self, candidate: Candidate) -> types.CompletionItem:
        item = types.CompletionItem(
            label=candidate.label,
            kind=candidate.kind,
            detail=candidate.detail or None,
            sort_text=f"{candidate.rank}{candidate.order:03d}{candidate.label.lower()}",
            data=candidate.data,
        )
        if candidate.documentation:
            item.documentation = types.MarkupContent(
                kind=types.MarkupKind.Markdown, value=candidate.documentation
            )
        if candidate.edits:
            item.additional_text_edits = candidate.edits
        if candidate.text_edit is not None:
            item.text_edit = candidate.text_edit
            item.filter_text = candidate.filter_text
        if candidate.insert is not None:
            item.insert_text = candidate.insert
            item.insert_text_format = (
                types.InsertTextFormat.Snippet
                if candidate.snippet
                else types.InsertTextFormat.PlainText
            )
        return item


def _builtin_of_call(checked: Checked | None, name: str):
    """The built-in a call names, unless the file declares a function of that name."""
    if checked is not None and name in checked.signatures:
        return None
    return BUILTINS.get(name)


def resolve(
    item: types.CompletionItem,
    checked: Checked | None,
    images: bool = False,
    theme: str = DEFAULT_THEME,
) -> types.CompletionItem:
    """Fill in an item's Markdown documentation, which completion leaves out to stay fast:
    the hover's Markdown for the name (its declaration, its docs with their math
    rendered) and a function of one number's curve, as images where the client shows them,
    else Unicode math and a text plot."""
    data = item.data if isinstance(item.data, dict) else None
    if not data:
        return item
    name, kind = data.get("name"), data.get("kind")
    renderer = HoverRenderer(images, theme)
    parts: list[str] = []
    if kind == "python":
        parts = [python_documentation(data) or ""]
    elif kind == "builtin" and name in BUILTINS:
        entry = BUILTINS[name]
        parts = [
            f"```shapescript\n{entry.signature}\n```",
            renderer.doc(entry.documentation),
            f"```shapescript\n{entry.example}\n```",
        ]
    elif checked is not None and isinstance(name, str):
        symbol = checked.module_symbols.get(name) or checked.builtin_symbols.get(name)
        if symbol is not None:
            parts = renderer.describe(checked, symbol) or [
                f"```shapescript\n{symbol.detail or symbol.name}\n```",
                renderer.doc(symbol.doc),
            ]
    if parts and isinstance(name, str) and kind in CURVE_KINDS:
        parts.append(documentation_curve(checked, name, images, renderer.dark))
    text = "\n\n".join(part for part in parts if part)
    if text:
        item.documentation = types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
    return item


# ---------------------------------------------------------------------- helpers


def python_documentation(data: dict) -> str | None:
    """A Python name's signature and docstring, from the listing completion used."""
    module, name = data.get("module") or "", data.get("name")
    member = PYTHON_NAMES.known_member(module, name)
    if member is None:
        return None
    text = f"```python\n{member.signature or name}\n```"
    return text + ("\n\n" + member.doc if member.doc else "")


def _imported_model(checked: Checked, name: str) -> bool:
    """Whether `attention.Mlp` names another file's model."""
    table = checked.imports
    bound, dot, rest = name.partition(".")
    if not dot or table is None:
        return False
    return table.names.canonical(bound, rest) in table.model_infos


def _in_comment(before: str) -> bool:
    """Whether the text before the cursor on its line ends inside a comment."""
    in_string = False
    for char in before:
        if char == '"':
            in_string = not in_string
        elif char == "#" and not in_string:
            return True
    return False


def _in_type_position(stripped: str) -> bool:
    if re.search(r"(->|\bas|\bto)\s*(\[[^\]]*\]\s*)?$", stripped):
        return True
    return bool(re.search(r"[(,]\s*(mut\s+)?\w+\s*:\s*(\[[^\]]*\]\s*)?$", stripped))


def _type_ending_at(checked: Checked | None, text: str, end: int) -> Type | None:
    """The type of the largest expression that ends just before `end` (skipping `|>`)."""
    if checked is None:
        return None
    position = end
    while position > 0 and text[position - 1] in " \t\n>|":
        position -= 1
    best = None
    for item in checked.items_at(position):
        relative = position - item.base
        for facts in item.fact_tables():
            for span, type_ in facts.types.items():
                if span.end == relative and (best is None or span.end - span.start > best[0]):
                    best = (span.end - span.start, type_)
    return best[1] if best else None


def _name_before(checked: Checked, text: str, end: int) -> Type | None:
    """The type of the name that ends just before `end` (skipping spaces and `|>`)."""
    position = end
    while position > 0 and text[position - 1] in " \t\n>|":
        position -= 1
    match = re.search(r"[^\W\d]\w*$", text[max(0, position - 80) : position])
    if match is None:
        return None
    found = checked.names_in_scope(position).get(match.group())
    return found[1] if found is not None else None


def _operand_type(checked: Checked | None, text: str, site: CallSite) -> Type | None:
    if checked is None:
        return None
    if site.piped:
        before = site.open_paren - len(site.callee)
        return _type_ending_at(checked, text, before) or _name_before(checked, text, before)
    first = site.first_argument.strip()
    if re.fullmatch(r"[^\W\d]\w*", first):
        found = checked.names_in_scope(site.open_paren).get(first)
        if found is not None:
            return found[1]
    return _type_ending_at(checked, text, site.open_paren + 1 + len(site.first_argument.rstrip()))


def _first_param_fit(checked: Checked, name: str, piped: Type) -> int:
    params = callable_params(checked, name, with_types=True)
    if not params:
        return 3
    first = params[0][2] if len(params[0]) > 2 else None
    return _fit(piped, first, frozenset(checked.dim_values)) if first is not None else 2


def _expected_type(checked: Checked | None, site: CallSite, offset: int) -> Type | None:
    if checked is None:
        return None
    params = callable_params(checked, site.callee, with_types=True)
    if not params:
        return None
    index = site.argument_index + (1 if site.piped else 0)
    if index < len(params) and len(params[index]) > 2:
        return params[index][2]
    return None
