# R27 - embedding_bag_of_words_d2l
#
# Source:  d2l-style sentiment toy (embedding + mean pooling + linear)
# Teaches: nn.Embedding maps token ids to vectors; padding_idx rows stay zero and get no gradient;
#          mean over the sequence gives a fixed-size text vector
# Covers:  nn.Embedding(vocab, dim, padding_idx=0), padded id batches, mask-aware mean with
#          (ids != 0).sum(1, keepdim=True), BCEWithLogitsLoss with squeeze(-1), Adam steps,
#          EmbeddingBackward0, embedding.weight.grad[0] zeros, F.embedding, from_pretrained(freeze=True)
# Random:  yes - torch.manual_seed(0); embedding/linear default init
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
vocab = {'<pad>': 0, 'good': 1, 'bad': 2, 'movie': 3, 'great': 4, 'awful': 5}
sents = [['good', 'movie'], ['awful', 'bad', 'movie'], ['great'], ['bad']]
ids = torch.zeros(len(sents), 3, dtype=torch.long)
for i, s in enumerate(sents):
    ids[i, :len(s)] = torch.tensor([vocab[w] for w in s])
labels = torch.tensor([1.0, 0.0, 1.0, 0.0])
print(ids)


class BoW(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.emb = nn.Embedding(n, d, padding_idx=0)
        self.out = nn.Linear(d, 1)

    def forward(self, x):
        e = self.emb(x)
        lengths = (x != 0).sum(1, keepdim=True)
        return self.out(e.sum(1) / lengths).squeeze(-1)


model = BoW(len(vocab), 4)
print(model, model.emb.weight[0])
opt = torch.optim.Adam(model.parameters(), lr=0.1)
loss_fn = nn.BCEWithLogitsLoss()
for epoch in range(5):
    opt.zero_grad()
    loss = loss_fn(model(ids), labels)
    loss.backward()
    if epoch == 0:
        print(model.emb.weight.grad[0], model.emb(ids).grad_fn)
    opt.step()
print(round(loss.item(), 4), (model(ids) > 0).long())
pre = nn.Embedding.from_pretrained(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print(pre.weight.requires_grad, pre(torch.tensor([1, 0, 1])))
print(F.embedding(torch.tensor([[0, 1]]), torch.eye(2)))
