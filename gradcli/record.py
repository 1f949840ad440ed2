"""Small immutable records: what ``@dataclass(frozen=True)`` gives, made cheaply.

A dataclass compiles code for every class when its module is imported; on the
start path of a one-shot command that cost milliseconds. A ``Record`` subclass
declares its fields as annotations, in order, with class-level defaults; a
default wrapped in ``uncompared`` marks a field (a source position) that is
left out of equality, hashing and repr. A subclass declared with
``compared=False`` (results holding arrays) is equal only to itself.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError

_NO_DEFAULT = object()


class uncompared:  # noqa: N801 (used like a function, in a field's default)
    """The default of a field that equality, hashing and repr ignore."""

    __slots__ = ("default",)

    def __init__(self, default):
        self.default = default


class Record:
    """Immutable data with fields from the class annotations (see the module doc)."""

    _fields: tuple[str, ...] = ()
    _compared: tuple[str, ...] = ()
    _defaults: dict[str, object] = {}

    def __init_subclass__(cls, compared: bool = True, **kwargs):
        super().__init_subclass__(**kwargs)
        if not compared:
            cls.__eq__, cls.__hash__ = object.__eq__, object.__hash__
        cls._fields = tuple(cls.__dict__.get("__annotations__", {}))
        cls._defaults = {}
        compared = []
        for name in cls._fields:
            default = cls.__dict__.get(name, _NO_DEFAULT)
            if isinstance(default, uncompared):
                default = default.default
                delattr(cls, name)
            else:
                compared.append(name)
            if default is not _NO_DEFAULT:
                cls._defaults[name] = default
        cls._compared = tuple(compared)

    def __init__(self, *args, **kwargs):
        fields = self._fields
        if not kwargs and len(args) == len(fields):  # the parser's way: every field, in order
            object.__setattr__(self, "__dict__", dict(zip(fields, args)))
            return
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__}() takes {len(fields)} arguments")
        values = dict(zip(fields, args))
        for name, value in kwargs.items():
            if name not in fields or name in values:
                raise TypeError(f"{type(self).__name__}() got a bad argument {name!r}")
            values[name] = value
        for name in fields:
            if name not in values:
                if name not in self._defaults:
                    raise TypeError(f"{type(self).__name__}() is missing {name!r}")
                values[name] = self._defaults[name]
        object.__setattr__(self, "__dict__", values)

    def __setattr__(self, name, value):
        raise _frozen(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise _frozen(f"cannot delete field {name!r}")

    def _key(self) -> tuple:
        return tuple(getattr(self, name) for name in self._compared)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._compared)
        return f"{type(self).__name__}({shown})"


def replace(record: Record, **changes) -> Record:
    """A copy of ``record`` with some fields changed (``dataclasses.replace`` for a Record)."""
    return type(record)(**{**record.__dict__, **changes})


def _frozen(message: str) -> Exception:
    # The exception frozen dataclasses raise, as a Record is one.
    return FrozenInstanceError(message)
