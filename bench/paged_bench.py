#!/usr/bin/env python3
"""The paged-KV decode benchmark (issue 14) in one run on the GPU machine.

    python3 bench/paged_bench.py --kernels bench/kernels_paged --out $OUT

For each shape of <kernels>/index.json (bench/gen_paged_kernels.py):
  1. K and V as contiguous [B, Hkv, Lk, d] tensors and, for each page size,
     as a pool of pages in a random order with its block table: the same
     keys, so every kernel computes the same attention;
  2. correctness, full sequences: each kernel against an fp32 reference
     (batch 0), next to SDPA's bf16 error on the same inputs (the contract:
     at most 2x it, no NaN);
  3. correctness, ragged sequences (paged only): random lengths in [0, Lk]
     with one empty sequence, and every pool slot past a sequence's length
     poisoned with NaN; each of the first 4 sequences against its own fp32
     reference (an empty one must give 0);
  4. CUDA-event medians (triton.testing.do_bench) of the contiguous and the
     paged kernels at full length, and of SDPA cuDNN and flash
     (enable_gqa=True) on the contiguous tensors, in the same run.
Reports GB/s of K+V read against the read ceiling measured in the same run.
"""
import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel, sdpa_anchors, timer  # noqa: E402


# The timer main() sets: CUDA-event medians, of CUDA-graph replays with --graphs.
bench = timer(False)


def attention_fp32(q, k, v, scale):
    """One sequence: q [Hq, Lq, d], k/v [Hkv, L, d] -> [Hq, Lq, dv]; the Lq
    queries are the sequence's last (causal bottom-right, which for Lq = 1
    is no mask); a query that sees no key gives 0."""
    lq, L = q.shape[1], k.shape[1]
    g = q.shape[0] // k.shape[0]
    seen = (torch.arange(L, device=q.device)[None, :]
            <= torch.arange(lq, device=q.device)[:, None] + (L - lq))
    s = torch.einsum("hqd,hkd->hqk", q.float(), k.float().repeat_interleave(g, 0)) * scale
    s = s.masked_fill(~seen, float("-inf"))
    p = torch.softmax(s, -1).nan_to_num(0.0)
    return p @ v.float().repeat_interleave(g, 0)


def rel_err(x, ref):
    n = ref.norm()
    return ((x.float() - ref).norm() / (n if n > 0 else 1)).item()


def to_pool(x, S, perm):
    """[B, Hkv, Lk, d] -> pool [B·Lk/S, S, Hkv, d] with page b·N + p stored
    at perm[b·N + p]; the block table is perm as [B, N]."""
    B, H, L, d = x.shape
    pages = x.view(B, H, L // S, S, d).permute(0, 2, 3, 1, 4).reshape(-1, S, H, d)
    pool = torch.empty(pages.shape, device=x.device, dtype=x.dtype)
    pool[perm] = pages
    return pool


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", default="bench/kernels_paged")
    ap.add_argument("--out", default=".")
    ap.add_argument("--index", default="index.json", help="the shape list in --kernels")
    ap.add_argument("--max-gb", type=float, default=40.0,
                    help="skip shapes whose K+V exceed this (pools double it)")
    ap.add_argument("--graphs", action="store_true",
                    help="time CUDA-graph replays (attn-opt and the anchors alike): the "
                         "GPU's work without the host's launch cost")
    a = ap.parse_args()
    global bench
    bench = timer(a.graphs)
    with open(os.path.join(a.kernels, a.index)) as f:
        index = json.load(f)
    x = torch.empty(2 << 30, device="cuda", dtype=torch.bfloat16).normal_()
    read_tbps = x.numel() * 2 / bench(lambda: x.sum()) / 1e12
    del x
    print("read ceiling %.2f TB/s" % read_tbps, flush=True)
    rows, out = [], open(os.path.join(a.out, "results.jsonl"), "w")
    gen = torch.Generator(device="cuda").manual_seed(0)
    for e in index:
        B, Hq, Hkv, Lk, d = e["B"], e["Hq"], e["Hkv"], e["Lk"], e["d"]
        Lq = e.get("Lq", 1)
        kv_bytes = 2 * B * Hkv * Lk * d * 2
        row = dict(B=B, Hq=Hq, Hkv=Hkv, Lk=Lk, Lq=Lq)
        if kv_bytes / 1e9 > a.max_gb:
            row["skipped"] = "K+V %.0f GB exceed --max-gb" % (kv_bytes / 1e9)
            rows.append(row)
            out.write(json.dumps(row) + "\n")
            out.flush()  # a run stopped at its time limit keeps what it measured
            print(row, flush=True)
            continue
        torch.cuda.empty_cache()
        scale = d ** -0.5
        q = torch.randn(B, Hq, Lq, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        k = torch.randn(B, Hkv, Lk, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        v = torch.randn(B, Hkv, Lk, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        o = torch.full((B, Hq, Lq, d), float("nan"), device="cuda", dtype=torch.bfloat16)
        ref = attention_fp32(q[0], k[0], v[0], scale)
        with sdpa_kernel(SDPBackend.MATH):
            g = Hq // Hkv
            seen = (torch.arange(Lk, device="cuda")[None, :]
                    <= torch.arange(Lq, device="cuda")[:, None] + (Lk - Lq))
            same = F.scaled_dot_product_attention(q[:1], k[:1].repeat_interleave(g, 1),
                                                  v[:1].repeat_interleave(g, 1), scale=scale,
                                                  attn_mask=seen)
        row["sdpa_err"] = sdpa_err = rel_err(same[0], ref)
        ok = lambda out: bool(not out.isnan().any()) and rel_err(out[0], ref) <= 2 * sdpa_err + 1e-6  # noqa: E731
        gbps = lambda t: kv_bytes / t / 1e9  # noqa: E731
        contiguous = Kernel(os.path.join(a.kernels, e["contiguous"] + ".json"))
        contiguous(q, k, v, o)
        row["contiguous_correct"] = ok(o)
        row["contiguous"] = gbps(bench(lambda: contiguous(q, k, v, o)))
        row["paged"], row["paged_correct"], row["ragged_correct"] = {}, {}, {}
        for S, name in e["paged"].items():
            S = int(S)
            kern = Kernel(os.path.join(a.kernels, name + ".json"))
            N = Lk // S
            perm = torch.randperm(B * N, device="cuda", generator=gen)
            table = perm.view(B, N).to(torch.int32)
            kp, vp = to_pool(k, S, perm), to_pool(v, S, perm)
            lens = torch.full((B,), Lk, device="cuda", dtype=torch.int32)
            o.fill_(float("nan"))
            kern(q, kp, vp, o, block_table=table, seq_lens=lens, check_bounds=True)
            row["paged_correct"][S] = ok(o)
            row["paged"][S] = gbps(bench(lambda: kern(q, kp, vp, o, block_table=table,
                                                       seq_lens=lens)))
            # Ragged: random lengths, one empty sequence, NaN past each end.
            lens = torch.randint(0, Lk + 1, (B,), device="cuda", generator=gen,
                                 dtype=torch.int32)
            lens[min(1, B - 1)] = 0 if B > 1 else lens[0]
            pos = torch.arange(Lk, device="cuda")
            # Slot s of logical page b·N + p lies past its sequence's end;
            # the logical page is stored at physical page perm[b·N + p].
            dead = (pos[None, :] >= lens[:, None].long()).view(B * N, S)
            physical = torch.zeros_like(dead)
            physical[perm] = dead
            kp[physical] = float("nan")
            vp[physical] = float("nan")
            o.fill_(float("nan"))
            kern(q, kp, vp, o, block_table=table, seq_lens=lens, check_bounds=True)
            good = not bool(o.isnan().any())
            for b in range(min(B, 4)):
                L = int(lens[b])
                r = attention_fp32(q[b], k[b, :, :L], v[b, :, :L], scale)
                good = good and rel_err(o[b], r) <= 2 * sdpa_err + 1e-6
            row["ragged_correct"][S] = good
            # The chooser's pick against every swept split count and tile
            # (full sequences; each sweep kernel checked): "sweep" (16-token
            # pages, gen_paged_kernels.py --sweep) or "sweeps" per page size
            # (--neighbours).
            swept = (e.get("sweeps") or {}).get(str(S)) or (e.get("sweep") if S == 16 else None)
            if swept:
                lens.fill_(Lk)
                kp, vp = to_pool(k, S, perm), to_pool(v, S, perm)
                sweep, wrong = {}, []
                for label, other_name in swept.items():
                    other = Kernel(os.path.join(a.kernels, other_name + ".json"))
                    o.fill_(float("nan"))
                    other(q, kp, vp, o, block_table=table, seq_lens=lens)
                    if not ok(o):
                        wrong.append(label)
                    sweep[label] = gbps(bench(lambda: other(q, kp, vp, o, block_table=table,
                                                            seq_lens=lens)))
                row["sweep%d" % S], row["sweep%d_wrong" % S] = sweep, wrong
            del kp, vp
        if Lq == 1:
            row.update(sdpa_anchors(q, k, v, scale, lambda fn: gbps(bench(fn))))
        del q, k, v, o
        print(json.dumps(row), flush=True)
        out.write(json.dumps(row) + "\n")
        out.flush()  # a run stopped at its time limit keeps what it measured
        rows.append(row)
    out.close()
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write("read ceiling %.2f TB/s; GB/s of K+V read (full sequences)\n\n" % read_tbps)
        f.write("| B | Lk | Hq | Hkv | contiguous | paged 16 | paged 128 | 16 ÷ contig | "
                "128 ÷ contig | cuDNN | flash | paged 16 ÷ cuDNN | correct (full, ragged) |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            if "skipped" in r:
                f.write("| %d | %d | %d | %d | skipped: %s ||||||||\n"
                        % (r["B"], r["Lk"], r["Hq"], r["Hkv"], r["skipped"]))
                continue
            p16, p128, c, cud = r["paged"][16], r["paged"][128], r["contiguous"], r.get("cudnn")
            if "Lq" in r and r["Lq"] > 1:
                r["Lk"] = "%d (Lq %d)" % (r["Lk"], r["Lq"])
            correct = (r["contiguous_correct"] and all(r["paged_correct"].values()),
                       all(r["ragged_correct"].values()))
            f.write("| %d | %s | %d | %d | %.0f | %.0f | %.0f | %.2f | %.2f | %s | %s | %s | %s |\n" % (
                r["B"], r["Lk"], r["Hq"], r["Hkv"], c, p16, p128, p16 / c, p128 / c,
                "%.0f" % cud if cud else "–", "%.0f" % r["flash"] if r.get("flash") else "–",
                "%.2f" % (p16 / cud) if cud else "–", correct))
        for S in (16, 128):
            swept = [r for r in rows if r.get("sweep%d" % S)]
            if not swept:
                continue
            f.write("\nChooser vs sweep (%d-token pages): | B | Lk | Hq | Hkv | chosen | best "
                    "(config) | chosen ÷ best | chosen ÷ row copies | wrong |\n" % S)
            for r in swept:
                sweep = r["sweep%d" % S]
                best = max(sweep.items(), key=lambda kv: kv[1])
                rows_pick = sweep.get("rows (kv-loads=cp.async)")
                f.write("| %d | %s | %d | %d | %.0f | %.0f (%s) | %.3f | %s | %s |\n" % (
                    r["B"], r["Lk"], r["Hq"], r["Hkv"], r["paged"][S], best[1], best[0],
                    r["paged"][S] / max(best[1], r["paged"][S]),
                    "%.3f" % (r["paged"][S] / rows_pick) if rows_pick else "–",
                    r["sweep%d_wrong" % S]))
    print(open(os.path.join(a.out, "table.md")).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
