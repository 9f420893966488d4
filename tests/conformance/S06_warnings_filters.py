# S06 - warnings_filters
#
# Source:  course notebooks and Kaggle-style scripts that open with warnings.filterwarnings("ignore");
#          Python docs, the warnings module (filters, catch_warnings)
# Teaches: a script's warnings filters decide for PyTorch's warnings too (the non-leaf .grad warning,
#          the mse_loss broadcast warning); catch_warnings(record=True) collects instead of showing
# Random:  yes - torch.randn
import warnings
import torch
import torch.nn.functional as F
warnings.warn("first")
warnings.warn("dep", DeprecationWarning)
warnings.warn(FutureWarning("future thing"))
x = torch.randn(3, requires_grad=True)
y = x * 2
y.grad
with warnings.catch_warnings(record=True) as w:
    y.grad
    warnings.warn("inside")
print(len(w), [str(i.message)[:20] for i in w], [i.category.__name__ for i in w])
warnings.simplefilter("ignore", UserWarning)
y.grad
warnings.warn("hidden")
warnings.warn("shown", RuntimeWarning)
warnings.resetwarnings()
for i in range(3):
    warnings.warn("default once per line")
warnings.filterwarnings("ignore", message=".*mse")
F.mse_loss(torch.ones(3), torch.ones(3, 1))
warnings.filterwarnings("error", category=FutureWarning)
try:
    warnings.warn("now an error", FutureWarning)
except FutureWarning as e:
    print("caught", e)
try:
    warnings.filterwarnings("bogus")
except AssertionError as e:
    print(e)
try:
    warnings.filterwarnings("ignore", category=int)
except AssertionError as e:
    print(e)
warnings.simplefilter("ignore", int)
warnings.filterwarnings("error", message="boom")
try:
    warnings.warn("Boom goes", UserWarning)
except UserWarning as e:
    print("error filter:", e)
warnings.warn("not boom")
