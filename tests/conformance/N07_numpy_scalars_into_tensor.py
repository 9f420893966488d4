# N07 - numpy_scalars_into_tensor
#
# Source:  forum question, "torch.tensor(np.bool_(True)) and friends: which dtype do I get?"
# Teaches: torch.tensor keeps a numpy scalar's dtype (float32 stays float32, numpy's float64 stays
#          float64, np.bool_ gives a bool tensor), in a list too
# Random:  no
import torch
import numpy as np
b = np.bool_(True)
print(torch.tensor(b), torch.tensor(np.float32(2.5)), torch.tensor(np.int64(3)), torch.tensor(np.float64(1.5)).dtype)
print(torch.tensor([np.bool_(False), np.bool_(True)]), torch.tensor([np.float32(1.0), np.float32(2.0)]).dtype)
print(torch.tensor(b, dtype=torch.float32))
