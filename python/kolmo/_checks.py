"""The checks of arguments at the package's boundary, in one place: each names the argument and
raises :class:`kolmo.InputError`, so that bad input never surfaces as a ``TypeError``,
``OverflowError`` or a NumPy warning from deep inside, and never is silently coerced (a float
index truncated, a complex probability's imaginary part dropped, a truthy string taken as True).
"""
from __future__ import annotations

import functools
import math
import os
from fractions import Fraction
from typing import Any, Callable, Optional, TypeVar

import numpy as np

from ._kolmo import InputError, NotCertified

F = TypeVar("F", bound=Callable[..., Any])

#: The largest count the engine takes (steps, rounds, states): a u64 below 2^63.
MAX_COUNT = 2**63 - 1


def is_int(x: Any) -> bool:
    """Whether ``x`` is an integer (Python or NumPy), not a bool."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def integer(x: Any, what: str, lo: int = 0, hi: int = MAX_COUNT) -> int:
    """``x`` as an int in ``[lo, hi]``, or :class:`InputError` naming ``what``."""
    if not is_int(x):
        raise InputError("%s: %r is not an integer" % (what, x))
    if not lo <= int(x) <= hi:
        raise InputError("%s: %d is outside %d to %d" % (what, int(x), lo, hi))
    return int(x)


def flag(x: Any, what: str) -> bool:
    """``x`` as a bool (True, False, or NumPy's), never a truthy string."""
    if not isinstance(x, (bool, np.bool_)):
        raise InputError("%s: %r is not True or False" % (what, x))
    return bool(x)


def is_number(x: Any) -> bool:
    """Whether ``x`` is a real number kolmo takes (int, float, Fraction, NumPy's), not a bool."""
    return isinstance(x, (int, float, Fraction, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


def finite(x: Any, what: str) -> float:
    """``x`` as a finite float, or :class:`InputError` (also for values beyond the float range)."""
    if not is_number(x):
        raise InputError("%s: %r is not a number" % (what, x))
    try:
        v = float(x)
    except OverflowError:
        raise InputError("%s: %r is beyond the floating-point range" % (what, x)) from None
    if not math.isfinite(v):
        raise InputError("%s: %r is not finite" % (what, x))
    return v


def real_array(x: Any, what: str, ndim: Optional[int] = None) -> np.ndarray:
    """``x`` as a float64 NumPy array (complex, ragged or non-numeric input refused)."""
    if x is None or isinstance(x, (str, bytes)):
        raise InputError("%s: %r is not an array of numbers" % (what, x))
    try:
        if np.iscomplexobj(x):
            raise InputError("%s: complex numbers (kolmo takes real probabilities and rewards)" % what)
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as e:
        raise InputError("%s: not an array of real numbers (%s)" % (what, e)) from None
    if ndim is not None and a.ndim != ndim:
        raise InputError("%s: %d dimensions, expected %d (shape %s)" % (what, a.ndim, ndim, a.shape))
    return a


def path(x: Any, what: str) -> str:
    """A file's path (str or os.PathLike; bytes decoded as UTF-8)."""
    if isinstance(x, bytes):
        try:
            return x.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("%s: %r is not a UTF-8 path" % (what, x)) from None
    if isinstance(x, (str, os.PathLike)):
        return os.fspath(x)
    raise InputError("%s: %r is not a path" % (what, x))


def boundary(f: F) -> F:
    """Entry points that call no user code: Python's own conversion errors (``TypeError``,
    ``ValueError``, ``OverflowError``, ``AttributeError``, ``IndexError``) on the arguments become
    :class:`InputError` naming the function; kolmo's own exceptions pass unchanged."""

    @functools.wraps(f)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except (InputError, NotCertified, KeyboardInterrupt):
            raise
        except (TypeError, ValueError, OverflowError, AttributeError, IndexError) as e:
            raise InputError("%s: %s" % (f.__qualname__, e)) from None

    return checked  # type: ignore[return-value]
