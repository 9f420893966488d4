# R03 - dataset_dataloader_diabetes_zh
#
# Source:  Chinese course notes (刘二大人-style lecture "加载数据集": Dataset and DataLoader)
# Teaches: a Dataset subclass defines __getitem__ and __len__; DataLoader batches it; the training
#          loop becomes two nested loops (epochs x mini-batches)
# Covers:  from torch.utils.data import Dataset, DataLoader; a synthetic table built with
#          torch.arange/.remainder; enumerate(train_loader, 0); batch shapes; a 3-layer sigmoid MLP;
#          BCELoss(reduction='mean'); len(dataset), len(loader); drop_last
# Random:  yes - torch.manual_seed(0); default init, shuffle=False
import torch
from torch.utils.data import Dataset, DataLoader


class DiabetesDataset(Dataset):
    def __init__(self, n):
        feats = torch.arange(n * 8, dtype=torch.float32).reshape(n, 8)
        self.x_data = (feats.remainder(7.0) - 3.0) / 3.0
        self.y_data = (self.x_data.sum(1, keepdim=True) > 0).float()
        self.len = n

    def __getitem__(self, index):
        return self.x_data[index], self.y_data[index]

    def __len__(self):
        return self.len


dataset = DiabetesDataset(10)
train_loader = DataLoader(dataset=dataset, batch_size=4, shuffle=False)
print(len(dataset), len(train_loader))
print(dataset[3])


class Model(torch.nn.Module):
    def __init__(self):
        super(Model, self).__init__()
        self.linear1 = torch.nn.Linear(8, 6)
        self.linear2 = torch.nn.Linear(6, 4)
        self.linear3 = torch.nn.Linear(4, 1)
        self.sigmoid = torch.nn.Sigmoid()

    def forward(self, x):
        x = self.sigmoid(self.linear1(x))
        x = self.sigmoid(self.linear2(x))
        x = self.sigmoid(self.linear3(x))
        return x


torch.manual_seed(0)
model = Model()
criterion = torch.nn.BCELoss(reduction='mean')
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    for i, data in enumerate(train_loader, 0):
        inputs, labels = data
        y_pred = model(inputs)
        loss = criterion(y_pred, labels)
        if epoch == 0:
            print(i, inputs.shape, labels.shape, round(loss.item(), 5))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
print(round(loss.item(), 5))
dl = DataLoader(dataset, batch_size=4, drop_last=True)
print(len(dl), [b[0].shape[0] for b in dl])
