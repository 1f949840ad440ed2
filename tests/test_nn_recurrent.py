"""``gradcli.nn``'s RNN, LSTM, GRU and their cells against PyTorch 2.13: the same seed gives
PyTorch's weights bit for bit; outputs, final states and every gradient agree in float64 to a
relative 1e-12 (float32 to an absolute 1e-6); the reprs and the ``grad_fn`` a tutorial prints
are PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

LAYERS = {
    "rnn_tanh": "RNN(3, 4)",
    "rnn_relu_two_layers": "RNN(3, 4, 2, nonlinearity='relu')",
    "lstm": "LSTM(3, 4)",
    "lstm_deep_bidirectional": "LSTM(3, 4, num_layers=2, bidirectional=True)",
    "lstm_batch_first_no_bias": "LSTM(3, 5, batch_first=True, bias=False)",
    "gru": "GRU(3, 4)",
    "gru_bidirectional_batch_first": "GRU(3, 4, 2, bidirectional=True, batch_first=True)",
}
CELLS = {
    "rnn_cell": "RNNCell(3, 4)",
    "rnn_cell_relu": "RNNCell(3, 4, nonlinearity='relu')",
    "lstm_cell": "LSTMCell(3, 4)",
    "gru_cell": "GRUCell(3, 4, bias=False)",
}


def _numpy(tensor):
    return tensor.detach().numpy()


def _run(lib, text, dtype, with_state, batched=True, cell=False):
    """The layer's outputs, then the gradients of their weighted sum w.r.t. input, states and
    weights."""
    lib.manual_seed(3)
    module = eval("nn." + text, {"nn": lib.nn}).to(getattr(lib, dtype))
    dt = getattr(lib, dtype)
    if cell:
        shape, state_shape = (2, 3), (2, module.hidden_size)
    else:
        shape = (2, 5, 3) if module.batch_first else (5, 2, 3)
        layers = module.num_layers * (2 if module.bidirectional else 1)
        state_shape = (layers, 2, module.hidden_size)
    if not batched:
        shape = shape[1:] if cell or module.batch_first else (shape[0], shape[2])
        state_shape = state_shape[1:] if cell else (state_shape[0], state_shape[2])
    x = lib.randn(shape, dtype=dt, requires_grad=True)
    lstm = "LSTM" in text
    states = []
    if with_state:
        states = [lib.randn(state_shape, dtype=dt, requires_grad=True) for _ in range(1 + lstm)]
    hx = None if not states else (tuple(states) if lstm else states[0])
    out = module(x, hx) if hx is not None else module(x)
    if cell:
        outs = list(out) if lstm else [out]
    else:
        outs = [out[0], *(out[1] if lstm else [out[1]])]
    loss = sum((o * lib.arange(o.numel(), dtype=dt).reshape(o.shape).cos()).sum() for o in outs)
    loss.backward()
    grads = [x.grad, *(s.grad for s in states), *(p.grad for p in module.parameters())]
    names = [type(o.grad_fn).__name__ for o in outs]
    return module, [_numpy(o) for o in outs], [_numpy(g) for g in grads], names


def _compare(text, dtype, with_state, batched=True, cell=False):
    ours = _run(gradcli, text, dtype, with_state, batched, cell)
    theirs = _run(torch, text, dtype, with_state, batched, cell)
    assert repr(ours[0]) == repr(theirs[0])
    for mine, their in zip(ours[0].parameters(), theirs[0].parameters()):
        assert _numpy(mine).tobytes() == _numpy(their).tobytes()
    close = dict(rtol=1e-12, atol=1e-14) if dtype == "float64" else dict(rtol=0, atol=1e-6)
    for mine, their in zip(ours[1] + ours[2], theirs[1] + theirs[2]):
        assert mine.shape == their.shape
        np.testing.assert_allclose(mine, their, **close)
    return ours[3], theirs[3]


@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "given_state"])
@pytest.mark.parametrize("text", list(LAYERS.values()), ids=list(LAYERS))
def test_a_recurrent_layer_gives_pytorchs_outputs_and_gradients_in_float64(text, with_state):
    ours, theirs = _compare(text, "float64", with_state)
    assert ours == theirs


@pytest.mark.parametrize("text", list(CELLS.values()), ids=list(CELLS))
@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "given_state"])
def test_a_cell_gives_pytorchs_outputs_and_gradients_in_float64(text, with_state):
    ours, theirs = _compare(text, "float64", with_state, cell=True)
    assert ours == theirs


@pytest.mark.parametrize("text", ["LSTM(3, 4, 2)", "GRU(3, 4)", "RNN(3, 4)"])
def test_an_unbatched_sequence_gives_pytorchs_numbers(text):
    ours, theirs = _compare(text, "float64", True, batched=False)
    assert ours == theirs
    _compare("LSTMCell(3, 4)", "float64", True, batched=False, cell=True)


@pytest.mark.parametrize(
    "text",
    [
        "LSTM(3, 4, 2, bidirectional=True)",
        "LSTM(3, 4, 2)",
        "GRU(3, 4, batch_first=True)",
        "RNN(3, 4)",
    ],
)
def test_float32_layers_are_close_to_pytorchs(text):
    ours, theirs = _compare(text, "float32", True)
    assert ours == theirs  # a one-way LSTM's output: MkldnnRnnLayerBackward0, oneDNN's node
    _compare("LSTMCell(3, 4)", "float32", False, cell=True)


def test_dropout_between_layers_draws_pytorchs_masks():
    results = []
    for lib in (gradcli, torch):
        lib.manual_seed(5)
        gru = lib.nn.GRU(3, 4, num_layers=3, dropout=0.5).double()
        out, hidden = gru(lib.randn(6, 2, 3, dtype=lib.float64))
        gru.eval()
        again, _ = gru(lib.ones(6, 2, 3, dtype=lib.float64))
        results.append([_numpy(out), _numpy(hidden), _numpy(again)])
    for mine, their in zip(*results):
        np.testing.assert_allclose(mine, their, rtol=1e-12, atol=1e-14)


def test_reprs_are_pytorchs():
    texts = ["LSTM(10, 20, num_layers=2)", "RNN(3, 4, nonlinearity='relu', bias=False)",
             "GRU(3, 4, batch_first=True, dropout=0.25, num_layers=2, bidirectional=True)",
             "RNNCell(3, 4, nonlinearity='relu')", "LSTMCell(3, 4, bias=False)",
             "GRUCell(2, 1)"]  # fmt: skip
    for text in texts:
        mine = eval("nn." + text, {"nn": gradcli.nn})
        their = eval("nn." + text, {"nn": torch.nn})
        assert repr(mine) == repr(their)
        assert [n for n, _ in mine.named_parameters()] == [n for n, _ in their.named_parameters()]


def test_a_packed_sequence_or_a_wrong_hidden_size_is_an_error_that_says_so():
    lstm = gradcli.nn.LSTM(3, 4)
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[2, 2, 4\]"):
        lstm(gradcli.randn(5, 2, 3), (gradcli.zeros(2, 2, 4), gradcli.zeros(1, 2, 4)))
    with pytest.raises(RuntimeError, match="input_size"):
        lstm(gradcli.randn(5, 2, 2))

    class PackedSequence:  # what nn.utils.rnn.pack_padded_sequence returns
        pass

    with pytest.raises(NotImplementedError, match="PackedSequence"):
        lstm(PackedSequence())
