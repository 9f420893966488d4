"""nn.MultiheadAttention, F.multi_head_attention_forward and F.scaled_dot_product_attention
against torch 2.13: one generated script per configuration (shapes, heads, masks,
batch_first, kdim/vdim, bias, add_bias_kv, add_zero_attn, dropout, need_weights) runs under
torch and under autotrace; the printed grad_fn chains must be equal, the parameters,
outputs, attention weights and every gradient equal within float32 rounding. Errors keep
torch's types and messages; scripts cannot reach the module's internals."""

from __future__ import annotations

import ast
import contextlib
import io
import random
import warnings

import numpy as np
import pytest

from autotrace import runner
from helpers import require_torch

torch = require_torch()

CHAIN = '''
def chain(f, depth):
    if f is None or depth == 0:
        return None
    return [f.name(), [chain(n, depth - 1) for n, _ in f.next_functions]]
'''


def run_torch(src):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(src, "<torch>", "exec"), {"__name__": "__main__"})
    return out.getvalue()


def run_ours(src):
    t = runner.run(src, "<autotrace>", options=runner.Options(keep_values=False))
    assert t.error is None, (t.error, src)
    return t.stdout


def compare(src, rtol=1e-5, atol=1e-6):
    """Run ``src`` under both; lines starting ``V `` hold numbers (compared within
    float32 rounding), every other line must be identical. Returns the torch lines."""
    want, got = run_torch(src).splitlines(), run_ours(src).splitlines()
    assert len(want) == len(got), (want, got)
    for w, g in zip(want, got):
        if w.startswith("V ") and g.startswith("V "):
            wn, gn = ast.literal_eval(w[2:].replace("nan", "None")), ast.literal_eval(g[2:].replace("nan", "None"))
            if wn is None or gn is None:
                assert wn == gn, (w, g)
                continue
            np.testing.assert_allclose(np.array(gn, dtype=float), np.array(wn, dtype=float), rtol=rtol, atol=atol,
                                       err_msg=w[:60])
        else:
            assert w == g, src
    return want


def mha_script(seed, c):
    """The script of one configuration ``c`` (a dict drawn by :func:`configs`)."""
    E, H, L, S, N = c["E"], c["H"], c["L"], c["S"], c["N"]
    kdim, vdim = c["kdim"] or E, c["vdim"] or E
    batched = N is not None

    def shape(seq, dim):
        if not batched:
            return f"({seq}, {dim})"
        return f"({N}, {seq}, {dim})" if c["batch_first"] else f"({seq}, {N}, {dim})"

    lines = ["import torch", "import torch.nn as nn", CHAIN, f"torch.manual_seed({seed})",
             f"m = nn.MultiheadAttention({E}, {H}, dropout={c['dropout']}, bias={c['bias']}, "
             f"add_bias_kv={c['bias_kv']}, add_zero_attn={c['zero_attn']}, kdim={c['kdim']}, vdim={c['vdim']}, "
             f"batch_first={c['batch_first']})"]
    if not c["train"]:
        lines.append("m.eval()")
    lines.append(f"q = torch.randn{shape(L, E)}.requires_grad_()")
    if c["same"] == "qkv":
        lines.append("k = v = q")
    elif c["same"] == "kv":
        lines.append(f"k = v = torch.randn{shape(S, kdim)}.requires_grad_()")
    else:
        lines.append(f"k = torch.randn{shape(S, kdim)}.requires_grad_()")
        lines.append(f"v = torch.randn{shape(S, vdim)}.requires_grad_()")
    Sk = L if c["same"] == "qkv" else S
    kpm = am = "None"
    if c["kpm"] == "bool":
        lines.append(f"kpm = torch.rand({N or ''}{', ' if batched else ''}{Sk}) > 0.6")
        lines.append("kpm[..., 0] = False")
        kpm = "kpm"
    elif c["kpm"] == "float":
        lines.append(f"kpm = torch.randn({N or ''}{', ' if batched else ''}{Sk})")
        kpm = "kpm"
    am_shape = f"({L}, {Sk})" if c["am3"] is False else f"({(N or 1) * H}, {L}, {Sk})"
    if c["am"] == "bool":
        lines.append(f"am = torch.rand{am_shape} > 0.6")
        lines.append("am[..., 0] = False")
        am = "am"
    elif c["am"] == "float":
        lines.append(f"am = torch.randn{am_shape}")
        am = "am"
    elif c["am"] == "causal":
        lines.append(f"am = torch.triu(torch.full(({L}, {Sk}), float('-inf')), diagonal=1)")
        am = "am"
    lines += [
        f"o, w = m(q, k, v, key_padding_mask={kpm}, need_weights={c['need_weights']}, attn_mask={am}, "
        f"average_attn_weights={c['average']}, is_causal={c['is_causal']})",
        "print(m)",
        "for n, p in m.named_parameters():",
        "    print(n, tuple(p.shape))",
        "    print('V', p.tolist())",
        "print(chain(o.grad_fn, 7))",
        "print(chain(w.grad_fn, 4) if w is not None else None)",
        "print(tuple(o.shape), o.stride(), None if w is None else tuple(w.shape))",
        "print('V', o.tolist())",
        "print('V', None if w is None else w.tolist())",
        "loss = (o * torch.randn(o.shape)).sum()",
        "if w is not None:",
        "    loss = loss + (w * torch.randn(w.shape)).sum()",
        "loss.backward()",
        "for t in (q, k, v):",
        "    print('V', t.grad.tolist())",
        "for n, p in m.named_parameters():",
        "    print(n, p.grad is None)",
        "    print('V', None if p.grad is None else p.grad.tolist())",
    ]
    return "\n".join(lines) + "\n"


def configs(n, seed):
    r = random.Random(seed)
    out = []
    for _ in range(n):
        H = r.choice([1, 2, 3, 4])
        E = H * r.choice([1, 2, 3])
        c = dict(E=E, H=H, L=r.randint(1, 5), S=r.randint(1, 5), N=r.choice([None, 1, 2, 3]),
                 batch_first=r.random() < 0.5, same=r.choice(["qkv", "kv", "none"]),
                 kdim=None, vdim=None, bias=r.random() < 0.8, bias_kv=r.random() < 0.2,
                 zero_attn=r.random() < 0.2, dropout=0.0, train=r.random() < 0.7,
                 kpm=r.choice([None, None, "bool", "float"]), am=r.choice([None, "bool", "float", "causal"]),
                 am3=r.random() < 0.3, need_weights=r.random() < 0.6, average=r.random() < 0.6, is_causal=False)
        if c["same"] != "qkv" and r.random() < 0.4:
            c["kdim"], c["vdim"] = r.randint(1, 5), r.randint(1, 5)
            if c["same"] == "kv":
                c["vdim"] = c["kdim"]
        if c["kpm"] and c["am"] and c["am"] != "causal" and r.random() < 0.7:
            c["kpm"] = c["am"]          # mismatched mask dtypes warn; most tests keep them equal
        if c["am"] == "causal" and r.random() < 0.5:
            c["is_causal"] = True
        if r.random() < 0.15:
            c["dropout"] = 0.3
        out.append(c)
    return out


CONFIGS = configs(48, 2013)


@pytest.mark.parametrize("i", range(len(CONFIGS)))
def test_multihead_attention_against_torch(i):
    compare(mha_script(100 + i, CONFIGS[i]))


def test_named_configurations_against_torch():
    base = dict(E=8, H=2, L=4, S=3, N=2, batch_first=True, same="none", kdim=None, vdim=None, bias=True,
                bias_kv=False, zero_attn=False, dropout=0.0, train=True, kpm=None, am=None, am3=False,
                need_weights=True, average=True, is_causal=False)
    for change in ({}, {"same": "qkv"}, {"same": "kv"}, {"kdim": 3, "vdim": 5}, {"bias": False},
                   {"bias_kv": True, "zero_attn": True, "kpm": "bool", "am": "bool"},
                   {"need_weights": False}, {"need_weights": False, "same": "qkv", "am": "float"},
                   {"need_weights": False, "am": "causal", "is_causal": True, "same": "qkv"},
                   {"dropout": 0.5}, {"dropout": 0.5, "need_weights": False}, {"N": None},
                   {"average": False, "am": "float", "am3": True}, {"train": False}):
        compare(mha_script(7, dict(base, **change)))


SDPA = CHAIN + '''
import torch
import torch.nn.functional as F
torch.manual_seed({seed})
q = torch.randn{q}.requires_grad_()
k = torch.randn{k}.requires_grad_()
v = torch.randn{v}.requires_grad_()
mask = {mask}
o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p={p}, is_causal={causal}, scale={scale})
print(chain(o.grad_fn, 3))
print(tuple(o.shape), o.stride())
print('V', o.tolist())
(o * torch.randn(o.shape)).sum().backward()
for t in (q, k, v):
    print('V', t.grad.tolist())
'''


def sdpa_cases(n, seed):
    r = random.Random(seed)
    for _ in range(n):
        B, H, L, S, E = (r.randint(1, 3) for _ in range(5))
        Ev = E if r.random() < 0.8 else r.randint(1, 4)
        lead = r.choice([(B, H), (B, H), (H,), (B, 1, H)])
        kb = lead if r.random() < 0.85 else (1,) + lead[1:]
        mask = r.choice(["None", "bool", "float", "float3"])
        if mask == "bool":
            mask = f"torch.rand({L}, {S}) > 0.5"
        elif mask == "float":
            mask = f"torch.randn{(1,) * (len(lead) - 1) + (1, L, S) if r.random() < 0.5 else (L, S)}"
        elif mask == "float3":
            mask = f"torch.randn(1, {L}, {S})"
        causal = mask == "None" and r.random() < 0.3
        yield dict(q=lead + (L, E), k=kb + (S, E), v=kb + (S, Ev), mask=mask, causal=causal,
                   p=0.3 if r.random() < 0.1 else 0.0, scale=r.choice(["None", "0.4", "-1.5"]))


SDPA_CASES = list(sdpa_cases(40, 11))


@pytest.mark.parametrize("i", range(len(SDPA_CASES)))
def test_scaled_dot_product_attention_against_torch(i):
    """The kernel torch picks (flash node or math composite) and its numbers."""
    c = SDPA_CASES[i]
    compare(SDPA.format(seed=i, **c))


def test_flash_kernel_is_the_node_for_4d_inputs():
    lines = compare(SDPA.format(seed=1, q=(2, 3, 4, 5), k=(2, 3, 6, 5), v=(2, 3, 6, 5), mask="None", causal=False,
                                p=0.0, scale="None"))
    assert lines[0].startswith("['ScaledDotProductFlashAttentionForCpuBackward0', [['torch::autograd::AccumulateGrad'")


def test_flash_layout_follows_the_query_and_masked_rows_are_zero():
    src = CHAIN + '''
import torch
import torch.nn.functional as F
torch.manual_seed(3)
base = torch.randn(4, 2, 3, 5, requires_grad=True)
q = base.permute(1, 2, 0, 3)
k = torch.randn(2, 3, 6, 5, requires_grad=True)
v = torch.randn(2, 3, 6, 5, requires_grad=True)
mask = torch.ones(4, 6, dtype=torch.bool)
mask[1] = False
o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
print(o.stride(), o.is_contiguous(), chain(o.grad_fn, 2))
print('V', o.tolist())
o.sum().backward()
print('V', base.grad.tolist())
print('V', k.grad.tolist())
'''
    lines = compare(src)
    assert lines[0].startswith("(15, 5, 30, 1) False")


def test_flash_node_saved_values():
    src = '''import torch
import torch.nn.functional as F
torch.manual_seed(2)
q = torch.randn(1, 2, 3, 4, requires_grad=True)
for kw in ({'attn_mask': torch.randn(3, 3)}, {'is_causal': True, 'scale': 0.5}):
    g = F.scaled_dot_product_attention(q, q * 2, q, **kw).grad_fn
    print(g._saved_query.shape, g._saved_key.grad_fn.name(), g._saved_logsumexp.shape, g._saved_output.shape)
    print(g._saved_attn_mask is None, g._saved_scale, g._saved_dropout_p, g._saved_is_causal)
    print('V', g._saved_logsumexp.tolist())
'''
    compare(src)


def test_flash_backward_has_no_second_derivative():
    src = '''import torch
import torch.nn.functional as F
q, k, v = (torch.randn(1, 2, 3, 4, dtype=torch.float64, requires_grad=True) for _ in range(3))
o = F.scaled_dot_product_attention(q, k, v)
g = torch.autograd.grad(o.sum(), (q, k, v), create_graph=True)
print(g[0].grad_fn.name())
try:
    g[0].sum().backward()
except RuntimeError as e:
    print(e)
'''
    assert run_ours(src) == run_torch(src)


def test_functional_multi_head_attention_forward_against_torch():
    src = CHAIN + '''
import torch
import torch.nn.functional as F
torch.manual_seed(5)
E, H = 6, 3
x = torch.randn(4, 2, E, requires_grad=True)
mem = torch.randn(5, 2, E, requires_grad=True)
w_in = torch.randn(3 * E, E, requires_grad=True)
b_in = torch.randn(3 * E, requires_grad=True)
w_out = torch.randn(E, E, requires_grad=True)
b_out = torch.randn(E, requires_grad=True)
bk = torch.randn(1, 1, E, requires_grad=True)
bv = torch.randn(1, 1, E, requires_grad=True)
for args in ((x, x, x), (x, mem, mem), (x, mem, mem * 2)):
    o, w = F.multi_head_attention_forward(*args, E, H, w_in, b_in, bk, bv, True, 0.0, w_out, b_out,
                                          average_attn_weights=False)
    print(chain(o.grad_fn, 8))
    print('V', o.tolist())
    print('V', w.tolist())
    (o.sum() + w.sum()).backward()
    for t in (x, mem, w_in, b_in, w_out, b_out, bk, bv):
        print('V', None if t.grad is None else t.grad.tolist())
        t.grad = None
'''
    compare(src)


def test_float64_module_and_inputs():
    src = CHAIN + '''
import torch
import torch.nn as nn
torch.manual_seed(4)
m = nn.MultiheadAttention(6, 3, kdim=4, vdim=2, dtype=torch.float64)
q = torch.randn(3, 2, 6, dtype=torch.float64, requires_grad=True)
k = torch.randn(5, 2, 4, dtype=torch.float64, requires_grad=True)
v = torch.randn(5, 2, 2, dtype=torch.float64, requires_grad=True)
for nw in (True, False):
    o, w = m(q, k, v, key_padding_mask=torch.tensor([[False, True, False, False, True]] * 2), need_weights=nw)
    print(o.dtype, chain(o.grad_fn, 6))
    print('V', o.tolist())
    o.pow(2).sum().backward()
    for t in (q, k, v, m.q_proj_weight, m.k_proj_weight, m.v_proj_weight, m.in_proj_bias):
        print('V', t.grad.tolist())
        t.grad = None
'''
    compare(src, rtol=1e-12, atol=1e-12)


def test_initial_parameters_follow_torchs_generator():
    src = '''import torch
import torch.nn as nn
torch.manual_seed(0)
for kw in ({}, {'bias': False}, {'kdim': 3, 'vdim': 2}, {'add_bias_kv': True}, {'dtype': torch.float64}):
    m = nn.MultiheadAttention(6, 2, **kw)
    for n, p in m.named_parameters():
        print(n, p.dtype, p.requires_grad)
        print('V', p.tolist())
    print(m.bias_k is None, m.head_dim, m.kdim, m.vdim, m.batch_first, type(m.out_proj))
print('V', torch.rand(3).tolist())
'''
    compare(src, rtol=0, atol=0)


def test_inference_fast_path_layout():
    """eval() under no_grad: torch's fused path returns contiguous outputs; values agree."""
    src = '''import torch
import torch.nn as nn
torch.manual_seed(0)
m = nn.MultiheadAttention(8, 2, batch_first=True)
m.eval()
x = torch.randn(2, 5, 8)
kpm = torch.zeros(2, 5, dtype=torch.bool)
kpm[1, 3:] = True
with torch.no_grad():
    for kw in ({}, {'need_weights': False}, {'key_padding_mask': kpm}, {'attn_mask': torch.randn(5, 5)},
               {'attn_mask': torch.triu(torch.ones(5, 5, dtype=torch.bool), 1), 'average_attn_weights': False}):
        o, w = m(x, x, x, **kw)
        print(o.stride(), o.requires_grad, None if w is None else (tuple(w.shape), w.stride()))
        print('V', o.tolist())
        print('V', None if w is None else w.tolist())
m.train()
with torch.no_grad():
    print(m(x, x, x)[0].stride())
m.eval()
print(m(x, x, x)[0].stride(), m(x, x.clone(), x)[0].stride())
'''
    lines = compare(src, rtol=1e-4, atol=1e-5)
    assert lines[0].startswith("(40, 8, 1) False") and lines[-1] == "(8, 16, 1) (8, 16, 1)"


def test_mismatched_mask_types_warn_as_torch():
    src = '''import torch
import torch.nn as nn
import warnings
torch.manual_seed(0)
m = nn.MultiheadAttention(4, 2)
x = torch.randn(3, 2, 4)
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter('always')
    o, w = m(x, x, x, key_padding_mask=torch.zeros(2, 3, dtype=torch.bool), attn_mask=torch.zeros(3, 3))
print([str(x.message) for x in ws])
print('V', o.tolist())
'''
    compare(src)


ERRORS = [
    "nn.MultiheadAttention(5, 2)",
    "nn.MultiheadAttention(0, 2)",
    "nn.MultiheadAttention(4, -1)",
    "m(torch.randn(2, 3, 4, 4), x, x)",
    "m(x, torch.randn(3, 4), x)",
    "m(x, x, x, key_padding_mask=torch.zeros(3, dtype=torch.bool))",
    "m(x, x, x, key_padding_mask=torch.zeros(2, 4, dtype=torch.bool))",
    "m(x, x, x, key_padding_mask=torch.zeros(2, 3, dtype=torch.long))",
    "m(x, x, x, attn_mask=torch.zeros(3, 4))",
    "m(x, x, x, attn_mask=torch.zeros(3, 3, 3))",
    "m(x, x, x, attn_mask=torch.zeros(1, 1, 3, 3))",
    "m(x, x, x, attn_mask=torch.zeros(3, 3, dtype=torch.long))",
    "m(x, x, x, is_causal=True)",
    "m(x, torch.randn(3, 2, 4), torch.randn(4, 2, 4))",
    "m(torch.randn(3, 2, 5), torch.randn(3, 2, 5), torch.randn(3, 2, 5))",
    "m(torch.randn(3, 4), torch.randn(3, 4), torch.randn(3, 4), attn_mask=torch.zeros(1, 3, 3))",
    "F.scaled_dot_product_attention(x, x.double(), x)",
    "F.scaled_dot_product_attention(x, x, x, attn_mask=torch.zeros(3, 4, dtype=torch.long))",
    "F.scaled_dot_product_attention(x.view(3, 2, 2, 2), x.view(3, 2, 2, 2), x.view(3, 2, 2, 2), "
    "attn_mask=torch.zeros(2, 2, dtype=torch.float64))",
    "x.unflatten(-1, (3, -1))",
    "x.unflatten(0, ())",
    "torch.unflatten(x, 1, (1, -1, 2))",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_errors_match_torch(expr):
    src = ("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\ntorch.manual_seed(0)\n"
           "m = nn.MultiheadAttention(4, 2)\nx = torch.randn(3, 2, 4)\n"
           f"try:\n    r = {expr}\n    print('ok', type(r).__name__)\nexcept Exception as e:\n"
           "    print(type(e).__name__, e)\n")
    want = run_torch(src)
    assert not want.startswith("ok") or "unflatten" in expr, want
    assert run_ours(src) == want


def test_unflatten_is_a_view_as_torch():
    src = CHAIN + '''
import torch
x = torch.randn(2, 12, requires_grad=True)
y = x.unflatten(-1, (3, -1))
z = torch.unflatten(x.t(), 0, (2, 2, 3))
print(tuple(y.shape), chain(y.grad_fn, 2), tuple(z.shape), chain(z.grad_fn, 3), y._base is x)
(y.sum() + (z * 2).sum()).backward()
print('V', x.grad.tolist())
'''
    compare(src)


def test_script_sees_only_torchs_surface():
    src = "import torch\nimport torch.nn as nn\nm = nn.MultiheadAttention(4, 2)\n"
    for bad in ("m._reset_parameters()", "m.__dict__", "m.forward.__globals__", "m._qkv_same_embed_dim",
                "type(m.out_proj).__mro__", "nn.MultiheadAttention.__init__.__code__",
                "torch.nn.functional.multi_head_attention_forward.__wrapped__",
                "torch.nn.functional.scaled_dot_product_attention.__globals__"):
        t = runner.run(src + f"x = {bad}\n", "h.py")
        assert t.error is not None and t.error["type"] == "AttributeError", (bad, t.error)
    t = runner.run(src + "print(m, type(m), type(m.out_proj))\nm.dropout = 0.1\nm.batch_first = True\n"
                   "print(m.dropout, m.batch_first, m.num_heads, m.head_dim)\n", "ok.py")
    assert t.error is None, t.error
    assert t.stdout == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=4, "
                        "out_features=4, bias=True)\n) <class 'torch.nn.modules.activation.MultiheadAttention'> "
                        "<class 'torch.nn.modules.linear.NonDynamicallyQuantizableLinear'>\n0.1 True 2 2\n")


@pytest.mark.parametrize("src,limit", [
    ("m = nn.MultiheadAttention(200000, 1)\n", "elements"),
    ("m = nn.MultiheadAttention(8, 2)\nx = torch.zeros(60000, 1, 8)\no, w = m(x, x, x)\n", None),
    ("q = torch.zeros(1, 1, 200000, 64)\no = F.scaled_dot_product_attention(q, q, q)\n", "flops"),
])
def test_resource_limits_hold(src, limit):
    """A huge layer or attention matrix ends at a limit before numpy allocates it."""
    from autotrace.interpreter import Limits
    t = runner.run("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n" + src, "big.py",
                   limits=Limits(timeout=20), options=runner.Options(keep_values=False))
    assert t.error is not None and t.error["type"] == "LimitError", t.error
    if limit:
        assert limit in t.error["message"], t.error
