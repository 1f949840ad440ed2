"""The IR written back as source: ``to_source`` prints a node with the fewest brackets that
parse back to the same IR (the operators' spellings and binding from ``operators``)."""

from __future__ import annotations

from .ir import (
    Assign,
    Attr,
    BinOp,
    Break,
    Call,
    Chain,
    Compare,
    ConstDecl,
    Continue,
    Expr,
    For,
    FuncDef,
    If,
    IfExp,
    Index,
    IndexAssign,
    Keyword,
    Lambda,
    ListLit,
    Method,
    Name,
    Node,
    Num,
    Numbers,
    Program,
    Slice,
    Str,
    UnaryOp,
    While,
    deep_recursion,
)
from .operators import CHAIN_LEVELS, SYMBOLS

# Binding strength of each kind of expression; an operand weaker than its slot needs brackets.
# An anonymous function's body and a conditional expression's last part reach as far
# as an expression does: both are the loosest.
_LAMBDA = _IF_EXP = 0
_COMPARE, _SUM, _PRODUCT, _UNARY, _POWER, _POSTFIX, _ATOM = range(1, 8)


def _level(node: Expr) -> int:
    if isinstance(node, Lambda):
        return _LAMBDA
    if isinstance(node, IfExp):
        return _IF_EXP
    if isinstance(node, Compare):
        return _COMPARE
    if isinstance(node, Chain):
        return CHAIN_LEVELS[node.ops[0]]
    if isinstance(node, UnaryOp):
        return _UNARY
    if isinstance(node, BinOp):
        return _POWER
    if isinstance(node, (Call, Method, Attr, Index)):
        return _POSTFIX
    return _ATOM


def _number(value: float) -> str:
    if isinstance(value, complex):  # an imaginary literal: 3j
        return _number(value.imag) + "j"
    if value == float("inf"):  # a literal too large for a float, such as 1e400
        return "1e999"
    if value == int(value) and abs(value) < 1e16:
        return str(int(value))
    return repr(value)


def to_source(node: Node) -> str:
    """Source text for ``node`` with the fewest brackets that parse back to the same IR."""
    with deep_recursion():
        return _Printer().show(node)


class _Printer:
    def show(self, node: Node) -> str:
        return getattr(self, type(node).__name__)(node)

    def operand(self, node: Expr, weakest: int) -> str:
        """``node`` printed in a slot that takes expressions binding at least ``weakest``."""
        text = self.show(node)
        return text if _level(node) >= weakest else f"({text})"

    def arguments(self, args, keywords) -> str:
        return ", ".join([self.show(a) for a in args] + [self.show(k) for k in keywords])

    def operator_run(self, node: Chain | Compare, strength: int) -> str:
        """``first op operand op operand ...``, each operand binding at least ``strength``."""
        parts = [self.operand(node.first, strength)]
        for op, operand in zip(node.ops, node.rest):
            parts += [SYMBOLS[op], self.operand(operand, strength)]
        return " ".join(parts)

    def Num(self, node: Num) -> str:
        if node.float_zero:
            return "0.0"
        value = node.value.imag if isinstance(node.value, complex) else node.value
        return _number(node.value) if value >= 0 else f"({_number(node.value)})"

    def Str(self, node: Str) -> str:
        return f"'{node.value}'" if '"' in node.value else f'"{node.value}"'

    def Name(self, node: Name) -> str:
        return node.id

    def UnaryOp(self, node: UnaryOp) -> str:
        return SYMBOLS[node.op] + self.operand(node.operand, _UNARY)

    def BinOp(self, node: BinOp) -> str:
        left = self.operand(node.left, _POSTFIX)
        return f"{left} {SYMBOLS[node.op]} {self.operand(node.right, _UNARY)}"

    def Chain(self, node: Chain) -> str:
        # The operands bind one level stronger than the chain: a nested chain of the
        # same level keeps its brackets, or it would parse back flattened.
        return self.operator_run(node, CHAIN_LEVELS[node.ops[0]] + 1)

    def Compare(self, node: Compare) -> str:
        return self.operator_run(node, _SUM)

    def Lambda(self, node: Lambda) -> str:
        params = node.params[0] if len(node.params) == 1 else f"({', '.join(node.params)})"
        return f"{params} -> {self.show(node.body)}"

    def Keyword(self, node: Keyword) -> str:
        return f"{node.name}={self.show(node.value)}"

    def Call(self, node: Call) -> str:
        return f"{node.func}({self.arguments(node.args, node.keywords)})"

    def _receiver(self, node: Expr) -> str:
        # `2.T` would lex as the number `2.` followed by `T`.
        if isinstance(node, Num):
            return f"({self.show(node)})"
        return self.operand(node, _POSTFIX)

    def Method(self, node: Method) -> str:
        args = self.arguments(node.args, node.keywords)
        return f"{self._receiver(node.obj)}.{node.name}({args})"

    def Attr(self, node: Attr) -> str:
        return f"{self._receiver(node.obj)}.{node.name}"

    def Slice(self, node: Slice) -> str:
        text = ":".join("" if p is None else self.show(p) for p in (node.start, node.stop))
        return text if node.step is None else f"{text}:{self.show(node.step)}"

    def Index(self, node: Index) -> str:
        subscripts = ", ".join(self.show(s) for s in node.subscripts)
        return f"{self._receiver(node.obj)}[{subscripts}]"

    def ListLit(self, node: ListLit) -> str:
        return "[" + ", ".join(self.show(item) for item in node.items) + "]"

    def Numbers(self, node: Numbers) -> str:
        shown = (
            _number(v) if v >= 0 and str(v)[0] != "-" else "-0.0" if v == 0 else f"-{_number(-v)}"
            for v in node.values
        )
        return "[" + ", ".join(shown) + "]"

    def Assign(self, node: Assign) -> str:
        return f"{node.name} = {self.show(node.value)}"

    def IndexAssign(self, node: IndexAssign) -> str:
        subscripts = ", ".join(self.show(s) for s in node.subscripts)
        return f"{node.name}[{subscripts}] = {self.show(node.value)}"

    def FuncDef(self, node: FuncDef) -> str:
        return f"{node.name}({', '.join(node.params)}) = {self.show(node.body)}"

    def ConstDecl(self, node: ConstDecl) -> str:
        return f"const {node.name} = {self.show(node.value)}"

    def Program(self, node: Program) -> str:
        return "\n".join(self.show(s) for s in node.statements)

    def IfExp(self, node: IfExp) -> str:
        body, test = self.operand(node.body, _COMPARE), self.operand(node.test, _COMPARE)
        return f"{body} if {test} else {self.show(node.orelse)}"

    def body(self, statements) -> str:
        """A block's statements, each line indented four spaces."""
        lines = "\n".join(self.show(s) for s in statements).split("\n")
        return "\n".join("    " + line for line in lines)

    def For(self, node: For) -> str:
        args = ", ".join(self.show(a) for a in node.args)
        return f"for {node.var} in range({args}):\n{self.body(node.body)}"

    def While(self, node: While) -> str:
        return f"while {self.show(node.test)}:\n{self.body(node.body)}"

    def If(self, node: If, keyword: str = "if") -> str:
        text = f"{keyword} {self.show(node.test)}:\n{self.body(node.body)}"
        if len(node.orelse) == 1 and isinstance(node.orelse[0], If):
            return f"{text}\n{self.If(node.orelse[0], 'elif')}"
        if node.orelse:
            text += f"\nelse:\n{self.body(node.orelse)}"
        return text

    def Break(self, node: Break) -> str:
        return "break"

    def Continue(self, node: Continue) -> str:
        return "continue"
