# R18 - print_dtypes_state_dict
#
# Source:  PyTorch docs / tutorials, "Tensors" (attributes, dtypes) and "Saving and loading models"
#          (print the state_dict)
# Teaches: how tensors of each dtype print (dtype suffixes, bool, ints, half, double), large
#          and small magnitude formatting, summarised long tensors, and what model / optimizer
#          state_dicts print
# Covers:  torch.tensor(..., dtype=...) for int8/uint8/int16/int32/int64/float16/float64/bool,
#          .to(), .type(), .half(), scientific notation, arange(1000) summarisation, state_dict()
#          iteration with param_tensor sizes, optimizer.state_dict() print, empty tensors, 0-d tensors
# Random:  yes - torch.manual_seed(0); default init
import torch
import torch.nn as nn
import torch.optim as optim

vals = [1, -2, 3]
for dt in [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]:
    print(torch.tensor(vals, dtype=dt) if dt != torch.uint8 else torch.tensor([1, 2, 3], dtype=dt))
print(torch.tensor([0.1, 2.5, -3.0], dtype=torch.float16))
print(torch.tensor([0.1, 2.5, -3.0], dtype=torch.float64))
print(torch.tensor([True, False]), torch.tensor(3.5), torch.tensor(7))
print(torch.tensor([1e-5, 1.0, 1e5]), torch.tensor([1e10, 1.0]))
print(torch.tensor([123456789.0, 0.5]), torch.tensor([float('inf'), float('nan'), -1.0]))
print(torch.arange(1000))
print(torch.zeros(0, 3), torch.empty(0))
print(torch.ones(2, 2).type(torch.IntTensor), torch.ones(2).half().dtype, torch.ones(2).type())
print(torch.tensor([[1.5, 2.0]]).to(torch.int32), torch.tensor([2.7, -2.7]).long())


class TheModelClass(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 2, 3)
        self.bn = nn.BatchNorm1d(2)
        self.fc1 = nn.Linear(2, 2)


torch.manual_seed(0)
model = TheModelClass()
optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
print("Model's state_dict:")
for param_tensor in model.state_dict():
    print(param_tensor, "\t", model.state_dict()[param_tensor].size())
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])
print(model.state_dict()['fc1.weight'])
print(model.bn.state_dict())
