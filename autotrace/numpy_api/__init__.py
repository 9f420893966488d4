"""The ``numpy`` scripts import: a sandboxed subset of numpy with numpy's behaviour and
printing (computed by numpy underneath). Scripts get :class:`~.ndarray.NDArray` arrays,
Python-number scalars (``Float64``/``Float32`` print as numpy's), :class:`~.values.NpDType`
dtypes and plain functions; never a numpy module, array, dtype or function object.
:func:`namespaces` gives the importable ``numpy`` and ``numpy.random``; :func:`reset`
starts a run's own random state and print options."""

from __future__ import annotations

import math

import numpy as np

from . import extra, functions, nprandom, printopts
from .ndarray import NDArray
from .values import NpBool, NpDType

_DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64, "int8": np.int8,
           "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
           "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "bool_": np.bool_,
           "bool": np.bool_, "int_": np.int64, "double": np.float64, "single": np.float32,
           "half": np.float16, "intp": np.intp, "longlong": np.longlong, "intc": np.intc}


def reset() -> None:
    nprandom.reset()
    printopts.reset()


def namespaces() -> dict:
    from ..interpreter import typeobj
    from ..torch_api.namespace import Namespace

    typeobj.EXPOSED.update({NDArray, nprandom.RandomState})     # type(a) is np.ndarray, as in numpy
    typeobj.QUALIFIED[NDArray] = "numpy.ndarray"
    typeobj.QUALIFIED[nprandom.RandomState] = "numpy.random.mtrand.RandomState"

    random = Namespace("numpy.random", nprandom.members())
    linalg = Namespace("numpy.linalg", {**functions.linalg_members(), **extra.linalg_members()})
    members = functions.members()
    members.update(extra.members())
    members.update({n: NpDType(t, True) for n, t in _DTYPES.items()})
    members.update(True_=NpBool(True), False_=NpBool(False))
    members.update(pi=math.pi, e=math.e, inf=math.inf, nan=math.nan, newaxis=None,
                   random=random, linalg=linalg, ndarray=NDArray, dtype=_dtype,
                   set_printoptions=printopts.set_printoptions,
                   get_printoptions=printopts.get_printoptions)
    return {"numpy": Namespace("numpy", members), "numpy.random": random, "numpy.linalg": linalg}


def _dtype(d):
    from .values import as_dtype
    return NpDType(as_dtype(d))
