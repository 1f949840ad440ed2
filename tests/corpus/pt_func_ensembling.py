# follows: PyTorch tutorials, "Model ensembling" (Using vmap to vectorize the ensemble:
#   stack_module_state, functional_call, vmap over the stacked parameters),
#   https://pytorch.org/tutorials/intermediate/ensembling.html
"""Ten small MLPs from one seed: their predictions one by one, then all at once with
stack_module_state and vmap over functional_call, on different minibatches and on the
same one, checked against the loop."""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, stack_module_state

torch.manual_seed(0)


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 16)
        self.fc3 = nn.Linear(16, 10)

    def forward(self, x):
        x = x.flatten(1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        x = F.relu(x)
        x = self.fc3(x)
        return x


num_models = 10
data = torch.randn(100, 8, 4, 4)
targets = torch.randint(10, (6400,))
models = [SimpleMLP() for _ in range(num_models)]

minibatches = data[:num_models]
predictions_diff_minibatch_loop = [
    model(minibatch) for model, minibatch in zip(models, minibatches)
]
minibatch = data[0]
predictions2 = [model(minibatch) for model in models]

params, buffers = stack_module_state(models)
print([(name, tuple(p.shape)) for name, p in params.items()], buffers)
base_model = copy.deepcopy(models[0])


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


print([p.size(0) for p in params.values()])
predictions1_vmap = torch.vmap(fmodel)(params, buffers, minibatches)
print(predictions1_vmap.shape)
print(
    torch.allclose(
        predictions1_vmap, torch.stack(predictions_diff_minibatch_loop), atol=1e-3, rtol=1e-5
    )
)
predictions2_vmap = torch.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
print(torch.allclose(predictions2_vmap, torch.stack(predictions2), atol=1e-3, rtol=1e-5))
print(predictions2_vmap[3, :2])
