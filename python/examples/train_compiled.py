"""Trains a tiny attention model compiled with torch.compile(fullgraph=True) for a few steps
and prints the loss, which goes down. Runs on the GPU when amkl supports it, else the CPU.

    PYTHONPATH=python .venv/bin/python python/examples/train_compiled.py [--device cuda] [--steps 30]

The task: copy a random sequence of tokens shifted by one (needs attention to the previous
position, so the causal softmax attention has to learn it).
"""

import argparse
import time

import torch

import amkl


class TinyTransformer(torch.nn.Module):
    def __init__(self, vocab=16, width=64, heads=4):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, width)
        self.pos = torch.nn.Parameter(torch.randn(64, width) * 0.1)
        self.attn = amkl.nn.Attention(width, heads, causal=True)
        self.gdpa = amkl.nn.GDPA(width, heads, activation="gelu", out_scale=1.0 / 32, causal=True)
        self.norm1, self.norm2 = torch.nn.LayerNorm(width), torch.nn.LayerNorm(width)
        self.head = torch.nn.Linear(width, vocab)

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos[: tokens.shape[1]]
        x = x + self.attn(self.norm1(x))
        x = x + self.gdpa(self.norm2(x))
        return self.head(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda" if amkl.gpu_supported() else "cpu")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--backend", default="inductor")
    args = parser.parse_args()
    # bf16 on the GPU (what the kernels take), float32 on the CPU.
    dtype = torch.bfloat16 if args.device == "cuda" else torch.float32
    torch.manual_seed(0)
    model = TinyTransformer().to(device=args.device, dtype=dtype)
    step_fn = torch.compile(model, fullgraph=True, backend=args.backend)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    losses = []
    for step in range(args.steps):
        tokens = torch.randint(0, 16, (16, 32), device=args.device)
        target = torch.roll(tokens, 1, dims=1)  # predict the previous token
        start = time.perf_counter()
        logits = step_fn(tokens)
        loss = torch.nn.functional.cross_entropy(logits[:, 1:].float().flatten(0, 1),
                                                 target[:, 1:].flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        print(f"step {step:3d}  loss {losses[-1]:.4f}  ({time.perf_counter() - start:.2f} s)")
    first, last = sum(losses[:3]) / 3, sum(losses[-3:]) / 3
    print(f"loss {first:.3f} -> {last:.3f} ({'down' if last < first else 'NOT down'})")
    if last >= first:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
