"""``torch.nn``'s recurrent layers: RNN, LSTM, GRU and their cells, as PyTorch's CPU kernels
compute them (``aten/src/ATen/native/RNN.cpp``), composed of differentiable ops.

Every weight is uniform in ±1/sqrt(hidden_size), drawn in PyTorch's parameter order
(``weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0``, then ``_reverse``, then the next
layer), so the same seed gives PyTorch's weights. A layer applies the input weights to the
whole sequence at once, then steps the cell with ``linear(h, w_hh, b_hh) + x_t W_ih^T``;
the gates and their order of operations are PyTorch's, so the float64 numbers agree to
the last few bits and the ``grad_fn`` a tutorial prints (``StackBackward0``, ``CatBackward0``
for two directions, ``TransposeBackward0`` or ``1`` with ``batch_first``, a float32 LSTM's
``MkldnnRnnLayerBackward0``, the node of the oneDNN kernel PyTorch runs it in) is PyTorch's.
"""

from __future__ import annotations

import math
import numbers
import warnings
from types import SimpleNamespace

from ..engine.dtypes import float32
from ..engine.ops.conversion import recorded_as
from ..engine.ops.every import LIBRARY
from ..errors import EngineError, GradcliTypeError, GradcliValueError, NotImplementedByGradcli
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]

torch = SimpleNamespace(**LIBRARY)

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _rnn_step(nonlinearity):
    def step(x_w, hidden, w_hh, b_hh):
        pre = F.linear(hidden, w_hh, b_hh) + x_w
        return pre.tanh() if nonlinearity == "tanh" else pre.relu()

    return step


def _lstm_step(x_w, state, w_hh, b_hh):
    h, c = state
    gates = F.linear(h, w_hh, b_hh) + x_w
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate, forgetgate, outgate = ingate.sigmoid(), forgetgate.sigmoid(), outgate.sigmoid()
    cy = forgetgate * c + ingate * cellgate.tanh()
    return outgate * cy.tanh(), cy


def _gru_step(x_w, hidden, w_hh, b_hh):
    i_r, i_z, i_n = x_w.chunk(3, 1)
    h_r, h_z, h_n = F.linear(hidden, w_hh, b_hh).chunk(3, 1)
    reset_gate = (h_r + i_r).sigmoid()
    input_gate = (h_z + i_z).sigmoid()
    new_gate = (i_n + h_n * reset_gate).tanh()
    return (hidden - new_gate) * input_gate + new_gate


def _check_dropout(dropout, num_layers):
    if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
            or isinstance(dropout, bool)):  # fmt: skip
        raise GradcliValueError(
            "dropout should be a number in range [0, 1] representing the probability of an "
            "element being zeroed"
        )
    if dropout > 0 and num_layers == 1:
        warnings.warn(
            "dropout option adds dropout after all but last recurrent layer, so non-zero "
            "dropout expects num_layers greater than 1, but got "
            f"dropout={dropout} and num_layers={num_layers}",
            UserWarning,
            stacklevel=3,
        )


class RNNBase(Module):
    """The layers' common part: parameters, their initialisation, the stacked directions."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):  # fmt: skip
        super().__init__()
        if proj_size:
            raise NotImplementedByGradcli("gradcli's LSTM has no proj_size yet")
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise GradcliTypeError(
                f"hidden_size should be of type int, got: {type(hidden_size).__name__}"
            )
        if hidden_size <= 0:
            raise GradcliValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise GradcliValueError("num_layers must be greater than zero")
        _check_dropout(dropout, num_layers)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, 0
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            for suffix in ("", "_reverse")[: 2 if bidirectional else 1]:
                layer_input = (
                    input_size if layer == 0 else hidden_size * (2 if bidirectional else 1)
                )
                shapes = {
                    "weight_ih": (gate_size, layer_input),
                    "weight_hh": (gate_size, hidden_size),
                }
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                for kind, shape in shapes.items():
                    name = f"{kind}_l{layer}{suffix}"
                    self.register_parameter(name, Parameter(torch.empty(shape, dtype=dtype)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self):
        """A no-op on the CPU, as PyTorch's."""

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        per = 4 if self.bias else 2
        weights = self._flat_weights
        return [weights[i : i + per] for i in range(0, len(weights), per)]

    def _weights(self, layer, suffix):
        get = lambda kind: getattr(self, f"{kind}_l{layer}{suffix}", None)  # noqa: E731
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh")

    def _step(self):
        return {"LSTM": _lstm_step, "GRU": _gru_step, "RNN_TANH": _rnn_step("tanh"),
                "RNN_RELU": _rnn_step("relu")}[self.mode]  # fmt: skip

    def _run(self, input, states):
        """``input`` (seq, batch, features) through every layer and direction; ``states``
        the initial state of each (layer, direction); the output and the final states."""
        step, directions = self._step(), 2 if self.bidirectional else 1
        finals, layer_input = [], input
        for layer in range(self.num_layers):
            outputs = []
            for direction, suffix in enumerate(("", "_reverse")[:directions]):
                w_ih, w_hh, b_ih, b_hh = self._weights(layer, suffix)
                inputs_w = F.linear(layer_input, w_ih, b_ih).unbind(0)
                state = states[layer * directions + direction]
                steps = []
                for x_w in reversed(inputs_w) if direction else inputs_w:
                    state = step(x_w, state, w_hh, b_hh)
                    steps.append(state[0] if isinstance(state, tuple) else state)
                outputs.append(torch.stack(steps[::-1] if direction else steps, 0))
                finals.append(state)
            layer_input = (
                outputs[0] if directions == 1 else torch.cat(outputs, outputs[0].dim() - 1)
            )
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, finals

    def _checked_input(self, input):
        if getattr(input, "_is_packed_sequence", False) or type(input).__name__ == "PackedSequence":
            raise NotImplementedByGradcli("gradcli's recurrent layers take no PackedSequence yet")
        if input.dim() not in (2, 3):
            raise GradcliValueError(
                f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D "
                "tensor instead"
            )
        if input.size(-1) != self.input_size:
            raise EngineError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {input.size(-1)}"
            )
        return input.dim() == 3

    def _checked_hidden(self, hx, batched, batch, what="hidden"):
        expected = (self.num_layers * (2 if self.bidirectional else 1), batch, self.hidden_size)
        if not batched:
            if hx.dim() != 2:
                raise EngineError(
                    f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor"
                )
            hx = hx.unsqueeze(1)
        elif hx.dim() != 3:
            raise EngineError(
                f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor"
            )
        if tuple(hx.shape) != expected:
            raise EngineError(
                f"Expected {what} size {expected}, got {list(hx.shape)}".replace(",)", ")")
            )
        return hx

    def forward(self, input, hx=None):
        batched = self._checked_input(input)
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        batch = input.size(1)
        size = (self.num_layers * (2 if self.bidirectional else 1), batch, self.hidden_size)
        lstm = self.mode == "LSTM"
        if hx is None:
            zeros = torch.zeros(size, dtype=input.dtype)
            hx = (zeros, zeros) if lstm else zeros
        elif lstm:
            hx = tuple(self._checked_hidden(h, batched, batch, what)
                       for h, what in zip(hx, ("hidden", "cell")))  # fmt: skip
        else:
            hx = self._checked_hidden(hx, batched, batch)
        states = list(zip(hx[0].unbind(0), hx[1].unbind(0))) if lstm else hx.unbind(0)
        output, finals = self._run(input, states)
        if lstm and not self.bidirectional and input.dtype == float32:
            recorded_as(output, "MkldnnRnnLayerBackward0")  # PyTorch's oneDNN kernel's node
        if lstm:
            hidden = (
                torch.stack([h for h, _ in finals], 0),
                torch.stack([c for _, c in finals], 0),
            )
        else:
            hidden = torch.stack(finals, 0)
        if not batched:
            output = output.squeeze(1)
            hidden = tuple(h.squeeze(1) for h in hidden) if lstm else hidden.squeeze(1)
        elif self.batch_first:  # PyTorch's RNN and GRU transpose in place, its LSTM not
            output = output.transpose(0, 1) if lstm else output.transpose_(0, 1)
        return output, hidden

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ReLU)."""

    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if len(args) > 3:
            nonlinearity, args = args[3], args[:3] + args[4:]
        if nonlinearity not in ("tanh", "relu"):
            raise GradcliValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(torch.empty((num_chunks * hidden_size, input_size), dtype=dtype))
        self.weight_hh = Parameter(
            torch.empty((num_chunks * hidden_size, hidden_size), dtype=dtype)
        )
        if bias:
            self.bias_ih = Parameter(torch.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(torch.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s

    def _batched(self, input):
        if input.dim() not in (1, 2):
            raise GradcliValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead"
            )
        if input.size(-1) != self.input_size:
            raise EngineError(
                f"input has inconsistent input_size: got {input.size(-1)} expected "
                f"{self.input_size}"
            )
        return input.dim() == 2

    def _cell(self, step, input, hx, count):
        """``step`` on ``input`` from ``hx`` (``count`` tensors, zeros when not given)."""
        batched = self._batched(input)
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = torch.zeros((input.size(0), self.hidden_size), dtype=input.dtype)
            hx = (zeros,) * count
        else:
            hx = (hx,) if count == 1 else tuple(hx)
            hx = tuple(h if batched else h.unsqueeze(0) for h in hx)
        x_w = F.linear(input, self.weight_ih, self.bias_ih)
        state = hx[0] if count == 1 else hx
        out = step(x_w, state, self.weight_hh, self.bias_hh)
        if not batched:
            out = out.squeeze(0) if count == 1 else tuple(o.squeeze(0) for o in out)
        return out


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):  # fmt: skip
        if nonlinearity not in ("tanh", "relu"):
            raise GradcliValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        return self._cell(_rnn_step(self.nonlinearity), input, hx, 1)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        return self._cell(_lstm_step, input, hx, 2)


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        return self._cell(_gru_step, input, hx, 1)
