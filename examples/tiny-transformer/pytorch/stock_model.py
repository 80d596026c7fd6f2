#!/usr/bin/env python3
"""Records the tiny transformer as a stock PyTorch model: plain nn.Modules
(nn.Linear, nn.RMSNorm, nn.Embedding), no record_function ranges, profiled
with record_shapes=True, with_modules=True and with_stack=True (in eager mode
the module ranges come from the Python tracer), the way a user's own model
would be. The trace is the parity fixture
tests/fixtures/real/kineto/stock_tiny_transformer_cpu.json; its mapping file
(stock_tiny_transformer.mapping.toml beside it) names the bricks by module
path and input shapes.

The shape is the Rust example's default: 4 layers, width 64, 4 heads,
sequence 64, batch 4, SwiGLU width 176, fp32 on one CPU thread, Adam.

Usage (needs `pip install torch`; CI never runs it):

    python3 examples/tiny-transformer/pytorch/stock_model.py [OUT.json]
"""

import json
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.profiler import ProfilerActivity, profile, schedule

VOCAB, D_MODEL, N_LAYERS, N_HEADS, SEQ, BATCH = 64, 64, 4, 4, 64, 4
D_FF = -(-(D_MODEL * 8 // 3) // 8) * 8  # SwiGLU's 8/3, rounded up to 8: 176
HEAD_DIM = D_MODEL // N_HEADS
RMS_EPS, ROPE_BASE, LR, NOISE = 1e-5, 10_000.0, 5e-3, 0.1
WAIT, WARMUP, ACTIVE = 1, 2, 1


def rope(x, cos, sin):
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), -1).flatten(-2)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D_MODEL, 3 * D_MODEL, bias=False)
        self.proj = nn.Linear(D_MODEL, D_MODEL, bias=False)

    def forward(self, x, cos, sin, mask):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, N_HEADS, HEAD_DIM).permute(2, 0, 3, 1, 4).unbind(0)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(HEAD_DIM)
        probs = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        return self.proj((probs @ v).transpose(1, 2).reshape(b, t, d))


class FeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(D_MODEL, D_FF, bias=False)
        self.up = nn.Linear(D_MODEL, D_FF, bias=False)
        self.down = nn.Linear(D_FF, D_MODEL, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn_norm = nn.RMSNorm(D_MODEL, eps=RMS_EPS)
        self.attn = Attention()
        self.ffn_norm = nn.RMSNorm(D_MODEL, eps=RMS_EPS)
        self.ffn = FeedForward()

    def forward(self, x, cos, sin, mask):
        h = x + self.attn(self.attn_norm(x), cos, sin, mask)
        return h + self.ffn(self.ffn_norm(h))


class TinyTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D_MODEL)
        self.blocks = nn.ModuleList(Block() for _ in range(N_LAYERS))
        self.final_norm = nn.RMSNorm(D_MODEL, eps=RMS_EPS)
        self.lm_head = nn.Linear(D_MODEL, VOCAB, bias=False)
        pos = torch.arange(SEQ, dtype=torch.float32)[:, None]
        inv_freq = ROPE_BASE ** (-torch.arange(0, HEAD_DIM, 2, dtype=torch.float32) / HEAD_DIM)
        self.register_buffer("cos", torch.cos(pos * inv_freq), persistent=False)
        self.register_buffer("sin", torch.sin(pos * inv_freq), persistent=False)
        self.register_buffer("mask", torch.ones(SEQ, SEQ, dtype=torch.bool).triu(1), persistent=False)

    def forward(self, tokens, targets):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x, self.cos, self.sin, self.mask)
        logits = self.lm_head(self.final_norm(x))
        return F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))


def batch(gen, succ):
    """A noisy first-order Markov chain over the vocabulary, like the Rust data."""
    tokens = torch.empty(BATCH, SEQ + 1, dtype=torch.long)
    tokens[:, 0] = torch.randint(VOCAB, (BATCH,), generator=gen)
    for i in range(1, SEQ + 1):
        noise = torch.rand(BATCH, generator=gen) < NOISE
        rand = torch.randint(VOCAB, (BATCH,), generator=gen)
        tokens[:, i] = torch.where(noise, rand, succ[tokens[:, i - 1]])
    return tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "../../../tests/fixtures/real/kineto/stock_tiny_transformer_cpu.json")
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.normpath(default)
    raw = out + ".raw"
    torch.manual_seed(42)
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(42)
    succ = torch.randperm(VOCAB, generator=gen)
    model = TinyTransformer()
    opt = torch.optim.Adam(model.parameters(), lr=LR, fused=True)
    batches = [batch(gen, succ) for _ in range(WAIT + WARMUP + ACTIVE)]
    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE),
        record_shapes=True,
        with_modules=True,
        # Module ranges (`nn.Module: Linear_5`) of an eager model come from
        # the Python tracer: with_modules alone records them for TorchScript.
        with_stack=True,
        on_trace_ready=lambda p: p.export_chrome_trace(raw),
    ) as prof:
        for tokens, targets in batches:
            opt.zero_grad(set_to_none=False)
            loss = model(tokens, targets)
            loss.backward()
            opt.step()
            prof.step()
    # Same events and values without kineto's indentation: the file is committed.
    with open(raw, encoding="utf-8") as f:
        trace = json.load(f)
    os.remove(raw)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(trace, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {out} with torch {torch.__version__}")


if __name__ == "__main__":
    main()
