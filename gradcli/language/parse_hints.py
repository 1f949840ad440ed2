"""What the parser's error messages say of the tokens around a mistake: a token
described in words, two tokens written side by side that mean a product, a number
run into a name, and how to write degrees in radians."""

from __future__ import annotations

from ..engine.ops import FUNCTIONS

# Written after a number, units that are no names of the language.
DEGREES = ("deg", "degree", "degrees", "°")


def describe(token) -> str:
    if token.type == "$END":
        return "end of input"
    if token.type == "_SEP":
        return "';'" if ";" in token else "end of line"
    if token.type == "NAME":
        return f"name '{token}'"
    if token.type == "NUMBER":
        return "'['" if token[0] == "[" else f"number '{token}'"  # [ begins a list
    if token.type == "STRING":
        return f"string {token}"
    if token.type == "_INDENT":
        return "indented line"
    if token.type == "_DEDENT":
        return "end of an indented body"
    return f"'{token}'"


def implicit_product(left, right) -> str | None:
    """``2*x`` for the tokens ``2`` and ``x`` written side by side, or None."""

    def number(token):
        return "[...]" if token[0] == "[" else str(token)  # a list of numbers is one token

    texts = {"NUMBER": number, "NAME": str, "RPAR": lambda t: "(...)", "RSQB": lambda t: "[...]"}
    if left.type not in texts or right.type not in ("NUMBER", "NAME", "LPAR"):
        return None
    if left.type == right.type == "NUMBER":  # 1.5.3 is a typo, not a product
        return None
    right_text = "(...)" if right.type == "LPAR" else texts[right.type](right)
    return f"{texts[left.type](left)}*{right_text}"


def malformed_number(left, right) -> str | None:
    """``1_000``, ``0x10`` or ``1e3e3``: a number run into a name that is no product."""
    if left.type != "NUMBER" or right.type != "NAME" or left.end_pos != right.start_pos:
        return None
    if left[0] == "[":  # a list of numbers, not a number
        return None
    text = f"{left}{right}"
    if right.startswith("_"):
        return f"invalid number '{text}': write it without '_'"
    if str(left) == "0" and right[0] in "xXbBoO":
        return f"invalid number '{text}': numbers are decimal"
    if str(right) in DEGREES:
        return f"'{text}': units are not supported; {degrees(str(left))}"
    if right[0] in "eE" and any(c in "eE" for c in left):
        return f"invalid number '{text}'"
    return None


def degrees(number: str) -> str:
    """How to write ``number`` degrees: in radians, with the function NumPy calls
    ``radians`` where the language has one (its entry's ``other_names``)."""
    found = [name for name, entry in FUNCTIONS.items() if "radians" in entry.other_names]
    if found:
        return f"write {found[0]}({number}) or {number}*pi/180 (radians)"
    return f"write {number}*pi/180 (radians)"
