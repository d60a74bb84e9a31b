"""What the rules a body checker dispatches to may use of it, and of the program it
belongs to: `BodyContext` and `ProgramContext`.

`body_checker.BodyChecker` and `body_checker.Program` are the one implementation of
each. The rules (calls of built-ins, chains, gradients, generics, mutation, modes, the
values of models, data and logs, ...) are typed against these protocols instead of
importing `body_checker`, so they sit below it: the body checker imports its rules, and
no rule imports the body checker back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from shapescript.check.algebra.assertions import Relation
    from shapescript.check.algebra.reporter import Reporter
    from shapescript.check.algebra.sizes import Poly
    from shapescript.check.algebra.types import Axis, Type
    from shapescript.check.bodies.env import Arg, Env
    from shapescript.check.declarations.module_scope import ModuleScope
    from shapescript.check.declarations.signatures import ParamSig, Signature
    from shapescript.check.declarations.symbols import BodyResult, Facts, Symbol
    from shapescript.syntax import ast
    from shapescript.syntax.source import Span


class ProgramContext(Protocol):
    """What the body checkers of one analysis share (`body_checker.Program`)."""

    module: ast.Module
    scope: ModuleScope
    #: The prelude's analysis (`prelude.Prelude`): its signatures, among others.
    prelude: Any
    source_text: str
    fingerprint: int
    #: Results of the previous analysis and of this one, by key (bodies, instances).
    previous_memo: dict
    memo: dict
    #: The functions whose bodies are being checked, innermost last.
    inferring: list[str]
    item_index: dict[int, int]
    read_summaries: dict
    previous_read_summaries: dict
    #: Whether bodies record the facts only the editor and the compiler read.
    editor_facts: bool

    def fresh_variable(self, name: str) -> str: ...

    def return_type_of(self, signature: Signature) -> Type | None: ...

    def body_checker(
        self, decl: ast.FnDecl, signature: Signature, arguments: dict[str, Type] | None = None
    ) -> BodyContext:
        """A new checker of the body of `decl`, with `signature` (a generic instance's)."""
        ...


class BodyContext(Protocol):
    """What the rules use of the checker of one function body (`body_checker.BodyChecker`,
    whose `calls.CallChecker` part checks calls)."""

    program: ProgramContext
    scope: ModuleScope
    reporter: Reporter
    decl: ast.FnDecl
    signature: Signature
    env: Env
    facts: Facts
    #: Where the body's item starts in `source_text`, which the body's spans are relative to.
    base: int
    source_text: str
    #: The generic instance being checked (`generics.Frame`), or None.
    instance: Any
    #: The axes a `split` of this body names.
    split_axes: set[str]
    #: The mut state of the body (`mutation.MutState`), once `mutation.state` made it.
    _mut_state: Any
    #: The bindings of the blocks around the statement being checked, innermost last.
    _block_outers: list
    #: Sizes known to be at least 0 from the asserts before the current statement.
    size_facts: list[Poly]
    #: The divisibility relations (`n % h == 0`) asserted before the current statement.
    divisibility_facts: list[Relation]

    def check(self) -> BodyResult: ...

    def expr(self, node: ast.Expr) -> Type: ...

    def call(self, node: ast.Call, piped: Arg | None) -> Type: ...

    def call_signature(self, signature: Signature, args: list[Arg], node: ast.Call) -> Type: ...

    def match_arguments(self, name: str, params: list[ParamSig], args: list[Arg], node): ...

    def _match_param(
        self, signature, param, arg, variables, equations, renames, shapes, first, index_equations
    ): ...

    def combine(
        self,
        op: str,
        left: Type,
        right: Type,
        span: Span,
        op_span: Span,
        divisor: ast.Expr | None = None,
    ) -> Type: ...

    def matmul(
        self, left: Type, right: Type, span: Span, right_expr: ast.Expr | None = None
    ) -> Type: ...

    def lambda_body(self, function: ast.Lambda, parts: tuple[Type, ...]) -> Type: ...

    def to_stage(self, current: Type, cast: ast.Cast) -> Type: ...

    def note_stage_function(self, function: ast.Expr, element: Type) -> None: ...

    def record(self, span: Span, type_: Type) -> Type: ...

    def align(self, span: Span, operands: list[Type], result: Type) -> None: ...

    def refer(self, span: Span, symbol: Symbol) -> None: ...

    def symbol(self, name: str, kind: str, span: Span, detail: str = "") -> Symbol: ...

    def bind_axis(self, name: str, size: Poly, span: Span, scope_span: Span) -> None: ...

    def fresh_unknown(self, name: str) -> str: ...

    def text_of(self, span: Span) -> str: ...

    def _fit_axes(
        self, actual: tuple[Axis, ...], expected: tuple[Axis, ...], allow_unknown: bool
    ) -> tuple[str, list[str]] | None: ...

    def _python_value_error(self, span: Span, how: str) -> None: ...
