"""``func.vmap`` against ``torch.func.vmap`` (PyTorch 2.13): per-sample gradients
(``vmap(grad(f), in_dims=(None, 0, 0))``) and vmap's errors. Every op under vmap, against
PyTorch point by point, is the op-sample matrix's ``batched`` transformation
(``test_op_matrix.py``), and a batch of cotangents in one reverse pass its ``gradcheck``.
"""

from __future__ import annotations

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("m", [gradcli, torch], ids=["gradcli", "torch"])
def test_per_sample_gradients(m):
    rng = np.random.default_rng(1)
    X, Y = m.tensor(rng.normal(size=(5, 3))), m.tensor(rng.normal(size=5))
    w = m.tensor(rng.normal(size=3))

    def loss(w, x, y):
        return ((x * w).sum().tanh() - y) ** 2

    per_sample = m.func.vmap(m.func.grad(loss), in_dims=(None, 0, 0))(w, X, Y)
    # Against one gradient per sample, by the ordinary reverse pass.
    for i in range(5):
        wi = w.clone().requires_grad_()
        loss(wi, X[i], Y[i]).backward()
        np.testing.assert_allclose(per_sample[i].numpy(), wi.grad.numpy(), rtol=1e-12)


def test_vmap_errors_match_torch():
    X = np.ones((3, 2))
    for m in (gradcli, torch):
        with pytest.raises(ValueError, match="same size in the mapped dimension"):
            m.func.vmap(lambda a, b: a + b)(m.tensor(X), m.tensor(np.ones((4, 2))))
        with pytest.raises(RuntimeError, match="calling .item\\(\\) on a Tensor"):
            m.func.vmap(lambda a: a.sum().item())(m.tensor(X))


@pytest.mark.parametrize("key", [2, -3, 3, -4, (1, 0)])
def test_an_integer_index_at_every_point_as_torch(key):
    # An index in range is taken without a trial at one point; one out of range or too
    # many indices still fail with the single point's error, as in PyTorch.
    x = np.arange(6.0).reshape(2, 3)
    try:
        expected = torch.func.vmap(lambda p: p[key])(torch.tensor(x)).numpy()
    except IndexError as err:
        words = "out of bounds" if "out of bounds" in str(err) else "too many indices"
        with pytest.raises(IndexError, match=words):
            gradcli.func.vmap(lambda p: p[key])(gradcli.tensor(x))
        return
    got = gradcli.func.vmap(lambda p: p[key])(gradcli.tensor(x)).numpy()
    np.testing.assert_array_equal(got, expected)
