"""The op table's machinery: how an op is declared, and how a declaration becomes functions.

Every op gradcli has is one entry, declared once, in the module of its kind
(``ops/elementwise.py``, ``ops/reductions.py``, ...). From the entries the
package generates the library's functions (``gradcli.sin``), the Tensor methods
and operators (``x.sin()``, ``x.sin_()``, ``x + y``), the language's functions
and how it converts their arguments, ``gradcli functions``, and the op-sample
matrix of the tests: nothing else lists ops.

Declaring an op
---------------
In ``ops/<kind>.py``, with that module's ``table = Table("<kind>")``::

    sin = table.op(
        "sin", np.sin, "(input: Tensor)",
        grad_fn="SinBackward0", rules=(lambda g, ans, x: g * cos(x),),
        doc="sine (radians)", kind="elementwise", domain="real",
        method=True, inplace=True, function=True,
    )

- ``forward`` computes on NumPy arrays (or Python numbers): ``forward(*inputs, *params)``.
- ``schema``: the parameters, in PyTorch's names and order, each with its type
  (``Tensor``, ``Tensor|Number``, ``Tensor[]``, ``Index`` (integers or a mask:
  no gradient; ``Tensor|Index``: either), ``Number``, ``int``, ``int[]``,
  ``int|int[]``, ``bool``, ``float``, ``dtype``, ``Generator``, ``str``, or the texts it takes:
  ``reduction: 'mean'|'sum'|'none'``, which the language checks) and default;
  ``*`` starts the keyword-only ones, ``*shape: int`` takes any number. The
  leading parameters typed ``Tensor...`` are the op's inputs: one rule each.
- ``grad_fn`` and ``rules``: the name PyTorch shows for the node (stored, not
  derived) and one vector-Jacobian rule per input, ``rule(g, ans, *inputs,
  *params)``, written in the table's own ops (so it runs on raw arrays in the
  fast reverse pass and records a graph with ``create_graph=True``); ``None``
  for an input that gets no gradient. An op PyTorch records under several
  grad_fn names lists them instead: ``overloads=[over("PowBackward0",
  rules=..., when=...), ...]``; the first whose ``when(*args)`` holds is applied.
  An op with no derivative at all (``lt``, ``argmax``) gives neither.
- ``composite``: instead of ``table.op``, ``@table.composite(name, schema, ...)``
  decorates a function ``f(over, *args)`` that prepares the arguments and
  calls one of its overloads by key (``over["MaxBackward0"](...)``) or other
  ops: for ops whose choice needs more than a predicate (``max``, ``x[i]``).
- ``doc`` (one line), ``kind`` (how ``gradcli functions`` groups it), ``kink``
  (its convention where it is not differentiable), ``kink_at`` (which of ``explain``'s
  checks tells an evaluation it sits on a kink), ``words`` (the rule of each input in
  words, as ``--steps`` shows it: ``"d sin(a)/da = cos(a)"``; another name than a, b, c
  is the variable of its rule: ``d(a**p)/dp``),
  ``domain`` (the inputs its samples draw, one name per input, and a dict
  of keyword arguments where it needs some: ``opinfo.DOMAINS``),
  ``batching`` (the rule that evaluates the op at many points at once,
  ``engine.batching_rules``; left out, the entry takes its kind's rule, and
  ``False`` says it has none), ``samples`` (sample calls beside its
  kind's), ``special`` (points where it is singular beside its kink points) and
  ``differs`` (each deliberate difference from PyTorch, with the samples and
  transformations where it shows): see ``opinfo``.
- ``complex``: whether it takes complex numbers, and its rules there (``complex_rules``):
  ``"holomorphic"`` (its rules, evaluated as ``conj(rule(conj(g)))``: PyTorch's
  conjugate-Wirtinger gradient of an op holomorphic in its inputs), its own rules
  ``(rule, ...)`` (abs, angle, real, imag: not holomorphic), or ``True`` for an op without
  a derivative (``eq``). Left out, a complex input is refused by the op's name.
- ``mp``: its forward at any working precision (``--dps``, ``multiprecision``): ``OWN``
  (its forward as it is, on arrays of mpmath numbers), an mpmath function's name
  (``"sin"``, elementwise) or ``make(mpmath) -> forward``. Its rules are the same. Left
  out, the entry refuses by name there.
- ``float32``: its forward on float32 inputs as PyTorch's CPU kernel computes it, to the
  last bit (``float32_kernels``), where NumPy's float32 function differs from PyTorch's.
- ``series``: how Taylor coefficients pass through it (``jet.py``: ``taylor``,
  ``jvp --order``): ``"linear"`` (the forward applied to each coefficient),
  ``"bilinear"`` (a Cauchy product of the forward) or ``rule(basis, *input_jets,
  *params)``; each module gives its entries theirs in one ``table.series(...)``
  block at its end. An op without one is an error there.
- ``size``: how many numbers the result holds, ``size(*args)`` of the forward's
  arguments, asked before the forward runs so that a result over the limit on a
  result's size (``limits``) is refused before any memory is taken; also an
  overload's own (``over(..., size=...)``). Left out, an elementwise or binary op
  of several inputs takes the size of their broadcast (``limits.broadcast_size``),
  and any other op must make a result no larger than its largest input (a
  reduction, a view, a sort): ``tests/test_limits_ops.py`` holds every entry to
  what it declares. An op of two inputs and no other argument (``x @ y``) must
  make no more numbers than the product of their sizes: that product, known for
  free, spares the hot path the call.
- ``out``: whether the function takes ``out=`` as PyTorch's (``engine/out_argument.py``);
  left out, the elementwise, binary and reduction entries do.
- ``symbolic``: the op in SymPy, for ``gradcli diff``: ``form(s, *args)`` of the
  SymPy module ``s`` (the engine never imports it) and a call's positional
  arguments, a number as its schema's type says, a tensor as a NumPy array of
  expressions; an elementwise or binary op's form takes one entry of each
  (``lambda s, x: s.sin(x)``), broadcast. Longer forms: ``ops/sympy_forms.py``.
  Or a sentence saying why the op has none (``tests/test_structure.py``).
- The language, where it takes the op otherwise than the library: ``language_args``
  (``f(args, kwargs, span) -> (args, kwargs)``: the language's numbers are floats; an
  op that reads a dtype, cross_entropy's class indices, converts); ``language_form``
  (``form(schema, doc, adapt)``: where the language means what a calculator means,
  ``max(a, b)`` elementwise, ``log(x, base)``: the parameters and one-line doc that the
  checker and ``gradcli functions`` show, and ``adapt(entry, args, kwargs, given) ->
  (call, args, kwargs)``, the call made of them, ``given`` each argument's
  ``(parameter, value, span)``; helpers in ``ops/language_forms.py``); ``other_names``
  (what NumPy, SciPy or a calculator call it, ``arcsin``: the language suggests the op
  for them, as for its ``aliases``); ``indices`` (its integer result holds indices,
  which the language keeps integers so that they can index: every other result is a
  float); ``tensor_operands`` (a number operand of the operator is made a tensor first,
  so ``2 % y`` has PyTorch's derivative for y, RemainderBackward1); ``language_constant``
  (cut from the graph: piecewise constant, its derivative is 0 where PyTorch's backward
  raises, ``x // y``); ``attribute="language"`` (the language reads it too, ``x.T``).
- ``symbol`` (``"+"``, or spellings ``("**", "^")``) and ``precedence``
  (``"compare"``, ``"sum"``, ``"product"``, ``"unary"``, ``"power"``): the op as an
  operator of the language, which ``language/operators.py`` reads for the parser, the
  printer and the evaluators; the IR names an operator by its entry's name.
- Where it appears: ``function`` (the language can call it), ``method`` (a
  Tensor method), ``inplace`` (also ``x.name_()``; ``"reshapes"`` when it may change
  the shape, ``"library"`` also ``gradcli.name_(x)``), ``library`` (``gradcli.name``; on by
  default), ``aliases``, ``operators`` (``("__add__",)``; ``__iadd__`` names an
  in-place one) and ``reflected`` (``("__radd__",)``: self is the second
  argument), ``attribute`` (a property: ``x.T``), ``nn_functional`` (also
  ``torch.nn.functional.name``; ``"inplace"``, ``"implicit dim"``...: its form there, see nn).
- ``table.internal(...)``: an op that only the rules of other ops use (the
  adjoint of an indexing, a broadcast's sum): it has a grad_fn and rules but no
  public name, and lives apart in ``INTERNAL``.

Conventions of the rules
------------------------
- ``g`` may carry extra leading batch dimensions (a Jacobian is one reverse
  pass over the identity), so rules use negative axes and keep ``g``'s leading
  dimensions.
- Broadcasting: a rule may return a gradient of the broadcast shape; the
  reverse pass sums it back to its input's shape (``sum_to``), once, for every op.
- Tangents (forward-mode AD) are not declared: ``forward.py`` derives each op's
  from its reverse rules, exactly: a rule is the linear map ``g -> J^T g`` in
  differentiable ops, and its own vector-Jacobian product with a tangent ``t``
  is ``J t``. So a rule must stay linear in ``g`` and differentiable in it
  (the op-sample matrix checks every entry's tangent against central
  differences, ``tests/op_matrix.py``).
- Kinks follow PyTorch: d|x|/dx = 0 at 0, relu'(0) = 0, sqrt'(0) = inf, clamp
  passes the gradient on its bounds, ties in max/min/amax/amin share the
  gradient evenly (``max(x, dim)`` gives it to the index it returns), the
  gradient of floor/ceil/round/sign is 0. Each entry's ``kink`` says its own.
"""

from __future__ import annotations

import dis

from . import float32_kernels
from .applying import bind, public
from .complex_rules import complex_twin
from .graph import node_class
from .multiprecision import OWN  # noqa: F401  (declarations name it from here: ``mp=OWN``)
from .out_argument import with_out
from .saved import saved_names
from .schema import Schema

# ----------------------------------------------------------------------------
# Entries and overloads
# ----------------------------------------------------------------------------


class Overload:
    """One way an op is recorded: its PyTorch grad_fn name and its rules.

    ``fn`` applies it (on raw arrays it is plain NumPy, on tensors it records a
    ``Node`` whose ``op`` is this overload); the reverse pass reads ``rules``,
    ``saves`` and ``variadic``.
    """

    __slots__ = ("entry", "grad_fn", "key", "rules", "forward", "when", "saves", "fn")
    __slots__ += ("lists_numbers", "size", "variadic", "reads_result")
    __slots__ += ("_shown_class", "complex")

    def __init__(
        self,
        grad_fn,
        rules=None,
        *,
        when=None,
        forward=None,
        key=None,
        saves=None,
        numbers=True,
        size=None,
    ):
        self.entry = None
        self.grad_fn = grad_fn
        self.key = key or grad_fn
        self.rules = None if rules is None else tuple(rules)
        self.forward = forward
        self.when = when
        self.saves = saves
        self.fn = None
        # Whether next_functions lists a number operand as (None, 0), as PyTorch's x * 2;
        # False where PyTorch takes the number as a scalar (x ** 2, 1 - x).
        self.lists_numbers = numbers
        self.size = size
        self.variadic = False  # the entry's, copied when it takes the overload: read per node
        # Whether a rule reads ``ans``: None until a differentiable pass first asks
        # (``decide_reads_result``), not at import.
        self.reads_result = None
        self._shown_class = None
        # The overload recorded where an input or the result is complex (``complex_twin``),
        # or None where the entry refuses complex numbers.
        self.complex = None

    def decide_reads_result(self):
        """Whether a rule of this overload reads its result (``reads_result`` below)."""
        self.reads_result = any(r is not None and reads_result(r) for r in self.rules or ())
        return self.reads_result

    def shown_class(self):
        """The class this overload's nodes are shown as (``graph.node_class``)."""
        if self._shown_class is None:
            self._shown_class = node_class(self.grad_fn, saved_names(self))
        return self._shown_class

    @property
    def name(self):
        return self.entry.name

    def variadic_backward(self, g, ans, args, params, kwargs):
        """The gradients of all inputs of a variadic op (stack, cat): its one rule
        returns them together."""
        return self.rules[0](g, ans, args, *params, **kwargs)

    def __repr__(self):
        return f"Overload({self.entry.name!r}, grad_fn={self.grad_fn!r})"


over = Overload

_NAMES_OF_LOCALS = {"locals", "vars", "_getframe"}  # what could read a local by its name


def reads_result(rule) -> bool:
    """Whether ``rule(g, ans, ...)`` reads ``ans``, its op's result. A differentiable pass
    wraps a node's result as a tensor on the graph only for an op with a rule that does,
    as PyTorch's node saves its result only for the formulas that use it. A rule that is
    not a plain function, or could reach its locals by name, is taken to read it."""
    code = getattr(rule, "__code__", None)
    if code is None or code.co_argcount < 2 or _NAMES_OF_LOCALS & set(code.co_names):
        return True
    name = code.co_varnames[1]
    if name in code.co_cellvars:  # a nested function reads it
        return True
    return any(ins.argval == name for ins in dis.get_instructions(code) if "FAST" in ins.opname)


class LanguageForm:
    """A function as the language means it where a calculator means otherwise than the
    library (``language_form`` above): its parameters, its one-line doc, and ``adapt``."""

    __slots__ = ("_schema_text", "_schema", "doc", "adapt")

    def __init__(self, schema, doc, adapt):
        self._schema_text = schema
        self._schema = None
        self.doc = doc
        self.adapt = adapt

    @property
    def schema(self) -> Schema:
        if self._schema is None:  # parsed on first use, as an entry's
            self._schema = Schema(self._schema_text)
        return self._schema


form = LanguageForm


class Op:
    """One entry of the table: everything gradcli knows about one op."""

    def __init__(
        self,
        name,
        forward,
        schema,
        *,
        doc,
        kind,
        grad_fn=None,
        rules=None,
        overloads=None,
        kink=None,
        kink_at=None,
        words=None,
        saves=True,
        promotes=None,
        variadic=False,
        function=False,
        method=False,
        inplace=False,
        library=True,
        aliases=(),
        operators=(),
        reflected=(),
        attribute=False,
        nn_functional=False,
        domain=None,
        batching=None,
        samples=(),
        special=(),
        differs=(),
        internal=False,
        size=None,
        series=None,
        symbolic=None,
        language_args=None,
        symbol=None,
        precedence=None,
        language_form=None,
        other_names=(),
        indices=False,
        tensor_operands=False,
        language_constant=False,
        out=None,
        complex=None,  # noqa: A002  (the field's name: see the docstring)
        mp=None,
        float32=None,
    ):
        self.name = name
        if float32 is not None:
            forward = float32_kernels.routed(forward, float32)
        self.forward = forward
        self._schema_text = schema
        self._schema = None
        self.doc = doc
        self.kind = kind
        self.kink = kink
        self.kink_at = kink_at
        self.words = (words,) if isinstance(words, str) else words
        self.saves = saves
        # Whether the result's dtype follows PyTorch's type promotion (see _promote);
        # the elementwise ops do, the others choose their dtype themselves.
        self.promotes = kind in ("elementwise", "binary") if promotes is None else promotes
        self.variadic = variadic
        self.function = function
        self.method = method
        self.inplace = inplace
        self.library = library and not internal
        self.aliases = tuple(aliases)
        self.operators = tuple(operators)
        self.reflected = tuple(reflected)
        self.attribute = attribute
        self.nn_functional = nn_functional
        self.domain = domain
        self.batching = batching
        self.samples = tuple(samples)
        self.special = tuple(special)
        self.differs = tuple(differs)
        self.internal = internal
        self.size = size
        self.series = series
        self.symbolic = symbolic
        self.language_args = language_args
        self.language_form = language_form
        self.other_names = tuple(other_names)
        self.indices = indices
        self.tensor_operands = tensor_operands
        self.language_constant = language_constant
        # Whether the function takes out= (engine/out_argument.py): PyTorch's elementwise,
        # binary and reduction functions do; another kind's entry says so.
        self.takes_out = kind in ("elementwise", "binary", "reduction") if out is None else out
        # The language's spellings of the op as an operator, the first the printed one.
        self.symbols = (symbol,) if isinstance(symbol, str) else tuple(symbol or ())
        self.precedence = precedence
        if grad_fn is not None:
            overloads = [Overload(grad_fn, rules)]
        self.overloads = tuple(overloads or ())
        self.complex = complex
        self.mp = mp
        self.over = {}
        for o in self.overloads:
            o.entry = self
            o.variadic = variadic
            if o.forward is None:
                o.forward = forward
            if o.saves is None:
                o.saves = saves
            if o.size is None:
                o.size = size
            if complex is not None:
                o.complex = complex_twin(o, complex)
            o.fn = bind(o)
            self.over[o.key] = o.fn
        self.differentiable = bool(self.overloads)
        self.call = None  # the public function, set by the Table
        self._signature = None

    @property
    def schema(self) -> Schema:
        """The declared parameters (parsed on first use: most runs call few ops by keyword)."""
        if self._schema is None:
            self._schema = Schema(self._schema_text)
        return self._schema

    @property
    def signature(self):
        """The schema as an ``inspect.Signature`` (made on first use: inspect costs start-up)."""
        if self._signature is None:
            self._signature = self.schema.python_signature()
        return self._signature

    @property
    def rules(self):
        """The rules of the op's first overload (most ops have one)."""
        return self.overloads[0].rules if self.overloads else None

    @property
    def grad_fns(self) -> tuple:
        return tuple(o.grad_fn for o in self.overloads)

    def __repr__(self):
        return f"Op({self.name!r}, {self.kind})"


class Table:
    """The entries one ``ops/<kind>.py`` module declares, in order; internal ones apart."""

    def __init__(self, module, mp=None):
        """``mp``: the multiprecision forward of every entry that does not declare its own
        (``OWN`` for a module of entries that only move entries about: shape, indexing)."""
        self.module = module
        self.mp = mp
        self.entries: list[Op] = []
        self.internal_entries: list[Op] = []

    def op(self, name, forward=None, schema="(input: Tensor)", **fields):
        """Declare an op; returns its public function."""
        fields.setdefault("mp", self.mp)
        entry = Op(name, forward, schema, **fields)
        entry.call = public(entry)
        self._add(entry)
        return entry.call

    def internal(self, name, forward, schema, **fields):
        """Declare an op only rules use; returns its function."""
        return self.op(name, forward, schema, internal=True, **fields)

    def composite(self, name, schema, **fields):
        """Declare an op whose public function chooses among its overloads or calls others:
        decorates ``f(over, *args)``; returns the public function ``f(*args)``."""

        def declare(f):
            entry = Op(name, None, schema, **{"mp": self.mp, **fields})
            over_by_key = entry.over

            def call(*args, **kwargs):
                if "out" in kwargs:
                    return with_out(entry, call, args, kwargs)
                return f(over_by_key, *args, **kwargs)

            call.__name__ = call.__qualname__ = name
            call.__doc__, call.__wrapped__ = entry.doc, f
            entry.call = call
            self._add(entry)
            return call

        return declare

    def series(self, **rules):
        """Give entries their Taylor series rule (``series`` above), by name."""
        by_name = {e.name: e for e in (*self.entries, *self.internal_entries)}
        for name, rule in rules.items():
            by_name[name].series = rule

    def _add(self, entry):
        entry.call.op = entry
        (self.internal_entries if entry.internal else self.entries).append(entry)
