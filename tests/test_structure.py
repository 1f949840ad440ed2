"""The code's structure: modules that depend one way, and one op table behind every op.

- No import cycle in ``gradcli/``: each module imports alone in a fresh
  interpreter, and the graph of its static imports (at any depth of the code,
  not just the top) has no cycle.
- The package shows its three parts as folders: the command-line application
  (``cli/``), PyTorch's API surface (``autograd/``, ``func/``, ``linalg/``,
  ``nn/``, ``optim/``) and the library's core (``core/``, under ``api.py``), beside the
  layers they stand on (``analysis/``, ``render/``, ``language/``, ``engine/``).
  Layers depend one way: the command line on the library, never the reverse.
- No module imports another module's private names (``from .x import _y``,
  ``x._y``): what a module shares, it names publicly.
- Every function of ``gradcli`` that computes, every math method of Tensor and
  every function of the language comes from an entry of the op table.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import gradcli
from gradcli.engine import methods, ops
from gradcli.engine.tensor import Tensor

PACKAGE = Path(gradcli.__file__).parent


def module_names():
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def _is_package(name):
    return (PACKAGE.parent / name.replace(".", "/") / "__init__.py").exists()


def _is_module(name):
    return _is_package(name) or (PACKAGE.parent / (name.replace(".", "/") + ".py")).exists()


def imports_of(name):
    """The gradcli modules ``name`` imports anywhere in its code."""
    path = PACKAGE.parent / name.replace(".", "/")
    path = path / "__init__.py" if _is_package(name) else path.with_suffix(".py")
    package = name if _is_package(name) else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "gradcli")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "gradcli" or not _is_module(target):
                continue  # not ours, or a module that does not exist (dead code of the parser)
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if _is_module(sub):
                    found.add(sub)
                elif not name.endswith("_standalone_parser"):  # Lark's own code, never run here
                    found.add(target)
    found.discard(name)
    return found


def test_the_static_import_graph_has_no_cycle():
    graph = {name: imports_of(name) for name in module_names()}
    state = {}  # 1: on the current path, 2: done

    def visit(name, path):
        state[name] = 1
        for dep in sorted(graph.get(name, ())):
            if state.get(dep) == 1:
                cycle = path[path.index(dep) :] + [dep]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep, path + [dep])
        state[name] = 2

    for name in graph:
        if name not in state:
            visit(name, [name])


#: Run by one fresh interpreter as ``python -c IMPORT_EACH_ALONE FOLDER NAME...``: a child
#: forked per name (two at a time, the machine's cores) from the interpreter as it started,
#: with no module imported but those of its start-up, imports that module as
#: ``python -c "import NAME"`` would, its standard error to ``FOLDER/NAME.stderr``, and ends
#: as that interpreter would (atexit, threads). Prints ``{name: "exit N\\n" + its standard
#: error}`` for each child that did not exit 0. One interpreter's start-up, not one a module.
IMPORT_EACH_ALONE = """
import os, sys

folder, waiting, running, failures = sys.argv[1], sys.argv[2:], {}, {}
while waiting or running:
    if waiting and len(running) < min(2, os.cpu_count() or 1):
        name = waiting.pop(0)
        said = os.path.join(folder, name + ".stderr")
        child = os.fork()
        if child == 0:
            break
        running[child] = name, said
        continue
    child, status = os.wait()
    name, said = running.pop(child)
    if os.waitstatus_to_exitcode(status):
        with open(said, encoding="utf-8", errors="replace") as text:
            failures[name] = f"exit {os.waitstatus_to_exitcode(status)}\\n{text.read()}"
else:
    import json

    print(json.dumps(failures))
    sys.exit()
os.dup2(os.open(said, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
import faulthandler

faulthandler.dump_traceback_later(120, exit=True)  # a hang: its stack, and exit 1
__import__(name)
"""


def import_each_alone(names, folder: Path, **kwargs) -> dict[str, str]:
    """What each of ``names`` said when it failed to import alone (``IMPORT_EACH_ALONE``),
    its files in ``folder``."""
    folder.mkdir(exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH_ALONE, folder, *names],
        capture_output=True,
        text=True,
        timeout=900,
        **kwargs,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


IMPORTABLE = [n for n in module_names() if not n.endswith("__main__")]


@pytest.fixture(scope="module")
def import_failures(tmp_path_factory):
    return import_each_alone(IMPORTABLE, tmp_path_factory.mktemp("imports"))


@pytest.mark.parametrize("name", IMPORTABLE)
def test_each_module_imports_alone_in_a_fresh_interpreter(name, import_failures):
    assert name not in import_failures, import_failures[name]


def test_importing_each_alone_tells_a_failure_from_a_success(tmp_path):
    (tmp_path / "fine.py").write_text("import json\n")
    (tmp_path / "broken.py").write_text("import fine\nraise ValueError('at import')\n")
    (tmp_path / "cut.py").write_text("import os\nos._exit(3)\n")
    (tmp_path / "seen.py").write_text("import sys\nassert 'fine' not in sys.modules\n")
    names = ["fine", "broken", "cut", "seen", "missing"]
    failures = import_each_alone(names, tmp_path / "imports", cwd=tmp_path)
    assert sorted(failures) == ["broken", "cut", "missing"]
    assert (
        failures["broken"].startswith("exit 1\n") and "ValueError: at import" in failures["broken"]
    )
    assert failures["cut"] == "exit 3\n"
    assert "No module named 'missing'" in failures["missing"]


def test_no_module_is_over_about_600_lines_but_the_generated_parser():
    for path in PACKAGE.rglob("*.py"):
        if path.name != "_standalone_parser.py":
            assert len(path.read_text().splitlines()) <= 600, path


# ----- the layout -----

#: What the package root holds: PyTorch's namespace, the library's facade, the
#: exception family every layer raises and the records its spans (and every layer's
#: small data) are made of; everything else lives in a folder.
# torch.py runs a PyTorch program on gradcli (python -m gradcli.torch), at its public path.
ROOT_MODULES = {"__init__.py", "__main__.py", "api.py", "errors.py", "record.py", "torch.py"}
FOLDERS = {
    "cli",  # the command-line application
    "autograd", "func", "linalg", "nn", "optim", "special",  # PyTorch's API, at its paths
    "core",  # the library's core, under api.py
    "analysis", "render", "language", "engine",  # the layers below
}  # fmt: skip
#: Each layer, and the layers it must never import (the data flows down).
NEVER_IMPORTS = {
    "gradcli.engine": ("gradcli.cli", "gradcli.api", "gradcli.analysis", "gradcli.render",
                       "gradcli.language", "gradcli.func", "gradcli.linalg", "gradcli.nn",
                       "gradcli.optim", "gradcli.special"),
    "gradcli.language": ("gradcli.cli", "gradcli.api", "gradcli.analysis", "gradcli.render"),
    "gradcli.core": ("gradcli.cli",),
    "gradcli.api": ("gradcli.cli",),
    "gradcli.analysis": ("gradcli.cli",),
    "gradcli.render": ("gradcli.cli", "gradcli.analysis"),
}  # fmt: skip


def test_the_package_root_shows_its_parts_as_folders():
    root = {p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"}
    files = {n for n in root if (PACKAGE / n).is_file()}
    folders = {n for n in root if (PACKAGE / n / "__init__.py").exists()}
    assert files == ROOT_MODULES
    assert folders == FOLDERS


def test_the_public_paths_are_real_modules():
    # ``import gradcli as torch`` mirrors PyTorch's paths; each is a module of its own file.
    import importlib

    for name in ("autograd", "autograd.forward_ad", "autograd.functional", "linalg", "nn",
                 "nn.functional", "func", "optim", "special", "api", "analysis",
                 "cli"):  # fmt: skip
        module = importlib.import_module(f"gradcli.{name}")
        assert module.__name__ == f"gradcli.{name}"
        assert Path(module.__file__).is_relative_to(PACKAGE), name
    from gradcli.cli import main

    assert main.__module__ == "gradcli.cli.commands"


def test_no_submodule_shadows_a_name_of_its_package():
    # Importing gradcli.func.vmap would set gradcli.func.vmap to the module, over the function.
    for name in module_names():
        if not _is_package(name) or name.endswith("__main__"):
            continue
        tree = ast.parse((PACKAGE.parent / name.replace(".", "/") / "__init__.py").read_text())
        defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
        defined |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
                    if isinstance(t, ast.Name)}  # fmt: skip
        for sub in defined:
            assert not _is_module(f"{name}.{sub}"), f"{name}.{sub} is both a name and a module"


@pytest.mark.parametrize("layer", sorted(NEVER_IMPORTS))
def test_layers_depend_one_way(layer):
    for name in module_names():
        if name == layer or name.startswith(layer + "."):
            for dep in imports_of(name):
                assert not dep.startswith(NEVER_IMPORTS[layer]), f"{name} imports {dep}"


def _private_imports(name, path=None):
    """``(module, name)`` for each private name ``name`` takes from another module."""
    if path is None:
        path = PACKAGE.parent / name.replace(".", "/")
        path = path / "__init__.py" if _is_package(name) else path.with_suffix(".py")
    package = name if _is_package(name) else name.rpartition(".")[0]
    tree = ast.parse(path.read_text())
    modules, found = {}, []
    private = lambda n: n.startswith("_") and not n.startswith("__")  # noqa: E731
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "gradcli":
                continue
            for alias in node.names:
                if _is_module(f"{target}.{alias.name}"):
                    modules[alias.asname or alias.name] = f"{target}.{alias.name}"
                elif private(alias.name):
                    found.append((target, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "gradcli":
                    modules[alias.asname or "gradcli"] = alias.asname and alias.name or "gradcli"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in modules and private(node.attr):
                found.append((modules[node.value.id], node.attr))
    return found


def test_no_module_imports_another_modules_private_names():
    found = [
        f"{name} takes {module}.{private}"
        for name in module_names()
        if not name.endswith("_standalone_parser")  # Lark's own code
        for module, private in _private_imports(name)
    ]
    assert not found, "\n".join(found)


def test_the_private_names_check_sees_both_forms(tmp_path):
    # The check above reads ``from .x import _y`` and ``x._y``: shown on a module of its own.
    sample = tmp_path / "sample.py"
    sample.write_text("from . import record\nfrom .record import _x\nrecord._y\n")
    assert _private_imports("gradcli.sample", sample) == [
        ("gradcli.record", "_x"),
        ("gradcli.record", "_y"),
    ]


# ----- one op table -----


def test_every_function_of_the_library_that_computes_comes_from_the_table():
    from_table = {id(f) for f in ops.LIBRARY.values()}
    not_ops = {  # classes, dtypes, modules, grad mode switches and gradcli's own names
        "Tensor", "Size", "device", "dtype", "Generator", "GradcliError", "no_grad",
        "enable_grad", "set_grad_enabled", "is_grad_enabled", "set_default_dtype",
        "get_default_dtype", "is_inference_mode_enabled", "set_default_device",
        "get_default_device", "seed", "initial_seed", "get_rng_state", "set_rng_state",
        "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "get_num_threads",
        "set_num_threads",
    }  # fmt: skip
    for name in dir(gradcli):
        value = getattr(gradcli, name)
        if name.startswith("_") or name in not_ops or not callable(value):
            continue
        if isinstance(value, type) or type(value).__name__ == "dtype":
            continue
        assert id(value) in from_table, f"gradcli.{name} is not from the op table"


def test_every_math_method_of_tensor_comes_from_the_table():
    # The Tensor class body holds only the tensor's own state and attributes; its math
    # methods, in-place methods, operators and x.T were installed from the entries.
    installed = methods.INSTALLED
    assert set(installed) == set(methods.installed_methods(ops.OPS))
    for name, member in installed.items():
        assert Tensor.__dict__[name] is member
    own = {n for n, v in vars(Tensor).items() if n not in installed and callable(v)}
    math_names = {alias for e in ops.OPS.values() for alias in (e.name, *e.aliases)}
    assert own & math_names <= {"detach", "numel"}  # the tensor's own: no graph, a count
    assert not {n for n in own if n.endswith("_") and n[:-1] in math_names} - {"detach_"}


def test_lists_of_ops_are_computed_from_the_entries():
    assert ops.FUNCTIONS == {n: e for n, e in ops.OPS.items() if e.function}
    for name, call in ops.METHODS.items():
        assert any(call is e.call and name in (e.name, *e.aliases) for e in ops.OPS.values())
    for name, entry in ops.INPLACE_METHODS.items():
        assert entry.inplace and name[:-1] in (entry.name, *entry.aliases)
    assert not set(ops.OPS) & set(ops.INTERNAL)
    assert all(e.internal and not e.library for e in ops.INTERNAL.values())


def test_every_entry_declares_its_parameters_in_pytorchs_names():
    for entry in ops.OPS.values():
        assert entry.schema.params, entry.name
        assert entry.doc, entry.name
        if hasattr(entry.call, "__wrapped__"):
            continue  # a composite passes its overloads what it prepared (where: no condition)
        for overload in entry.overloads:
            # One rule per input: an overload for number bounds (clamp) records fewer.
            n = 1 if entry.variadic else entry.schema.n_inputs
            assert 1 <= len(overload.rules) <= n, (entry.name, overload.grad_fn)
    first = {e.schema.params[0].name for e in ops.FUNCTIONS.values() if e.kind != "constructor"}
    # PyTorch's own exceptions: polygamma(n, input), and torch.linalg's A (solve, eigvalsh).
    assert first <= {"input", "condition", "tensors", "n", "A"}


def test_a_composite_takes_the_parameters_its_schema_declares():
    import inspect

    for entry in ops.OPS.values():
        wrapped = getattr(entry.call, "__wrapped__", None)
        if wrapped is None:
            continue
        params = list(inspect.signature(wrapped).parameters.values())[1:]  # after ``over``
        if any(p.kind is p.VAR_KEYWORD for p in params):
            continue  # x.new_zeros(...) and the like pass their keywords on
        assert [p.name for p in params] == list(entry.schema.names), entry.name


def test_gradcli_diff_keeps_no_table_of_ops():
    """``gradcli diff`` reads each entry's symbolic form (``Op.symbolic``): no op's name is
    a string of its own."""
    analysis = Path(gradcli.__file__).parent / "analysis"
    names = set(ops.OPS) | {a for e in ops.OPS.values() for a in e.aliases}
    found = {
        node.value
        for path in (analysis / "symbolic.py", analysis / "symbolic_walk.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
    }
    # "int", "bool": the schema's type names (ops of those names convert a tensor's dtype).
    assert found == {"int", "bool"}


def test_the_texts_a_parameter_takes_are_in_its_schema():
    # The language checks reduction="avg" against these, and keeps no list of its own.
    for name, entry in ops.FUNCTIONS.items():
        for p in entry.schema.params:
            if p.type == "str":
                assert p.choices and p.default in p.choices, (name, p.name)
    assert ops.OPS["mse_loss"].schema.params[2].choices == ("mean", "sum", "none")


def test_every_language_function_has_a_form_or_a_reason():
    for name, entry in ops.FUNCTIONS.items():
        form = entry.symbolic
        assert callable(form) or (isinstance(form, str) and len(form.split()) >= 3), (
            f"{name}: declare symbolic= (its SymPy form) or a sentence saying why it has none"
        )


def test_the_operator_maps_are_generated_from_the_entries():
    """The language's operators are declared by their entries (``symbol``, ``precedence``):
    no module of the language, nor the PyTorch oracle, spells a table of its own."""
    from gradcli.language import operators

    spellings = set(operators.BINARY_OPS) | set(operators.UNARY_OPS)
    root = Path(gradcli.__file__).parent / "language"
    paths = [p for p in root.glob("*.py") if p.name != "_standalone_parser.py"]
    for path in [*paths, Path(__file__).parent / "torch_program.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                values = {v.value for v in node.values if isinstance(v, ast.Constant)}
                found = (keys | values) & spellings | keys & set(ops.OPERATORS)
                assert len(found) < 2, (path.name, node.lineno, found)
    assert operators.BINARY_OPS["^"] == operators.BINARY_OPS["**"] == "pow"
    assert operators.CHAIN_LEVELS["add"] < operators.CHAIN_LEVELS["matmul"]


# ----- no op's name in the generic code -----

#: What the scan below reads: the engine and the language, but the entries
#: (``engine/ops/``), the table of sample calls by op (``engine/opsamples.py``, a declared
#: table) and Lark's generated parser.
GENERIC = [
    path
    for folder in ("engine", "language")
    for path in sorted((PACKAGE / folder).rglob("*.py"))
    if path.parent.name != "ops" and path.name not in ("opsamples.py", "_standalone_parser.py")
]
#: Words of the generic code that equal an op's name without being knowledge of that op.
NOT_OP_NAMES = {
    "engine/batching_rules.py": {"mean": "a text of reduction=", "sum": "a text of reduction="},
    "engine/devices.py": {"cpu": "the device's type"},
    "engine/generator.py": {"cpu": "the device's type", "type": "a tensor's type() method"},
    "engine/dtypes.py": {"bool": "the dtype's name"},
    "engine/format.py": {"full": "a print profile (set_printoptions(profile='full'))"},
    "engine/explain.py": {"zeros": "a kink point's name (an input all 0)"},
    "engine/jet.py": {"linear": "a kind of series rule (an entry's series=\"linear\")"},
    "engine/opinfo.py": {
        "positive": "a domain's name", "nonzero": "a domain's name",
        "empty": "a sample's name", "zeros": "a kink point's name",
        "diagonal": "a parameter's name (tril's)", "tanh": "a text of approximate=",
        "sum": "a text of reduction=",
    },
    "language/evaluate.py": {"int": "a schema's type", "float": "a schema's type",
                             "bool": "a schema's type"},
    "language/evaluate_points.py": {"bool": "a schema's type"},
    "language/operators.py": {"sum": "a precedence class (a + b)"},
    "language/transformations.py": {"t": "odeint's parameter, its times"},
}  # fmt: skip


def op_names_in(path: Path, names) -> list[tuple[int, str]]:
    """``(line, name)`` of each string constant of ``path`` that is one of ``names`` (a
    comparison ``x == "max"`` or ``x in ("max", "min")`` is one), but attribute names
    (``__slots__``)."""
    tree = ast.parse(path.read_text())
    slots = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if isinstance(node, ast.Assign | ast.AugAssign) and any(
            getattr(t, "id", None) == "__slots__" for t in targets
        ):
            slots.update(id(c) for c in ast.walk(node.value))
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in names and id(node) not in slots
    )


def _op_names():
    return {str(n) for e in ops.OPS.values() for n in (e.name, *e.aliases)}


def test_no_op_name_in_the_generic_engine_and_language():
    """Each piece of knowledge of one op is a field of its entry, read generically: no
    module of the engine or the language but the entries spells an op's name."""
    names = _op_names()
    found = []
    for path in GENERIC:
        where = path.relative_to(PACKAGE).as_posix()
        allowed = NOT_OP_NAMES.get(where, {})
        found += [f"{where}:{line}: {name!r}" for line, name in op_names_in(path, names)
                  if name not in allowed]  # fmt: skip
    assert not found, "\n".join(found)


def test_the_words_allowed_are_still_there():
    # An entry of NOT_OP_NAMES that no longer occurs is removed, so the list stays short.
    names = _op_names()
    for where, allowed in NOT_OP_NAMES.items():
        seen = {name for _, name in op_names_in(PACKAGE / where, names)}
        assert set(allowed) <= seen, (where, set(allowed) - seen)


def test_the_op_name_scan_sees_comparisons_and_tables(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""max: a docstring."""\n'
        "class A:\n    __slots__ = ('max', 'sum')\n"
        "def rule(entry):\n    return entry.name == 'max' or entry.name in ('sum', 'x')\n"
        "ALIASES = {'arcsin': 'asin'}\n"
    )
    assert op_names_in(sample, _op_names()) == [(5, "max"), (5, "sum"), (6, "asin")]
