# Script classes with special methods (micrograd-style Value), inheritance, super(),
# properties, static/class methods, class attributes and the errors Python gives.
import torch


class Value:
    count = 0

    def __init__(self, data, children=(), op=""):
        self.data = data
        self.grad = 0.0
        self._prev = set(children)
        self._op = op
        self._backward = lambda: None
        Value.count += 1

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

    def __pow__(self, k):
        assert isinstance(k, (int, float)), "only int/float powers"
        out = Value(self.data ** k, (self,), f"**{k}")

        def _backward():
            self.grad += k * self.data ** (k - 1) * out.grad
        out._backward = _backward
        return out

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1

    def __lt__(self, other):
        return self.data < (other.data if isinstance(other, Value) else other)

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def backward(self):
        topo = []
        visited = set()

        def build(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build(child)
                topo.append(v)
        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()


a = Value(2.0)
b = Value(-3.0)
c = a * b + 10
d = (c ** 2) / 4 - a
e = 1 - d / 2 + 3 * a
e.backward()
print(a, b, sep="\n")
print(e.data, Value.count > 10, sorted([b, a])[0].data, min(a, b).data)
print(type(a).__name__, a.__class__.__name__, type(a) is Value, isinstance(a, Value))
print(f"{a!r}", "%s|%r" % (b, b))


class Vec:
    def __init__(self, *xs):
        self.xs = list(xs)

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        return self.xs[i]

    def __setitem__(self, i, v):
        self.xs[i] = v

    def __contains__(self, v):
        return v in self.xs

    def __iter__(self):
        return iter(self.xs)

    def __eq__(self, other):
        return isinstance(other, Vec) and self.xs == other.xs

    def __hash__(self):
        return hash(tuple(self.xs))

    def __bool__(self):
        return any(self.xs)

    def __call__(self, k):
        return Vec(*[k * x for x in self.xs])

    def __str__(self):
        return "Vec" + str(tuple(self.xs))


v = Vec(1, 2, 3)
v[0] = 5
print(len(v), v[1], v[-1], 2 in v, 7 in v, list(v), v(2), str(v), bool(Vec(0, 0)), bool(v))
print(v == Vec(5, 2, 3), v != Vec(1), len({v, Vec(5, 2, 3)}), [x * 10 for x in v], sum(v))
a1, b1, c1 = v
print(a1 + b1 + c1)


class Shape:
    sides = 0

    def __init__(self, name):
        self.name = name
        self._scale = 1

    def describe(self):
        return f"{self.name} with {self.sides} sides, area {self.area():.2f}"

    def area(self):
        return 0.0

    @property
    def scale(self):
        return self._scale

    @scale.setter
    def scale(self, s):
        if s <= 0:
            raise ValueError("scale must be positive")
        self._scale = s

    @staticmethod
    def unit():
        return "cm"

    @classmethod
    def named(cls, name):
        return cls(name)


class Square(Shape):
    sides = 4

    def __init__(self, name, side=1.0):
        super().__init__(name)
        self.side = side

    def area(self):
        return (self.side * self.scale) ** 2

    def describe(self):
        return "square: " + super().describe()


class Cube(Square):
    def area(self):
        return 6 * super(Cube, self).area()


s = Square("s", 2.0)
s.scale = 1.5
print(s.describe(), s.scale, Shape.unit(), s.unit(), Square.named("n").describe())
print(Cube("c", 1.0).describe(), isinstance(Cube("x"), Shape), issubclass(Cube, Square), issubclass(Shape, Cube))
print(type(Cube.named("q")).__name__, Shape.sides, Cube.sides, hasattr(s, "side"), hasattr(s, "radius"))
print(getattr(s, "side"), getattr(s, "radius", "none"))
setattr(s, "side", 3.0)
print(s.area())
try:
    s.scale = -1
except ValueError as err:
    print("ValueError:", err)
try:
    Value(1) @ Value(2)
except TypeError as err:
    print("TypeError:", err)
try:
    len(Value(1))
except TypeError as err:
    print("TypeError:", err)
try:
    Shape("x").missing
except AttributeError as err:
    print("AttributeError:", err)
t = torch.tensor([1.0, 2.0], requires_grad=True)
out = (t * Vec(1, 2)[1]).sum()
out.backward()
print(t.grad)
for k in Vec(1, 2):
    print(k, end=" ")
print()
w = Vec()
print(w[0])
