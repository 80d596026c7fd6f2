"""The candle-llama model in PyTorch, profiled with torch.profiler.

The same architecture as candle-transformers' llama at the sizes the Rust
example takes (plain nn.Module, random weights, CPU, float32): embedding,
blocks of RMSNorm -> grouped-query attention with rotary embeddings
(half-split, as candle's `rope`) -> RMSNorm -> SwiGLU MLP, a final RMSNorm
and the LM head on each sequence's last token, then greedy sampling.

    python3 llama_torch.py --out trace.json            # the Rust defaults
    python3 llama_torch.py --layers 2 --passes 3 --warmup 1 --out small.json

Writes torch.profiler's Chrome trace (record_shapes=True, with_modules=True)
of the passes after warm-up. Each module's forward is a `record_function`
named as candle names its tracing span (block, attn, attn-rot, mlp,
rms-norm, linear), since with_modules records module names for TorchScript
models only; each pass is a `ProfilerStep#N`.
"""

import argparse
import math

import torch
from torch import nn
from torch.nn import functional as F
from torch.profiler import record_function


class Linear(nn.Linear):
    """nn.Linear without bias under candle's span name."""

    def __init__(self, width_in, width_out):
        super().__init__(width_in, width_out, bias=False)

    def forward(self, x):
        with record_function("linear"):
            return super().forward(x)


class RmsNorm(nn.Module):
    def __init__(self, width, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.eps = eps

    def forward(self, x):
        with record_function("rms-norm"):
            return self._forward(x)

    def _forward(self, x):
        scale = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return x * scale * self.weight


def rotary_tables(head_dim, positions, theta=10_000.0):
    inv_freq = 1.0 / theta ** (torch.arange(0, head_dim, 2).float() / head_dim)
    angles = torch.outer(torch.arange(positions).float(), inv_freq)
    return angles.cos(), angles.sin()


def apply_rotary(x, cos, sin):
    """Half-split rotation of x: [batch, heads, seq, head_dim]."""
    with record_function("attn-rot"):
        return _rotate(x, cos, sin)


def _rotate(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    cos, sin = cos[: x.shape[2]], sin[: x.shape[2]]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


class CausalSelfAttention(nn.Module):
    def __init__(self, hidden, heads, kv_heads):
        super().__init__()
        self.heads, self.kv_heads = heads, kv_heads
        self.head_dim = hidden // heads
        self.q_proj = Linear(hidden, hidden)
        self.k_proj = Linear(hidden, kv_heads * self.head_dim)
        self.v_proj = Linear(hidden, kv_heads * self.head_dim)
        self.o_proj = Linear(hidden, hidden)

    def forward(self, x, cos, sin):
        with record_function("attn"):
            return self._forward(x, cos, sin)

    def _forward(self, x, cos, sin):
        b, t, d = x.shape
        q = self.q_proj(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        repeat = self.heads // self.kv_heads
        k = k.repeat_interleave(repeat, dim=1)
        v = v.repeat_interleave(repeat, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        scores = scores.masked_fill(mask, float("-inf"))
        y = F.softmax(scores, dim=-1) @ v
        return self.o_proj(y.transpose(1, 2).reshape(b, t, d))


class Mlp(nn.Module):
    def __init__(self, hidden, intermediate):
        super().__init__()
        self.gate_proj = Linear(hidden, intermediate)
        self.up_proj = Linear(hidden, intermediate)
        self.down_proj = Linear(intermediate, hidden)

    def forward(self, x):
        with record_function("mlp"):
            return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Block(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.input_layernorm = RmsNorm(a.hidden)
        self.self_attn = CausalSelfAttention(a.hidden, a.heads, a.kv_heads)
        self.post_attention_layernorm = RmsNorm(a.hidden)
        self.mlp = Mlp(a.hidden, a.intermediate)

    def forward(self, x, cos, sin):
        with record_function("block"):
            return self._forward(x, cos, sin)

    def _forward(self, x, cos, sin):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class Llama(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.embed_tokens = nn.Embedding(a.vocab, a.hidden)
        self.layers = nn.ModuleList(Block(a) for _ in range(a.layers))
        self.norm = RmsNorm(a.hidden)
        self.lm_head = Linear(a.hidden, a.vocab)
        cos, sin = rotary_tables(a.hidden // a.heads, max(a.seq, 16))
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def forward(self, tokens):
        x = self.embed_tokens(tokens)
        for block in self.layers:
            x = block(x, self.cos, self.sin)
        return self.lm_head(self.norm(x)[:, -1, :])


def tokens(a, pass_index):
    """The Rust example's token ids of pass `pass_index`."""
    ids = [(i * 7919 + pass_index * 104_729) % a.vocab for i in range(a.batch * a.seq)]
    return torch.tensor(ids, dtype=torch.long).view(a.batch, a.seq)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--passes", type=int, default=12)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--intermediate", type=int, default=344)
    p.add_argument("--vocab", type=int, default=512)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--out", default="llama_torch.trace.json")
    a = p.parse_args()
    if a.warmup >= a.passes:
        p.error(f"--warmup ({a.warmup}) must be below --passes ({a.passes})")

    torch.manual_seed(a.seed)
    model = Llama(a).eval()
    activities = [torch.profiler.ProfilerActivity.CPU]
    with torch.no_grad():
        for i in range(a.warmup):
            model(tokens(a, i)).argmax(-1)
        with torch.profiler.profile(
            activities=activities, record_shapes=True, with_modules=True
        ) as prof:
            for i in range(a.warmup, a.passes):
                with torch.profiler.record_function("ProfilerStep#%d" % i):
                    logits = model(tokens(a, i))
                    with record_function("sample"):
                        logits.argmax(-1)
    prof.export_chrome_trace(a.out)
    print(f"wrote {a.out}: {a.passes - a.warmup} passes, torch {torch.__version__}")


if __name__ == "__main__":
    main()
