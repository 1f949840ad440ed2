"""A many-point run compiles its program once, whatever the number of chunks, and
binds nothing in place of the inputs that vary: they have no value until a chunk
gives theirs. The expected numbers are derived by hand."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from gradcli import api
from gradcli.core import evaluation as evaluation_module
from gradcli.core.many_points import PointsProgram, layout
from gradcli.core.point_files import task as task_module
from gradcli.core.point_files.task import PointsTask
from gradcli.errors import GradcliError
from gradcli.language import program as program_module


@pytest.fixture
def compiled(monkeypatch):
    """The sources parsed, and the bindings each evaluation was made with."""
    seen = {"parsed": [], "bound": []}
    parse = program_module.parse

    def counted(text, *args, **kwargs):
        seen["parsed"].append(text)
        return parse(text, *args, **kwargs)

    monkeypatch.setattr(program_module, "parse", counted)
    made = evaluation_module.Evaluation.__init__

    def recorded(self, source, bindings, *args, **kwargs):
        seen["bound"].append(dict(bindings))
        return made(self, source, bindings, *args, **kwargs)

    monkeypatch.setattr(evaluation_module.Evaluation, "__init__", recorded)
    return seen


def test_a_run_of_many_chunks_compiles_its_program_once(gradcli, tmp_path, compiled):
    source = "A @ tanh(x)"
    rng = np.random.default_rng(0)
    a, x = rng.standard_normal((3, 3)), rng.standard_normal((40, 3))
    np.save(tmp_path / "A.npy", a)
    np.savez(tmp_path / "in.npz", x=x)
    out = tmp_path / "out.npz"
    result = gradcli(
        "jacobian", source, "--A", f"@{tmp_path / 'A.npy'}", "--points",
        str(tmp_path / "in.npz"), "--chunk-size", "10", "--output", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert compiled["parsed"].count(source) == 1  # four chunks, one compilation
    # x varies: the evaluation binds A only, no zeros or any value standing in for x
    assert [set(b) for b in compiled["bound"]] == [{"A"}]
    with np.load(out) as saved:
        # d(A tanh(x))/dx = A diag(1 - tanh(x)**2), at each point
        want = a[None] * (1 - np.tanh(x) ** 2)[:, None, :]
        np.testing.assert_allclose(saved["jacobian.x"], want, rtol=1e-13)


def test_the_task_compiles_at_its_first_chunk_and_not_again(compiled):
    task = PointsTask("grad", "sum(x**2) * y", {"y": "2"})
    for start in range(0, 6, 2):
        chunk = {"x[0]": np.arange(start, start + 2.0), "x[1]": np.ones(2)}
        got = task(chunk)
        # d/dx (y * sum(x**2)) = 2 y x, y = 2
        np.testing.assert_allclose(got["grad.x"], 4 * np.stack(list(chunk.values()), axis=1))
    assert compiled["parsed"].count("sum(x**2) * y") == 1
    # Sent to another process without its compiled program, which it makes again
    again = pickle.loads(pickle.dumps(task))
    assert again._program is None
    np.testing.assert_allclose(again({"x[0]": [1.0], "x[1]": [3.0]})["grad.x"], [[4.0, 12.0]])


def test_an_input_defined_from_a_const_that_varies_takes_its_value_at_each_point():
    # b = 3 c at each point (the single-point call with --c c_i), not b of a stand-in c
    # = 0 nor of the declared c = 2.
    c, x = np.array([1.0, 2.0, 5.0]), np.array([0.5, -1.0, 2.0])
    r = api.points("grad", "const c = 2\nb = c * 3\nb * x", batch={"c": c, "x": x})
    np.testing.assert_allclose(r.arrays["value"], 3 * c * x)
    np.testing.assert_allclose(r.arrays["grad.x"], 3 * c)
    np.testing.assert_allclose(r.arrays["grad.b"], x)
    assert r.varying == ("c", "x", "b")


def test_a_const_that_varies_read_directly_needs_no_defaults_again():
    c, x = np.array([1.0, -2.0]), np.array([3.0, 4.0])
    r = api.points("grad", "const c = 2\nc * x**2", batch={"c": c, "x": x})
    np.testing.assert_allclose(r.arrays["grad.x"], 2 * c * x)  # d/dx c x^2 = 2 c x


def test_a_compiled_program_takes_only_the_layout_it_was_compiled_for():
    batch = {"x": np.zeros((4, 2))}
    program = PointsProgram("grad", "sum(x**2)", None, layout(batch))
    np.testing.assert_allclose(program.at({"x": np.ones((3, 2))}).arrays["grad.x"], 2.0)
    with pytest.raises(GradcliError, match=r"x of shape \(3,\).*compiled for x of shape \(2,\)"):
        program.at({"x": np.ones((4, 3))})


def test_a_chunk_evaluated_in_pieces_gives_every_row_its_own_derivatives(monkeypatch):
    monkeypatch.setattr(task_module, "PIECE_ROWS", 4)  # 10 rows: pieces of 4, 4 and 2
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-2, 2, 10), rng.uniform(-2, 2, 10)
    got = PointsTask("grad", "sin(x)*exp(-y**2) + x*y**3")({"x": x, "y": y})
    e = np.exp(-(y**2))
    np.testing.assert_allclose(got["value"], np.sin(x) * e + x * y**3, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(got["grad.x"], np.cos(x) * e + y**3, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(
        got["grad.y"], -2 * y * np.sin(x) * e + 3 * x * y**2, rtol=1e-12, atol=1e-13
    )
    assert not got["grad.x"].flags.writeable


def test_pieces_draw_what_the_whole_chunk_draws_and_place_an_error_in_the_chunk(monkeypatch):
    chunk = {"x": np.linspace(-1, 1, 9), "y": np.arange(9.0)}
    whole = PointsTask("grad", "sum(randn(3)) * x**2 + y", seed=3)(chunk)
    monkeypatch.setattr(task_module, "PIECE_ROWS", 2)
    pieces = PointsTask("grad", "sum(randn(3)) * x**2 + y", seed=3)(chunk)
    for name in whole:
        np.testing.assert_array_equal(pieces[name], whole[name])
    singular = np.tile(np.eye(2), (5, 1, 1))
    singular[3] = [[1.0, 2.0], [2.0, 4.0]]  # row 3: in the second piece, its row 1
    with pytest.raises(GradcliError, match="at point 3") as raised:
        PointsTask("eval", "inverse(A)")({"A": singular})
    assert raised.value.row == 3
