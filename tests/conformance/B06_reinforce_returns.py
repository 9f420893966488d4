# The REINFORCE tutorial's loss: discounted returns through flip/cumsum and cumprod,
# normalised with mean and std, weighted by log_softmax log-probabilities of a linear
# policy; the loss printed in full after each update.
import torch
import torch.nn.functional as F

torch.manual_seed(1)
states = torch.randn(50, 4)
actions = torch.randint(0, 2, (50,))
rewards = torch.rand(50) * 2 - 0.5
gamma = 0.97
discounts = torch.full((50,), gamma).cumprod(0) / gamma
policy = torch.zeros(4, 2, requires_grad=True)
for episode in range(25):
    returns = (rewards * discounts).flip(0).cumsum(0).flip(0) / discounts
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    logp = F.log_softmax(states @ policy, dim=-1)
    chosen = logp.gather(1, actions.unsqueeze(1)).squeeze(1)
    loss = -(chosen * returns).sum()
    loss.backward()
    with torch.no_grad():
        policy -= 0.01 * policy.grad
    policy.grad.zero_()
    if episode % 5 == 0 or episode == 24:
        print(episode, loss.item(), returns.cumsum(0)[-1].item(), returns.var().item())
