"""What a program may write beyond ASCII, and the errors for what it may not.

Names may use any letters Python's identifiers take (``α``, ``θ₀`` is not one,
``θ`` is), but not a letter that passes for an ASCII one: a Cyrillic ``х`` or a
fullwidth ``ｘ`` would make a name that looks like ``x`` and is another. Numbers
are written in ASCII digits: the lexer's ``\\d`` takes ``١`` (ARABIC-INDIC DIGIT
ONE) too, which would otherwise be read as 1 without a word.

The lexer calls ``problem`` only for tokens that are not ASCII, so a program in
ASCII pays nothing.
"""

from __future__ import annotations

import unicodedata

from ..errors import GradcliError, Span

# Letters of other scripts drawn like Latin ones, and the Latin letter each passes for.
# Letters that are math's own (α, ν, ρ, ι) are left out: they are written on purpose.
_LOOKALIKES = dict(
    zip(
        "аеорсухіјѕԁһӏԛԝАВЕКМНОРСТХУІЈЅοΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
        "aeopcyxijsdhlqwABEKMHOPCTXYIJSoABEZHIKMNOPTYX",
        strict=True,
    )
)


def describe(char: str) -> str:
    """``'х' (U+0445 CYRILLIC SMALL LETTER HA)``: a character no one can mistake."""
    name = unicodedata.name(char, "")
    return f"{char!r} (U+{ord(char):04X}{' ' + name if name else ''})"


def problem(token, column: int) -> GradcliError | None:
    """The error for a NAME or NUMBER token that is not ASCII, or None if it may stand.

    ``column`` is the token's first column; the error points at the character."""
    for i, char in enumerate(str(token)):
        if not char.isascii():
            why = _refused(str(token), char)
            if why is not None:
                return GradcliError(why, Span(token.line, column + i))
    return None


def name_problem(name: str) -> str | None:
    """Why ``name`` (a binding's, ``--х``) cannot be a name, or None."""
    for char in name:
        if not char.isascii():
            why = _refused(name, char)
            if why is not None:
                return why
    return None


def _refused(text: str, char: str) -> str | None:
    if char.isdigit():
        return f"{describe(char)} is not an ASCII digit: write 0-9"
    ascii_letter = _LOOKALIKES.get(char) or _plain(char)
    if ascii_letter is None:
        return None
    looks = f"which looks like {ascii_letter!r}: write {ascii_letter!r}"
    return f"name '{text}' holds {describe(char)}, {looks}"


def _plain(char: str) -> str | None:
    """The ASCII letter a compatibility form stands for (``ｘ``, ``𝑥``), or None."""
    plain = unicodedata.normalize("NFKC", char)
    return plain if plain.isascii() and plain.isalnum() else None


def lookalike_problem(name: str, names) -> str | None:
    """Why ``name`` (a column's) is refused, as a program refuses it, when it reads as
    one of ``names`` but holds a letter that only looks like one (Cyrillic ``х``), or None."""
    plain = "".join(
        char if char.isascii() else (_LOOKALIKES.get(char) or _plain(char) or char) for char in name
    )
    if plain == name or plain not in names:
        return None
    return name_problem(name)


def number(text: str) -> float:
    """A number as written, with its sign: ``-0.0`` is negative zero, as Python and PyTorch
    read it, while ``-0`` is the integer 0, whose sign ``torch.tensor([30, -0])`` does not
    keep."""
    value = float(text)
    return 0.0 if value == 0 and not any(c in text for c in ".eE") else value
