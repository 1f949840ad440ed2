"""The LALR(1) runtime that runs the tables generated from the grammar.

``scripts/gen_parser.py`` has Lark compile ``grammar/gradcli.lark`` and writes
what Lark's own runtime would load into ``_standalone_parser.py``, as plain
data: the terminals in the order the lexer tries them, the parse table, and for
each rule how its children are kept. This module runs them the way Lark's
runtime does (same tokens, positions, errors and tree shaping), in a fraction of
its start-up time: there is no runtime to import and no table to deserialize.

Tree shaping, as in Lark: tokens of anonymous strings and of terminals named
``_X`` are dropped; the children of a rule named ``_x`` are spliced into its
parent; a ``?rule`` without an alias that keeps one child is that child; any
other rule calls the builder's method named by its alias (or its name).
"""

from __future__ import annotations

import re

from . import _standalone_parser as tables


class Token(str):
    """A token: its text, its terminal's name ``type`` and its place (lines and
    columns from 1; ``end_column`` and ``end_pos`` just past its end)."""

    def __new__(
        cls, type, value, start_pos=0, line=1, column=1, end_line=1, end_column=1, end_pos=0
    ):  # noqa: A002
        self = super().__new__(cls, value)
        self.type = type
        self.start_pos = start_pos
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column
        self.end_pos = end_pos
        return self

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {str.__repr__(self)})"


class UnexpectedInput(Exception):
    """Text the grammar does not accept, at ``line``, ``column`` (from 1)."""

    pos_in_stream: int
    line: int
    column: int


class UnexpectedCharacters(UnexpectedInput):
    """No terminal matches the text at ``pos_in_stream``; ``char`` is the character there."""

    def __init__(self, text: str, pos: int, line: int, column: int):
        self.char = text[pos]
        self.pos_in_stream, self.line, self.column = pos, line, column
        super().__init__(f"No terminal matches {self.char!r} at line {line} col {column}")


class UnexpectedToken(UnexpectedInput):
    """``token`` cannot come here; ``expected`` holds the terminals that could."""

    def __init__(self, token: Token, expected: set[str]):
        self.token, self.expected = token, expected
        self.pos_in_stream, self.line, self.column = token.start_pos, token.line, token.column
        super().__init__(f"Unexpected token {token!r} at line {token.line} col {token.column}")


class Lexer:
    """The grammar's terminals, tried in order at each position (the first that
    matches wins, as in Lark's basic lexer); ignored ones are skipped unless
    ``keep_ignored``."""

    def __init__(self, keep_ignored: bool = False, shortcuts=None):
        pattern = "|".join(f"(?P<{name}>{regexp})" for name, regexp in tables.TERMINALS)
        self._match = re.compile(pattern).match
        self._ignore = frozenset() if keep_ignored else tables.IGNORE
        # {first character: (match, terminal, kinds)}: a longer token tried first where
        # it may start, unless the token before is of one of ``kinds`` (a list of
        # numbers as one NUMBER, but not the subscript of x[0]).
        self._shortcuts = shortcuts or {}

    def lex(self, text: str):
        match, ignore, newline_types = self._match, self._ignore, tables.NEWLINE_TYPES
        keywords, shortcuts = tables.KEYWORDS, self._shortcuts
        pos, line, line_start, size = 0, 1, 0, len(text)
        last = None  # the kind of the last token not ignored
        while pos < size:
            shortcut = shortcuts.get(text[pos]) if shortcuts else None
            found = None
            if shortcut is not None and last not in shortcut[2]:
                found = shortcut[0](text, pos)
            if found is not None:
                value, kind = found.group(), shortcut[1]
                start, start_line, column = pos, line, pos - line_start + 1
                pos += len(value)
                if "\n" in value:
                    line += value.count("\n")
                    line_start = start + value.rindex("\n") + 1
                last = kind
                yield Token(kind, value, start, start_line, column, line, pos - line_start + 1, pos)
                continue
            found = match(text, pos)
            if found is None:
                raise UnexpectedCharacters(text, pos, line, pos - line_start + 1)
            value, kind = found.group(), found.lastgroup
            start, start_line, column = pos, line, pos - line_start + 1
            pos += len(value)
            if kind in newline_types and "\n" in value:
                line += value.count("\n")
                line_start = start + value.rindex("\n") + 1
            if kind in ignore:
                continue
            if kind in keywords:  # a keyword is a name the grammar spells out ("const")
                kind = keywords[kind].get(value, kind)
            last = kind
            yield Token(kind, value, start, start_line, column, line, pos - line_start + 1, pos)


def _rule_callback(name, expand1, keep, spliced, builder):
    """What reducing a rule makes of its children (see the module doc)."""
    method = getattr(builder, name, None)
    inline = method is None and name.startswith("_")

    def reduce(children):
        kept: list = []
        for i in keep:
            if i in spliced:
                if kept:
                    kept += children[i]
                else:  # a left-recursive list grows in place: 10,000 terms stay linear
                    kept = children[i]
            else:
                kept.append(children[i])
        if expand1 and len(kept) == 1:
            return kept[0]
        if inline:
            return kept  # its parent splices the list
        if method is None:
            raise RuntimeError(f"the parser's builder has no method for the rule {name!r}")
        return method(*kept)

    return reduce


class Parser:
    """Text to whatever ``builder`` makes: one builder call per reduction, so no
    parse tree is kept and nothing recurses. ``postlex.process`` sees the tokens
    between the lexer and the parser."""

    def __init__(self, builder, postlex, shortcuts=None):
        self.lexer = Lexer(shortcuts=shortcuts)
        self.postlex = postlex
        self._rules = [
            (origin, size, _rule_callback(name, expand1, keep, frozenset(spliced), builder))
            for origin, size, name, expand1, keep, spliced in tables.RULES
        ]

    def lex(self, text: str):
        """The tokens the parser would see: without ignored text, after ``postlex``."""
        return self.postlex.process(self.lexer.lex(text))

    def parse(self, text: str):
        states, rules = tables.STATES, self._rules
        state_stack, value_stack = [tables.START], []
        token = None
        for token in self.lex(text):
            self._feed(token, states, rules, state_stack, value_stack)
        if token is None:
            end = Token("$END", "")
        else:
            end = Token("$END", "", *(getattr(token, a) for a in PLACE))
        return self._feed(end, states, rules, state_stack, value_stack)

    @staticmethod
    def _feed(token, states, rules, state_stack, value_stack):
        """Shift ``token`` after the reductions it allows; at ``$END``, the result."""
        kind = token.type
        while True:
            actions = states[state_stack[-1]]
            action = actions.get(kind)
            if action is None:
                raise UnexpectedToken(token, {s for s in actions if s.isupper()})
            if action >= 0:  # shift
                state_stack.append(action)
                value_stack.append(token)
                return None
            origin, size, reduce = rules[~action]
            if size:
                children = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                children = []
            value = reduce(children)
            state_stack.append(states[state_stack[-1]][origin])
            value_stack.append(value)
            if kind == "$END" and state_stack[-1] == tables.END:
                return value


PLACE = ("start_pos", "line", "column", "end_line", "end_column", "end_pos")
