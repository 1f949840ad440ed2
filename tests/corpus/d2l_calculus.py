# follows: Dive into Deep Learning (d2l.ai), section 2.4 "Calculus" (Derivatives and
#   Differentiation), https://d2l.ai/chapter_preliminaries/calculus.html
"""The difference quotient of f(x) = 3x**2 - 4x at 1 as h shrinks, against the
derivative autograd gives there, and the tangent line through (1, f(1))."""

import torch


def f(x):
    return 3 * x**2 - 4 * x


for h in 10.0 ** torch.arange(-1, -6, -1, dtype=torch.float64):
    print(f"h={h:.5f}, numerical limit={(f(1 + h) - f(1)) / h:.5f}")

x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
y = f(x)
y.backward()
print(x.grad)
points = torch.arange(0, 3, 0.5, dtype=torch.float64)
tangent = 2 * points - 3
print(tangent, f(points))
