# d2l's linear regression from scratch: a generator yields shuffled minibatches; a second
# generator streams running losses back through send(), and one delegates with yield from
import random

import torch

random.seed(7)
torch.manual_seed(7)


def synthetic_data(w, b, num_examples):
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
        yield features[batch_indices], labels[batch_indices]


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


def running_mean():
    total, count = 0.0, 0
    mean = None
    while True:
        value = yield mean
        total += value
        count += 1
        mean = total / count


def epochs(n, batch_size, features, labels):
    for epoch in range(n):
        print("epoch", epoch + 1, "starts")
        done = yield from data_iter(batch_size, features, labels)
        assert done is None


true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 60)

batch_size = 10
gen = data_iter(batch_size, features, labels)
print(type(gen).__name__)
X, y = next(gen)
print(X.shape, y.shape)
print(sum(1 for _ in gen))

w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.03
num_epochs = 3
for epoch in range(num_epochs):
    tracker = running_mean()
    next(tracker)
    for X, y in data_iter(batch_size, features, labels):
        l = squared_loss(linreg(X, w, b), y)
        l.sum().backward()
        sgd([w, b], lr, batch_size)
        avg = tracker.send(l.mean().item())
    tracker.close()
    with torch.no_grad():
        train_l = squared_loss(linreg(features, w, b), labels)
        print(f"epoch {epoch + 1}, loss {float(train_l.mean()):f}, running {avg:.4f}")

steps = 0
for X, y in epochs(2, 20, features, labels):
    steps += 1
print("batches", steps)
w_error = true_w - w.reshape(true_w.shape)
b_error = true_b - b
print(f"w error: {w_error}")
print(f"b error: {b_error}")
