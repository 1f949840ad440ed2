"""``untyped_storage()``, ``data_ptr()``, ``storage_offset()``, ``stride()`` and
``element_size()`` print what PyTorch prints in the same program: a view shares its base's
storage, a copy has its own."""

from __future__ import annotations

import contextlib
import io

import pytest

import gradcli

torch = pytest.importorskip("torch", reason="PyTorch 2.13 is the reference")

PROGRAM = """
x = torch.arange(6.).reshape(2, 3)
v = x[1]
t = x.t()
c = x.clone()
s = x.untyped_storage()
print(s)
print(len(s), s.nbytes(), s.data_ptr() == x.data_ptr(), s.tolist()[4:8])
print(v.untyped_storage().data_ptr() == s.data_ptr())
print(t.untyped_storage().data_ptr() == s.data_ptr())
print(c.untyped_storage().data_ptr() == s.data_ptr(), c.data_ptr() == x.data_ptr())
print(v.data_ptr() - x.data_ptr(), v.storage_offset(), x[:, 1].storage_offset())
print(x.stride(), t.stride(), x[:, 1].stride(), x.element_size(), x.expand(2, 2, 3).stride())
print(x.view(3, 2).untyped_storage().data_ptr() == s.data_ptr())
print(x.detach().data_ptr() == x.data_ptr())
print(torch.empty(0).data_ptr(), torch.empty(0).untyped_storage())
print(x.double().untyped_storage().nbytes(), x[1:].contiguous().data_ptr() == v.data_ptr())
"""


def _printed(module):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(PROGRAM, {"torch": module})
    return out.getvalue()


def test_storage_and_addresses_print_as_pytorchs():
    assert _printed(gradcli) == _printed(torch)
