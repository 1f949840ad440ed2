"""gradcli in PyTorch's place: ``python -m gradcli.torch PROGRAM.py [ARGS]``.

A PyTorch program runs unchanged with ``torch`` and every ``torch.*`` module
gradcli has bound to gradcli's (``torch.nn.functional`` is ``gradcli.nn.functional``,
``torch.linalg`` ``gradcli.linalg``). Importing a ``torch`` module gradcli
lacks raises ``MissingTorchModule``, which names it. ``gradcli run`` is the same.

One mechanism serves both a program run in this process beside a real PyTorch (the
tests: ``torch_import`` is the program's ``__import__``, so ``sys.modules`` keeps
PyTorch's) and a program run as a script (``run_program``: ``torch_import`` for the
program and a finder on ``sys.meta_path`` for the modules it imports in turn).
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import importlib.abc
import importlib.util
import os
import re
import sys
import types

import gradcli

from .engine.tensor import Tensor
from .errors import EXIT_BROKEN_PIPE, NotImplementedByGradcli
from .nn import Parameter

__all__ = ["MissingTorchFeature", "MissingTorchModule", "ProgramType", "program_builtins",
           "resolve", "run_program", "torch_import"]  # fmt: skip


class MissingTorchModule(ModuleNotFoundError):
    """A ``torch`` module the program imports that gradcli does not have."""


def resolve(name: str):
    """The gradcli module (or namespace) that stands for ``torch`` module ``name``."""
    module = gradcli
    parts = name.split(".")[1:]
    for i, part in enumerate(parts):
        try:
            found = getattr(module, part, None)
        except NotImplementedError:  # a helper the module says it lacks (torch.nn.init)
            found = None
        if found is None and isinstance(module, types.ModuleType):
            try:
                found = importlib.import_module(f"{module.__name__}.{part}")
            except ModuleNotFoundError:
                found = None
        if not isinstance(found, (types.ModuleType, types.SimpleNamespace)):
            missing = ".".join(["torch", *parts[: i + 1]])
            asked = "" if missing == name else f" (the program imports {name})"
            raise MissingTorchModule(f"gradcli has no module {missing}{asked}", name=missing)
        module = found
    return module


def _is_torch(name) -> bool:
    return name == "torch" or name.startswith("torch.")


def torch_import(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002
    """``__import__`` with ``torch`` and its modules gradcli's."""
    if level == 0 and _is_torch(name):
        module = resolve(name)
        return module if fromlist else resolve("torch")
    return builtins.__import__(name, globals, locals, fromlist, level)


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``torch`` modules as gradcli's, for the modules a program imports."""

    def find_spec(self, fullname, path=None, target=None):
        if not _is_torch(fullname):
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return resolve(spec.name)

    def exec_module(self, module):
        pass  # gradcli's module is loaded already


_PYTORCH_NAMED = re.compile(
    r"^gradcli(?:\.\w+)*\.(RuntimeError|ValueError|TypeError|IndexError|NotImplementedError"
    r"|AssertionError)\b",
    re.M,
)


class _ProgramTypeClass(type):
    """What makes ``ProgramType`` the builtin ``type`` in every use but one."""

    def __call__(cls, *args, **kwargs):
        if cls is not ProgramType:  # a program's own metaclass, derived from type
            return super().__call__(*args, **kwargs)
        if len(args) == 1 and not kwargs:
            value = args[0]
            if builtins.type(value) is Tensor and value._is_parameter():
                return Parameter
            return cls if value is cls else builtins.type(value)
        return builtins.type(*args, **kwargs)

    def __instancecheck__(cls, value):
        return isinstance(value, type) if cls is ProgramType else super().__instancecheck__(value)

    def __subclasscheck__(cls, other):
        return issubclass(other, type) if cls is ProgramType else super().__subclasscheck__(other)

    def __repr__(cls):
        return "<class 'type'>" if cls is ProgramType else super().__repr__()


class ProgramType(type, metaclass=_ProgramTypeClass):
    """``type`` as a program sees it: a parameter's class is ``nn.Parameter``, as
    PyTorch's (gradcli keeps a parameter a plain tensor, the one class its engine knows)."""


ProgramType.__name__ = ProgramType.__qualname__ = "type"


class MissingTorchFeature(Exception):
    """A call of the program reached something of torch that gradcli lacks (its message
    says what, and where in the program)."""


def _at_program_line(error: BaseException, path: str) -> str:
    """``error``'s message, then the program's line that reached it and a caret under
    the call (the innermost frame of the program's own file)."""
    import traceback

    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == path]
    if not frames:
        return str(error)
    frame = frames[-1]
    source = (frame.line or "").rstrip()
    where = f"{str(error)} ({os.path.basename(path)}, line {frame.lineno})"
    if not source:
        return where
    stripped = source.lstrip()
    shown = f"{where}\n  {stripped}"
    start, end = frame.colno, frame.end_colno
    if start is not None and end is not None and frame.end_lineno == frame.lineno:
        indent = len(source) - len(stripped)
        shown += "\n  " + " " * (start - indent) + "^" + "~" * max(end - start - 1, 0)
    return shown


def program_builtins() -> dict:
    """The builtins a program runs with: ``torch`` imported as gradcli, and ``type``."""
    return dict(vars(builtins), __import__=torch_import, type=ProgramType)


def run_program(path: str, argv=()) -> int:
    """Run the PyTorch program at ``path`` as ``python path argv...`` would, on gradcli.

    Returns its exit status: 0, its ``SystemExit`` code, or 1 after printing its own
    exception as Python does. ``MissingTorchModule`` and an unreadable program are raised.
    """
    with open(path, "rb") as file:
        source = file.read()
    code = compile(source, path, "exec")
    # The program is sys.modules["__main__"] while it runs, as under `python PROGRAM.py`
    # (runpy does the same): pickle finds its classes there (torch.save of a model).
    program = types.ModuleType("__main__")
    namespace = program.__dict__
    namespace.update(__file__=path, __builtins__=program_builtins())
    saved_main = sys.modules.get("__main__")
    sys.modules["__main__"] = program
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [path, *argv]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    finder = _Alias()
    sys.meta_path.insert(0, finder)
    try:
        exec(code, namespace)  # the program's own code, as `python PROGRAM.py` runs it
    except MissingTorchModule:
        raise
    except NotImplementedByGradcli as error:
        # Not the program's fault but gradcli's gap: said as gradcli says bad input.
        raise MissingTorchFeature(_at_program_line(error, path)) from None
    except BrokenPipeError:
        # The reader of its output left (| head): quiet, as every command of gradcli is.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except SystemExit as stop:
        code = stop.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except BaseException as error:  # noqa: BLE001  (the program's: printed as Python does)
        import traceback

        text = traceback.format_exception(type(error), error, error.__traceback__.tb_next)
        # gradcli's errors are named as PyTorch's (RuntimeError): shown without the module.
        sys.stderr.write(_PYTORCH_NAMED.sub(r"\1", "".join(text)))
        return 1
    finally:
        sys.meta_path.remove(finder)
        sys.argv, sys.path[:] = saved_argv, saved_path
        if saved_main is None:
            sys.modules.pop("__main__", None)
        else:
            sys.modules["__main__"] = saved_main
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m gradcli.torch PROGRAM.py [ARGS]...")
        return 0 if argv else 2
    try:
        return run_program(argv[0], argv[1:])
    except (MissingTorchModule, MissingTorchFeature) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (OSError, SyntaxError, ValueError) as error:
        print(f"error: cannot run {argv[0]}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
