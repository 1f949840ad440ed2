"""A many-point run keeps its arrays whole from the computation to an ``.npz``: the
Jacobian's block is computed in place and written as it is, never split into
columns and put together again (2,500 columns for n = 50), and the non-finite
check takes one pass over each array, the chunk loop's alone."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.core import many_points as points_module
from gradcli.core.point_files import columns, npz_layout, run


@pytest.fixture
def watched(monkeypatch):
    seen = {"split": 0, "assembled": 0, "isfinite": [], "computed": [], "written": []}
    seen["checked by points"] = 0

    def count(name, f):
        def counted(*args, **kwargs):
            seen[name] += 1
            return f(*args, **kwargs)

        return counted

    assembled = columns._assembled

    def put_together(base, elements):  # counted when columns are copied into an array
        if () not in elements:
            seen["assembled"] += 1
        return assembled(base, elements)

    monkeypatch.setattr(columns, "_assembled", put_together)
    from gradcli.core.point_files import task, writers

    for module in (columns, run, task, writers):
        if hasattr(module, "columns_from_arrays"):
            split = count("split", module.columns_from_arrays)
            monkeypatch.setattr(module, "columns_from_arrays", split)
    isfinite = np.isfinite

    class _Np:  # numpy as batch/run.py sees it, its isfinite counted
        def __getattr__(self, name):
            if name == "isfinite":
                return lambda a, *rest: seen["isfinite"].append(np.size(a)) or isfinite(a, *rest)
            return getattr(np, name)

    monkeypatch.setattr(run, "np", _Np())
    checked = points_module._nonfinite

    def checked_by_points(*args):
        seen["checked by points"] += 1
        return checked(*args)

    monkeypatch.setattr(points_module, "_nonfinite", checked_by_points)
    jacobian = points_module._Points.jacobian

    def computed(self, out, inputs):
        blocks = jacobian(self, out, inputs)
        seen["computed"].extend(blocks)
        return blocks

    monkeypatch.setattr(points_module._Points, "jacobian", computed)
    write = npz_layout.ZipLayout.write

    def written(self, arrays):
        seen["written"].append(arrays)
        return write(self, arrays)

    monkeypatch.setattr(npz_layout.ZipLayout, "write", written)
    return seen


def test_a_many_point_jacobian_makes_no_per_column_copies(gradcli, tmp_path, watched):
    n, size = 6, 40
    rng = np.random.default_rng(0)
    a, x = rng.standard_normal((n, n)), rng.standard_normal((size, n))
    np.save(tmp_path / "A.npy", a)
    np.savez(tmp_path / "in.npz", x=x)
    out = tmp_path / "out.npz"
    result = gradcli(
        "jacobian", "A @ tanh(x)", "--wrt", "x", "--A", f"@{tmp_path / 'A.npy'}",
        "--points", str(tmp_path / "in.npz"), "--output", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert watched["split"] == 0 and watched["assembled"] == 0
    block = watched["computed"][-1]  # those before: the first rows', measured (--max-memory)
    (arrays,) = watched["written"]
    assert arrays["jacobian.x"] is block  # written as it was computed: no copy between
    # One check of each result array, on its sum (finite only if every entry is): no
    # pass over the entries, column by column or at all
    assert watched["isfinite"] == [1, 1]
    assert watched["checked by points"] == 0  # the chunk loop's check, not a second one
    with np.load(out) as saved:
        # d(A tanh(x))/dx = A diag(1 - tanh(x)**2), at each point
        want = a[None] * (1 - np.tanh(x) ** 2)[:, None, :]
        np.testing.assert_allclose(saved["jacobian.x"], want, rtol=1e-13)
