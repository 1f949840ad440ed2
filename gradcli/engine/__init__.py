"""The autograd engine: tensors, the op table and the reverse pass, on NumPy.

It imports nothing from the language, the command line or the renderers.
"""
