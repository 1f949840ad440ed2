"""What the renderers for a terminal share: the narrowest table, and text made safe to show."""

from __future__ import annotations

import re

MIN_WIDTH = 20
# Control characters, which a terminal obeys (ESC starts a colour) rather than shows.
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]")


def shown_text(text: str, encoding: str) -> str:
    """``text`` as the terminal should show it: control characters (a comment may
    hold an escape sequence) as U+FFFD, and what ``encoding`` cannot write escaped
    (θ as ``\\u03b8``), so that the table measures what the terminal will show."""
    text = _CONTROLS.sub("\ufffd" if encoding.lower().startswith("utf") else "?", text)
    return text.encode(encoding, "backslashreplace").decode(encoding)


def label(path: tuple[str, ...], unicode: bool = True) -> str:
    """How a table row names an array of a result tree (in ASCII when the output's
    encoding has no ∂)."""
    d, squared, transposed, dot = ("∂", "²", "ᵀ", "·") if unicode else ("d", "2", "^T", ".")
    match path:
        case ("value",):
            return "f"
        case ("grad" | "jacobian", x):
            return f"{d}f/{d}{x}"
        case ("hessian", x, y):
            return f"{d}{squared}f/{d}{x}{d}{y}"
        case ("vjp", x):
            return f"v{transposed}{dot}{d}f/{d}{x}"
        case ("jvp",):
            return f"{d}f{dot}t"
    return ".".join(path)
