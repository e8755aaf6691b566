# tests/device/kernels.sh's PyTorch workload: bf16 matmuls and elementwise
# ops, STEPS steps, synchronised. With --torch-profiler FILE, the whole
# workload runs under torch.profiler (CUDA activities) and its Chrome
# trace is written to FILE. Prints "loop_s SECONDS" (the steps' wall time).
import sys, time
import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
trace = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--torch-profiler" else None

def workload():
    torch.manual_seed(0)
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()
    t0 = time.time()
    for _ in range(steps):
        c = a @ b
        c = torch.nn.functional.gelu(c)
        c = c * 0.5 + 1.0
        a = torch.tanh(c)
    torch.cuda.synchronize()
    return time.time() - t0

if trace:
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        loop = workload()
    prof.export_chrome_trace(trace)
else:
    loop = workload()
print("loop_s", round(loop, 4), flush=True)
