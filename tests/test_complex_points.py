"""Complex numbers at many points: the rows of a run equal the one-point calls, row by
row; complex columns are read from CSV cells (``1+2j``), ``.npy``/``.npz`` arrays, Parquet's
``z.real``/``z.imag`` pairs and ``--over z=[...]``, and written by every format of many
points in a form gradcli reads back.

The expected numbers come from the one-point API (which does not batch), from PyTorch's
complex128 gradients and from hand derivation, never from the run checked.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from gradcli import api

Z = np.array([1 + 2j, -3.5e-2 - 1j, 2j, 3, -0.5 + 0.25j])
W = np.array([0.5 - 1j, 2, 1j, -1 + 1j, 0.75])
X = np.array([0.5, 1.5, -2.0, 1.0, 3.0])

ONE_POINT = {
    "eval": api.evaluate,
    "grad": api.gradient,
    "jacobian": api.jacobian,
    "hessian": api.hessian,
    "vjp": api.vjp,
    "jvp": api.jvp,
}

CASES = [
    ("eval", "exp(z) * w + x", {}),
    ("grad", "abs(z * w)**2 + real(z) * x", {}),
    ("grad", "real(exp(z) / (w + 2)) + imag(sin(z)) * x", {}),
    ("jacobian", "stack([z**2, z * w, exp(z) * x])", {}),
    ("jacobian", "abs(z)**2 * x + real(w)", {}),
    ("hessian", "abs(z * w - x)**2", {}),
    ("vjp", "stack([z**2, conj(w) * x])", {"grad_output": "[1j, 2]"}),
    ("jvp", "z**2 * w + x", {"tangents": {"z": "1j", "x": "1"}}),
    ("jvp", "abs(z)**2 * x * w", {"tangents": {"z": "3"}}),
]


@pytest.mark.parametrize("command, source, options", CASES)
def test_many_points_equal_the_one_point_calls_row_by_row(command, source, options):
    batch = {"z": Z, "w": W, "x": X}
    many = api.points(command, source, batch=batch, **options)
    for i in range(len(Z)):
        one = ONE_POINT[command](source, {k: v[i] for k, v in batch.items()}, **options)
        for key, array in one.arrays().items():
            np.testing.assert_array_equal(many.arrays[key][i], array, err_msg=f"{key} row {i}")
            assert many.arrays[key].dtype == np.asarray(array).dtype, key


def test_the_gradients_at_many_points_are_pytorchs():
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle of this test")
    source = "abs(z * w)**2 + real(exp(z)) * x"
    many = api.points("grad", source, batch={"z": Z, "w": W, "x": X})
    z, w = (torch.tensor(v, dtype=torch.complex128, requires_grad=True) for v in (Z, W))
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    value = (z * w).abs() ** 2 + torch.exp(z).real * x
    value.sum().backward()  # each point's output depends on that point's inputs only
    np.testing.assert_allclose(many.arrays["value"], value.detach().numpy(), rtol=1e-13)
    for name, t in (("z", z), ("w", w), ("x", x)):
        np.testing.assert_allclose(many.arrays[f"grad.{name}"], t.grad.numpy(), rtol=1e-13)


def test_grad_of_a_complex_output_at_many_points_is_refused_as_at_one(gradcli, tmp_path):
    (tmp_path / "z.csv").write_text("z\n1+2j\n3\n")
    result = gradcli("grad", "z**2", "--points", str(tmp_path / "z.csv"), "--format", "csv")
    assert result.exit_code == 2
    assert result.output == (
        "error: grad can be implicitly created only for real scalar outputs but got "
        "torch.complex128\n"
    )


def test_csv_cells_in_pythons_form_are_complex_and_are_written_so(gradcli, tmp_path):
    points = tmp_path / "z.csv"
    points.write_text("z,x\n1+2j,1\n-3.5e-2-1j,2\n2j,0.5\n3,-1\n")
    result = gradcli("grad", "abs(z)**2 * x", "--points", str(points), "--format", "csv")
    assert result.exit_code == 0, result.output
    # d/dz of |z|**2 x is 2 z x in PyTorch's convention, and d/dx is |z|**2: by hand.
    assert result.stdout == (
        "z,x,value,grad.z,grad.x\n"
        "1+2j,1,5.000000000000001,2+4j,5.000000000000001\n"
        "-0.035-1j,2,2.0024500000000005,-0.14-4j,1.0012250000000003\n"
        "0+2j,0.5,2,0+2j,4\n"
        "3+0j,-1,-9,-6+0j,9\n"
    )


def test_a_csv_file_written_is_read_back_as_the_same_numbers(gradcli, tmp_path):
    (tmp_path / "z.csv").write_text(
        "z\n" + "\n".join(str(complex(z)).strip("()") for z in Z) + "\n"
    )
    first = tmp_path / "first.csv"
    args = ("jacobian", "exp(z) / 3")
    assert (
        gradcli(*args, "--points", str(tmp_path / "z.csv"), "--output", str(first)).exit_code == 0
    )
    again = gradcli("eval", "z", "--points", str(first), "--keep", "", "--format", "csv")
    assert again.exit_code == 0, again.output
    read = [complex(line.split(",")[1]) for line in again.stdout.splitlines()[1:]]
    written = [complex(line.split(",")[0]) for line in first.read_text().splitlines()[1:]]
    assert read == written == list(Z)
    values = [complex(line.split(",")[1]) for line in first.read_text().splitlines()[1:]]
    assert values == [
        complex(v) for v in api.points("eval", "exp(z) / 3", batch={"z": Z}).arrays["value"]
    ]


def test_a_complex_cell_after_real_rows_makes_the_column_complex_from_there(gradcli, tmp_path):
    (tmp_path / "z.csv").write_text("z\n" + "1.5\n" * 30 + "2j\n")
    result = gradcli(
        "eval",
        "z * 2",
        "--points",
        str(tmp_path / "z.csv"),
        "--chunk-size",
        "10",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows[-1]["value"] == {"real": 0, "imag": 4} and len(rows) == 31
    assert all(row["value"] in (3, {"real": 3, "imag": 0}) for row in rows[:-1])


def test_a_cell_that_is_no_number_in_a_complex_column_is_a_bad_row(gradcli, tmp_path):
    (tmp_path / "z.csv").write_text("z\n1+2j\n1+2i\n3\n")
    result = gradcli("eval", "z", "--points", str(tmp_path / "z.csv"), "--format", "csv")
    assert result.exit_code == 2
    assert "line 3: '1+2i' in column z is not a number" in result.output
    skipped = gradcli(
        "eval", "z", "--points", str(tmp_path / "z.csv"), "--skip-bad-rows", "--format", "csv"
    )
    assert skipped.stdout == "z,value\n1+2j,1+2j\n3+0j,3+0j\n"


def test_json_lines_and_the_table_write_complex_numbers(gradcli, tmp_path):
    (tmp_path / "z.csv").write_text("z\n1+2j\n3\n")
    args = ("jacobian", "z**2", "--points", str(tmp_path / "z.csv"))
    lines = gradcli(*args, "--format", "json").stdout.splitlines()
    # d(z**2) row of the Jacobian is conj(2z) (PyTorch's vjp of a unit vector).
    assert [json.loads(line) for line in lines] == [
        {"z": {"real": 1, "imag": 2}, "value": {"real": -3, "imag": 4},
         "jacobian.z": {"real": 2, "imag": -4}},
        {"z": {"real": 3, "imag": 0}, "value": {"real": 9, "imag": 0},
         "jacobian.z": {"real": 6, "imag": 0}},
    ]  # fmt: skip
    table = gradcli(*args, "--format", "table").stdout
    assert "│ 1+2j │ -3+4j │       2-4j │" in table and "│ 3+0j │  9+0j │       6-0j │" in table


def test_npz_and_parquet_hold_complex_results_and_are_read_back(gradcli, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet", reason="Parquet needs pyarrow")
    np.savez(tmp_path / "z.npz", z=Z)
    for name in ("out.npz", "out.parquet"):
        result = gradcli(
            "jacobian",
            "z**2",
            "--points",
            str(tmp_path / "z.npz"),
            "--output",
            str(tmp_path / name),
        )
        assert result.exit_code == 0, result.output
    saved = np.load(tmp_path / "out.npz")
    np.testing.assert_array_equal(saved["value"], Z**2)
    np.testing.assert_array_equal(saved["jacobian.z"], np.conj(2 * Z))
    table = pq.read_table(tmp_path / "out.parquet").to_pydict()
    assert list(table) == [
        "z.real",
        "z.imag",
        "value.real",
        "value.imag",
        "jacobian.z.real",
        "jacobian.z.imag",
    ]
    assert table["value.imag"] == list((Z**2).imag)
    # z.real and z.imag are read back as the column z.
    again = gradcli(
        "eval",
        "z",
        "--points",
        str(tmp_path / "out.parquet"),
        "--keep",
        "",
        "--output",
        str(tmp_path / "again.npz"),
    )
    assert again.exit_code == 0, again.output
    np.testing.assert_array_equal(np.load(tmp_path / "again.npz")["value"], Z)


def test_a_complex_npy_of_points_binds_its_columns(gradcli, tmp_path):
    np.save(tmp_path / "zw.npy", np.stack([Z, W], axis=1))
    result = gradcli(
        "eval",
        "z * w",
        "--points",
        str(tmp_path / "zw.npy"),
        "--columns",
        "z,w",
        "--output",
        str(tmp_path / "out.npz"),
    )
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["value"], Z * W)


def test_over_takes_a_list_of_complex_values(gradcli):
    result = gradcli(
        "grad", "abs(z)**2 * x", "--over", "z=[1+2j, 3]", "--over", "x=1,2", "--format", "csv"
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1:] == [
        "1+2j,1,5.000000000000001,2+4j,5.000000000000001",
        "1+2j,2,10.000000000000002,4+8j,5.000000000000001",
        "3+0j,1,9,6+0j,9",
        "3+0j,2,18,12+0j,9",
    ]


def test_holomorphic_at_many_points_is_the_one_point_derivative_row_by_row():
    mpmath = pytest.importorskip("mpmath", reason="mpmath's derivative is the oracle")
    source = "exp(z) * sin(z) / (z + w) + x"
    batch = {"z": Z, "w": W, "x": X}
    many = api.points("jacobian", source, batch=batch, holomorphic=True)
    for i in range(len(Z)):
        one = api.jacobian(source, {k: v[i] for k, v in batch.items()}, holomorphic=True)
        for key, array in one.arrays().items():
            np.testing.assert_array_equal(many.arrays[key][i], array, err_msg=f"{key} row {i}")
        z, w = complex(Z[i]), complex(W[i])
        expected = mpmath.diff(lambda t, w=w: mpmath.exp(t) * mpmath.sin(t) / (t + w), z)
        assert complex(many.arrays["jacobian.z"][i]) == pytest.approx(complex(expected), rel=1e-12)
    assert many.arrays["jacobian.x"].dtype == np.complex128  # a real input taken as complex
    np.testing.assert_array_equal(many.arrays["jacobian.x"], np.ones(len(Z)))


def test_holomorphic_at_many_points_names_the_row_that_is_not(gradcli, tmp_path):
    (tmp_path / "z.csv").write_text("z\n1+2j\n0\n")
    args = ("jacobian", "z**2 + abs(z)**2 * (real(z) - 1)", "--holomorphic")
    result = gradcli(*args, "--points", str(tmp_path / "z.csv"), "--format", "csv")
    # At z = 1+2j the second term's derivative is nonzero and not holomorphic; at 0 it is 0.
    assert result.exit_code == 2
    assert result.output.startswith(
        f"error: the output is not holomorphic in z at row 1, line 2 of {tmp_path / 'z.csv'}: "
    )


def test_json_lines_written_are_read_back_as_complex_columns(gradcli, tmp_path):
    (tmp_path / "z.csv").write_text("z\n1+2j\n-0.5-0.25j\n3\n")
    out = tmp_path / "out.jsonl"
    result = gradcli("eval", "z * 1j", "--points", str(tmp_path / "z.csv"), "--output", str(out))
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    # (1+2j) 1j = -2+1j, (-0.5-0.25j) 1j = 0.25-0.5j, 3 1j = 3j: by hand.
    assert [row["value"] for row in rows] == [
        {"real": -2, "imag": 1},
        {"real": 0.25, "imag": -0.5},
        {"real": 0, "imag": 3},
    ]
    again = gradcli("eval", "2 * z", "--points", str(out), "--keep", "", "--format", "csv")
    assert again.stdout.splitlines() == ["z,value", "1+2j,2+4j", "-0.5-0.25j,-1-0.5j", "3+0j,6+0j"]
    (tmp_path / "v.jsonl").write_text(
        '{"v": [{"real": 1, "imag": 2}, 3]}\n{"v": [1, {"real": "a", "imag": 0}]}\n'
    )
    bad = gradcli("eval", "v", "--points", str(tmp_path / "v.jsonl"), "--format", "csv")
    assert bad.exit_code == 2
    assert 'line 2: v: [1, {"real": "a", "imag": 0}] is not a number' in bad.output


def test_a_file_of_arrays_refuses_a_column_that_turns_complex_after_real_rows(gradcli, tmp_path):
    (tmp_path / "z.csv").write_text("z\n" + "1.5\n" * 2000 + "2j\n")
    for name in ("out.npz", "out.parquet"):
        out = tmp_path / name
        args = ("eval", "z * 2", "--points", str(tmp_path / "z.csv"), "--chunk-size", "10")
        result = gradcli(*args, "--output", str(out))
        assert result.exit_code == 2 and not out.exists()
        assert result.output.startswith(
            "error: column z is complex from row 2001 or after, and real in the 2,000 rows before"
        )
