import sys, torch
sys.path.insert(0, "bench")
from attn_run import Kernel
name = sys.argv[1]
kern = Kernel("bench/kernels_repro/%s.json" % name)
q = torch.randn(1, 64, 1, 128, device="cuda", dtype=torch.bfloat16)
k = torch.randn(1, 8, 4096, 128, device="cuda", dtype=torch.bfloat16)
v = torch.randn_like(k)
o = torch.empty(1, 64, 1, 128, device="cuda", dtype=torch.bfloat16)
for i in range(3):
    kern(q, k, v, o); torch.cuda.synchronize(); print("direct", i, o.isnan().sum().item(), flush=True)
s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    kern(q, k, v, o)
torch.cuda.synchronize(); print("side stream ok", flush=True)
