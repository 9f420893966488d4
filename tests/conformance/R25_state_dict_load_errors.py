# R25 - state_dict_load_errors
#
# Source:  GitHub issue / forum, "Error(s) in loading state_dict: Missing key(s) ... Unexpected
#          key(s)" and "size mismatch for fc.weight"
# Teaches: load_state_dict returns <All keys matched successfully> on a match; strict=False reports
#          missing and unexpected keys instead of raising; a shape mismatch always raises
# Covers:  state_dict() keys, load_state_dict(strict=True/False) return value, the result's
#          missing_keys/unexpected_keys, renaming keys with a dict comprehension ("module." prefix),
#          the RuntimeError messages for missing keys and for size mismatch, copying weights between
#          models
# Random:  yes - torch.manual_seed(0); default init
import torch
import torch.nn as nn

torch.manual_seed(0)
src = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
dst = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
print(list(src.state_dict().keys()))
print(dst.load_state_dict(src.state_dict()))
print(torch.equal(dst[2].weight, src[2].weight))
wrapped = {'module.' + k: v for k, v in src.state_dict().items()}
res = dst.load_state_dict(wrapped, strict=False)
print(res.missing_keys, res.unexpected_keys)
fixed = {k.replace('module.', ''): v for k, v in wrapped.items()}
print(dst.load_state_dict(fixed))
partial = dict(src.state_dict())
del partial['2.bias']
try:
    dst.load_state_dict(partial)
except RuntimeError as e:
    print(e)
bigger = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))
try:
    dst.load_state_dict(bigger.state_dict())
except RuntimeError as e:
    print(e)
