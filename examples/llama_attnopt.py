"""A small Llama-style decoder whose attention runs on attn-opt's kernels.

    python examples/llama_attnopt.py                 # on a CUDA GPU, with attnopt installed

The model is written here in plain PyTorch (RMSNorm, rotary embeddings,
grouped-query attention, SwiGLU), with Llama-3.2-1B's shapes and random
weights, and a preallocated KV cache. Its attention is one function call,
`ATTENTION[name](q, k, v, ...)`; "attnopt" routes it to
attnopt.torch.attention, "sdpa" to F.scaled_dot_product_attention.

It runs a prefill of B prompts and then greedy decode steps three times:
the float32 model with SDPA (the reference), the bfloat16 model with SDPA,
and the bfloat16 model with attnopt, teacher-forced on the reference's
tokens so that every step's logits compare. It checks attn-opt's numerics
contract at the model level (its logits' error against the float32 model
is at most 2x SDPA's, plus 1e-3, with no NaN) and prints tokens per second
for prefill and decode beside SDPA's, as JSON when --json is given.

How attnopt sees the cache: the decode step passes the whole preallocated
cache (its length a bucket of attnopt.torch.bucket, so nothing is padded or
copied) with a keep mask of the filled positions; SDPA gets the filled
slice. One kernel is compiled for prefill and one for decode.
"""
import argparse
import json
import math
import sys
import time

import torch
import torch.nn.functional as F

import attnopt.torch as at

CONFIG = dict(vocab=128256, dim=2048, layers=16, heads=32, kv_heads=8, head_dim=64,
              ffn=8192, rope_theta=500000.0, eps=1e-5)


def sdpa_attention(q, k, v, attn_mask=None, is_causal=False, filled=None):
    if filled is not None:  # the filled part of the cache
        k, v = k[:, :, :filled], v[:, :, :filled]
        attn_mask = None
    return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, is_causal=is_causal,
                                          enable_gqa=True)


def attnopt_attention(q, k, v, attn_mask=None, is_causal=False, filled=None):
    # Decode passes the whole cache (contiguous, a bucket long) and its mask.
    return at.attention(q, k, v, attn_mask=attn_mask, is_causal=is_causal, enable_gqa=True)


ATTENTION = {"sdpa": sdpa_attention, "attnopt": attnopt_attention}


class KVCache:
    """K and V of every layer, [layers, B, Hkv, capacity, d]: each layer's
    [B, Hkv, capacity, d] is contiguous, so attnopt takes it without a copy."""

    def __init__(self, cfg, B, capacity, dtype, device):
        shape = (cfg["layers"], B, cfg["kv_heads"], capacity, cfg["head_dim"])
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)
        self.filled = 0
        self.capacity = capacity

    def store(self, layer, k, v):
        n = k.shape[2]
        self.k[layer, :, :, self.filled:self.filled + n] = k
        self.v[layer, :, :, self.filled:self.filled + n] = v

    def keep_mask(self, device):
        """The slots a decode step's query sees: the filled ones and its own."""
        mask = torch.zeros(1, 1, 1, self.capacity, dtype=torch.bool, device=device)
        mask[..., :self.filled + 1] = True
        return mask


class Llama(torch.nn.Module):
    def __init__(self, cfg, attention):
        super().__init__()
        self.cfg, self.attention = cfg, attention
        d, hd = cfg["dim"], cfg["head_dim"]
        self.embed = torch.nn.Embedding(cfg["vocab"], d)
        self.blocks = torch.nn.ModuleList()
        for _ in range(cfg["layers"]):
            self.blocks.append(torch.nn.ModuleDict(dict(
                attn_norm=torch.nn.RMSNorm(d, eps=cfg["eps"]),
                qkv=torch.nn.Linear(d, (cfg["heads"] + 2 * cfg["kv_heads"]) * hd, bias=False),
                out=torch.nn.Linear(cfg["heads"] * hd, d, bias=False),
                mlp_norm=torch.nn.RMSNorm(d, eps=cfg["eps"]),
                gate_up=torch.nn.Linear(d, 2 * cfg["ffn"], bias=False),
                down=torch.nn.Linear(cfg["ffn"], d, bias=False))))
        self.norm = torch.nn.RMSNorm(d, eps=cfg["eps"])
        self.head = torch.nn.Linear(d, cfg["vocab"], bias=False)

    def rope(self, x, positions):
        hd = x.shape[-1]
        inv = self.cfg["rope_theta"] ** (-torch.arange(0, hd, 2, device=x.device) / hd)
        angles = positions[:, None].float() * inv[None, :]
        cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
        x1, x2 = x[..., : hd // 2], x[..., hd // 2:]
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)

    def forward(self, tokens, cache):
        cfg = self.cfg
        B, n = tokens.shape
        H, Hkv, hd = cfg["heads"], cfg["kv_heads"], cfg["head_dim"]
        positions = torch.arange(cache.filled, cache.filled + n, device=tokens.device)
        x = self.embed(tokens)
        keep = cache.keep_mask(x.device) if n == 1 else None
        for i, blk in enumerate(self.blocks):
            qkv = blk["qkv"](blk["attn_norm"](x)).view(B, n, H + 2 * Hkv, hd).transpose(1, 2)
            q, k, v = qkv.split([H, Hkv, Hkv], dim=1)
            q, k = self.rope(q, positions), self.rope(k, positions)
            cache.store(i, k, v)
            if n > 1:  # prefill from an empty cache: causal over the prompt
                a = self.attention(q, k, v, is_causal=True)
            else:      # decode: the query sees every filled slot
                a = self.attention(q, cache.k[i], cache.v[i],
                                   attn_mask=keep,
                                   filled=cache.filled + 1)
            x = x + blk["out"](a.transpose(1, 2).reshape(B, n, H * hd))
            gate, up = blk["gate_up"](blk["mlp_norm"](x)).chunk(2, dim=-1)
            x = x + blk["down"](F.silu(gate) * up)
        cache.filled += n
        return self.head(self.norm(x[:, -1])).float()


@torch.no_grad()
def run(model, prompts, steps, forced=None):
    """Prefill, then `steps` greedy decode steps (teacher-forced on `forced`
    when given). Returns (logits per step, tokens, prefill s, decode s)."""
    B, P = prompts.shape
    cache = KVCache(model.cfg, B, at.bucket(P + steps), next(model.parameters()).dtype,
                    prompts.device)
    events = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
    logits, tokens = [], []
    events[0].record()
    out = model(prompts, cache)
    events[1].record()
    for s in range(steps + 1):
        logits.append(out)
        nxt = out.argmax(-1) if forced is None else forced[:, s]
        tokens.append(nxt)
        if s == steps:
            break
        out = model(nxt[:, None], cache)
    events[2].record()
    torch.cuda.synchronize()
    return (torch.stack(logits, 1), torch.stack(tokens, 1),
            events[0].elapsed_time(events[1]) / 1e3, events[1].elapsed_time(events[2]) / 1e3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--prompt", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--layers", type=int, default=CONFIG["layers"])
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("llama_attnopt.py needs a CUDA GPU", file=sys.stderr)
        return 2
    cfg = dict(CONFIG, layers=a.layers)
    torch.manual_seed(0)
    ref_model = Llama(cfg, ATTENTION["sdpa"]).cuda().float()
    for p in ref_model.parameters():  # keep activations O(1) through the layers
        if p.dim() == 2:
            torch.nn.init.normal_(p, std=1.0 / math.sqrt(p.shape[-1]))
    prompts = torch.randint(0, cfg["vocab"], (a.batch, a.prompt), device="cuda")
    ref_logits, ref_tokens, _, _ = run(ref_model, prompts, a.steps)

    results = {"config": cfg, "batch": a.batch, "prompt": a.prompt, "steps": a.steps}
    for name in ("sdpa", "attnopt"):
        model = Llama(cfg, ATTENTION[name]).cuda()
        model.load_state_dict(ref_model.state_dict())
        model = model.to(torch.bfloat16)
        run(model, prompts, a.steps, ref_tokens)           # warm-up: compiles, caches
        logits, _, t_prefill, t_decode = run(model, prompts, a.steps, ref_tokens)
        err = ((logits - ref_logits).norm(dim=-1) / ref_logits.norm(dim=-1)).max().item()
        results[name] = dict(
            logits_rel_error=err, nan=bool(logits.isnan().any()),
            prefill_tokens_per_s=a.batch * a.prompt / t_prefill,
            decode_tokens_per_s=a.batch * a.steps / t_decode)
    ok = (not results["attnopt"]["nan"] and results["attnopt"]["logits_rel_error"]
          <= 2 * results["sdpa"]["logits_rel_error"] + 1e-3)
    results["numerics_contract_met"] = ok
    results["cache"] = at.cache_stats()
    print(json.dumps(results, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
