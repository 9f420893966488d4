# backward() article, best practices: no_grad for inference, clip_grad_norm_ for training,
# zeroing gradients every step. The article's fragments, made runnable with a small model.
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
input_data = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
target = torch.tensor([[1.0], [0.0]])

with torch.no_grad():
    predictions = model(input_data)
print(predictions.requires_grad, predictions.grad_fn)

loss = ((model(input_data) - target) ** 2).mean()
loss.backward()
total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(f"梯度范数 (裁剪前): {total_norm:.4f}")
print(f"裁剪后: {torch.cat([p.grad.flatten() for p in model.parameters()]).norm():.4f}")

model.zero_grad()
print(model.weight.grad, model.bias.grad)
