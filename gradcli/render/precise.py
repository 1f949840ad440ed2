"""A result at a working precision (``--dps``, ``core/precision.py``): its numbers are
decimal texts already, each printed whole; json gives them as strings."""

from __future__ import annotations

from ..errors import GradcliError

#: The formats a result at a working precision is printed in.
FORMATS = ("table", "plain", "json")


def precise_lines(result) -> dict[str, str]:
    """``{"value": "...", "grad.x": "..."}``: each section's numbers, flattened, by key."""
    lines: dict[str, str] = {}

    def add(path, value):
        if isinstance(value, dict):
            for key, inner in value.items():
                add(f"{path}.{key}", inner)
        else:
            lines[path] = " ".join(_flat(value))

    for key, value in result.sections.items():
        add(key, value)
    return lines


def render_precise(result, fmt: str, stream) -> None:
    if fmt == "json":
        import json  # only this format: a one-line command loads no JSON

        stream.write(json.dumps(result.sections) + "\n")
    elif fmt == "plain":
        for key, text in precise_lines(result).items():
            stream.write(f"{key} {text}\n")
    elif fmt == "table":
        lines = precise_lines(result)
        width = max(map(len, lines))
        for key, text in lines.items():
            stream.write(f"{key:<{width}}  {text}\n")
    else:
        raise GradcliError(f"--dps prints {', '.join(FORMATS)}: not --format {fmt}")


def _flat(value):
    if isinstance(value, list):
        for item in value:
            yield from _flat(item)
    else:
        yield value
