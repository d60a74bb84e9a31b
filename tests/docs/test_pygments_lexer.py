"""The Pygments lexer the docs site and `shapescript explain` highlight ShapeScript with:
its words come from the project's own lexer and declarations, and it loses no text."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest
from pygments.token import Comment, Keyword, Name, Number, String, Token

from shapescript.check.declarations.builtin_table import BUILTINS
from shapescript.check.declarations.prelude import load_prelude
from shapescript.check.declarations.type_exprs import BUILTIN_DOMAINS
from shapescript.pygments_lexer import ShapeScriptLexer
from shapescript.syntax.tokens import DTYPES, KEYWORDS

ROOT = Path(__file__).resolve().parents[2]


def kinds(text: str) -> dict[str, object]:
    """The token type of each non-blank piece of `text` where it first occurs, by its text."""
    found: dict[str, object] = {}
    for kind, piece in ShapeScriptLexer().get_tokens(text):
        if piece.strip():
            found.setdefault(piece, kind)
    return found


def test_the_lexer_loses_no_text_of_any_example() -> None:
    for path in sorted((ROOT / "examples").glob("*.ss")):
        text = path.read_text(encoding="utf-8")
        pieces = "".join(piece for _, _, piece in ShapeScriptLexer().get_tokens_unprocessed(text))
        assert pieces == text, path.name


@pytest.mark.parametrize("word", sorted(KEYWORDS))
def test_every_keyword_of_the_language_is_a_keyword(word: str) -> None:
    kind = kinds(f"x = {word}\n")[word]
    assert kind in Keyword or kind in Token.Operator.Word, (word, kind)


def test_every_builtin_function_is_a_builtin() -> None:
    names = sorted(set(BUILTINS) | set(load_prelude().signatures))
    for name in names:
        assert kinds(f"y = {name}(x)\n")[name] in Name.Builtin, name


def test_dtypes_and_domains_are_types() -> None:
    for word in sorted(DTYPES | BUILTIN_DOMAINS):
        assert kinds(f"fn f(x: [n] {word}) -> [n] = x\n")[word] in Keyword.Type, word


def test_declarations_comments_numbers_and_strings() -> None:
    text = (
        "## A doc comment.\n"
        "model Mlp:\n"
        "    param w: [D 3*D] = normal(std=0.02)\n"
        "# plain comment\n"
        'extern fn f(x: Real) -> Real = "torch.exp"\n'
        "fn g(mut m: Mlp, x: [?k 16gh]) -> [?k] = x\n"
    )
    found = kinds(text)
    assert found["## A doc comment."] in String.Doc
    assert found["# plain comment"] in Comment
    assert found["model"] in Keyword and found["Mlp"] in Name.Class
    assert found["param"] in Keyword and found["mut"] in Keyword
    assert found["g"] in Name.Function
    assert found['"torch.exp"'] in String
    assert found["0.02"] in Number and found["16gh"] in Number
    assert found["?k"] in Name.Variable


def test_the_lexer_is_registered_with_pygments() -> None:
    """pyproject.toml's `pygments.lexers` entry point: MkDocs finds the lexer by name
    through it (after `pip install -e .[dev]`)."""
    from pygments.lexers import get_lexer_by_name

    registered = {point.name: point.value for point in entry_points(group="pygments.lexers")}
    assert registered.get("shapescript") == "shapescript.pygments_lexer:ShapeScriptLexer", (
        "the `pygments.lexers` entry point is not installed: run `pip install -e .[dev]`"
    )
    assert type(get_lexer_by_name("shapescript")).__name__ == "ShapeScriptLexer"


def test_assert_is_a_keyword_where_it_starts_a_statement() -> None:
    text = "fn f(x: [n]) -> [n]:\n    assert n <= 8\n    return x\n"
    assert kinds(text)["assert"] in Keyword
    assert kinds("fn f() -> int = assert(3)\n")["assert"] not in Keyword
