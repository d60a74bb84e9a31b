"""LaTeX math in comments: finding `$...$` and `$$...$$`, and checking it against the subset.

Finding follows Pandoc's `tex_math_dollars` rules as the reference states them (see
`find_math`). Checking parses each piece of math with a small recursive parser into a tree of
`Node`s and reports H0601 for commands and environments outside the subset and H0602 for math
that can't be parsed. Parsing stops at the first H0602 of a piece of math, since what follows a
structural mistake can't be read reliably; H0601s found before it are kept.
"""

from __future__ import annotations

import difflib
import functools
import re

from shapescript.records import field, record

# --------------------------------------------------------------------------------------------
# The supported subset
# --------------------------------------------------------------------------------------------

_GREEK = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu "
    "xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega "
    "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega"
)
_OPERATORS = "sum prod int max min arg exp log ln sin cos tan tanh det"
_RELATIONS = "le leq ge geq ne neq approx sim equiv in notin subset subseteq to mapsto propto"
_BINARY = "cdot times odot otimes oplus pm circ"
_SYMBOLS = "infty partial nabla ldots cdots dots top forall exists"
_SPACING = "quad qquad"
_DELIMITER_WORDS = "langle rangle vert Vert"
_STRUCTURE = "frac dfrac tfrac sqrt left right begin end"
_BIG = "big Big bigg Bigg bigl Bigl biggl Biggl bigr Bigr biggr Biggr"
_FONTS_AND_ACCENTS = "mathit mathrm mathbf mathbb mathcal boldsymbol hat bar tilde vec dot overline"
_TEXT = "text operatorname"


def _commands(*groups: str) -> frozenset[str]:
    """The commands named in space-separated groups of words, each with its backslash."""
    return frozenset("\\" + name for group in groups for name in group.split())


#: Commands taking one math argument.
_ONE_ARGUMENT = _commands(_FONTS_AND_ACCENTS)
#: Commands whose one argument is text, kept as written.
_TEXT_ARGUMENT = _commands(_TEXT)
_FRACTIONS = _commands("frac dfrac tfrac")
_BIG_COMMANDS = _commands(_BIG)

#: Control symbols: a backslash and one character that isn't a letter.
_CONTROL_SYMBOLS = frozenset(
    {"\\,", "\\;", "\\!", "\\ ", "\\{", "\\}", "\\|", "\\\\", "\\$", "\\%", "\\&", "\\#", "\\_"}
)

SUPPORTED_COMMANDS: frozenset[str] = (
    _commands(
        _GREEK,
        _OPERATORS,
        _RELATIONS,
        _BINARY,
        _SYMBOLS,
        _SPACING,
        _DELIMITER_WORDS,
        _STRUCTURE,
        _BIG,
        _FONTS_AND_ACCENTS,
        _TEXT,
    )
    | _CONTROL_SYMBOLS
)

SUPPORTED_ENVIRONMENTS: frozenset[str] = frozenset(
    {"cases", "aligned", "matrix", "pmatrix", "bmatrix"}
)

#: What may follow `\left`, `\right` and the `\big` family.
_DELIMITER_CHARS = frozenset("()[]|.")
_DELIMITER_COMMANDS = frozenset({"\\{", "\\}", "\\|", "\\vert", "\\Vert", "\\langle", "\\rangle"})

#: Function names that are best written with `\operatorname`; a near miss of one of these
#: suggests `\operatorname{name}`.
_OPERATOR_WORDS = (
    "softmax sigmoid relu gelu silu swish softplus logsumexp argmax argmin erf sign diag tr "
    "rank mean var std sinh cosh sec csc cot lim sup inf lg dim ker gcd"
)
_OPERATOR_NAMES = frozenset(_OPERATOR_WORDS.split())

_SUGGESTION_CUTOFF = 0.75
_MAX_DEPTH = 64

# --------------------------------------------------------------------------------------------
# Public records
# --------------------------------------------------------------------------------------------


@record(frozen=True)
class CommentLine:
    """One comment: its text after `#` or `##`, exactly as in the file."""

    text: str
    start: int
    line: int
    is_doc: bool
    after_code: bool


@record(frozen=True)
class Math:
    """A piece of math found in comments.

    `pieces` maps `source` back to the file: each entry is (index in `source`, file offset) for
    the start of one line's part of the source. Display math over several comment lines has one
    entry per line, and its lines are joined with `\\n` in `source`. Left empty, the source is
    taken to start right after the opening delimiter.
    """

    source: str
    start: int
    end: int
    display: bool
    tree: object
    pieces: tuple[tuple[int, int], ...] = field(default=(), compare=False)

    def offset(self, index: int) -> int:
        """The file offset of `source[index]` (or of the end of the source)."""
        base_index, base_offset = 0, self.start + (2 if self.display else 1)
        for piece_index, piece_offset in self.pieces:
            if piece_index > index:
                break
            base_index, base_offset = piece_index, piece_offset
        return base_offset + index - base_index

    def moved(self, offset: int) -> Math:
        """The same math `offset` characters further on in the file."""
        if len(self.pieces) == 1:
            ((index, start),) = self.pieces
            pieces: tuple[tuple[int, int], ...] = ((index, start + offset),)
        else:
            pieces = tuple([(index, start + offset) for index, start in self.pieces])
        return Math(
            self.source, self.start + offset, self.end + offset, self.display, self.tree, pieces
        )


@record(frozen=True)
class MathProblem:
    code: str
    message: str
    start: int
    end: int
    help: str | None
    #: The command to write instead, when the help names one.
    replacement: str | None = None

    def moved(self, offset: int) -> MathProblem:
        """The same problem `offset` characters further on in the file."""
        return MathProblem(
            self.code,
            self.message,
            self.start + offset,
            self.end + offset,
            self.help,
            self.replacement,
        )


# --------------------------------------------------------------------------------------------
# The tree
# --------------------------------------------------------------------------------------------
# Offsets in nodes are indexes into `Math.source`.


@record(frozen=True)
class Symbol:
    """A character: a letter, digit, operator or bracket."""

    text: str
    start: int
    end: int


@record(frozen=True)
class Command:
    """A command with its arguments; `optional` is `\\sqrt`'s index."""

    name: str
    args: tuple[Node, ...]
    start: int
    end: int
    optional: Group | None = None
    supported: bool = True


@record(frozen=True)
class Text:
    """`\\text{...}` or `\\operatorname{...}`: the argument is kept as written."""

    name: str
    text: str
    start: int
    end: int


@record(frozen=True)
class Group:
    items: tuple[Node, ...]
    start: int
    end: int


@record(frozen=True)
class Scripts:
    """A base with a superscript, a subscript, or both. The base is None for a leading `^`."""

    base: Node | None
    sup: Node | None
    sub: Node | None
    start: int
    end: int


@record(frozen=True)
class Delimited:
    """`\\left` ... `\\right`; the delimiters are as written, `.` for none."""

    left: str
    body: Group
    right: str
    start: int
    end: int


@record(frozen=True)
class Environment:
    """`\\begin{name}` ... `\\end{name}`: rows of cells split by `\\\\` and `&`."""

    name: str
    rows: tuple[tuple[Group, ...], ...]
    start: int
    end: int
    supported: bool = True


@record(frozen=True)
class LineBreak:
    """`\\\\` outside an environment."""

    start: int
    end: int


Node = Symbol | Command | Text | Group | Scripts | Delimited | Environment | LineBreak

# --------------------------------------------------------------------------------------------
# Finding math
# --------------------------------------------------------------------------------------------

_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_DIGITS = frozenset("0123456789")


def _run_length(text: str, pos: int, char: str) -> int:
    end = pos
    while end < len(text) and text[end] == char:
        end += 1
    return end - pos


def _next_dollar(text: str, pos: int) -> int:
    """The index of the first `$` at or after pos that a backslash doesn't escape, or -1."""
    while pos < len(text):
        char = text[pos]
        if char == "\\":
            pos += 2
        elif char == "$":
            return pos
        else:
            pos += 1
    return -1


def _code_span_end(text: str, pos: int) -> int:
    """Where scanning resumes after the backtick run at pos: after its code span if it has one,
    else just after the run, which is then text."""
    width = _run_length(text, pos, "`")
    search = pos + width
    while True:
        found = text.find("`" * width, search)
        if found == -1:
            return pos + width
        found_width = _run_length(text, found, "`")
        if found_width == width:
            return found + width
        search = found + found_width


def _inline_at(comment: CommentLine, pos: int) -> Math | None:
    """Inline math opened by the single `$` at pos, if it closes on this line."""
    text = comment.text
    if pos + 1 >= len(text) or text[pos + 1].isspace():
        return None
    close = _next_dollar(text, pos + 1)
    if close == -1 or _run_length(text, close, "$") != 1:
        return None
    if text[close - 1].isspace() or (close + 1 < len(text) and text[close + 1] in _DIGITS):
        return None
    source = text[pos + 1 : close]
    start = comment.start + pos
    pieces = ((0, start + 1),)
    return Math(source, start, comment.start + close + 1, False, None, pieces)


def _continues(previous: CommentLine, following: CommentLine) -> bool:
    """Whether display math on `previous` may go on to `following`."""
    return (
        following.line == previous.line + 1
        and following.is_doc == previous.is_doc
        and not previous.after_code
        and not following.after_code
        and following.text.strip() != ""
    )


@record(frozen=True)
class _Display:
    math: Math | None  # None when the display math is empty
    index: int  # the comment holding the closing `$$`
    resume: int  # where scanning resumes in that comment


def _display_at(comments: list[CommentLine], index: int, pos: int) -> _Display | None:
    """Display math opened by the `$$` at pos, if it closes on this or a following line."""
    opening = comments[index]
    parts: list[str] = []
    pieces: list[tuple[int, int]] = []
    length = 0
    current, search = index, pos + 2
    while True:
        comment = comments[current]
        text = comment.text
        close = _next_dollar(text, search)
        end = len(text) if close == -1 else close
        pieces.append((length, comment.start + search))
        parts.append(text[search:end])
        length += end - search + 1
        if close != -1:
            if _run_length(text, close, "$") != 2:
                return None
            break
        if current + 1 >= len(comments) or not _continues(comment, comments[current + 1]):
            return None
        current, search = current + 1, 0
    source = "\n".join(parts)
    if source.strip() == "":
        return _Display(None, current, close + 2)
    start = opening.start + pos
    math = Math(source, start, comments[current].start + close + 2, True, None, tuple(pieces))
    return _Display(math, current, close + 2)


def find_math(comments: list[CommentLine]) -> list[Math]:
    """Every piece of math in the comments, in order, each with its parsed tree.

    Scanning goes left to right, so whichever of a code span and math starts first wins. A
    backslash before ASCII punctuation escapes it (so `\\$` is a dollar sign). A run of `$` is
    taken whole: one `$` may open inline math, two open display math, three or more are text.
    Math ends at the first unescaped `$` after its opening delimiter; if that isn't a fitting
    closing delimiter, the opening one is text and scanning goes on just after it.
    """
    found: list[Math] = []
    index, pos = 0, 0
    while index < len(comments):
        text = comments[index].text
        if pos >= len(text):
            index, pos = index + 1, 0
            continue
        char = text[pos]
        if char == "\\":
            escaped = pos + 1 < len(text) and text[pos + 1] in _ASCII_PUNCTUATION
            pos += 2 if escaped else 1
        elif char == "`":
            pos = _code_span_end(text, pos)
        elif char == "$":
            index, pos = _dollar_run(comments, index, pos, found)
        else:
            # Other characters only move the scan on: skip to the next one that doesn't.
            special = _SPECIAL.search(text, pos + 1)
            pos = special.start() if special is not None else len(text)
    return found


#: The characters the math scan stops at.
_SPECIAL = re.compile(r"[\\`$]")


def _dollar_run(
    comments: list[CommentLine], index: int, pos: int, found: list[Math]
) -> tuple[int, int]:
    """Handle the run of `$` at pos; returns where scanning resumes."""
    width = _run_length(comments[index].text, pos, "$")
    if width == 1:
        inline = _inline_at(comments[index], pos)
        if inline is not None:
            found.append(_with_tree(inline))
            return index, pos + 1 + len(inline.source) + 1
    elif width == 2:
        display = _display_at(comments, index, pos)
        if display is not None:
            if display.math is not None:
                found.append(_with_tree(display.math))
            return display.index, display.resume
    return index, pos + width


def _with_tree(math: Math) -> Math:
    tree, _ = _parse(math.source)
    return Math(math.source, math.start, math.end, math.display, tree, math.pieces)


# --------------------------------------------------------------------------------------------
# Checking math
# --------------------------------------------------------------------------------------------


def check_math(math: list[Math]) -> list[MathProblem]:
    """H0601 and H0602 problems of each piece of math, with file offsets, in order."""
    problems: list[MathProblem] = []
    for item in math:
        _, found = _parse(item.source)
        for problem in found:
            start = item.offset(problem.start)
            end = item.offset(problem.end - 1) + 1 if problem.end > problem.start else start
            problems.append(
                MathProblem(
                    problem.code, problem.message, start, end, problem.help, problem.replacement
                )
            )
    return problems


def parse_math(source: str) -> Node | None:
    """The tree of a piece of math, or None if it is malformed (H0602)."""
    return _parse(source)[0]


# --------------------------------------------------------------------------------------------
# The parser
# --------------------------------------------------------------------------------------------


@record(frozen=True)
class _Token:
    kind: str  # "command", "char", "{", "}", "^", "_", "&" or "end"
    text: str
    start: int
    end: int


@record(frozen=True)
class _Problem:
    code: str
    message: str
    start: int
    end: int
    help: str | None = None
    replacement: str | None = None


class _Malformed(Exception):
    def __init__(self, problem: _Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


_SPECIAL_CHARS = {"{": "{", "}": "}", "^": "^", "_": "_", "&": "&"}
_ORDINALS = ("first", "second")


@functools.lru_cache(maxsize=4096)
def _parse(source: str) -> tuple[Node | None, list[_Problem]]:
    """The tree and problems of one piece of math (cached: a file's math is mostly unchanged
    from one edit to the next; callers don't change what they get)."""
    parser = _Parser(source)
    try:
        tree: Node | None = parser.parse()
    except _Malformed as error:
        parser.problems.append(error.problem)
        tree = None
    return tree, parser.problems


def _suggestion(name: str) -> str | None:
    """A did-you-mean help for an unsupported command (name without the backslash)."""
    command = _suggested_command(name)
    if command is None:
        return None
    if name in _OPERATOR_NAMES:
        return f"write `{command}`"
    return f"did you mean `{command}`?"


def _suggested_command(name: str) -> str | None:
    """The supported command an unsupported one (name without the backslash) was likely
    meant to be."""
    if name in _OPERATOR_NAMES:
        return f"\\operatorname{{{name}}}"
    words = {command[1:] for command in SUPPORTED_COMMANDS if command[1:].isalpha()}
    for word in sorted(words):
        if word.lower() == name.lower():
            return f"\\{word}"
    candidates = sorted(words | _OPERATOR_NAMES)
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=_SUGGESTION_CUTOFF)
    if not close:
        return None
    if close[0] in _OPERATOR_NAMES:
        return f"\\operatorname{{{close[0]}}}"
    return f"\\{close[0]}"


def _environment_suggestion(name: str) -> str | None:
    close = difflib.get_close_matches(
        name, sorted(SUPPORTED_ENVIRONMENTS), n=1, cutoff=_SUGGESTION_CUTOFF
    )
    return f"did you mean `{close[0]}`?" if close else None


class _Parser:
    """Recursive descent over the source, lexing on demand.

    `contexts` holds what each open construct waits for ("group", "left", "env", "optarg"),
    so that a closing token can be told apart as unmatched or as closing an outer construct.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.pos = 0
        self.problems: list[_Problem] = []
        self.contexts: list[str] = []

    # -- lexing -------------------------------------------------------------------------------

    def _skip_space(self) -> None:
        while self.pos < len(self.source) and self.source[self.pos].isspace():
            self.pos += 1

    def peek(self) -> _Token:
        self._skip_space()
        source, pos = self.source, self.pos
        if pos >= len(source):
            return _Token("end", "", pos, pos)
        char = source[pos]
        if char != "\\":
            return _Token(_SPECIAL_CHARS.get(char, "char"), char, pos, pos + 1)
        end = pos + 1
        while end < len(source) and source[end].isascii() and source[end].isalpha():
            end += 1
        if end == pos + 1:
            end = min(pos + 2, len(source))
        text = source[pos:end]
        if len(text) == 2 and text[1].isspace():
            text = "\\ "
        return _Token("command", text, pos, end)

    def take(self) -> _Token:
        token = self.peek()
        self.pos = token.end
        return token

    # -- errors -------------------------------------------------------------------------------

    def malformed(self, message: str, start: int, end: int, help: str | None = None) -> _Malformed:
        return _Malformed(_Problem("H0602", message, start, end, help))

    def unsupported(
        self, message: str, start: int, end: int, help: str | None, replacement: str | None = None
    ) -> None:
        self.problems.append(_Problem("H0601", message, start, end, help, replacement))

    def enter(self, context: str, token: _Token) -> None:
        if len(self.contexts) >= _MAX_DEPTH:
            raise self.malformed(
                f"math nested more than {_MAX_DEPTH} levels deep", token.start, token.end
            )
        self.contexts.append(context)

    def leave(self) -> None:
        self.contexts.pop()

    def _accepted_by(self, token: _Token) -> str | None:
        if token.kind == "}":
            return "group"
        if token.text == "\\right":
            return "left"
        if token.text == "\\end":
            return "env"
        return None

    def stray(self, token: _Token, unclosed: _Malformed) -> _Malformed:
        """The problem when a list stops at `token` where its construct wanted another closing:
        `unclosed` if an outer construct takes the token, else the token is unmatched."""
        if token.kind != "end" and self._accepted_by(token) not in self.contexts:
            return self.unmatched(token)
        return unclosed

    def unmatched(self, token: _Token) -> _Malformed:
        if token.kind == "}":
            return self.malformed(
                "unmatched `}`", token.start, token.end, "write `\\}` for a literal brace"
            )
        if token.text == "\\right":
            return self.malformed("`\\right` has no matching `\\left`", token.start, token.end)
        self.take()
        name, end = self.environment_name(token)
        return self.malformed(
            f"`\\end{{{name}}}` has no matching `\\begin{{{name}}}`", token.start, end
        )

    # -- lists and items ----------------------------------------------------------------------

    def parse(self) -> Node:
        items = self.parse_list("top")
        token = self.peek()
        if token.kind != "end":
            raise self.unmatched(token)
        return Group(items, 0, len(self.source))

    def parse_list(self, context: str) -> tuple[Node, ...]:
        """Items up to the end, a closing token, or (in an environment) `&` or `\\\\`."""
        items: list[Node] = []
        while True:
            token = self.peek()
            if token.kind in ("end", "}") or token.text in ("\\right", "\\end"):
                return tuple(items)
            if context == "optarg" and token.text == "]" and token.kind == "char":
                return tuple(items)
            if token.kind == "&":
                if context == "env":
                    return tuple(items)
                raise self.ampersand(token)
            if token.text == "\\\\":
                if context == "env":
                    return tuple(items)
                self.take()
                items.append(LineBreak(token.start, token.end))
                continue
            items.append(self.parse_item())

    def ampersand(self, token: _Token) -> _Malformed:
        where = (
            "`&` isn't directly inside its environment"
            if "env" in self.contexts
            else "`&` outside an environment"
        )
        return self.malformed(where, token.start, token.end, "write `\\&` for an ampersand")

    def parse_item(self) -> Node:
        start = self.peek().start
        base: Node | None = None
        if self.peek().kind not in ("^", "_"):
            base = self.parse_atom()
        scripts: dict[str, Node] = {}
        last: _Token | None = None
        while (token := self.peek()).kind in ("^", "_"):
            self.take()
            argument = self.parse_argument(token, f"`{token.text}` is missing its argument")
            if token.kind in scripts:
                raise self.double_script(token, start, last, argument)
            scripts[token.kind] = argument
            last = token
        if not scripts:
            return base if base is not None else Group((), start, start)
        return Scripts(base, scripts.get("^"), scripts.get("_"), start, self.pos)

    def double_script(
        self, token: _Token, start: int, previous: _Token | None, argument: Node
    ) -> _Malformed:
        """Two `^` (or two `_`) on one base. The help shows the braces that fix it: around the
        first, and, when the two scripts are next to each other, around the second too."""
        source, op = self.source, token.text
        second = source[token.end : argument.end].strip()
        forms = [f"`{{{source[start : token.start].strip()}}}{op}{second}`"]
        if previous is not None and previous.kind == token.kind:
            base = source[start : previous.start].strip()
            first = source[previous.end : token.start].strip()
            forms.append(f"`{base}{op}{{{first}{op}{second}}}`")
        kind = "superscripts" if op == "^" else "subscripts"
        help = "put one of them in braces, as in " + " or ".join(forms)
        return self.malformed(f"two {kind} in a row", token.start, token.end, help)

    def parse_argument(self, owner: _Token, missing: str, help: str | None = None) -> Node:
        """One argument: a braced group, a command with its own arguments, or a character."""
        token = self.peek()
        if token.kind in ("end", "}", "&", "^", "_") or token.text in (
            "\\right",
            "\\end",
            "\\\\",
        ):
            raise self.malformed(missing, owner.start, owner.end, help)
        return self.parse_atom()

    def parse_atom(self) -> Node:
        token = self.peek()
        if token.kind == "{":
            return self.parse_group()
        if token.kind == "command":
            return self.parse_command()
        self.take()
        return Symbol(token.text, token.start, token.end)

    def parse_group(self) -> Group:
        opening = self.take()
        self.enter("group", opening)
        items = self.parse_list("group")
        self.leave()
        token = self.peek()
        if token.kind != "}":
            unclosed = self.malformed("unclosed `{`", opening.start, opening.end)
            raise self.stray(token, unclosed)
        self.take()
        return Group(items, opening.start, token.end)

    # -- commands -----------------------------------------------------------------------------

    def parse_command(self) -> Node:
        token = self.peek()
        name = token.text
        if name == "\\begin":
            return self.parse_environment()
        if name == "\\left":
            return self.parse_delimited()
        self.take()
        if name in _FRACTIONS:
            return self.parse_arguments(token, 2)
        if name in _ONE_ARGUMENT:
            return self.parse_arguments(token, 1)
        if name == "\\sqrt":
            return self.parse_sqrt(token)
        if name in _TEXT_ARGUMENT:
            return self.parse_text(token)
        if name in _BIG_COMMANDS:
            delimiter = self.parse_delimiter(token)
            return Command(name, (delimiter,), token.start, delimiter.end)
        if name in SUPPORTED_COMMANDS:
            return Command(name, (), token.start, token.end)
        self.report_unsupported(token)
        return Command(name, (), token.start, token.end, supported=False)

    def report_unsupported(self, token: _Token) -> None:
        name = token.text
        help = _suggestion(name[1:]) if name[1:].isalpha() else None
        message = f"`{name}` isn't in the supported LaTeX subset"
        if name == "\\":
            message = "a lone `\\` at the end of the math isn't in the supported LaTeX subset"
        replacement = _suggested_command(name[1:]) if help else None
        self.unsupported(message, token.start, token.end, help, replacement)

    def parse_arguments(self, token: _Token, count: int) -> Command:
        args: list[Node] = []
        for index in range(count):
            if count == 1:
                missing = f"`{token.text}` is missing its argument"
                help = None
            else:
                missing = f"`{token.text}` is missing its {_ORDINALS[index]} argument"
                help = f"`{token.text}` takes 2 arguments, as in `{token.text}{{a}}{{b}}`"
            self.enter("argument", token)
            args.append(self.parse_argument(token, missing, help))
            self.leave()
        end = args[-1].end if args else token.end
        return Command(token.text, tuple(args), token.start, end)

    def parse_sqrt(self, token: _Token) -> Command:
        optional: Group | None = None
        bracket = self.peek()
        if bracket.kind == "char" and bracket.text == "[":
            self.take()
            self.enter("optarg", bracket)
            items = self.parse_list("optarg")
            self.leave()
            closing = self.peek()
            if not (closing.kind == "char" and closing.text == "]"):
                unclosed = self.malformed("unclosed `[`", bracket.start, bracket.end)
                raise self.stray(closing, unclosed)
            self.take()
            optional = Group(items, bracket.start, closing.end)
        command = self.parse_arguments(token, 1)
        return Command(token.text, command.args, token.start, command.end, optional)

    def parse_text(self, token: _Token) -> Text:
        """The argument of `\\text` or `\\operatorname`, kept as written: a braced group with
        balanced braces, or one character."""
        opening = self.peek()
        if opening.kind != "{":
            argument = self.parse_argument(token, f"`{token.text}` is missing its argument")
            return Text(
                token.text, self.source[argument.start : argument.end], token.start, argument.end
            )
        depth, pos = 0, opening.start
        while pos < len(self.source):
            char = self.source[pos]
            if char == "\\":
                pos += 2
                continue
            depth += {"{": 1, "}": -1}.get(char, 0)
            pos += 1
            if depth == 0:
                self.pos = pos
                return Text(token.text, self.source[opening.end : pos - 1], token.start, pos)
        raise self.malformed("unclosed `{`", opening.start, opening.end)

    def parse_delimiter(self, owner: _Token) -> Node:
        """The delimiter after `\\left`, `\\right` or a `\\big` command."""
        token = self.peek()
        missing = f"`{owner.text}` is missing its delimiter"
        help = "use one of `( ) [ ] | . \\{ \\} \\vert \\Vert \\langle \\rangle`"
        if token.kind == "end":
            raise self.malformed(missing, owner.start, owner.end, help)
        self.take()
        if token.kind == "command":
            if token.text in _DELIMITER_COMMANDS:
                return Command(token.text, (), token.start, token.end)
            if token.text not in SUPPORTED_COMMANDS:
                self.report_unsupported(token)
                return Command(token.text, (), token.start, token.end, supported=False)
        elif token.kind == "char" and token.text in _DELIMITER_CHARS:
            return Symbol(token.text, token.start, token.end)
        message = f"`{token.text}` isn't a delimiter that `{owner.text}` accepts"
        raise self.malformed(message, token.start, token.end, help)

    def parse_delimited(self) -> Delimited:
        left = self.take()
        opening = self.parse_delimiter(left)
        self.enter("left", left)
        items = self.parse_list("left")
        self.leave()
        token = self.peek()
        if token.text != "\\right":
            help = "close it with `\\right` and a delimiter, or `\\right.` for none"
            unclosed = self.malformed(
                "`\\left` has no matching `\\right`", left.start, left.end, help
            )
            raise self.stray(token, unclosed)
        right = self.take()
        closing = self.parse_delimiter(right)
        body = Group(items, opening.end, right.start)
        return Delimited(
            _delimiter_text(opening), body, _delimiter_text(closing), left.start, closing.end
        )

    # -- environments -------------------------------------------------------------------------

    def environment_name(self, owner: _Token) -> tuple[str, int]:
        """The `{name}` after `\\begin` or `\\end` (already taken), and where it ends."""
        opening = self.peek()
        if opening.kind != "{":
            raise self.malformed(
                f"`{owner.text}` is missing the environment's name", owner.start, owner.end
            )
        close = self.source.find("}", opening.end)
        if close == -1:
            raise self.malformed("unclosed `{`", opening.start, opening.end)
        self.pos = close + 1
        return self.source[opening.end : close].strip(), close + 1

    def parse_environment(self) -> Environment:
        begin = self.take()
        name, name_end = self.environment_name(begin)
        supported = name in SUPPORTED_ENVIRONMENTS
        if not supported:
            message = f"the environment `{name}` isn't in the supported LaTeX subset"
            self.unsupported(message, begin.start, name_end, _environment_suggestion(name))
        self.enter("env", begin)
        rows: list[tuple[Group, ...]] = []
        cells: list[Group] = []
        while True:
            cell_start = self.peek().start
            items = self.parse_list("env")
            token = self.peek()
            cells.append(Group(items, cell_start, token.start))
            if token.kind == "&":
                self.take()
                continue
            if token.text == "\\\\":
                self.take()
                rows.append(tuple(cells))
                cells = []
                continue
            break
        self.leave()
        if token.text != "\\end":
            unclosed = self.malformed(
                f"`\\begin{{{name}}}` has no matching `\\end{{{name}}}`", begin.start, name_end
            )
            raise self.stray(token, unclosed)
        self.take()
        end_name, end = self.environment_name(token)
        if end_name != name:
            raise self.malformed(
                f"`\\end{{{end_name}}}` doesn't match `\\begin{{{name}}}`",
                token.start,
                end,
                f"write `\\end{{{name}}}`",
            )
        rows.append(tuple(cells))
        return Environment(name, tuple(rows), begin.start, end, supported)


def _delimiter_text(node: Node) -> str:
    if isinstance(node, Symbol):
        return node.text
    return node.name if isinstance(node, Command) else ""
