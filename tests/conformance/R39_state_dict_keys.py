# R39 - state_dict_keys
#
# Source:  forum question, "why does state_dict().keys() print odict_keys?"
# Teaches: state_dict() is an OrderedDict; its views print as odict_keys and behave as sets
# Random:  yes - default nn.Linear init
import torch
import torch.nn as nn
net = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
sd = net.state_dict()
print(sd.keys())
print(sd.values().__class__.__name__ if False else len(sd.values()))
for k, v in sd.items():
    print(k, v.shape)
print(list(sd.keys()), sorted(sd.keys()), 'fc' in sd.keys(), len(sd.keys()))
ks = sd.keys()
print(ks == {'0.weight', '0.bias'}, ks & {'0.bias'})
print(reversed(sd.keys()) is not None, list(reversed(sd.keys())))
