"""``gradcli plot``: values and derivatives against NumPy, kinks and non-finite points,
the PNG and SVG files, and the terminal drawing in a pseudo-terminal."""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest

from gradcli.analysis import plot
from gradcli.core.bindings import Over, parse_over


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x=-3:3", Over("x", -3.0, 3.0)),
        ("t = 0 : 2*pi : 50", Over("t", 0.0, 2 * np.pi, 50)),
        ("θ=-pi/2:pi/2", Over("θ", -np.pi / 2, np.pi / 2)),
        ("x=max([1, 2]):4", Over("x", 2.0, 4.0)),  # a colon-free call with brackets
        # A 1-D value: its entries are the points.
        ("x=linspace(-2, 2, 5)", Over("x", -2.0, 2.0, 5, (-2.0, -1.0, 0.0, 1.0, 2.0))),
        ("x=[3, 1, 2]", Over("x", 3.0, 2.0, 3, (3.0, 1.0, 2.0))),
    ],
)
def test_parse_over(text, expected):
    assert parse_over(text) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("x", "--over expects NAME=VALUE"),
        ("x=3", "the points must be a 1-D value"),
        ("x=", "--over expects NAME=A:B, NAME=A:B:N or NAME=VALUES"),
        ("x=[[1, 2]]", "the points must be a 1-D value"),
        ("x=[1, nan]", "the points must be finite"),
        ("x=1:1", "A and B must be finite and different"),
        ("x=0:1:1", "N must be an integer of at least 2"),
        ("x=0:1:2.5", "N must be an integer of at least 2"),
        ("x=[0, 1]:2", "A must be one number"),
        ("x=0:inf", "A and B must be finite and different"),
    ],
)
def test_parse_over_errors(text, message):
    from gradcli.errors import GradcliError

    with pytest.raises(GradcliError, match=message.replace("(", r"\(")):
        parse_over(text)


def test_values_and_derivatives(gradcli_json):
    out = gradcli_json("plot", "sin(x) * a", "--a", "2", "--over", "x=-3:3:61")
    x = np.linspace(-3, 3, 61)
    np.testing.assert_allclose(out["x"], x)
    np.testing.assert_allclose(out["f"], 2 * np.sin(x), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(out["df"], 2 * np.cos(x), rtol=1e-14, atol=1e-15)
    assert out["kinks"] == [] and out["nonfinite"] == []


@pytest.mark.parametrize(
    "source, over, kinks",
    [
        ("abs(x)", "x=-3:3", [0.0]),  # on a grid point
        ("abs(x - 0.1)", "x=-3:3", [0.105]),  # between x = 0.09 and 0.12
        ("relu(x - 1) + relu(-x - 1)", "x=-3:3", [-1.0, 1.0]),
        ("abs(sin(x))", "x=-5:5:1001", [-np.pi, 0.0, np.pi]),
        ("exp(x)", "x=-3:3", []),
        ("tanh(20*x)", "x=-3:3", []),
        ("x**3 - 3*x", "x=-3:3", []),
        # Past the ends nothing to compare with: by hand, x**2's slopes -2, 0, 2 on three
        # points are a straight line, abs(x)'s -1, 0, 1 are not f's secants (-1, 1).
        ("x**2", "x=-1:1:3", []),
        ("abs(x)", "x=-1:1:3", [0.0]),
        ("x**3", "x=-1:1:4", []),
        ("x**3", "x=-1:1:7", []),
        ("exp(3*x)", "x=-1:1:4", []),
        ("abs(x - 0.95)", "x=-1:1:21", [0.95]),  # in the middle of the last interval
        ("abs(x - 0.9)", "x=-1:1:11", [0.9]),  # on the last grid point but one
    ],
)
def test_kinks(source, over, kinks):
    report = plot(source, over=over)
    step = (report.x[-1] - report.x[0]) / (report.x.size - 1)
    assert report.kinks.size == len(kinks), report.kinks
    np.testing.assert_allclose(report.kinks, kinks, atol=step)


def test_non_finite_points():
    report = plot("1/x + log(x + 2)", over="x=-3:3:7")
    # log(x + 2) is nan below x = -2 and -inf at -2; 1/x is inf at 0.
    np.testing.assert_array_equal(report.nonfinite, [-3, -2, 0])
    assert report.kinks.size == 0
    assert not report.finite


def test_png_is_drawn(gradcli, tmp_path):
    pytest.importorskip("matplotlib", reason="--output draws with matplotlib")
    from matplotlib.image import imread

    from gradcli.render.image import DPI, SIZE_INCHES

    path = tmp_path / "f.png"
    result = gradcli("plot", "abs(x) - x**3/9", "--over", "x=-3:3", "--output", path)
    assert result.exit_code == 0, result.output
    pixels = imread(path)
    assert pixels.shape[:2] == (SIZE_INCHES[1] * DPI, SIZE_INCHES[0] * DPI)
    rgb = pixels[..., :3]
    not_white = np.any(rgb < 0.9, axis=-1)
    assert 0.01 < not_white.mean() < 0.5  # axes, ticks and curves; mostly background
    # The curves' colours: something clearly blue (f) and something clearly red (the kink).
    assert np.any((rgb[..., 2] > 0.6) & (rgb[..., 0] < 0.3))
    assert np.any((rgb[..., 0] > 0.7) & (rgb[..., 1] < 0.3) & (rgb[..., 2] < 0.3))


def test_svg_is_drawn(gradcli, tmp_path):
    pytest.importorskip("matplotlib", reason="--output draws with matplotlib")
    import xml.etree.ElementTree as ET

    path = tmp_path / "f.svg"
    result = gradcli("plot", "sin(x)", "--over", "x=0:6", "--output", path, "--format", "json")
    assert result.exit_code == 0, result.output
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    assert len(root.findall(".//{http://www.w3.org/2000/svg}path")) > 10


def test_without_matplotlib(gradcli, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    result = gradcli("plot", "x**2", "--over", "x=0:1", "--output", tmp_path / "f.png")
    assert result.exit_code == 2
    assert "pip install 'gradcli[plot]'" in result.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["x**2", "--over", "x=0:1", "--output", "f.pdf"], "the plot is written as .png or .svg"),
        (["x**2", "--over", "x=0:1", "--x", "2"], "x is bound too"),
        (["sum(x)", "--over", "y=0:1", "--x", "[1, 2]"], "the program has no input named 'y'"),
        (["x*[1, 2]", "--over", "x=0:1"], "plot needs a scalar output"),
        (["x**2"], "missing option '--over'"),
    ],
)
def test_bad_input(gradcli, args, message):
    result = gradcli("plot", *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_terminal_plot_in_a_pseudo_terminal(gradcli_script):
    pexpect = pytest.importorskip("pexpect", reason="runs gradcli in a pseudo-terminal")
    env = {**os.environ, "COLUMNS": "80", "LINES": "40", "TERM": "xterm", "NO_COLOR": "1"}
    child = pexpect.spawn(
        gradcli_script[0],
        [*gradcli_script[1:], "plot", "abs(x)", "--over", "x=-3:3"],
        env=env,
        encoding="utf-8",
        dimensions=(40, 80),
        timeout=60,
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    # NO_COLOR leaves bold text: its escape sequences are no characters of the plot.
    text = re.sub(r"\x1b\[[0-9;]*m", "", child.before)
    lines = text.replace("\r\n", "\n").splitlines()
    assert lines[0] == "abs(x)"
    assert "f over x" in lines and "f′ over x" in lines
    assert "▲ kinks (f′ jumps) at x = 0" in lines
    plotted = [line for line in lines if "┤" in line]
    assert len(plotted) == 22  # two panels of 11 rows
    assert all(len(line) <= 80 for line in lines)
    # f = |x|: the top row has points at both ends, the bottom row in the middle.
    top, bottom = plotted[0], plotted[10]
    body = lambda line: line.split("┤", 1)[1]  # noqa: E731
    assert body(top).lstrip().startswith("•") and body(top).rstrip().endswith("•")
    assert body(bottom).strip() and body(bottom).index("•") > 30


def test_plain_and_json_have_the_numbers(gradcli):
    plain = gradcli("plot", "abs(x)", "--over", "x=-1:1:5").stdout.splitlines()
    assert plain == ["over x", "x -1 -0.5 0 0.5 1", "f 1 0.5 0 0.5 1", "df -1 -1 0 1 1",
                     "kinks 0", "nonfinite", "poles"]  # fmt: skip
    out = json.loads(gradcli("plot", "abs(x)", "--over", "x=-1:1:5", "--format", "json").stdout)
    assert out["kinks"] == [0]


def test_the_readme_image_is_committed():
    """docs/plots-and-graphs.md shows docs/plot.png, drawn by the command it gives."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    page = (root / "docs" / "plots-and-graphs.md").read_text(encoding="utf-8")
    assert "--output docs/plot.png" in page and "](plot.png)" in page
    data = (root / "docs" / "plot.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (700, 500)


def test_plot_takes_the_over_values_the_computing_commands_take(gradcli):
    by_range = gradcli("plot", "abs(x)", "--over", "x=-1:1:5", "--format", "plain")
    by_value = gradcli("plot", "abs(x)", "--over", "x=linspace(-1, 1, 5)", "--format", "plain")
    assert by_value.exit_code == 0 and by_value.stdout == by_range.stdout
    assert "x -1 -0.5 0 0.5 1\n" in by_value.stdout


@pytest.mark.parametrize(
    "source, over, poles",
    [
        ("tan(x)", "x=-3:3", [-np.pi / 2, np.pi / 2]),
        ("tan(x)", "x=-3:3:21", [-np.pi / 2, np.pi / 2]),
        ("1/x", "x=-1:1:200", [0.0]),
        ("1/(x - 1)", "x=-3:3", [1.0]),
        ("1/x**2", "x=-1:1:200", []),  # no change of sign: a peak, drawn as one
        ("x - round(x)", "x=-3:3", []),  # jumps, but to nothing large
        ("sin(100*x)", "x=-3:3", []),  # too coarse a grid is no pole
        ("abs(x)", "x=-3:3", []),
    ],
)
def test_poles(source, over, poles):
    report = plot(source, over=over)
    step = abs(report.x[1] - report.x[0])
    assert report.poles.size == len(poles), report.poles
    np.testing.assert_allclose(report.poles, poles, atol=step)
    assert report.kinks.size == 0 or source == "abs(x)"
    if poles:  # the range drawn leaves out the values beside the poles
        low, high = report.limits
        assert high < np.abs(report.f).max() and low > -np.abs(report.f).max()


def test_poles_in_the_numbers(gradcli_json):
    out = gradcli_json("plot", "tan(x)", "--over", "x=-3:3")
    np.testing.assert_allclose(out["poles"], [-np.pi / 2, np.pi / 2], atol=0.03)
    np.testing.assert_allclose(out["f"], np.tan(np.linspace(-3, 3, 201)), rtol=1e-13)


def test_terminal_plot_breaks_at_poles(gradcli):
    """No stroke joins +large to -large at a pole: its column holds the asymptote alone."""
    result = gradcli("plot", "tan(x)", "--over", "x=-3:3", "--format", "table",
                     env={"COLUMNS": "80"})  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    axis = next(line for line in lines if "└" in line)
    columns = [i for i, mark in enumerate(axis) if mark == "○"]
    assert len(columns) == 2
    f_panel = [line for line in lines[: lines.index(axis)] if "┤" in line]
    assert len(f_panel) == 11
    assert all(line[c] == "┆" for line in f_panel for c in columns)
    assert "○ poles (f jumps through ∞) at x = -1.571, 1.571" in lines  # ±π/2
    # The rest of the curve is not flattened against the axis: tan(0) = 0 mid-panel.
    middle = [line[(columns[0] + columns[1]) // 2] for line in f_panel]
    assert middle.index("•") == 5


def test_output_in_a_pipe_says_where_it_wrote(gradcli, tmp_path):
    pytest.importorskip("matplotlib", reason="--output draws with matplotlib")
    path = tmp_path / "p.png"
    result = gradcli("plot", "tan(x)", "--over", "x=-3:3", "--output", path)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"plot written to {path}\n"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["p.png"]  # no temporary file left


def test_without_matplotlib_nothing_is_printed(gradcli, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    result = gradcli("plot", "x**2", "--over", "x=0:1", "--output", tmp_path / "f.png",
                     "--format", "plain")  # fmt: skip
    assert result.exit_code == 2 and result.stdout == ""
    assert "pip install 'gradcli[plot]'" in result.stderr


def test_several_functions(gradcli_json, gradcli):
    out = gradcli_json("plot", "sin(x)", "cos(x)", "abs(x)", "--over", "x=-3:3:61")
    x = np.linspace(-3, 3, 61)
    np.testing.assert_allclose(out["x"], x)
    sin, cos, absolute = out["functions"]
    assert [f["source"] for f in out["functions"]] == ["sin(x)", "cos(x)", "abs(x)"]
    np.testing.assert_allclose(sin["f"], np.sin(x), atol=1e-15)
    np.testing.assert_allclose(cos["df"], -np.sin(x), atol=1e-15)
    assert absolute["kinks"] == [0] and sin["kinks"] == []
    table = gradcli("plot", "sin(x)", "cos(x)", "--over", "x=0:6", "--format", "table",
                    env={"COLUMNS": "80"}).stdout.splitlines()  # fmt: skip
    assert table[:2] == ["sin(x) and cos(x)", "• sin(x)  ∘ cos(x)"]
    f_panel = [line for line in table if "┤" in line][:11]
    assert "•" in f_panel[0] and "∘" in f_panel[0]  # both reach 1


def test_several_functions_drawn(gradcli, tmp_path):
    pytest.importorskip("matplotlib", reason="--output draws with matplotlib")
    path = tmp_path / "f.svg"
    result = gradcli("plot", "sin(x)", "cos(x)", "--over", "x=0:6", "--output", path)
    assert result.exit_code == 0, result.output
    text = path.read_text()
    assert "sin(x)" in text and "cos(x)" in text  # the legend


def test_field_of_two_inputs(gradcli_json):
    out = gradcli_json("plot", "x**2*y + sin(y)", "--over", "x=-1:1:5", "--over", "y=0:2:3")
    x, y = np.meshgrid(np.linspace(-1, 1, 5), np.linspace(0, 2, 3))
    assert out["over"] == ["x", "y"] and np.shape(out["f"]) == (3, 5)
    np.testing.assert_allclose(out["f"], x**2 * y + np.sin(y), atol=1e-15)
    np.testing.assert_allclose(out["grad"]["x"], 2 * x * y, atol=1e-15)
    np.testing.assert_allclose(out["grad"]["y"], x**2 + np.cos(y), atol=1e-15)
    assert out["nonfinite"] == 0


def test_field_in_the_terminal_and_drawn(gradcli, tmp_path):
    args = ["plot", "x**2 + y**2", "--over", "x=-1:1", "--over", "y=-1:1"]
    lines = gradcli(*args, "--format", "table", env={"COLUMNS": "60"}).stdout.splitlines()
    rows = [line.split("┤", 1)[1] for line in lines if "┤" in line]
    assert len(rows) == 21 and all(len(line) <= 60 for line in lines)
    # A bowl: the darkest shade at the corners, the lightest in the middle.
    assert rows[0][0] == "@" and rows[10][len(rows[10]) // 2] == " "
    # Uphill is outwards: left of the centre the arrows point left.
    assert "←" in rows[10][: len(rows[10]) // 2] and "→" in rows[10][len(rows[10]) // 2 :]
    assert "lowest f 0 at x = 0, y = 0; highest 2 at x = -1, y = -1" in lines
    pytest.importorskip("matplotlib", reason="--output draws with matplotlib")
    result = gradcli(*args, "--output", tmp_path / "f.png")
    assert result.exit_code == 0 and result.stdout.startswith("plot written to")


@pytest.mark.parametrize(
    "args, message",
    [
        (["x*y", "--over", "x=0:1", "--over", "x=0:2"], "--over x is given twice"),
        (["x*y", "--over", "x=0:1", "--over", "y=0:1", "--over", "z=0:1"], "at most twice"),
        (["x*y", "x+y", "--over", "x=0:1", "--over", "y=0:1"], "one SOURCE at a time"),
        (["x*y", "--over", "x=0:1:400", "--over", "y=0:1:400"], "at most 100000 grid points"),
    ],
)
def test_field_bad_input(gradcli, args, message):
    result = gradcli("plot", *args)
    assert result.exit_code == 2 and message in result.stderr, result.stderr


@pytest.mark.parametrize("name", ["poles.png", "field.png"])
def test_the_pictures_of_poles_and_fields_are_committed(name):
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    page = (root / "docs" / "plots-and-graphs.md").read_text(encoding="utf-8")
    assert f"--output docs/{name}" in page and f"]({name})" in page
    data = (root / "docs" / name).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) == (700, 500)


@pytest.mark.parametrize("count", [7, 12, 50, 1000, 12345])
@pytest.mark.parametrize(
    "source, poles",
    [
        # Where each function jumps through infinity in [-3, 3], by hand.
        ("tan(x)", [-np.pi / 2, np.pi / 2]),
        ("tan(2*x)", [-3 * np.pi / 4, -np.pi / 4, np.pi / 4, 3 * np.pi / 4]),
        ("sec(x)", [-np.pi / 2, np.pi / 2]),
        ("1/x", [0.0]),
        ("1/(x-1)", [1.0]),
        ("sin(3*x)", []),  # roots, not poles
        ("x - round(x)", []),  # jumps to nothing large
    ],
)
def test_poles_are_found_on_any_grid(source, poles, count):
    # Before, only on fine enough grids: at 7 points tan's poles (between 1 and 2) were
    # missed, and 1/(x - 1) at 1000 and 12345 points depended on thresholds of size.
    report = plot(source, over=f"x=-3:3:{count}")
    step = 6 / (count - 1)
    on_the_grid = [p for p in poles if np.min(np.abs(report.x - p)) < 1e-12]
    between = [p for p in poles if p not in on_the_grid]
    assert report.poles.size == len(between), (report.poles, between)
    # Where the halvings end, 2**-30 of the grid's step from the pole (was its middle).
    np.testing.assert_allclose(report.poles, between, atol=step * 2**-29)
    np.testing.assert_allclose(report.nonfinite, on_the_grid, atol=1e-12)


def test_no_kink_for_a_parabola_on_three_points(gradcli_json):
    out = gradcli_json("plot", "x**2", "--over", "x=-1:1:3")
    assert out["kinks"] == []
    assert gradcli_json("plot", "abs(x)", "--over", "x=-1:1:3")["kinks"] == [0]
