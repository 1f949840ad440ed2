"""The gradcli language: text to IR (parser), checks (check), evaluation on the engine.

    from gradcli.language import compile_source, evaluate_constant
    program = compile_source("(x+2)**2 + 3")
    program.inputs                      # ('x',)
    program.run({"x": leaf})            # a Tensor with its graph

The grammar lives in ``grammar/gradcli.lark``; the reference is
``docs/language.md``.
"""

from .parser import NESTING_LIMIT, grammar_path, parse
from .program import CompiledProgram, compile_source, evaluate_constant

__all__ = [
    "NESTING_LIMIT",
    "CompiledProgram",
    "compile_source",
    "evaluate_constant",
    "grammar_path",
    "parse",
]
