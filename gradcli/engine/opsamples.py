"""The sample calls of the kinds whose calls a schema does not tell: shape, linalg,
loss, constructor, conversion, random and "other" ops (``opinfo.BY_KIND`` reads them).

Each op of those kinds has its calls here, by name, as PyTorch's OpInfo lists its
``sample_inputs_*`` functions: dims positive and negative and on 0-d tensors where
PyTorch accepts them, batch dimensions and singular matrices for linalg, every
reduction, class indices and weights for losses, dtypes for constructors (float32
``arange``/``linspace`` element for element); random ops run from a fixed seed.
Inputs are shapes (drawn from the entry's domain), ``Drawn(domain, shape)``, NumPy
arrays (integer ones are indices), Python numbers, ``Tensors(shapes)`` for a list of
tensors, or ``Raw`` values passed as they are.
"""

from __future__ import annotations

import numpy as np

from .declared_samples import Drawn, Raw, Tensors  # noqa: F401  (the samples name them)


def _s(name, inputs, params=None, keywords=False):
    # The fields of ``opinfo.Sample``, which ``opinfo`` makes of them (no import back).
    return (name, tuple(inputs), params or {}, keywords)


def _ints(*values):
    return np.array(values, dtype=np.int64)


W = "well_conditioned"
P = "probability"
REDUCTIONS = ("none", "mean", "sum")


def _dims(name, key, shape, dims, zero_d=True, **extra):
    found = [_s(f"dim {d}", [shape], {**extra, key: d}) for d in dims]
    found.append(_s("keywords", [shape], {**extra, key: dims[0]}, keywords=True))
    if zero_d:
        found += [_s(f"0-d dim {d}", [()], {**extra, key: d}) for d in (0, -1)]
    return found


def _shape_ops():
    t = {
        "reshape": [
            _s("2-d", [(2, 3)], {"shape": [3, 2]}),
            _s("-1", [(2, 3)], {"shape": [-1]}),
            _s("0-d", [()], {"shape": [1]}),
            _s("empty", [(0, 2)], {"shape": [2, 0]}),
        ],
        "flatten": [
            _s("3-d", [(2, 3, 2)]),
            _s("dims", [(2, 3, 2)], {"start_dim": 1, "end_dim": -1}),
            _s("keywords", [(2, 3, 2)], {"start_dim": -2}, keywords=True),
            _s("0-d", [()]),
        ],
        "squeeze": [
            _s("all", [(2, 1, 3)]),
            _s("all, 4-d", [(2, 1, 3, 1)]),
            *_dims("squeeze", "dim", (2, 1, 3), (1, -2)),
        ],
        "unsqueeze": _dims("unsqueeze", "dim", (2, 3), (0, -1)),
        "transpose": [
            _s("2-d", [(2, 3)], {"dim0": 0, "dim1": -1}),
            _s("keywords", [(2, 3, 2)], {"dim0": -1, "dim1": 1}, keywords=True),
            _s("0-d", [()], {"dim0": 0, "dim1": -1}),
        ],
        "permute": [
            _s("3-d", [(2, 3, 4)], {"dims": [2, 0, 1]}),
            _s("negative", [(2, 3, 4)], {"dims": [-1, 0, 1]}),
        ],
        "movedim": [
            _s("3-d", [(2, 3, 4)], {"source": 0, "destination": -1}),
            _s("several", [(2, 3, 4, 5)], {"source": [3, 0], "destination": [1, 2]}),
        ],
        "t": [_s("2-d", [(2, 3)]), _s("1-d", [(3,)]), _s("0-d", [()])],
        "T": [_s("2-d", [(2, 3)])],
        "mT": [_s("batch", [(4, 2, 3)])],
        "broadcast_to": [
            _s("2-d", [(1, 3)], {"size": [4, 2, 3]}),
            _s("0-d", [()], {"size": [2]}),
            _s("keywords", [(3,)], {"size": [2, 3]}, keywords=True),
        ],
        "expand": [
            _s("2-d", [(1, 3)], {"sizes": [4, 2, 3]}),
            _s("-1", [(2, 1)], {"sizes": [-1, 3]}),
        ],
        "expand_as": [_s("2-d", [(1, 3), (2, 3)])],
        "view_as": [_s("2-d", [(2, 3), (3, 2)])],
        "reshape_as": [_s("2-d", [(2, 3), (6,)])],
        "flip": [
            _s("dim 0", [(2, 3)], {"dims": [0]}),
            _s("dims", [(2, 3)], {"dims": [0, -1]}),
            _s("3-d dims", [(2, 3, 2)], {"dims": [0, -1]}),
            _s("0-d dim 0", [()], {"dims": [0]}),
            _s("0-d dim -1", [()], {"dims": [-1]}),
        ],
        "roll": [
            _s("flat", [(2, 3)], {"shifts": 2}),
            _s("dim -1", [(2, 3)], {"shifts": 1, "dims": -1}),
            _s("dims", [(2, 3)], {"shifts": [1, -2], "dims": [0, 1]}),
            _s("keywords", [(2, 3)], {"shifts": 1, "dims": 0}, keywords=True),
        ],
        "getitem": [
            _s("int", [(2, 3), 1]),
            _s("negative", [(2, 3), -1]),
            _s("slice", [(4, 3), Raw((slice(1, None, 2), -1))]),
            _s("indices", [(3, 2), _ints(2, 0, 2)]),
            _s("0-d", [(), Raw(())]),
            _s("mask", [(2, 3), np.array([[True, False, True], [False, True, True]])]),
            _s("slices", [(2, 4), Raw((slice(None), slice(1, 3)))]),
            _s("step", [(5,), Raw(slice(None, None, 2))]),
            _s("ellipsis", [(2, 2, 3), Raw((Ellipsis, 0))]),
            _s("None", [(3,), Raw((None, slice(None), None))]),
            _s("list", [(3,), Raw([1, 1, 0])]),
        ],
        "setitem": [
            _s("int", [(2, 3), 1, (3,)]),
            _s("number", [(2, 3), Raw((0, -1)), 0.5]),
            _s("indices", [(3, 2), _ints(2, 0), (2, 2)]),
            _s("slices", [(2, 3), Raw((slice(None), slice(0, 2))), (2, 2)]),
            _s("broadcast", [(3, 2), Raw(slice(0, 2)), (1,)]),
            _s("mask", [(2, 3), np.array([[True, False, True], [False, True, True]]), (4,)]),
            _s("0-d into 1-d", [(3,), 0, ()]),
        ],
        "stack": [
            _s("2", [Tensors(((2, 3), (2, 3)))]),
            _s("dim -1", [Tensors(((2, 3), (2, 3)))], {"dim": -1}),
            _s("3, dim -1", [Tensors(((2, 3), (2, 3), (2, 3)))], {"dim": -1}),
            _s("0-d", [Tensors(((), ()))]),
        ],
        "cat": [
            _s("dim 0", [Tensors(((2, 3), (1, 3)))]),
            _s("dim -1", [Tensors(((2, 3), (2, 1)))], {"dim": -1}),
            _s("3, dim -1", [Tensors(((2, 1), (2, 3), (2, 1)))], {"dim": -1}),
        ],
        "hstack": [
            _s("2-d", [Tensors(((2, 3), (2, 1)))]),
            _s("column", [Tensors(((2, 1), (2, 3)))]),
        ],
        "vstack": [_s("1-d", [Tensors(((3,), (3,)))]), _s("1-d, 2-d", [Tensors(((3,), (2, 3)))])],
        "unbind": _dims("unbind", "dim", (2, 3), (0, -1), zero_d=False),
        "split": [
            _s("size", [(4, 3)], {"split_size_or_sections": 3}),
            _s("sections", [(4, 3)], {"split_size_or_sections": [1, 3]}),
            _s("dim -1", [(4, 3)], {"split_size_or_sections": 2, "dim": -1}),
        ],
        "chunk": [
            _s("2", [(4, 3)], {"chunks": 2}),
            _s("dim -1", [(4, 3)], {"chunks": 2, "dim": -1}),
        ],
        "repeat": [
            _s("2-d", [(2, 3)], {"sizes": [2, 1]}),
            _s("1-d", [(2,)], {"sizes": [3]}),
            _s("0-d", [()], {"sizes": [3]}),
        ],
        "sum_to_size": [_s("2-d", [(2, 3)], {"size": [1, 3]})],
        # The internal ops that x[index]'s and take_along_dim's rules call.
        "index_scatter": [_s("rows", [(3, 2)], {"index": (_ints(0, 2, 0),), "size": [3, 2]})],
        "zero_at": [_s("rows", [(3, 2)], {"index": (slice(1, None),), "batch_dims": 0})],
        "put_along_dim": [
            _s(
                "dim 1",
                [(2, 2)],
                {"indices": _ints(0, 2, 1, 0).reshape(2, 2), "dim": 1, "size": [2, 3]},
            )
        ],
    }
    t["view"] = t["reshape"][:3]
    return t


def _linalg_ops():
    singular = [[1.0, 2.0], [2.0, 4.0]]
    sym = [[2.0, 0.5, 0.1], [0.5, 1.0, 0.3], [0.1, 0.3, -1.0]]
    return {
        "matmul": [
            _s("2-d", [(2, 3), (3, 4)]),
            _s("1-d", [(3,), (3,)]),
            _s("2-d 1-d", [(2, 3), (3,)]),
            _s("1-d 2-d", [(3,), (3, 2)]),
            _s("batch broadcast", [(2, 1, 2, 3), (4, 3, 2)]),
            _s("batch broadcast, column", [(2, 1, 2, 3), (3, 3, 1)]),
            _s("inner 1", [(3, 1), (1, 2)]),
            _s("1-d 3-d", [(3,), (2, 3, 2)]),
            _s("3-d 1-d", [(2, 2, 3), (3,)]),
            _s("2-d 3-d", [(2, 3), (2, 3, 2)]),
            _s("3-d 2-d", [(2, 2, 3), (3, 2)]),
            _s("3-d 3-d", [(2, 2, 3), (2, 3, 2)]),
            _s("keywords", [(2, 3), (3, 4)], keywords=True),
        ],
        "mm": [_s("2-d", [(2, 3), (3, 4)])],
        "dot": [_s("1-d", [(3,), (3,)])],
        "mv": [_s("2-d", [(2, 3), (3,)])],
        "bmm": [_s("batch", [(2, 2, 3), (2, 3, 4)])],
        "outer": [_s("1-d", [(2,), (3,)])],
        "trace": [_s("square", [(3, 3)]), _s("wide", [(2, 3)])],
        "det": [
            _s("3x3", [(3, 3)]),
            _s("batch", [(2, 3, 3)]),
            _s("1x1", [(1, 1)]),
            _s("singular", [singular]),
            _s("rank 1 3x3", [[[1.0, 2, 3], [2, 4, 6], [1, 1, 1]]]),
        ],
        "inverse": [_s("3x3", [(3, 3)]), _s("batch", [(2, 3, 3)])],
        "logdet": [
            _s("3x3", [(3, 3)]),
            _s("batch", [(2, 3, 3)]),
            _s("negative det", [[[0.0, 1.0], [1.0, 0.0]]]),
        ],
        "diagonal": [
            _s("2-d", [(3, 4)]),
            _s("offset", [(3, 4)], {"offset": 1}),
            _s("negative dims", [(2, 3, 3)], {"offset": -1, "dim1": -2, "dim2": -1}),
            _s("keywords", [(3, 4)], {"offset": 1, "dim1": 1, "dim2": 0}, keywords=True),
            _s("3-d", [(3, 3, 2)]),
            _s("3-d dims", [(3, 2, 3)], {"offset": 0, "dim1": 2, "dim2": 0}),
        ],
        "diag": [_s("1-d", [(3,)]), _s("2-d", [(3, 4)])],
        "tril": [
            _s("2-d", [(3, 4)]),
            _s("diagonal", [(3, 4)], {"diagonal": 1}),
            _s("batch", [(2, 3, 3)], {"diagonal": -1}),
        ],
        "triu": [
            _s("2-d", [(3, 4)]),
            _s("diagonal", [(3, 4)], {"diagonal": -1}),
            _s("batch", [(2, 3, 3)], {"diagonal": 1}),
        ],
        "cross": [
            _s("dim -1", [(2, 3), (2, 3)], {"dim": -1}),
            _s("dim 0", [(3, 2), (3, 2)], {"dim": 0}),
            _s("1-d", [(3,), (3,)], {"dim": 0}),
        ],
        "solve": [
            _s("vector", [Drawn(W, (3, 3)), (3,)]),
            _s("matrix", [Drawn(W, (3, 3)), (3, 2)]),
            _s("left=False", [Drawn(W, (3, 3)), (2, 3)], {"left": False}),
            _s("batch", [Drawn(W, (2, 3, 3)), (2, 3, 1)]),
        ],
        "eigvalsh": [
            _s("symmetric", [sym]),
            _s("UPLO", [sym], {"UPLO": "U"}),
            _s("batch UPLO", [(2, 3, 3)], {"UPLO": "U"}),
        ],
    }


def _loss_ops():
    t = {}
    for name in ("mse_loss", "l1_loss"):
        t[name] = [_s(r, [(2, 3), (2, 3)], {"reduction": r}) for r in REDUCTIONS]
        t[name].append(_s("0-d", [(), ()]))
    prob = [Drawn(P, (2, 3)), Drawn(P, (2, 3))]
    t["binary_cross_entropy"] = [_s(r, prob, {"reduction": r}) for r in REDUCTIONS] + [
        _s("weight", [*prob, Drawn("positive", (2, 3))])
    ]
    t["binary_cross_entropy_with_logits"] = [
        _s(r, [(2, 3), Drawn(P, (2, 3))], {"reduction": r}) for r in REDUCTIONS
    ] + [
        _s(
            "weights",
            [(2, 3), Drawn(P, (2, 3)), Drawn("positive", (2, 3))],
            {"pos_weight": np.array([0.5, 1.0, 2.0])},
        )
    ]
    target = _ints(0, 3, 1)
    weight = np.array([0.5, 1.0, 2.0, 1.5])
    t["nll_loss"] = [_s(r, [(3, 4)], {"target": target, "reduction": r}) for r in REDUCTIONS] + [
        _s("weight", [(3, 4)], {"target": target, "weight": weight}),
        _s("ignore_index", [(3, 4)], {"target": target, "ignore_index": 3}),
        _s("1-d", [(4,)], {"target": np.array(2)}),
        _s(
            "spatial", [(2, 3, 2)], {"target": _ints(0, 2, 1, 1).reshape(2, 2), "reduction": "none"}
        ),
        _s(
            "2-d spatial",
            [(2, 3, 2, 2)],
            {"target": _ints(0, 2, 1, 1, 2, 2, 0, 1).reshape(2, 2, 2)},
        ),
    ]
    t["cross_entropy"] = [_s(r, [(3, 4), target], {"reduction": r}) for r in REDUCTIONS] + [
        _s("weight", [(3, 4), target], {"weight": weight}),
        _s("probabilities", [(3, 4), Drawn(P, (3, 4))]),
        _s("label_smoothing", [(3, 4), target], {"label_smoothing": 0.1}),
    ]
    return t


def _constructors():
    f32 = {"dtype": "float32"}
    t = {
        "tensor": [
            _s("nested", [Raw([[1.0, 2.0], [3.0, 4.5]])]),
            _s("float32", [Raw([0.1, 2.0])], f32),
        ],
        "as_tensor": [_s("list", [Raw([1.0, 2.5])]), _s("array", [Raw(np.array([[1.0, 2.0]]))])],
        "from_numpy": [_s("array", [Raw(np.array([[1.0, -2.0]]))])],
        "zeros": [_s("2-d", [], {"size": [2, 3]}), _s("float32", [], {"size": [2], **f32})],
        "empty": [_s("empty", [], {"size": [0, 3]})],
        "full": [
            _s("2-d", [], {"size": [2, 3], "fill_value": 1.5}),
            _s("keywords", [], {"size": [2], "fill_value": -0.25, **f32}, keywords=True),
        ],
        "eye": [
            _s("3", [], {"n": 3}),
            _s("2x3", [], {"n": 2, "m": 3}),
            _s("float32", [], {"n": 2, **f32}),
        ],
        "arange": [
            _s("end", [], {"start": 5}),
            _s("steps", [], {"start": 0.0, "end": 1.0, "step": 0.1}),
            _s("float32", [], {"start": -8.0, "end": 8.0, "step": 0.1, **f32}),
            _s("negative step", [], {"start": 1.0, "end": -1.0, "step": -0.3}),
        ],
        "linspace": [
            _s("7", [], {"start": -1.0, "end": 1.0, "steps": 7}),
            _s("float32", [], {"start": -8.0, "end": 8.0, "steps": 161, **f32}),
            _s("1", [], {"start": 2.0, "end": 3.0, "steps": 1}),
            _s("0", [], {"start": 2.0, "end": 3.0, "steps": 0}),
        ],
        "empty_like": [_s("empty", [(0, 3)])],
        "full_like": [_s("2-d", [(2, 3)], {"fill_value": 0.5})],
        "new_zeros": [_s("2-d", [(2, 3)], {"size": [2, 2]})],
        "new_empty": [_s("empty", [(2, 3)], {"size": [0]})],
        "new_full": [_s("2-d", [(2, 3)], {"size": [2, 2], "fill_value": -1.5})],
        "new_tensor": [_s("list", [(2, 3), Raw([1.0, 2.0])])],
        "rand": [_s("2-d", [], {"size": [2, 3]}), _s("float32", [], {"size": [5], **f32})],
        "randint": [
            _s("2-d", [], {"low": 0, "high": 10, "size": [2, 3]}),
            _s("high", [], {"high": 5, "size": [4]}, keywords=True),
        ],
        "randperm": [_s("6", [], {"n": 6}), _s("0", [], {"n": 0})],
        "normal": [
            _s("tensors", [[0.0, 1.0], Drawn("positive", (2,))]),
            _s("numbers", [0.0, 2.0], {"size": [3]}),
        ],
        "bernoulli": [_s("2-d", [Drawn(P, (2, 3))]), _s("p", [(2, 3)], {"p": 0.3})],
        "multinomial": [
            _s("2", [[0.2, 0.3, 0.5]], {"num_samples": 2}),
            _s("replacement", [[0.2, 0.3, 0.5]], {"num_samples": 5, "replacement": True}),
            _s("batch", [Drawn("positive", (2, 4))], {"num_samples": 3}),
        ],
    }
    for name in ("ones", "randn"):
        t[name] = t["zeros"]
    for name in ("zeros_like", "ones_like", "rand_like", "randn_like"):
        t[name] = [_s("2-d", [(2, 3)]), _s("float32", [(2, 3)], f32), _s("0-d", [()])]
    t["new_ones"] = t["new_zeros"]
    return t


def _conversions():
    plain = [_s("2-d", [(2, 3)]), _s("0-d", [()])]
    t = {
        n: plain
        for n in (
            "float",
            "double",
            "half",
            "long",
            "int",
            "bool",
            "cpu",
            "contiguous",
            "is_contiguous",
            "is_floating_point",
            "is_tensor",
            "clone",
            "detach",
            "numel",
        )
    }
    t["len"] = [_s("2-d", [(2, 3)]), _s("0-d", [()])]
    t["to_dtype"] = [_s("float32", [(2, 3)], {"dtype": "float32"})]
    # PyTorch's errors too: an empty input without num_classes, a negative class, one too
    # large, a float input.
    t["one_hot"] = [
        _s("classes", [_ints(0, 2, 1)], {"num_classes": 4}),
        _s("inferred", [_ints(0, 2, 1)]),
        _s("2-d", [_ints(0, 3, 1, 1).reshape(2, 2)], {"num_classes": 5}),
        _s("0-d", [np.array(1, np.int64)], {"num_classes": 3}),
        _s("keywords", [_ints(1, 0)], {"num_classes": 2}, keywords=True),
        _s("empty", [_ints().reshape(0, 2)], {"num_classes": 3}),
        _s("empty inferred", [_ints()]),
        _s("negative", [_ints(-1, 0)], {"num_classes": 3}),
        _s("too large", [_ints(0, 3)], {"num_classes": 3}),
        _s("num_classes 0", [_ints(0)], {"num_classes": 0}),
        _s("float", [(2,)], {"num_classes": 3}),
    ]
    t["type"] = [_s("float32", [(2, 3)], {"dtype": "float32"})]
    t["to"] = [
        _s("dtype", [(2, 3)], {"args": ["float32"]}),
        _s("keywords", [(2, 3)], {"dtype": "float32"}),
    ]
    return t


def _others():
    sortable = {"dim": -1}
    t = {
        "zero": [_s("2-d", [(2, 3)])],
        "fill": [
            _s("number", [(2, 3), 0.5]),
            _s("1-d, number", [(3,), 1.5]),
            _s("0-d", [(2, 3), ()]),
        ],
        "copy": [_s("2-d", [(2, 3), (2, 3)]), _s("broadcast", [(2, 3), (3,)])],
        "dropout": [
            _s("2-d", [(4, 5)], {"p": 0.5, "train": True}),
            _s("eval", [(2, 3)], {"p": 0.5, "train": False}),
        ],
        "nonzero": [_s("2-d", [[[0.0, 1.0, 0.0], [2.0, 0.0, -1.0]]]), _s("0-d", [[0.5]])],
        "where": [
            _s("2-d", [(2, 3), (2, 3), (2, 3)]),
            _s("broadcast", [(2, 3), (3,), ()]),
            _s("keywords", [(2, 3), (2, 3), (2, 3)], keywords=True),
            _s("0-d", [(), (), ()]),
            _s("mask, broadcast", [np.array([[True, False, True], [False] * 3]), (2, 3), (3,)]),
        ],
        "masked_fill": [
            _s(
                "2-d",
                [(2, 3)],
                {"mask": np.array([[True, False, True], [False] * 3]), "value": 0.5},
            ),
            _s(
                "0-d tensor value",
                [(2, 3)],
                {"mask": np.array([[True, False, True], [False] * 3]), "value": np.array(0.5)},
            ),
        ],
        "take_along_dim": [
            _s("dim 1", [(2, 3)], {"indices": _ints(2, 0, 1, 1, 0, 2).reshape(2, 3), "dim": 1}),
            _s("dim -1", [(2, 3)], {"indices": _ints(0, 0, 2).reshape(1, 3), "dim": -1}),
            _s(
                "input broadcast",
                [(1, 3)],
                {"indices": _ints(0, 2, 2, 1, 0, 0).reshape(2, 3), "dim": 1},
            ),
        ],
        "gather": [
            _s("dim 1", [(2, 3)], {"dim": 1, "index": _ints(2, 0, 1, 1).reshape(2, 2)}),
            _s("dim -2", [(2, 3)], {"dim": -2, "index": _ints(1, 0, 1).reshape(1, 3)}),
            _s("smaller index", [(3, 2)], {"dim": 0, "index": _ints(2, 0, 2).reshape(3, 1)}),
        ],
        "index_select": [
            _s("dim 0", [(2, 3)], {"dim": 0, "index": _ints(1, 0, 1)}),
            _s("dim -1", [(2, 3)], {"dim": -1, "index": _ints(2, 2)}),
        ],
        "sort": [
            *_dims("sort", "dim", (2, 3), (0, -1)),
            _s("descending", [(2, 3)], {"dim": 1, "descending": True}),
            _s("stable", [(2, 3)], {"dim": 0, "stable": True}),
        ],
        "topk": [
            _s("2", [(2, 3)], {"k": 2}),
            _s("dim 0", [(2, 3)], {"k": 1, "dim": 0, "largest": False}),
            _s("keywords", [(2, 3)], {"k": 2, "dim": -1, "sorted": True}, keywords=True),
        ],
        "polygamma": [
            _s("n 1", [1, (2, 3)]),
            _s("n 0", [0, Drawn("positive", (2, 3))]),
            _s("n 2", [2, Drawn("positive", (3,))]),
        ],
        "manual_seed": [_s("3", [], {"seed": 3})],
        "normal_": [_s("2-d", [(2, 3)], {"mean": 1.0, "std": 2.0})],
        "uniform_": [_s("2-d", [(2, 3)], {"a": -1.0, "b": 2.0})],
        "random_": [_s("2-d", [(2, 3)], {"from_": 2, "to": 9})],
        "exponential_": [_s("2-d", [(2, 3)], {"lambd": 2.0})],
        "bernoulli_": [_s("number", [(2, 3), 0.3])],
    }
    del sortable
    t["argsort"] = t["sort"]
    for name in ("cumsum", "cumprod"):
        t[name] = [
            *_dims(name, "dim", (2, 3), (0, -1)),
            _s("dtype", [(2, 3)], {"dim": 1, "dtype": "float64"}, keywords=True),
        ]
    return t


_TABLE = None


def of(entry) -> list:
    """The sample calls of ``entry`` (an op of a kind without a generic builder), as
    the fields of ``opinfo.Sample``."""
    global _TABLE
    if _TABLE is None:
        _TABLE = {}
        for part in (_shape_ops, _linalg_ops, _loss_ops, _constructors, _conversions, _others):
            _TABLE.update(part())
    return list(_TABLE.get(entry.name, ()))
