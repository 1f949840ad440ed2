"""Source text to IR: the generated LALR parser plus a builder that makes IR nodes.

The parser runs the LALR tables generated from ``grammar/gradcli.lark`` by
``scripts/gen_parser.py`` on the small runtime of ``lalr.py`` (so Lark itself is
not imported at run time); it is built once per process, on first use. The
builder runs inside the parser, one call per reduction, so no parse tree is
built and no walk recurses: a 10,000-term sum or 10,000 nested brackets parse in
a loop.

Syntax errors never leave this module: they become ``GradcliError`` with the
span of the offending token. The parse result is guaranteed to be nested at
most ``NESTING_LIMIT`` levels deep, which bounds the recursion of every later
walk over the IR (checker, evaluator, printer).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..engine.ops import FUNCTIONS
from ..errors import GradcliError, Span
from . import characters, ir, lalr
from .ir import NESTING_LIMIT
from .lines import indented, statements_in
from .operators import BINARY_OPS, PYTHON, UNARY_OPS
from .parse_hints import degrees, describe, implicit_product, malformed_number

if TYPE_CHECKING:
    from pathlib import Path


def token_span(token) -> Span:
    """The span of a token (its end column is exclusive, a Span's inclusive)."""
    return Span(token.line, token.column, token.end_line, token.end_column - 1)


def _join(first: Span, last: Span) -> Span:
    return Span(first.line, first.column, last.end_line, last.end_column)


# ----------------------------------------------------------------------------
# The builder: one method per `-> alias` in the grammar
# ----------------------------------------------------------------------------


def _arguments(items) -> tuple[tuple, tuple]:
    args, keywords = [], []
    for item in items:
        if isinstance(item, ir.Keyword):
            keywords.append(item)
        elif keywords:
            raise GradcliError("positional argument after a keyword argument", item.span)
        else:
            args.append(item)
    return tuple(args), tuple(keywords)


def _operator_run(first, rest) -> tuple:
    """The fields of a Chain or a Compare from ``first op operand op operand ...``."""
    ops, operands = rest[0::2], rest[1::2]
    span = _join(first.span, operands[-1].span)
    op_spans = tuple(map(token_span, ops))
    return first, tuple(BINARY_OPS[o] for o in ops), operands, span, op_spans


# A list of numbers alone, each with at most a sign: one NUMBER token (see ir.Numbers).
# ASCII digits only (``\\d`` would take ``١``); atomic groups and possessive repeats
# keep a near miss (``[1, 2, x]``) from backtracking: it is lexed token by token.
_NUMBER = r"[+-]?(?>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?>[eE][+-]?[0-9]+)?"
_GAP = r"[ \t\f\r\n]*+"
NUMBER_LIST = rf"\[{_GAP}{_NUMBER}(?:{_GAP},{_GAP}{_NUMBER})*+{_GAP},?{_GAP}\]"


def _numbers(token) -> ir.Numbers:
    parts = token[1:-1].split(",")
    if not parts[-1].strip():  # a comma after the last number
        parts.pop()
    texts = tuple(part.strip() for part in parts)
    return ir.Numbers(tuple(map(characters.number, parts)), token_span(token), texts)


_NO_SPAN = Span(0, 0)


def list_literal(items, span: Span = _NO_SPAN) -> ir.ListLit | ir.Numbers:
    """The node the parser makes of ``[items]``: a Numbers when every item is a number
    with at most a sign, else a ListLit."""
    values = [_signed(item) for item in items]
    if values and None not in values:
        return ir.Numbers(tuple(values), span, tuple(map(_signed_text, items)))
    return ir.ListLit(tuple(items), span)


def _signed(node) -> float | None:
    if isinstance(node, ir.Num) and isinstance(node.value, complex):
        return None  # an imaginary number: a list of them is a ListLit
    signed = isinstance(node, ir.UnaryOp) and isinstance(node.operand, ir.Num)
    if signed and isinstance(node.operand.value, complex):
        return None
    if signed:  # the sign's own operator on the number: -0.0 stays -0.0, -0 is 0
        operand = node.operand
        value = 0 if operand.value == 0 and not operand.float_zero else operand.value
        return float(PYTHON[node.op](value)) if operand.value >= 0 else None
    if isinstance(node, ir.Num) and node.value >= 0:
        return node.value
    return None


def _signed_text(node) -> str:
    """A number of a list as written, with its sign (``_signed``'s numbers)."""
    if isinstance(node, ir.UnaryOp):
        return ("-" if PYTHON[node.op](1) < 0 else "") + node.operand.text
    return node.text


class _Builder:
    def num(self, token):
        if token[0] == "[":
            return _numbers(token)
        if token[-1] in "jJ":  # an imaginary number: 3j, 1.5e-3J
            return ir.Num(complex(0.0, float(token[:-1])), token_span(token))
        value = float(token)
        float_zero = value == 0 and any(c in token for c in ".eE")
        return ir.Num(value, token_span(token), float_zero, str(token))

    def string(self, token):
        return ir.Str(str(token)[1:-1], token_span(token))

    def name(self, token):
        return ir.Name(str(token), token_span(token))

    def unary_op(self, op, operand):
        return ir.UnaryOp(UNARY_OPS[op], operand, _join(token_span(op), operand.span))

    def bin_op(self, left, op, right):
        span = _join(left.span, right.span)
        return ir.BinOp(BINARY_OPS[op], left, right, span, token_span(op))

    def chain(self, first, *rest):
        return ir.Chain(*_operator_run(first, rest))

    def compare(self, first, *rest):
        return ir.Compare(*_operator_run(first, rest))

    def lambda_(self, *items):
        body, params = items[-1], []
        for item in items[:-2]:  # the parameters, between brackets or not, then "->"
            if isinstance(item, ir.Name):  # (t) -> ...: the name went through an expression
                params.append((item.id, item.span))
            elif not isinstance(item, lalr.Token):
                raise GradcliError("an anonymous function's parameters must be names", item.span)
            elif item.type == "NAME":
                params.append((str(item), token_span(item)))
        start = token_span(items[0]) if isinstance(items[0], lalr.Token) else items[0].span
        names = tuple(name for name, _ in params)
        spans = tuple(span for _, span in params)
        return ir.Lambda(names, body, _join(start, body.span), spans)

    def keyword(self, name, value):
        return ir.Keyword(str(name), value, token_span(name))

    def call(self, name, _lpar, *rest):
        args, keywords = _arguments(rest[:-1])
        return ir.Call(str(name), args, keywords, _join(token_span(name), token_span(rest[-1])))

    def method(self, obj, name, _lpar, *rest):
        args, keywords = _arguments(rest[:-1])
        span = _join(obj.span, token_span(rest[-1]))
        return ir.Method(obj, str(name), args, keywords, span, token_span(name))

    def attr(self, obj, name):
        return ir.Attr(obj, str(name), _join(obj.span, token_span(name)), token_span(name))

    def index(self, obj, _lsqb, *rest):
        return ir.Index(obj, rest[:-1], _join(obj.span, token_span(rest[-1])))

    def slice(self, *items):
        parts: list = [None]
        for item in items:
            if isinstance(item, lalr.Token):  # a colon starts the next part
                parts.append(None)
            else:
                parts[-1] = item
        spans = [token_span(i) if isinstance(i, lalr.Token) else i.span for i in items]
        return ir.Slice(*parts, span=_join(spans[0], spans[-1]))

    def list_lit(self, lsqb, *rest):
        # The lexer takes `[-2]` as one Numbers token; `[-(2)]` and `[- 2]` are the same
        # list and make the same node, so the IR (and its printed text) is one for all three.
        return list_literal(rest[:-1], _join(token_span(lsqb), token_span(rest[-1])))

    def assign(self, target, value):
        if isinstance(target, ir.Name) and isinstance(value, ir.Lambda):
            # g = t -> t**2 is the definition g(t) = t**2.
            return ir.FuncDef(target.id, value.params, value.body, target.span, value.param_spans)
        if isinstance(target, ir.Name):
            return ir.Assign(target.id, value, target.span)
        if isinstance(target, ir.Index) and isinstance(target.obj, ir.Name):
            return ir.IndexAssign(target.obj.id, target.subscripts, value, target.span)
        if isinstance(target, ir.Call):
            for arg in (*target.args, *target.keywords):
                if not isinstance(arg, ir.Name):
                    raise GradcliError(
                        "a function definition's parameters must be plain names", arg.span
                    )
            params = tuple(a.id for a in target.args)
            spans = tuple(a.span for a in target.args)
            return ir.FuncDef(target.func, params, value, target.span, spans)
        if isinstance(target, ir.Index):
            raise GradcliError(
                "cannot assign to a nested index: write name[i, j] = ...", target.span
            )
        raise GradcliError(
            "cannot assign to this: assign to a name (x = ...), an element (x[0] = ...)"
            " or define a function (f(x) = ...)",
            target.span,
        )

    def const_decl(self, name, value):
        return ir.ConstDecl(str(name), value, token_span(name))

    def break_stmt(self, token):
        return ir.Break(token_span(token))

    def continue_stmt(self, token):
        return ir.Continue(token_span(token))

    def if_exp(self, body, test, orelse):
        return ir.IfExp(test, body, orelse, _join(body.span, orelse.span))

    def suite(self, *statements):
        return statements

    def for_loop(self, keyword, name, iterable, body):
        span = _join(token_span(keyword), iterable.span)
        if not (
            isinstance(iterable, ir.Call)
            and iterable.func == "range"
            and 1 <= len(iterable.args) <= 3
            and not iterable.keywords
        ):
            raise GradcliError(
                "a for loop runs over range(n), range(start, stop) or range(start, stop, step)",
                iterable.span,
            )
        return ir.For(str(name), iterable.args, body, span, token_span(name))

    def while_loop(self, keyword, test, body):
        return ir.While(test, body, _join(token_span(keyword), test.span))

    def elif_clause(self, keyword, test, body):
        return (keyword, test, body)

    def else_clause(self, body):
        return (None, None, body)

    def if_stmt(self, keyword, test, body, *clauses):
        orelse: tuple = ()
        if clauses and clauses[-1][0] is None:  # else
            orelse = clauses[-1][2]
            clauses = clauses[:-1]
        for elif_keyword, elif_test, elif_body in reversed(clauses):
            span = _join(token_span(elif_keyword), elif_test.span)
            orelse = (ir.If(elif_test, elif_body, orelse, span),)
        return ir.If(test, body, orelse, _join(token_span(keyword), test.span))

    def program(self, *statements):
        return ir.Program(statements, Span(1, 1))


# ----------------------------------------------------------------------------
# Between the lexer and the parser: brackets and the recent tokens
# ----------------------------------------------------------------------------

#: The most tokens a program may have. Each costs the parser, checker and evaluator
#: about a kilobyte and 20 microseconds: 200,000 (a program of some 400 KB) parse in
#: a few seconds and 200 MB. A list of numbers alone is one token, of any length.
MAX_TOKENS = 200_000
_TOO_MANY_TOKENS = (
    f"the program has more than {MAX_TOKENS:,} tokens (names, numbers, operators), more than"
    " gradcli reads: give large data as a value (--x @data.npy), or as a list of numbers"
    " alone ([1, 2.5, ...], one token of any length)"
)

_OPENERS = {"LPAR": ")", "LSQB": "]"}
_CLOSERS = {"RPAR", "RSQB"}


class _Brackets:
    """Drops newlines inside brackets (a matrix may span lines) and remembers, for
    error messages, the open brackets and the last two tokens.

    It also reads indentation as Python's tokenizer does: after a line that ends with
    ``:`` (outside brackets a colon only ends a ``for``, ``while``, ``if``, ``elif`` or
    ``else`` header) the next line must be indented deeper, which opens a body
    (``_INDENT``); a line indented less closes bodies (``_DEDENT``) back to a level
    that was open. Outside bodies a line may be indented as it likes (as always).

    Its state belongs to the parse in progress: parsing is not thread-safe.
    """

    always_accept = ()

    def __init__(self):
        self.reset()

    def reset(self):
        self.open: list = []
        self.previous = None
        self.current = None
        self.after_newline = False  # whether a dropped newline came just before `current`

    def process(self, stream):
        return indented(self._bracketed(stream), self)

    def _bracketed(self, stream):
        self.reset()
        newline = False
        count = 0
        for token in stream:
            kind = token.type
            count += 1
            if count > MAX_TOKENS:
                raise GradcliError(_TOO_MANY_TOKENS, Span(token.line, token.column))
            if kind == "_SEP" and self.open and ";" not in token:
                newline = True
                continue
            self.after_newline, newline = newline, False
            if kind == "NAME" and not token.isidentifier():
                raise _name_error(token)
            if not token.isascii() and kind in ("NAME", "NUMBER"):
                error = characters.problem(token, token.column)
                if error is not None:
                    raise error
            if kind in _OPENERS:
                self.open.append(token)
            elif kind in _CLOSERS and self.open and _OPENERS[self.open[-1].type] == token:
                self.open.pop()
            yield token


# ----------------------------------------------------------------------------
# Syntax errors as GradcliErrors
# ----------------------------------------------------------------------------

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def _name_error(token) -> GradcliError:
    """The NAME token's regex takes what Python's ``\\w`` takes; names are Python
    identifiers, so ``x²`` or ``x½`` stop at the character a name cannot hold."""
    text = str(token)
    # Where the name breaks: ``²`` and ``½`` may even start a NAME token (``[^\W\d]``).
    fits = (c.isidentifier() if i == 0 else ("a" + c).isidentifier() for i, c in enumerate(text))
    i = next((i for i, ok in enumerate(fits) if not ok), 0)
    head, rest = text[:i], text[i:]
    span = Span(token.line, token.column + i)
    power = rest.translate(_SUPERSCRIPTS)
    if head and power != rest and power.isdigit():
        return GradcliError(f"unknown character {rest[0]!r}: write {head}**{power}", span)
    index = rest.translate(_SUBSCRIPTS)
    if head and index != rest and index.isdigit():
        return GradcliError(f"unknown character {rest[0]!r}: write {head}_{index}", span)
    return GradcliError(f"unknown character {rest[0]!r}", span)


_OPERATOR_TOKENS = {"ADD_OP", "MUL_OP", "POW", "COMPARE", "EQUAL", "COMMA", "DOT", "COLON"}


# Python's words for what the language writes otherwise. A keyword is still a name
# (lambda may be a regularization weight): only a program that fails to parse next to
# one gets this message.
_NOT_PYTHON = "gradcli's language is not Python"
_PYTHON_KEYWORDS = {
    "lambda": "write an anonymous function as x -> x**2, or define one as f(x) = x**2",
    "def": "define a function as f(x) = x**2",
    "return": "a function's body is its value: f(x) = x**2",
    "import": "there is nothing to import: the functions are built in ('gradcli functions')",
    "from": "there is nothing to import: the functions are built in ('gradcli functions')",
    "and": "conditions are 0 or 1: multiply them, (x > 0) * (y > 0)",
    "or": "conditions are 0 or 1: (x > 0) + (y > 0) > 0 is either",
    "not": "conditions are 0 or 1: 1 - (x > 0) is the opposite",
    "None": "there is no None",
}


def _python_keyword(tokens) -> GradcliError | None:
    """The error for a Python keyword among the tokens where parsing failed."""
    for token in tokens:
        if token is not None and token.type == "NAME" and str(token) in _PYTHON_KEYWORDS:
            hint = _PYTHON_KEYWORDS[str(token)]
            return GradcliError(f"'{token}': {_NOT_PYTHON}; {hint}", token_span(token))
    return None


def _call_without_brackets(left, right) -> str | None:
    """``sin(x)`` for ``sin x``: a function's name before an operand."""
    if left.type != "NAME" or right.type not in ("NAME", "NUMBER"):
        return None
    if str(left) not in FUNCTIONS:
        return None
    return f"{left}({right})"


def _end_span(token) -> Span:
    """The position just after ``token`` (where something is missing)."""
    if token is None:
        return Span(1, 1)
    return Span(token.end_line, token.end_column)


def _syntax_error(err, brackets: _Brackets) -> GradcliError:
    if isinstance(err, lalr.UnexpectedCharacters):
        span = Span(err.line, err.column)
        before = brackets.current
        if err.char == "°" and before is not None and before.type == "NUMBER":
            return GradcliError(f"'{before}°': units are not supported; {degrees(before)}", span)
        return GradcliError(f"unknown character {err.char!r}", span)
    token = err.token
    previous = brackets.previous if brackets.current is token else brackets.current
    keyword = _python_keyword((token, previous))
    if keyword is not None:
        return keyword
    if token.type == "$END":
        last = brackets.current
        if brackets.open:
            opener = brackets.open[-1]
            return GradcliError(f"'{opener}' is never closed", token_span(opener))
        message = "unexpected end of input"
        if last is not None and last.type in _OPERATOR_TOKENS | {"LPAR", "LSQB"}:
            message += f" after '{last}'"
        return GradcliError(message, _end_span(last))
    if brackets.open and brackets.current is token and brackets.after_newline:
        # The statement on the next line is not a continuation: the bracket is the mistake.
        opener = brackets.open[-1]
        return GradcliError(f"'{opener}' is never closed", token_span(opener))
    span = token_span(token)
    if token.type == "_SEP":  # the caret goes where the line ends
        span = Span(token.line, token.column)
        if "COLON" in err.expected:  # outside brackets, only a header takes a colon
            return GradcliError("expected ':' at the end of the line of a for, while or if", span)
    malformed = malformed_number(previous, token) if previous is not None else None
    if malformed is not None:
        return GradcliError(malformed, _join(token_span(previous), token_span(token)))
    call = _call_without_brackets(previous, token) if previous is not None else None
    if call is not None and "MUL_OP" in err.expected:
        # The caret spans the call as written: the function's name and its argument.
        return GradcliError(
            f"'{previous}' is a function: write {call}", _join(token_span(previous), span)
        )
    product = implicit_product(previous, token) if previous is not None else None
    if product is not None and "MUL_OP" in err.expected:
        return GradcliError(f"implicit multiplication: write {product}", span)
    message = f"unexpected {describe(token)}"
    if token.type in _CLOSERS and brackets.open:
        opener = brackets.open[-1]
        message += f": '{opener}' at {opener.line}:{opener.column} is not closed"
    elif previous is not None and previous.type in _OPERATOR_TOKENS:
        message += f" after '{previous}'"
    return GradcliError(message, span)


# ----------------------------------------------------------------------------
# Parsing
# ----------------------------------------------------------------------------


def grammar_path() -> Path:
    """The grammar file: shipped in the package as ``gradcli/grammar/gradcli.lark`` (see
    pyproject.toml), or ``grammar/gradcli.lark`` in a source checkout."""
    from pathlib import Path  # not on the start path: importing pathlib costs milliseconds

    package = Path(__file__).resolve().parent.parent
    for path in (package / "grammar" / "gradcli.lark", package.parent / "grammar" / "gradcli.lark"):
        if path.is_file():
            return path
    raise FileNotFoundError("gradcli's grammar file (gradcli/grammar/gradcli.lark) is missing")


_PARSER = None
_BRACKETS = _Brackets()


def _parser():
    global _PARSER
    if _PARSER is None:
        # After an operand, "[" opens a subscript (x[0], f(x)[1], x [0]), not a list.
        operand_ends = frozenset({"NAME", "NUMBER", "STRING", "RPAR", "RSQB"})
        shortcuts = {"[": (re.compile(NUMBER_LIST).match, "NUMBER", operand_ends)}
        _PARSER = lalr.Parser(_Builder(), postlex=_BRACKETS, shortcuts=shortcuts)
    return _PARSER


def parse(text: str) -> ir.Program:
    """Parse a program; raises GradcliError (with span and source) on any mistake."""
    parser = _parser()
    try:
        try:
            program = parser.parse(text)
        except lalr.UnexpectedInput as err:
            raise _syntax_error(err, _BRACKETS) from None
        if not program.statements:
            raise GradcliError("empty input", Span(1, 1))
        check_nesting(program)
    except GradcliError as err:
        raise err.with_source(text) from None
    return program


def check_nesting(node: ir.Node, limit: int = NESTING_LIMIT) -> None:
    """Raise if ``node`` nests deeper than ``limit``; iterative, so it cannot overflow."""
    stack = [(node, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            start = Span(item.span.line, item.span.column)
            raise GradcliError(f"expression nested too deeply (limit {limit})", start)
        stack.extend((child, depth + 1) for child in reversed(ir.children(item)))


# ----------------------------------------------------------------------------
# Tokens, for an editor: highlighting and statement boundaries
# ----------------------------------------------------------------------------

_TOKEN_LEXER = None


def tokens(text: str) -> list[tuple[str, int, int]]:
    """``(kind, start, stop)`` for every token of ``text``, comments included and
    spaces left out. ``kind`` is the grammar's terminal name (``NUMBER``, ``NAME``,
    ``CONST``, ``COMMENT``, ``LPAR`` ...); text the grammar has no token for is one
    last ``("ERROR", start, len(text))``. Never raises: text being typed is often
    not a program yet."""
    global _TOKEN_LEXER
    if _TOKEN_LEXER is None:
        # The parser's own terminals, without the bracket post-lexer, keeping comments.
        _TOKEN_LEXER = lalr.Lexer(keep_ignored=True)
    found = []
    try:
        for token in _TOKEN_LEXER.lex(text):
            if not token.type.startswith("__IGNORE"):
                found.append((token.type, token.start_pos, token.end_pos))
    except lalr.UnexpectedInput as err:
        found.append(("ERROR", err.pos_in_stream, len(text)))
    return found


def statement_bounds(text: str) -> list[tuple[int, int]]:
    """``(start, stop)`` of each statement of a program that parses, in order: from its
    first token to its last, so without the comments and separators around it."""
    # With the post-lexer: no newlines inside brackets, and the bodies' indentation.
    return statements_in(list(_parser().lex(text)))
