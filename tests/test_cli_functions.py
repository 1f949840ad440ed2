"""``gradcli functions``: the listing of the op table, in every format."""

from __future__ import annotations

import json

import pytest

from gradcli import api
from gradcli.engine.ops import FUNCTIONS
from gradcli.language.derivatives import FORMS
from gradcli.language.transformations import TRANSFORMATIONS

#: Every name the listing has: the op table's functions, then the transformations.
LISTED = [*FUNCTIONS, *FORMS, *TRANSFORMATIONS]


def plain_names(stdout: str) -> list[str]:
    return [line.partition("(")[0] for line in stdout.splitlines()]


def test_plain_lists_every_function_once(gradcli):
    result = gradcli("functions", "--format", "plain")
    assert result.exit_code == 0, result.output
    names = plain_names(result.stdout)
    assert sorted(names) == sorted(LISTED)
    assert len(names) == len(set(names))


def test_plain_is_the_default_off_a_terminal(gradcli):
    assert gradcli("functions").stdout == gradcli("functions", "--format", "plain").stdout


def test_plain_lines_are_fields_separated_by_two_spaces(gradcli):
    for line in gradcli("functions", "--format", "plain").stdout.splitlines():
        signature, doc, *kink = line.split("  ")
        name = signature.partition("(")[0]
        assert signature == name + api.functions(name)[0].signature
        assert doc == api.functions(name)[0].doc
        if name in TRANSFORMATIONS or name in FORMS:
            assert kink == []
            continue
        differs = [f"differs from PyTorch {d}" for d in FUNCTIONS[name].differs]
        kinks = [f"at kinks: {FUNCTIONS[name].kink}"] if FUNCTIONS[name].kink else []
        assert kink == kinks + differs


def test_json_has_one_entry_per_function(gradcli_json):
    entries = gradcli_json("functions")["functions"]
    assert sorted(e["name"] for e in entries) == sorted(LISTED)
    for entry in entries:
        if entry["name"] in TRANSFORMATIONS:
            t = TRANSFORMATIONS[entry["name"]]
            assert (entry["kind"], entry["signature"]) == ("transformation", t.shown)
            continue
        if entry["name"] in FORMS:
            assert (entry["kind"], entry["signature"]) == ("derivative", "(F, x)")
            continue
        f = FUNCTIONS[entry["name"]]
        assert list(entry) == ["name", "signature", "kind", "doc", "kink", "differs"]
        assert entry["differs"] == [str(d) for d in f.differs]
        assert entry["signature"].startswith("(") and entry["signature"].endswith(")")
        assert (entry["kind"], entry["doc"], entry["kink"]) == (
            f.kind,
            api.functions(f.name)[0].doc,
            f.kink,
        )
    assert any(e["kink"] is None for e in entries)


def test_json_is_strict(gradcli):
    stdout = gradcli("functions", "--format", "json").stdout
    assert stdout.count("\n") == 1
    json.loads(stdout, parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))


def test_one_function_by_name(gradcli, gradcli_json):
    result = gradcli("functions", "sum", "--format", "plain")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("sum(input, dim=None, keepdim=False)  ")
    [entry] = gradcli_json("functions", "sum")["functions"]
    assert entry["name"] == "sum" and "dim" in entry["signature"]


def test_signatures_show_what_the_language_takes():
    """No NumPy-only keywords, and axis only as a spelling of dim (the doc says so)."""
    for f in api.functions():
        assert "dtype" not in f.signature and "requires_grad" not in f.signature, f
        assert "out=" not in f.signature and "axis" not in f.signature, f
    assert api.functions("max")[0].signature == "(input, other=None, *, dim=None, keepdim=False)"
    assert api.functions("zeros")[0].signature == "(*size)"


def test_unknown_name_suggests_the_closest(gradcli):
    result = gradcli("functions", "sinn")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == "error: unknown function 'sinn' (did you mean 'sin'?)\n"


def test_an_unknown_name_names_the_functions_that_describe_it(gradcli):
    result = gradcli("functions", "cdf")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: unknown function 'cdf'; 'cdf' is in the description of ndtr, ndtri, log_ndtr, "
        "gelu\n"
    )
    # As a word: "normalized" (sinc's) is not "normal".
    normal = gradcli("functions", "normal").stderr
    assert normal.startswith("error: unknown function 'normal' (did you mean 'norm'?); ")
    assert "ndtr" in normal and "sinc" not in normal


def test_unknown_name_far_from_any(gradcli):
    result = gradcli("functions", "qqqqqq")
    assert result.exit_code == 2
    assert result.stderr == "error: unknown function 'qqqqqq'\n"


@pytest.mark.parametrize("args", [["--x", "2"], ["--x=2"], ["sum", "--x", "2"], ["--var", "x=2"]])
def test_takes_no_bindings(gradcli, args):
    result = gradcli("functions", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    option = "--var" if "--var" in args else "--x"
    assert result.stderr.startswith(f"error: functions has no option {option}")


def test_takes_one_name(gradcli):
    result = gradcli("functions", "sum", "mean")
    assert result.exit_code == 2
    assert "unexpected extra argument" in result.stderr


def test_grouped_by_kind_in_order(gradcli_json):
    kinds = [e["kind"] for e in gradcli_json("functions")["functions"]]
    assert set(kinds) <= set(api.KINDS)
    groups = [kind for i, kind in enumerate(kinds) if i == 0 or kinds[i - 1] != kind]
    assert groups == [k for k in api.KINDS if k in kinds]  # each kind once, in KINDS order
    assert groups[:3] == ["elementwise", "binary", "reduction"]


def test_every_kind_of_the_op_table_is_listed_in_order():
    assert {f.kind for f in FUNCTIONS.values()} <= set(api.KINDS)


def test_the_listing_is_frozen():
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        api.functions("sum")[0].doc = "changed"
    assert isinstance(api.functions(), tuple)


def test_table_at_80_columns_without_colour(gradcli):
    result = gradcli("functions", tty=True)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "\x1b" not in result.stdout
    assert all(len(line) <= 80 for line in lines)
    assert lines[1].split() == ["│", "function", "│", "description", "│", "at", "kinks", "│"]
    cells = [line.split("│")[1].strip() for line in lines if line.startswith("│")]
    firsts = [cell.partition("(")[0] for cell in cells if "(" in cell]
    firsts += [cell for cell in cells if cell in LISTED]  # a long name has its own line
    for name in LISTED:
        assert name in firsts, name
    headings = [cell for cell in cells if cell in api.KINDS]
    assert headings == list(api.KINDS)


def test_table_shows_brackets_as_text(gradcli):
    """A description with [min, max] is not Rich markup."""
    result = gradcli("functions", "clamp", "--format", "table")
    assert "[min, max]" in result.stdout


def test_the_table_is_the_default_on_a_terminal(gradcli):
    assert (
        gradcli("functions", "abs", tty=True).stdout
        == gradcli("functions", "abs", "--format", "table").stdout
    )


@pytest.mark.parametrize("name", [n for n, e in FUNCTIONS.items() if e.differs])
def test_functions_name_shows_each_declared_difference_from_pytorch(gradcli, name):
    for fmt in ("plain", "table", "json"):
        result = gradcli("functions", name, "--format", fmt, env={"COLUMNS": "400"})
        assert result.exit_code == 0, result.output
        for d in FUNCTIONS[name].differs:
            assert d.where in result.output and d.what in result.output, (fmt, d)


def test_one_hot_is_a_function_of_its_own(gradcli):
    # torch.nn.functional.one_hot(tensor, num_classes=-1): int64 rows, no gradient.
    result = gradcli("functions", "one_hot")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("one_hot(input, num_classes=-1)  each class index as a row")
    rows = gradcli("eval", "one_hot(y, 3)", "--y", "[0, 2]", "--format", "json")
    assert json.loads(rows.stdout)["value"] == [[1, 0, 0], [0, 0, 1]]


def test_the_transformations_are_listed_with_what_diff_does(gradcli):
    result = gradcli("functions", "integrate", "--format", "plain")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("integrate(f, a, b, rtol=1e-12, atol=0)  the definite integral")
    assert "diff: SymPy's Integral" in result.stdout
    for name in ("root", "minimizer"):
        [entry] = api.functions(name)
        assert entry.kind == "transformation" and "implicit function theorem" in entry.doc
        assert "diff: refused" in entry.doc
