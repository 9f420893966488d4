# R35 - pad_sequence_gru_classifier
#
# Source:  PyTorch forum, "How to batch variable-length sentences for a GRU classifier
#          (pad_sequence + mask)"
# Teaches: pad_sequence turns a list of token-id tensors of different lengths into one padded
#          batch; a mask built from the lengths keeps padding out of the pooled representation
# Covers:  torch.nn.utils.rnn.pad_sequence (batch_first, padding_value), lengths with torch.tensor,
#          arange(max_len)[None, :] < lengths[:, None] masks, nn.Embedding(padding_idx=0),
#          nn.GRU(batch_first=True), masked mean pooling, CrossEntropyLoss, Adam, argmax accuracy
# Random:  yes - torch.manual_seed(0); Embedding/GRU/Linear default init
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(0)
sentences = [torch.tensor([3, 1, 4, 1]), torch.tensor([5, 9]), torch.tensor([2, 6, 5]), torch.tensor([7])]
labels = torch.tensor([1, 0, 1, 0])
batch = pad_sequence(sentences, batch_first=True)
lengths = torch.tensor([len(s) for s in sentences])
print(batch)
print(pad_sequence(sentences, padding_value=-1).shape, lengths)
mask = torch.arange(batch.size(1))[None, :] < lengths[:, None]
print(mask)


class Classifier(nn.Module):
    def __init__(self, vocab, dim, hidden, classes):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.rnn = nn.GRU(dim, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, classes)

    def forward(self, x, mask):
        out, _ = self.rnn(self.emb(x))
        m = mask.unsqueeze(-1).float()
        pooled = (out * m).sum(1) / m.sum(1)
        return self.fc(pooled)


model = Classifier(10, 4, 5, 2)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
loss_fn = nn.CrossEntropyLoss()
for step in range(4):
    logits = model(batch, mask)
    loss = loss_fn(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5))
with torch.no_grad():
    pred = model(batch, mask).argmax(dim=1)
print(pred, (pred == labels).float().mean().item())
feats = [torch.randn(2, 3, requires_grad=True), torch.randn(1, 3)]
padded = pad_sequence(feats)
print(padded.shape, padded.grad_fn)
padded.sum().backward()
print(feats[0].grad)
