"""``torch.utils.data``: Dataset, TensorDataset, Subset, random_split, DataLoader.

The DataLoader consumes the CPU generator exactly as torch 2.13 does (single process):
each ``iter(loader)`` draws the iterator's base seed (one 64-bit draw), then a shuffling
loader's RandomSampler draws its own seed and permutes with ``randperm`` on a fresh
generator, so a seeded script sees the same batches and the same later random numbers.
Batches are collated as ``default_collate`` does (tensors stacked, numbers to tensors,
tuples to lists, dicts per key).
"""

from __future__ import annotations

import math

import numpy as np

from .. import diagnostics, dtypes, random, resources
from ..node import display_address
from ..tensor import Tensor
from .init import _gen


class _Obj:
    _addr = None
    _kind = "dataset"

    def __repr__(self):
        return f"<torch.utils.data.{self._kind}.{type(self).__name__} object at {display_address(self)}>"


class Dataset(_Obj):
    """Base class for map-style datasets; scripts subclass it and define ``__getitem__``
    and ``__len__`` (DataLoader indexes it with ints from its sampler)."""

    _script_subclassable = True
    _script_attrs = frozenset()

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")


class TensorDataset(Dataset):
    """Samples are ``tuple(t[i] for t in tensors)``; every tensor needs the same size(0)."""

    _script_attrs = frozenset({"tensors"})

    def __init__(self, *tensors):
        if not tensors or any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tuple(tensors)

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class Subset(Dataset):
    _script_attrs = frozenset({"dataset", "indices"})

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def _randperm(n, generator):
    return _gen(generator).randperm(n).tolist()


def random_split(dataset, lengths, generator=None):
    """Split into non-overlapping Subsets by ``randperm(len(dataset))``; fractions that
    sum to 1 are turned into lengths (floor, then the remainder round-robin), as torch
    2.13, with its warning for an empty split."""
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset.append(math.floor(len(dataset) * frac))
        remainder = len(dataset) - sum(subset)
        for i in range(remainder):
            subset[i % len(subset)] += 1
        lengths = subset
        for i, n in enumerate(lengths):
            if n == 0:
                diagnostics.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.")
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = _randperm(sum(lengths), generator)
    out = []
    offset = 0
    for n in lengths:
        out.append(Subset(dataset, indices[offset:offset + n]))
        offset += n
    return out


def default_collate(batch):
    """torch 2.13 ``default_collate`` for tensors, numpy arrays and scalars, numbers,
    strings, sequences and dicts."""
    from ..numpy_api.ndarray import NDArray
    from ..numpy_api.values import _NpScalar
    from ..ops.shape import stack
    from .creation import as_tensor
    elem = batch[0]
    if type(elem) is NDArray:
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, _NpScalar):
        return Tensor._make(np.array([b._np() if isinstance(b, _NpScalar) else b for b in batch]))
    if isinstance(elem, Tensor):
        if all(not t._requires_grad for t in batch):
            return Tensor._make(np.stack([t._data for t in batch]), elem._dtype)
        return stack(list(batch), 0)
    if isinstance(elem, bool):
        return Tensor._make(np.array(batch, dtype=np.bool_))
    if isinstance(elem, int):
        return Tensor._make(np.array(batch, dtype=np.int64))
    if isinstance(elem, float):
        return Tensor._make(np.array(batch, dtype=np.float64), dtypes.float64)
    if isinstance(elem, str):
        return list(batch)
    if isinstance(elem, dict):
        return {k: default_collate([d[k] for d in batch]) for k in elem}
    if isinstance(elem, (tuple, list)):
        if any(len(e) != len(elem) for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(s)) for s in zip(*batch)]
    raise TypeError("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    f"found {type(elem)}")


def default_convert(data):
    """torch 2.13 ``default_convert`` (what a loader with ``batch_size=None`` applies to
    each sample): tensors and scalars unchanged, tuples become lists, lists and dicts are
    converted element by element."""
    if isinstance(data, dict):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, (tuple, list)):
        return [default_convert(d) for d in data]
    return data


class DataLoader(_Obj):
    """``DataLoader(dataset, batch_size=1, shuffle=False, drop_last=False, collate_fn=None,
    generator=None, ...)`` (workers ignored: one process). ``len()`` counts batches."""

    _kind = "dataloader"
    _script_attrs = frozenset({"dataset", "batch_size", "drop_last", "generator", "num_workers", "collate_fn"})

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None,
                 persistent_workers=False, pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if sampler is not None or batch_sampler is not None:
            raise NotImplementedError("DataLoader with a custom sampler is not supported yet")
        if batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        self.drop_last = drop_last
        self.num_workers = num_workers
        self.collate_fn = collate_fn
        self.generator = generator

    def __len__(self):
        n = len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        gen = _gen(self.generator)
        gen._engine.random64(1)  # the iterator's _base_seed (random_ on an int64 scalar)
        return _Iter(self, gen)


class _Iter(_Obj):
    _kind = "dataloader"
    _script_attrs = frozenset()

    def __init__(self, loader, gen):
        self._loader = loader
        self._gen = gen
        self._order = None
        self._pos = 0

    def __iter__(self):
        return self

    def _indices(self):
        loader = self._loader
        n = len(loader.dataset)
        if not loader.shuffle:
            return range(n)
        resources.check_count(n)
        if loader.generator is None:
            seed = int(random.default_generator._engine.random64(1)[0] % np.uint64(1 << 63))
            g = random.Generator(seed)
        else:
            g = self._gen
        return g.randperm(n).tolist()

    def _sampler_tail(self):
        """torch's RandomSampler ends with ``randperm(n)[:num_samples % n]``: once its
        indices run out it draws one more (discarded) permutation. Only a script's own
        generator sees that draw (without one the sampler permutes on a private generator)."""
        loader = self._loader
        if loader.shuffle and loader.generator is not None and not self._tail_drawn:
            self._tail_drawn = True
            self._gen.randperm(len(self._order))

    def __next__(self):
        loader = self._loader
        if self._order is None:
            self._order = self._indices()
            self._tail_drawn = False
        order = self._order
        if loader.batch_size is None:
            if self._pos >= len(order):
                self._sampler_tail()
                raise StopIteration
            item = loader.dataset[order[self._pos]]
            self._pos += 1
            return default_convert(item) if loader.collate_fn is None else loader.collate_fn(item)
        bs = loader.batch_size
        if self._pos + bs > len(order):
            self._sampler_tail()
        if self._pos >= len(order) or (loader.drop_last and self._pos + bs > len(order)):
            raise StopIteration
        idx = order[self._pos:self._pos + bs]
        self._pos += bs
        ds = loader.dataset
        if loader.collate_fn is None and isinstance(ds, TensorDataset) and \
                not any(t._requires_grad for t in ds.tensors):
            key = np.array(idx, dtype=np.int64)
            return [Tensor._make(np.ascontiguousarray(t._data[key]), t._dtype) for t in ds.tensors]
        samples = [ds[i] for i in idx]
        fn = loader.collate_fn or default_collate
        return fn(samples)


MEMBERS = {"Dataset": Dataset, "TensorDataset": TensorDataset, "Subset": Subset, "DataLoader": DataLoader,
           "random_split": random_split, "default_collate": default_collate,
           "default_convert": default_convert}
