# A softmax classifier on random data trained with SGD: cross-entropy through log_softmax,
# its softmax probabilities, an accuracy count; the loss printed in full every few steps.
import torch
import torch.nn.functional as F

torch.manual_seed(3)
X = torch.randn(64, 20)
labels = torch.randint(0, 5, (64,))
W = torch.zeros(20, 5, requires_grad=True)
bias = torch.zeros(5, requires_grad=True)
for step in range(30):
    logits = X @ W + bias
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    with torch.no_grad():
        W -= 0.5 * W.grad
        bias -= 0.5 * bias.grad
    W.grad.zero_()
    bias.grad.zero_()
    if step % 5 == 0 or step == 29:
        probs = F.softmax(logits, dim=1)
        acc = (probs.argmax(dim=1) == labels).float().mean()
        print(step, loss.item(), probs.max().item(), acc.item(), F.log_softmax(logits, 1).sum().item())
