# micrograd's `class Value`: a scalar autograd engine written as a Python class with
# __add__/__mul__/__pow__/__radd__/... and its own backward(). One neuron
# tanh(w·x + b) is differentiated by Value and by torch; the gradients agree.
import math

import torch


class Value:
    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, other):
        assert isinstance(other, (int, float)), "only supporting int/float powers for now"
        out = Value(self.data ** other, (self,), f"**{other}")

        def _backward():
            self.grad += (other * self.data ** (other - 1)) * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        t = (math.exp(2 * self.data) - 1) / (math.exp(2 * self.data) + 1)
        out = Value(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t ** 2) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo = []
        visited = set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)
        build_topo(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __repr__(self):
        return f"Value(data={self.data:.4f}, grad={self.grad:.4f})"


x1, x2 = Value(2.0), Value(0.0)
w1, w2 = Value(-3.0), Value(1.0)
bias = Value(6.8813735870195432)
n = x1 * w1 + x2 * w2 + bias
o = n.tanh()
o.backward()
print(o)
print("x1", x1, "w1", w1)
print("x2", x2, "w2", w2)

tx = torch.tensor([2.0, 0.0], dtype=torch.float64, requires_grad=True)
tw = torch.tensor([-3.0, 1.0], dtype=torch.float64, requires_grad=True)
tb = torch.tensor(6.8813735870195432, dtype=torch.float64, requires_grad=True)
out = torch.tanh((tx * tw).sum() + tb)
out.backward()
print(round(out.item(), 4), [round(g, 4) for g in tx.grad.tolist()], [round(g, 4) for g in tw.grad.tolist()])
print(all(abs(v.grad - g) < 1e-9 for v, g in zip([x1, x2, w1, w2], tx.grad.tolist() + tw.grad.tolist())))
