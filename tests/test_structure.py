"""The code's structure: modules that depend one way, and one op table behind every op.

- No import cycle in ``gradcli/``: each module imports alone in a fresh
  interpreter, and the graph of its static imports (at any depth of the code,
  not just the top) has no cycle.
- The package shows its three parts as folders: the command-line application
  (``cli/``), PyTorch's API surface (``autograd/``, ``func/``, ``linalg/``,
  ``nn/``, ``optim/``, ``utils/``) and the library's core (``core/``, under ``api.py``), beside the
  layers they stand on (``analysis/``, ``render/``, ``language/``, ``engine/``).
  Layers depend one way: the command line on the library, never the reverse.
- No module imports another module's private names (``from .x import _y``,
  ``x._y``): what a module shares, it names publicly.
- Every function of ``gradcli`` that computes, every math method of Tensor and
  every function of the language comes from an entry of the op table.
"""

from __future__ import annotations

import ast
import functools
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


def _path_of(name):
    path = PACKAGE.parent / name.replace(".", "/")
    return path / "__init__.py" if _is_package(name) else path.with_suffix(".py")


def import_statements(name, path=None):
    """``(statement, inside_a_function)`` for each import statement of module ``name``."""
    if path is None:
        return _import_statements(name)
    return _statements_in(ast.parse(path.read_text()))


@functools.cache
def _import_statements(name):
    return _statements_in(ast.parse(_path_of(name).read_text()))


def _statements_in(tree):
    found = []

    def walk(node, inside):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append((child, inside))
            walk(child, inside or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

    walk(tree, False)
    return found


def imported(statement, name):
    """The modules an import statement of module ``name`` loads: gradcli's by their full
    names (``from . import x`` is module ``x``), others by the name written."""
    if isinstance(statement, ast.Import):
        return {a.name for a in statement.names}
    package = name if _is_package(name) else name.rpartition(".")[0]
    if statement.level:
        base = package.split(".")[: len(package.split(".")) - statement.level + 1]
        target = ".".join(base + ([statement.module] if statement.module else []))
    else:
        target = statement.module or ""
    if target.split(".")[0] != "gradcli":
        return {target}
    if not _is_module(target):
        return set()  # a module that does not exist (dead code of the generated parser)
    found = set()
    for alias in statement.names:
        sub = f"{target}.{alias.name}"
        if _is_module(sub):
            found.add(sub)
        elif not name.endswith("_standalone_parser"):  # Lark's own code, never run here
            found.add(target)
    return found


def imports_of(name, path=None, *, top_level_only=False):
    """The gradcli modules ``name`` imports anywhere in its code (or at its top level)."""
    found = set()
    for statement, inside in import_statements(name, path):
        if not (inside and top_level_only):
            found |= {m for m in imported(statement, name) if m.split(".")[0] == "gradcli"}
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
ROOT_MODULES = {
    "__init__.py", "__main__.py", "api.py", "blas_start.py", "errors.py", "record.py", "torch.py",
}  # fmt: skip
FOLDERS = {
    "cli",  # the command-line application
    "autograd", "func", "linalg", "nn", "optim", "special", "utils",  # PyTorch's API
    "core",  # the library's core, under api.py
    "analysis", "render", "language", "engine",  # the layers below
}  # fmt: skip
#: The layers, from the top: a module imports (at any depth of its code) only modules of
#: its own layer and of the layers below it. The data flows down: the command line
#: calls the library's facade, the analyses build on one evaluation and many, which
#: run the language, which runs on PyTorch's surface and the engine; every layer raises
#: the one exception family, whose spans are records.
LAYERS = (
    ("gradcli.__main__", "gradcli.cli"),  # the application
    ("gradcli.torch",),  # a PyTorch program run on gradcli (gradcli run)
    ("gradcli.api",),  # the library's facade
    ("gradcli.analysis",),  # reports built on the computing commands
    ("gradcli.render",),  # results and reports as text, tables, files and pictures
    ("gradcli.core",),  # one evaluation and many, their results, files of points
    ("gradcli.language",),  # text to IR, checked, evaluated on the engine
    ("gradcli",),  # PyTorch's namespace (``import gradcli as torch``)
    ("gradcli.func",),  # torch.func's transforms, built on autograd
    ("gradcli.autograd",),  # torch.autograd, and vmap's machinery the transforms share
    ("gradcli.utils",),  # torch.utils.data: datasets and DataLoader
    ("gradcli.optim",),
    ("gradcli.nn",),
    ("gradcli.linalg",),
    ("gradcli.special",),
    ("gradcli.engine",),  # tensors, the op table, the reverse pass
    ("gradcli.errors",),  # the one exception family
    ("gradcli.record",),  # small immutable records
    ("gradcli.blas_start",),  # the command's BLAS threads, set before NumPy loads
)


def layer_of(name):
    """The index in ``LAYERS`` of module ``name``'s layer (its longest prefix there)."""
    best = None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if name == prefix or (prefix != "gradcli" and name.startswith(prefix + ".")):
                if best is None or len(prefix) > len(best[1]):
                    best = (index, prefix)
    return None if best is None else best[0]


def upward_imports(name, path=None):
    """``"name imports dep"`` for each module of a layer above ``name``'s that it imports."""
    return sorted(
        f"{name} ({LAYERS[layer_of(name)][-1]}) imports {dep} ({LAYERS[layer_of(dep)][-1]})"
        for dep in imports_of(name, path)
        if layer_of(dep) < layer_of(name)
    )


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
                 "nn.functional", "func", "optim", "special", "utils", "utils.data", "api",
                 "analysis", "cli"):  # fmt: skip
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


def test_every_module_is_in_a_layer():
    assert [n for n in module_names() if layer_of(n) is None] == []


def test_no_module_imports_a_module_of_a_layer_above_its_own():
    found = [line for name in module_names() for line in upward_imports(name)]
    assert not found, "\n".join(found)


def test_the_layer_check_sees_an_upward_import_inside_a_function(tmp_path):
    # A module of the language that imports the command line, at its top and hidden in a
    # function, as a module of its own beside the real ones.
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from ..engine import ops\n"
        "from . import ir\n"
        "def run():\n"
        "    from ..cli import commands\n"
        "    from ..core.point_files import readers\n"
    )
    assert upward_imports("gradcli.language.sample", sample) == [
        "gradcli.language.sample (gradcli.language) imports gradcli.cli.commands (gradcli.cli)",
        "gradcli.language.sample (gradcli.language) imports gradcli.core.point_files.readers"
        " (gradcli.core)",
    ]


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


# ----- imports inside functions -----

#: Packages heavy enough to be imported inside the function that needs them: a one-line
#: command loads none (tests/test_cli_subprocess.py's start-up test).
HEAVY = {"scipy", "sympy", "mpmath", "matplotlib", "dask", "distributed", "pyarrow",
         "pandas", "prompt_toolkit", "rich", "threadpoolctl"}  # fmt: skip
#: Modules of the standard library on POSIX only, imported where they are used.
POSIX_ONLY = {"fcntl", "resource", "termios"}
#: vmap's machinery, which autograd imports inside the functions that meet a transform.
VMAP_MACHINERY = {
    "gradcli.autograd.batched_autograd": "autograd on vmap's batched tensors",
    "gradcli.autograd.custom_rules": "a custom autograd.Function inside a transform",
    "gradcli.autograd.mapping": "vmap, for gradcheck's batched checks",
    "gradcli.autograd.batched_tensor": "vmap's batched tensor",
}
#: Modules (a package: each of its modules) imported inside functions with no heavy
#: package behind them, to keep a one-line ``gradcli grad``'s start-up short; the reason
#: each is left out of it. A test checks that such a command loads none of them.
DEFERRED = {
    # A command's own module, loaded when the command is asked for.
    "gradcli.cli.run": "gradcli run, a PyTorch program",
    "gradcli.cli.point_runs": "--points and --over",
    "gradcli.cli.declared": "the commands the registry declares (analysis.commands)",
    "gradcli.torch": "gradcli run, a PyTorch program",
    "gradcli.core.point_files": "the files and chunks of many points (--points, --over)",
    "gradcli.cli.repl": "the interactive calculator",
    "gradcli.cli.session": "the interactive calculator's statements",
    "gradcli.analysis": "the analyses, each loaded by its command",
    # What only some commands compute.
    "gradcli.autograd.functional": "Jacobians, Hessians, vjp and jvp",
    "gradcli.autograd.traced": "the graph --steps and the graph command show",
    # vmap's machinery, loaded by a transform: gradcli jacobian loads autograd without it.
    **VMAP_MACHINERY,
    "gradcli.func": "torch.func, for gradcli.vmap",
    "gradcli.engine.jet": "the Taylor arithmetic of jvp --order",
    "gradcli.engine.format": "a tensor's printed form (its repr)",
    "gradcli.language.evaluate_points": "a program at many points",
    "gradcli.language.ode": "odeint, for a program that calls it",
    "gradcli.language.quadrature": "integrate, for a program that calls it",
    "gradcli.language.solvers": "root and minimizer, for a program that calls them",
    # What only some outputs write.
    "gradcli.render.graph": "the steps of --steps and the graph command",
    "gradcli.render.table": "--format table, a format's renderer loaded when it renders",
    "gradcli.render.json": "--format json, a format's renderer loaded when it renders",
    "gradcli.render.latex": "--format latex, a format's renderer loaded when it renders",
    "gradcli.render.point_writers": "the json and table formats' writers of many points",
    "gradcli.render.jsontext": "an error written as JSON",
    "gradcli.core.atomic": "a file written by --output",
    # The standard library's, for a mistake or a file.
    "difflib": "the suggestion for a mistyped name",
    "traceback": "the report of a crash",
    "json": "a value read from a .json file",
    "zipfile": "a value read from a .npz file (zipfile loads bz2 and lzma)",
    "pathlib": "the grammar's file, read only to build the parser again",
}


def _listed(name, names):
    return any(name == n or name.startswith(n + ".") for n in names)


def _deferred_as(name):
    """The entry of ``DEFERRED`` that lists module ``name`` (its longest), or None."""
    found = [n for n in DEFERRED if _listed(name, [n])]
    return max(found, key=len) if found else None


@functools.cache
def heavy_packages_reached(name):
    """The heavy packages module ``name``'s top-level imports reach, at any depth
    (importing a module runs its packages' ``__init__`` too)."""
    seen, todo, found = set(), [name], set()
    while todo:
        module = todo.pop()
        parts = module.split(".")
        for n in (".".join(parts[:i]) for i in range(1, len(parts) + 1)):
            if n in seen or not _is_module(n):
                continue
            seen.add(n)
            for statement, inside in import_statements(n):
                for dep in imported(statement, n) if not inside else ():
                    if dep.split(".")[0] == "gradcli":
                        todo.append(dep)
                    elif dep.split(".")[0] in HEAVY:
                        found.add(dep.split(".")[0])
    return found


def needless_deferrals(name, path=None):
    """``"name:line imports dep"`` for each import inside a function of module ``name``
    that defers nothing heavy: not a heavy package, nor a module of gradcli whose
    top-level imports reach one, nor a module of ``DEFERRED`` (imported from outside its
    entry: inside it, the entry is already loaded) or ``POSIX_ONLY``."""
    found = []
    for statement, inside in import_statements(name, path):
        for dep in sorted(imported(statement, name)) if inside else ():
            if dep.split(".")[0] in HEAVY or dep in POSIX_ONLY:
                continue
            if _listed(dep, DEFERRED) and _deferred_as(dep) != _deferred_as(name):
                continue
            if dep.split(".")[0] == "gradcli" and heavy_packages_reached(dep):
                continue
            found.append(f"{name}:{statement.lineno} imports {dep}")
    return found


def test_a_function_imports_a_module_only_to_defer_a_heavy_one():
    """Every other import is at the top of its module, where a reader sees what the
    module depends on (and the layer test, upward links)."""
    found = [
        line
        for name in module_names()
        if not name.endswith("_standalone_parser")  # Lark's own code
        for line in needless_deferrals(name)
    ]
    assert not found, "\n".join(found)


def test_the_deferral_check_sees_a_light_import_inside_a_function(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import json\n"
        "def read():\n"
        "    import scipy.optimize\n"  # heavy
        "    import fcntl\n"  # POSIX only
        "    from ..core.point_files import arrow\n"  # pyarrow behind it
        "    from ..render import graph\n"  # deferred, with its reason
        "    from . import sensitivity\n"  # deferred, but this module is of its entry
        "    from ..core import result\n"  # light: belongs at the top
        "    import textwrap\n"  # light
    )
    assert needless_deferrals("gradcli.analysis.sample", sample) == [
        "gradcli.analysis.sample:7 imports gradcli.analysis.sensitivity",
        "gradcli.analysis.sample:8 imports gradcli.core.result",
        "gradcli.analysis.sample:9 imports textwrap",
    ]


def test_every_module_listed_as_deferred_is_imported_inside_a_function():
    # An entry no function imports any more is removed, so the list stays short.
    deferred = {
        dep
        for name in module_names()
        if not name.endswith("_standalone_parser")
        for statement, inside in import_statements(name)
        if inside
        for dep in imported(statement, name)
    }
    assert [n for n in DEFERRED if not any(_listed(d, [n]) for d in deferred)] == []


def test_a_one_line_command_loads_no_module_deferred_for_it():
    # The reason a module of DEFERRED is deferred: an entry this command loads anyway is
    # one to remove. Run without site (-S): its .pth files may load pathlib before us.
    import sysconfig

    probe = (
        "import sys\n"
        f"sys.path[:0] = [{str(PACKAGE.parent)!r}]\n"
        f"sys.path.append({sysconfig.get_paths()['purelib']!r})\n"
        "from gradcli.cli import main\n"
        "sys.argv = ['gradcli', 'grad', 'x**2', '--x', '3']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", probe], capture_output=True, text=True, timeout=60
    )
    loaded = set(done.stderr.split())
    assert done.stdout == "value 9\ngrad.x 6\n"
    assert sorted(m for m in loaded if _listed(m, DEFERRED)) == []
    # A Jacobian loads autograd, and none of vmap's machinery.
    probe = probe.replace("'grad', 'x**2', '--x', '3'", "'jacobian', 'x*2', '--x', '1'")
    done = subprocess.run(
        [sys.executable, "-S", "-c", probe], capture_output=True, text=True, timeout=60
    )
    loaded = set(done.stderr.split())
    assert "gradcli.autograd.functional" in loaded
    assert sorted(loaded & set(VMAP_MACHINERY)) == []


# ----- one op table -----


def test_every_function_of_the_library_that_computes_comes_from_the_table():
    from_table = {id(f) for f in ops.LIBRARY.values()}
    not_ops = {  # classes, dtypes, modules, grad mode switches and gradcli's own names
        "Tensor", "Size", "device", "dtype", "Generator", "GradcliError", "no_grad",
        "enable_grad", "set_grad_enabled", "is_grad_enabled", "set_default_dtype",
        "get_default_dtype", "is_inference_mode_enabled", "set_default_device",
        "get_default_device", "seed", "initial_seed", "get_rng_state", "set_rng_state",
        "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "get_num_threads",
        "set_num_threads", "save", "load",
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
    ops.load_all()  # the later modules' methods are stand-ins until then
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
    # PyTorch's own exceptions: polygamma(n, input), torch.linalg's A (solve, eigvalsh),
    # complex(real, imag), polar(abs, angle) and einsum(equation, *operands).
    assert first <= {"input", "condition", "tensors", "n", "A", "real", "abs", "equation"}


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
            if p.type == "str" and (name, p.name) != ("einsum", "equation"):  # free: the op's
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
        "positive": "a domain's name", "nonzero": "a domain's name", "real": "a domain's name",
        "empty": "a sample's name", "zeros": "a kink point's name",
        "diagonal": "a parameter's name (tril's)", "tanh": "a text of approximate=",
        "sum": "a text of reduction=",
    },
    "language/evaluate.py": {"int": "a schema's type", "float": "a schema's type",
                             "bool": "a schema's type"},
    "language/evaluate_points.py": {"bool": "a schema's type"},
    "language/operators.py": {"sum": "a precedence class (a + b)"},
    "language/tape.py": {"linear": "a kind of series rule (an entry's series=\"linear\")"},
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
