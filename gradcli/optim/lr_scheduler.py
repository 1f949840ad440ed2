"""``torch.optim.lr_scheduler``: learning rates changed at each ``step()``, as PyTorch's.

A scheduler sets each group's ``initial_lr`` and steps once when made (epoch 0);
each ``step()`` then computes the next rates from the current ones (PyTorch's
recursive forms, so the numbers are its own), or from the epoch when one is given.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from functools import partial

from ..errors import GradcliTypeError, GradcliValueError, NotImplementedByGradcli
from .optimizer import Optimizer

__all__ = ["ConstantLR", "CosineAnnealingLR", "CyclicLR", "ExponentialLR", "LRScheduler",
           "LambdaLR", "LinearLR", "MultiStepLR", "MultiplicativeLR", "OneCycleLR",
           "ReduceLROnPlateau", "SequentialLR", "StepLR"]  # fmt: skip


class LRScheduler:
    _get_lr_called_within_step = False  # set at each step: state_dict's order is PyTorch's
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise GradcliTypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming an optimizer"
                    )
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self):
        """The step a scheduler takes when made (or when SequentialLR reaches it)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def _current(self):
        return [group["lr"] for group in self.optimizer.param_groups]

    def get_lr(self):
        raise NotImplementedError

    def get_last_lr(self):
        return self._last_lr

    def step(self, epoch=None):
        self._step_count += 1
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        self._get_lr_called_within_step = True
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            closed_form = getattr(self, "_get_closed_form_lr", None)
            values = closed_form() if closed_form else self.get_lr()
        self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = self._current()

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


_LRScheduler = LRScheduler


class StepLR(LRScheduler):
    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = {m: list(milestones).count(m) for m in sorted(milestones)}
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return self._current()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._current()]


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):  # noqa: N803 (PyTorch's)
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        t, t_max, eta_min = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current()
        if self._step_count == 1 and t > 0:
            return [eta_min + (base - eta_min) * (1 + math.cos(t * math.pi / t_max)) / 2
                    for base in self.base_lrs]  # fmt: skip
        if (t - 1 - t_max) % (2 * t_max) == 0:
            return [lr + (base - eta_min) * (1 - math.cos(math.pi / t_max)) / 2
                    for base, lr in zip(self.base_lrs, self._current())]  # fmt: skip
        return [(1 + math.cos(math.pi * t / t_max)) / (1 + math.cos(math.pi * (t - 1) / t_max))
                * (lr - eta_min) + eta_min for lr in self._current()]  # fmt: skip

    def _get_closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]  # fmt: skip


class LambdaLR(LRScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        groups = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != groups:
                raise ValueError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * groups
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]

    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None] * len(self.lr_lambdas)
        return state


class MultiplicativeLR(LambdaLR):
    """Each step multiplies the current rate by ``lr_lambda(epoch)``."""

    def get_lr(self):
        if self._is_initial:
            return self._current()
        return [lr * f(self.last_epoch) for f, lr in zip(self.lr_lambdas, self._current())]


class ConstantLR(LRScheduler):
    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise GradcliValueError(
                "Constant multiplicative factor expected to be between 0 and 1."
            )
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current()]
        if self.last_epoch != self.total_iters:
            return self._current()
        return [lr * (1.0 / self.factor) for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self.base_lrs]  # fmt: skip


class LinearLR(LRScheduler):
    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):  # fmt: skip
        if start_factor > 1.0 or start_factor <= 0:
            raise GradcliValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise GradcliValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        change = self.end_factor - self.start_factor
        return [lr * (1.0 + change / (self.total_iters * self.start_factor
                                      + (self.last_epoch - 1) * change))
                for lr in self._current()]  # fmt: skip

    def _get_closed_form_lr(self):
        return [base * (self.start_factor + (self.end_factor - self.start_factor)
                        * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base in self.base_lrs]  # fmt: skip


class SequentialLR(LRScheduler):
    """``schedulers[i]`` from epoch ``milestones[i - 1]`` on, each restarted there."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        name = type(self).__name__
        if len(schedulers) < 1:
            raise GradcliValueError(f"{name} expects at least one scheduler, but got no scheduler.")
        for i, scheduler in enumerate(schedulers):
            if isinstance(scheduler, ReduceLROnPlateau):
                raise GradcliValueError(
                    f"{name} does not support `ReduceLROnPlateau` scheduler as it requires "
                    "additional kwargs to be specified when calling `step`, but got one at "
                    f"index {i} in the given schedulers sequence."
                )
            if optimizer is not scheduler.optimizer:
                raise GradcliValueError(
                    f"{name} expects all schedulers to belong to the same optimizer, but got "
                    f"scheduler {type(scheduler).__name__} at index {i} has "
                    f"{scheduler.optimizer}, which is different from "
                    f"{type(optimizer).__name__}."
                )
        if len(milestones) != len(schedulers) - 1:
            raise GradcliValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers, self._milestones = schedulers, milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:  # undo what the schedulers' first steps did
            group["lr"] = group["initial_lr"]
        for scheduler in schedulers:
            scheduler.last_epoch -= 1
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        schedulers = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for mine, saved in zip(self._schedulers, schedulers):
            mine.load_state_dict(saved)


class ReduceLROnPlateau(LRScheduler):
    """The rates times ``factor`` once the metric given to ``step`` has not improved for
    more than ``patience`` epochs (then ``cooldown`` epochs of rest)."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):  # fmt: skip
        if factor >= 1.0:
            raise GradcliValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise GradcliTypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise GradcliValueError(
                    f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}"
                )
            self.default_min_lr, self.min_lrs = None, list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = self._current()
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        current = float(metrics)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._current()

    def _reduce_lr(self):
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise GradcliValueError(
                    "The number of param groups in the `optimizer` differs from when "
                    "`ReduceLROnPlateau` was initialized"
                )
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for group, min_lr in zip(self.optimizer.param_groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise GradcliValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise GradcliValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


def _format_param(name, optimizer, param):
    """One value per parameter group: the list given, or the one value repeated."""
    groups = len(optimizer.param_groups)
    if isinstance(param, (list, tuple)):
        if len(param) != groups:
            raise GradcliValueError(
                f"{name} must have the same length as optimizer.param_groups. {name} has "
                f"{len(param)} values, param_groups has {groups}."
            )
        return list(param)
    return [param] * groups


def _momentum_options(scheduler, optimizer, max_momentum, base_momentum, resuming):
    """Cycling momentum: SGD's ``momentum`` or Adam's first beta, from ``max_momentum``."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise GradcliValueError(
            "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
        )
    scheduler.use_beta1 = "betas" in optimizer.defaults
    max_momentums = _format_param("max_momentum", optimizer, max_momentum)
    base_momentums = _format_param("base_momentum", optimizer, base_momentum)
    if not resuming:
        for high, low, group in zip(max_momentums, base_momentums, optimizer.param_groups):
            _set_momentum(scheduler, group, high)
            group["max_momentum"], group["base_momentum"] = high, low
    return max_momentums, base_momentums


def _set_momentum(scheduler, group, momentum):
    if scheduler.use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


class CyclicLR(LRScheduler):
    """Rates cycling between ``base_lr`` and ``max_lr`` (momentum the other way)."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9,
                 last_epoch=-1):  # fmt: skip
        if not isinstance(optimizer, Optimizer):
            raise GradcliTypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise GradcliValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom, self.scale_mode = scale_fn, scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.max_momentums, self.base_momentums = _momentum_options(
                self, optimizer, max_momentum, base_momentum, last_epoch != -1
            )
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref, self.scale_mode = (lambda x: 1.0), "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref, self.scale_mode = (lambda x: 1 / (2.0 ** (x - 1))), "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(pow, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x):
        return (self._scale_fn_custom or self._scale_fn_ref)(x)

    def get_lr(self):
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [base + (high - base) * scale_factor * self.scale_fn(at)
               for base, high in zip(self.base_lrs, self.max_lrs)]  # fmt: skip
        if self.cycle_momentum:
            for group, low, high in zip(self.optimizer.param_groups, self.base_momentums,
                                        self.max_momentums):  # fmt: skip
                _set_momentum(self, group, high - (high - low) * scale_factor * self.scale_fn(at))
        return lrs

    def state_dict(self):
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        state["_scale_fn_custom"] = None
        return state


class OneCycleLR(LRScheduler):
    """The 1cycle policy: rates from ``max_lr / div_factor`` up to ``max_lr`` over
    ``pct_start`` of the steps, then down to ``initial_lr / final_div_factor``."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True,
                 base_momentum=0.85, max_momentum=0.95, div_factor=25.0,
                 final_div_factor=1e4, three_phase=False, last_epoch=-1):  # fmt: skip
        if not isinstance(optimizer, Optimizer):
            raise GradcliTypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise GradcliValueError(
                    f"Expected positive integer total_steps, but got {total_steps}"
                )
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise GradcliValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise GradcliValueError(
                    f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
                )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise GradcliValueError(
                "You must define either total_steps OR (epochs AND steps_per_epoch)"
            )
        up = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                _phase(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(
                    float(2 * pct_start * self.total_steps) - 2,
                    "max_lr",
                    "initial_lr",
                    "base_momentum",
                    "max_momentum",
                ),  # fmt: skip
                _phase(
                    self.total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"
                ),  # fmt: skip
            ]
        else:
            self._schedule_phases = [
                _phase(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(
                    self.total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"
                ),  # fmt: skip
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise GradcliValueError(
                f"Expected float between 0 and 1 pct_start, but got {pct_start}"
            )
        if anneal_strategy not in ["cos", "linear"]:
            raise GradcliValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for high, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = high / div_factor
                group["max_lr"] = high
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _momentum_options(self, optimizer, max_momentum, base_momentum, last_epoch != -1)
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise GradcliValueError(
                f"Tried to step {step_num} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lrs.append(self._anneal_func(group[phase["start_lr"]],
                                                 group[phase["end_lr"]], pct))  # fmt: skip
                    if self.cycle_momentum:
                        momentum = self._anneal_func(group[phase["start_momentum"]],
                                                     group[phase["end_momentum"]], pct)  # fmt: skip
                        _set_momentum(self, group, momentum)
                    break
                start_step = phase["end_step"]
        return lrs


def _phase(end_step, start_lr, end_lr, start_momentum, end_momentum):
    return dict(end_step=end_step, start_lr=start_lr, end_lr=end_lr,
                start_momentum=start_momentum, end_momentum=end_momentum)  # fmt: skip


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedByGradcli(
        f"gradcli has no torch.optim.lr_scheduler.{name} yet: the schedulers it has are "
        + ", ".join(n for n in __all__ if n != "LRScheduler")
    )
