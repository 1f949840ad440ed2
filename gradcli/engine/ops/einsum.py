"""``einsum``: a sum of products written as subscripts, built of the table's own ops.

PyTorch computes einsum without a backward of its own: it takes diagonals for
repeated subscripts, permutes every operand to one order of subscripts (the
output's first, then the summed ones, in alphabetical order), and contracts the
operands left to right, each pair by a batched matrix product. This does the same
with the same ops, so the result's ``grad_fn`` is PyTorch's (``ViewBackward0``
after a contraction, ``SumBackward1`` of a single operand summed,
``PermuteBackward0`` of a transpose, ``MulBackward0`` of an outer product), and
each operand's gradient is itself made of those ops: double backward, forward
mode and complex numbers need nothing more.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import EngineError, GradcliTypeError
from ..batched_values import Batched
from ..declared_samples import Sample, Tensors
from ..optable import OWN, Table
from .arithmetic import mul
from .diagonals import diagonal
from .products import bmm
from .reductions import sum
from .shape import movedim, permute_op, reshape, unsqueeze, view_op

table = Table("einsum", mp=OWN)

ELLIPSIS = "."  # the ellipsis's place among the subscripts of a term


def _error(message):
    return EngineError(f"einsum(): {message}")


def _term(text, operand, at):
    """The subscripts of one term, ``...`` as one ``ELLIPSIS``."""
    labels, i = [], 0
    while i < len(text):
        c = text[i]
        if c == ".":
            if ELLIPSIS in labels:
                raise _error(
                    f"found '.' for operand {operand} for which an ellipsis was already found"
                )
            if text[i : i + 3] != "...":
                raise _error(f"found '.' for operand {operand} that is not part of any ellipsis")
            labels.append(ELLIPSIS)
            i += 3
            continue
        if not (c.isascii() and c.isalpha()):
            raise _error(
                f"invalid subscript given at index {at + i} in the equation string, "
                "subscripts must be in [a-zA-Z]"
            )
        labels.append(c)
        i += 1
    return labels


def parse(equation, shapes):
    """The terms of ``equation`` (one per operand) and its output's subscripts, each a
    list of labels; the output implicit when there is no ``->``: the ellipsis, then the
    subscripts that appear once, in alphabetical order."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    texts, terms, at = lhs.split(","), [], 0
    if len(texts) > len(shapes):
        raise _error("fewer operands were provided than specified in the equation")
    if len(texts) < len(shapes):
        raise _error("more operands were provided than specified in the equation")
    for i, text in enumerate(texts):
        terms.append(_term(text, i, at))
        at += len(text) + 1
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        named = len(term) - (ELLIPSIS in term)
        if ELLIPSIS not in term and named != len(shape):
            raise _error(
                f"the number of subscripts in the equation ({named}) does not match the number "
                f"of dimensions ({len(shape)}) for operand {i} and no ellipsis was given"
            )
        if ELLIPSIS in term and named > len(shape):
            raise _error(
                f"the number of subscripts in the equation ({named}) is more than the number "
                f"of dimensions ({len(shape)}) for operand {i}"
            )
    counts = {}
    for term in terms:
        for label in term:
            counts[label] = counts.get(label, 0) + 1
    if arrow:
        output = _term(rhs, "output", len(lhs) + 2)
        for label in output:
            if output.count(label) > 1:
                what = "ellipsis" if label == ELLIPSIS else f"subscript {label}"
                raise _error(f"output {what} appears more than once in the output")
            if label != ELLIPSIS and label not in counts:
                raise _error(
                    f"output subscript {label} does not appear in the equation for any "
                    "input operand"
                )
    else:
        once = sorted(label for label, n in counts.items() if n == 1 and label != ELLIPSIS)
        output = ([ELLIPSIS] if ELLIPSIS in counts else []) + once
    return terms, output


def _aligned(terms, output, shapes):
    """Each operand's dims in one order: where each of its dims goes, and how many of the
    order's dims are the output's. The ellipsis's dims are ``(ELLIPSIS, k)``."""
    ell_ndim = max(
        (len(shape) - len(term) + 1 for term, shape in zip(terms, shapes) if ELLIPSIS in term),
        default=0,
    )
    ellipsis = [(ELLIPSIS, k) for k in range(ell_ndim)]
    order = []
    for label in output:
        order += ellipsis if label == ELLIPSIS else [label]
    out_ndim = len(order)
    if ELLIPSIS not in output:
        order += ellipsis
    order += sorted({label for term in terms for label in term} - set(output) - {ELLIPSIS})
    return order, out_ndim, ell_ndim


def _align(x, term, order, ell_ndim, sizes, counts, i):
    """Operand ``x`` with a dim per entry of ``order``: diagonals of its repeated subscripts,
    1 for those it lacks, permuted into the order."""
    place = {}
    dim = 0
    covered = np.ndim(x) - (len(term) - 1)  # how many dims the ellipsis stands for
    for label in term:
        keys = [label]
        if label == ELLIPSIS:
            keys = [(ELLIPSIS, k) for k in range(ell_ndim - covered, ell_ndim)]
        for key in keys:
            if key in place:  # a repeated subscript: its diagonal, where it first appeared
                first = place[key]
                if np.shape(x)[first] != np.shape(x)[dim]:
                    raise _error(
                        f"subscript {label} is repeated for operand {i} but the sizes don't "
                        f"match, {np.shape(x)[dim]} != {np.shape(x)[first]}"
                    )
                x = movedim(diagonal(x, 0, first, dim), -1, first)
                continue
            size = np.shape(x)[dim]
            if size != 1:
                if sizes.get(key, 1) not in (1, size):
                    what = "dimension" if label == ELLIPSIS else f"subscript {label}"
                    raise _error(
                        f"{what} has size {size} for operand {i} which does not broadcast with "
                        f"previously seen size {sizes[key]}"
                    )
                sizes[key] = size
                counts[key] = counts.get(key, 0) + 1
            place[key] = dim
            dim += 1
    for key in order:
        if key not in place:
            x = unsqueeze(x, dim)
            place[key] = dim
            dim += 1
    return permute_op(x, tuple(place[key] for key in order))


def sumproduct_pair(left, right, summed):
    """``(left * right).sum(summed, keepdim=True)`` by a batched matrix product, as
    PyTorch's einsum contracts two operands of the same number of dims."""
    if not summed:
        return mul(left, right)
    both, left_only, right_only, total = [], [], [], 1
    for d in range(np.ndim(left)):
        sl, sr = np.shape(left)[d] != 1, np.shape(right)[d] != 1
        if d in summed:
            if sl and sr:
                total *= np.shape(left)[d]
            elif sl:
                left = sum(left, d, True)
            elif sr:
                right = sum(right, d, True)
        elif sl and sr:
            both.append(d)
        elif sl:
            left_only.append(d)
        else:
            right_only.append(d)
    size = lambda x, ds: math.prod(np.shape(x)[d] for d in ds)  # noqa: E731
    out_shape = (
        *(np.shape(left)[d] for d in both + left_only),
        *(1 for _ in summed),
        *(np.shape(right)[d] for d in right_only),
    )
    left_order = both + left_only + list(summed) + right_only
    right_order = both + list(summed) + right_only + left_only
    back = [0] * len(out_shape)
    for i, d in enumerate(left_order):
        back[d] = i
    nb, nl, nr = size(left, both), size(left, left_only), size(right, right_only)
    left = reshape(permute_op(left, tuple(left_order)), nb, nl, total)
    right = reshape(permute_op(right, tuple(right_order)), nb, total, nr)
    return permute_op(view_op(bmm(left, right), out_shape), tuple(back))


@table.composite(
    "einsum",
    "(equation: str, *operands: Tensor)",
    doc="einsum('ij,jk->ik', a, b): sums of products named by subscripts",
    kind="linalg",
    function=True,
    words="each operand's gradient is an einsum of g and the other operands",
    symbolic=lambda s, equation, *operands: np.einsum(equation, *operands),
    batching=lambda entry, found: batched(found),
    samples=(
        Sample("matrix product", ["ij,jk->ik", (2, 3), (3, 4)]),
        Sample("matrix-vector", ["ij,j->i", (2, 3), (3,)]),
        Sample("implicit output", ["ij,jk", (2, 3), (3, 2)]),
        Sample("list of operands", ["ij,jk", Tensors(((2, 3), (3, 2)))]),
        Sample("batched", ["bij,bjk->bik", (2, 2, 3), (2, 3, 2)]),
        Sample("ellipsis", ["...ij,...jk", (2, 2, 3), (3, 2)]),
        Sample("broadcast ellipsis", ["...i,...i->...", (1, 3), (2, 3)]),
        Sample("outer", ["i,j->ij", (3,), (2,)]),
        Sample("dot", ["i,i", (3,), (3,)]),
        Sample("diagonal", ["ii->i", (3, 3)]),
        Sample("trace", ["ii", (3, 3)]),
        Sample("transpose", ["ij->ji", (2, 3)]),
        Sample("sum", ["ij->", (2, 3)]),
        Sample("repeated and summed", ["iij,jk", (3, 3, 2), (2, 4)]),
        Sample("three operands", ["ij,jk,kl->il", (2, 3), (3, 2), (2, 2)]),
        Sample("bilinear", ["bn,anm,bm->ba", (2, 3), (2, 3, 4), (2, 4)]),
        Sample("empty", ["ij,jk->ik", (0, 3), (3, 2)]),
        Sample("0-d", [",->", (), ()]),
        Sample("sublists", [(2, 3), [0, 1], (3, 2), [1, 2], [0, 2]]),
    ),
    complex="holomorphic",
)
def einsum(over, equation, *operands):
    if not isinstance(equation, str):  # einsum(a, [0, 1], b, [1, 2], [0, 2])
        equation, operands = _sublists((equation, *operands))
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])  # einsum("ij,jk", [a, b])
    if not operands:
        raise _error("must provide at least one operand")
    shapes = [np.shape(x) for x in operands]
    terms, output = parse(equation, shapes)
    order, out_ndim, ell_ndim = _aligned(terms, output, shapes)
    sizes, counts = {}, {}
    ops = [
        _align(x, term, order, ell_ndim, sizes, counts, i)
        for i, (x, term) in enumerate(zip(operands, terms))
    ]
    summed = range(out_ndim, len(order))
    if len(ops) == 1:
        return sum(ops[0], tuple(summed)) if summed else ops[0]
    counts = [counts.get(key, 0) for key in order]
    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        pair, only_a, only_b = [], [], []
        for d in summed:
            if np.shape(a)[d] != 1 and np.shape(b)[d] != 1:
                counts[d] -= 1
                if counts[d] == 1:
                    pair.append(d)
                    counts[d] = 0
            elif counts[d] == 1:
                if np.shape(a)[d] != 1:
                    only_a.append(d)
                    counts[d] = 0
                elif np.shape(b)[d] != 1:
                    only_b.append(d)
                    counts[d] = 0
        if only_a:
            a = sum(a, tuple(only_a), True)
        if only_b:
            b = sum(b, tuple(only_b), True)
        ops.insert(0, sumproduct_pair(a, b, pair))
    if summed:
        return view_op(ops[0], np.shape(ops[0])[:out_ndim])
    return ops[0]


#: PyTorch's subscript letters in the order of their integers: A-Z, then a-z.
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _sublists(args):
    """The equation and operands of PyTorch's other form, each operand followed by its
    subscripts as integers in [0, 52) (``Ellipsis`` for ``...``), then the output's."""
    letters = _LETTERS
    terms, operands, args = [], [], list(args)

    def spell(sublist):
        if not isinstance(sublist, (list, tuple)):
            raise GradcliTypeError(
                "einsum(): the equation must be a string, or each operand be followed by a "
                "list of its subscripts"
            )
        text = ""
        for s in sublist:
            if s is Ellipsis:
                text += "..."
            elif isinstance(s, (int, np.integer)) and 0 <= s < len(letters):
                text += letters[s]
            else:
                raise _error("subscript in subscript list is not within the valid range [0, 52)")
        return text

    while len(args) >= 2:
        operands.append(args.pop(0))
        terms.append(spell(args.pop(0)))
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return ",".join(terms) + "->" + spell(args[0]), tuple(operands)
    if args:
        spell(args[0])
    return ",".join(terms), tuple(operands)


def batched(found):
    """Many points: a subscript of its own for the points' axis, leading every batched
    operand's term and the output's."""
    equation, operands = found["equation"], found["operands"]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    shapes = [x.physical.shape[1:] if type(x) is Batched else np.shape(x) for x in operands]
    terms, output = parse(equation, shapes)
    used = {label for term in terms for label in term}
    axis = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in used)
    spell = lambda term: "".join("..." if label == ELLIPSIS else label for label in term)  # noqa: E731
    texts = [(axis if type(x) is Batched else "") + spell(t) for x, t in zip(operands, terms)]
    physical = [x.physical if type(x) is Batched else x for x in operands]
    return Batched(einsum(",".join(texts) + "->" + axis + spell(output), *physical))
