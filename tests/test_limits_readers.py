"""The limit on a result's size at every reader: ``--x @FILE`` and ``--points FILE``
refuse a file over ``--max-elements`` before reading its numbers (a ``.npy``'s and a
``.npz`` member's declared shape), text is capped at 64 MiB (a whole value, or one
line of points), a compressed ``.npz`` of points is inflated a chunk at a time, and
``--chunk-size`` shrinks to fit the limit. Peak memory is measured in a process of
its own (``peak_memory``), against the gigabytes each case would otherwise take."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import peak_memory
import pytest

MiB = 2**20
LIMIT = ["--max-elements", "1000000"]


def _npz_bomb(path, rows):
    """A compressed .npz of ``rows`` zeros (8 * rows bytes inflated), written by blocks."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (rows,)}
    )
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("x.npy", "w", force_zip64=True) as member:
            member.write(header.getvalue())
            block = bytes(8 * 2**16)
            for _ in range(rows // 2**16):
                member.write(block)
            member.write(bytes(8 * (rows % 2**16)))


def test_a_compressed_npz_over_the_limit_is_refused_from_its_header(tmp_path):
    bomb = tmp_path / "bomb.npz"
    _npz_bomb(bomb, 50_000_000)  # 400 MB of numbers in about 0.4 MB
    code, _, err, peak = peak_memory.run(["eval", "sum(x)", "--x", f"@{bomb}", *LIMIT])
    assert code == 2
    assert err.startswith(
        f"error: cannot read --x from @{bomb}: it holds 50,000,000 numbers, more than the "
        "limit of 1,000,000; raise the limit with --max-elements N"
    )
    assert peak < 150 * MiB, peak


def test_a_npy_over_the_limit_is_refused_from_its_header(gradcli, tmp_path):
    path = tmp_path / "big.npy"
    np.save(path, np.zeros(1_000_001))
    result = gradcli("eval", "sum(x)", "--x", f"@{path}", *LIMIT)
    assert result.exit_code == 2
    assert "it holds 1,000,001 numbers, more than the limit of 1,000,000" in result.output
    np.save(path, np.zeros(1_000_000))
    ok = gradcli("eval", "sum(x)", "--x", f"@{path}", *LIMIT, "--format", "plain")
    assert (ok.exit_code, ok.output) == (0, "value 0\n")


def test_a_text_value_over_the_limit_is_refused(gradcli, tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("1,2,3\n4,5,6\n")
    result = gradcli("eval", "sum(x)", "--x", f"@{path}", "--max-elements", "5")
    assert result.exit_code == 2
    assert f"--x from @{path}: it holds 6 numbers, more than the limit of 5" in result.output
    stdin = gradcli("eval", "sum(x)", "--x", "@-", "--max-elements", "5", input="1,2,3\n4,5,6\n")
    assert stdin.exit_code == 2
    assert "--x from standard input: it holds 6 numbers" in stdin.output


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_dev_zero_as_a_text_value_is_capped_at_64_mib(tmp_path, how):
    link = tmp_path / "z.csv"
    link.symlink_to("/dev/zero")
    value, stdin = (f"@{link}", None) if how == "file" else ("@-", "/dev/zero")
    code, _, err, peak = peak_memory.run(
        ["eval", "sum(x)", "--x", value, *LIMIT], **({"stdin": stdin} if stdin else {})
    )
    assert code == 2
    # A device named as a file is refused before it is read; standard input is capped.
    ending = "it is a device, not a regular file" if how == "file" else "larger than 64 MiB"
    assert err.startswith("error: cannot read --x from ") and err.endswith(ending)
    assert peak < 400 * MiB, peak


def test_points_from_dev_zero_stop_at_a_line_of_64_mib():
    code, _, err, peak = peak_memory.run(["eval", "x", "--points", "-", *LIMIT], stdin="/dev/zero")
    assert code == 2
    assert err == "error: standard input line 1: a line longer than 64 MiB (is it a file of text?)"
    assert peak < 400 * MiB, peak


def test_a_compressed_npz_of_points_is_read_a_chunk_at_a_time(tmp_path):
    points = tmp_path / "p.npz"
    _npz_bomb(points, 30_000_000)  # 240 MB of points inflated
    out = tmp_path / "out.npz"
    code, stdout, err, peak = peak_memory.run(
        ["eval", "x*2", "--points", str(points), "--output", str(out), *LIMIT]
    )
    assert (code, err) == (0, ""), err
    assert stdout.startswith("30000000 rows in ") and stdout.endswith(f" s to {out}\n")
    assert peak < 200 * MiB, peak  # the points alone would be 240 MB, the output as much
    with np.load(out) as written:
        assert written["value"].shape == (30_000_000,) and not written["value"][::4096].any()


def test_compressed_and_stored_npz_points_give_the_same_rows(gradcli, tmp_path):
    rng = np.random.default_rng(7)
    arrays = {"x": rng.normal(size=1000), "v": rng.normal(size=(1000, 3))}
    np.savez_compressed(tmp_path / "c.npz", **arrays)
    np.savez(tmp_path / "s.npz", **arrays)
    runs = [
        gradcli("grad", "sum(v)*x", "--points", tmp_path / name, "--format", "csv", *size)
        for name, size in [("c.npz", ["--chunk-size", "300"]), ("c.npz", []), ("s.npz", [])]
    ]
    assert all(r.exit_code == 0 for r in runs)
    assert runs[0].output == runs[1].output == runs[2].output
    first = runs[0].output.splitlines()[1].split(",")
    x, v = arrays["x"][0], arrays["v"][0]
    assert float(first[4]) == pytest.approx(v.sum() * x, rel=1e-15)  # value = sum(v) * x


def test_a_fortran_ordered_npz_of_points_is_refused_clearly(gradcli, tmp_path):
    path = tmp_path / "f.npz"
    np.savez(path, x=np.ones(4), v=np.asfortranarray(np.ones((4, 2))))
    result = gradcli("eval", "x", "--points", path)
    assert result.exit_code == 2
    assert result.output.startswith(
        f"error: cannot read {path}: v is stored in Fortran order, which cannot be read by rows"
    )


def test_the_chunk_size_shrinks_to_the_limit_with_a_note(tmp_path):
    # One chunk of 2 * 10**7 points would be 160 MB of inputs and as much of results.
    out = tmp_path / "g.npz"
    args = ["eval", "x*2", "--over", "x=0:1:20000000", "--chunk-size", "100000000"]
    code, stdout, err, peak = peak_memory.run([*args, "--output", str(out), *LIMIT])
    assert code == 0, err
    assert err == (
        "note: chunks of 1,000,000 rows: 100,000,000 rows of 1 numbers would hold more than "
        "--max-elements 1,000,000"
    )
    assert peak < 200 * MiB, peak
    with np.load(out) as written:
        np.testing.assert_array_equal(written["x"][-3:], np.linspace(0, 1, 20_000_000)[-3:])
        assert written["value"][-1] == 2.0
