"""``torch.optim``'s algorithms: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta.

Each ``step`` is PyTorch's single-tensor implementation, line for line, with the
same options (in the same order in ``param_groups``), the same state per
parameter and PyTorch's messages for an invalid option.
"""

from __future__ import annotations

from ..engine.ops.every import LIBRARY
from ..errors import GradcliValueError
from .optimizer import Optimizer, addcdiv_, addcmul_, lerp_, step_tensor

__all__ = ["SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "RMSprop"]

_zeros_like = LIBRARY["zeros_like"]
_full_like = LIBRARY["full_like"]
_maximum = LIBRARY["maximum"]


def _check(condition, message):
    if not condition:
        raise GradcliValueError(message)


def _gradients(group):
    """The group's parameters that have a gradient, with it (negated to maximise)."""
    for param in group["params"]:
        if param.grad is not None:
            yield param, -param.grad if group["maximize"] else param.grad


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):  # fmt: skip
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)  # fmt: skip
        _check(not nesterov or (momentum > 0 and dampening == 0),
               "Nesterov momentum requires a momentum and zero dampening")  # fmt: skip
        super().__init__(params, defaults)

    def _step_group(self, group):
        lr, momentum, weight_decay = group["lr"], group["momentum"], group["weight_decay"]
        for param, grad in _gradients(group):
            if weight_decay != 0:
                grad = grad + param * weight_decay
            if momentum != 0:
                state = self.state[param]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = grad.clone().detach()
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
                grad = grad + buf * momentum if group["nesterov"] else buf
            param.add_(grad, alpha=-lr)


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):  # fmt: skip
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)  # fmt: skip
        super().__init__(params, defaults)

    def _step_group(self, group):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
        for param, grad in _gradients(group):
            state = self.state[param]
            if not state:
                state["step"] = step_tensor()
                state["exp_avg"] = _zeros_like(param)
                state["exp_avg_sq"] = _zeros_like(param)
                if amsgrad:
                    state["max_exp_avg_sq"] = _zeros_like(param)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            state["step"].add_(1)
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * weight_decay)
                else:
                    grad = grad + param * weight_decay
            lerp_(exp_avg, grad, 1 - beta1)
            addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
            step = state["step"].item()
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2**0.5
            if amsgrad:
                state["max_exp_avg_sq"].copy_(_maximum(state["max_exp_avg_sq"], exp_avg_sq))
                second = state["max_exp_avg_sq"]
            else:
                second = exp_avg_sq
            denom = (second.sqrt() / bias_correction2_sqrt).add_(eps)
            addcdiv_(param, exp_avg, denom, -step_size)


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):  # fmt: skip
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)  # fmt: skip


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):  # fmt: skip
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _check(alpha >= 0.0, f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)  # fmt: skip
        super().__init__(params, defaults)

    def _step_group(self, group):
        lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
        for param, grad in _gradients(group):
            state = self.state[param]
            if not state:
                state["step"] = step_tensor()
                state["square_avg"] = _zeros_like(param)
                if momentum > 0:
                    state["momentum_buffer"] = _zeros_like(param)
                if group["centered"]:
                    state["grad_avg"] = _zeros_like(param)
            state["step"].add_(1)
            if group["weight_decay"] != 0:
                grad = grad + param * group["weight_decay"]
            square_avg = addcmul_(state["square_avg"].mul_(alpha), grad, grad, 1 - alpha)
            if group["centered"]:
                grad_avg = lerp_(state["grad_avg"], grad, 1 - alpha)
                avg = (square_avg - grad_avg * grad_avg).sqrt()
            else:
                avg = square_avg.sqrt()
            avg = avg.add_(eps)
            if momentum > 0:
                buf = addcdiv_(state["momentum_buffer"].mul_(momentum), grad, avg)
                param.add_(buf, alpha=-lr)
            else:
                addcdiv_(param, grad, avg, -lr)


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False,
                 fused=None):  # fmt: skip
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(lr_decay >= 0.0, f"Invalid lr_decay value: {lr_decay}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _check(initial_accumulator_value >= 0.0,
               f"Invalid initial_accumulator_value value: {initial_accumulator_value}")  # fmt: skip
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)  # fmt: skip
        super().__init__(params, defaults)
        for group in self.param_groups:  # as PyTorch: the state is made at once
            for param in group["params"]:
                state = self.state[param]
                state["step"] = step_tensor()
                state["sum"] = _full_like(param, group["initial_accumulator_value"])

    def _step_group(self, group):
        for param, grad in _gradients(group):
            state = self.state[param]
            state["step"].add_(1)
            step = state["step"].item()
            if group["weight_decay"] != 0:
                grad = grad + param * group["weight_decay"]
            clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
            addcmul_(state["sum"], grad, grad, 1)
            std = state["sum"].sqrt().add_(group["eps"])
            addcdiv_(param, grad, std, -clr)


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):  # fmt: skip
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach,
                        differentiable=differentiable)  # fmt: skip
        super().__init__(params, defaults)

    def _step_group(self, group):
        lr, rho, eps = group["lr"], group["rho"], group["eps"]
        for param, grad in _gradients(group):
            state = self.state[param]
            if not state:
                state["step"] = step_tensor()
                state["square_avg"] = _zeros_like(param)
                state["acc_delta"] = _zeros_like(param)
            state["step"].add_(1)
            if group["weight_decay"] != 0:
                grad = grad + param * group["weight_decay"]
            square_avg = addcmul_(state["square_avg"].mul_(rho), grad, grad, 1 - rho)
            std = (square_avg + eps).sqrt_()
            delta = (state["acc_delta"] + eps).sqrt_().div_(std).mul_(grad)
            addcmul_(state["acc_delta"].mul_(rho), delta, delta, 1 - rho)
            param.add_(delta, alpha=-lr)
