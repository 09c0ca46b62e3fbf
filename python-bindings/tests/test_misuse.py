"""The interpreter never dies: every public function, called with empty,
negative, NaN, inf, huge, wrong-type and garbage/injection arguments, raises
a Python exception (ValueError, TypeError or attnopt.MLIRError) and the
process exits normally. Each call runs in a fresh `python3 -c` subprocess,
so a call that kills the interpreter (a signal, an abort, an LLVM fatal
error) fails its own test case instead of the whole session.
"""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
UPSTREAM = os.path.join(HERE, "..", "..", "test", "Fuzz", "upstream")

# What every case can use: a valid attention, a valid unfused one, a NaN.
PRELUDE = """
import sys, attnopt
from attnopt import graph
G = graph.attention(1, 2, 128, 64)
U = graph.unfused_attention(1, 2, 32, 16)
nan, inf = float('nan'), float('inf')
"""

RUNNER = PRELUDE + """
try:
    exec(sys.argv[1])
except (ValueError, TypeError, attnopt.MLIRError) as e:
    print("RAISED", type(e).__name__)
    print(str(e)[:2000])
    sys.exit(0)
print("RETURNED")
"""

VE, TE, ME = "ValueError", "TypeError", "MLIRError"

# (id, statement, expected exception names). Grouped by function.
CASES = [
    # graph.attention: shapes.
    ("attention-L0", "graph.attention(1, 2, 0, 64)", VE),
    ("attention-L-neg", "graph.attention(1, 2, -128, 64)", VE),
    ("attention-d0", "graph.attention(1, 2, 128, 0)", VE),
    ("attention-B-neg", "graph.attention(-1, 2, 128, 64)", VE),
    ("attention-H0", "graph.attention(1, 0, 128, 64)", VE),
    ("attention-L-huge", "graph.attention(1, 2, 2**64, 64)", VE),
    ("attention-d-huge", "graph.attention(1, 2, 128, 10**30)", VE),
    ("attention-L-float", "graph.attention(1, 2, 128.0, 64)", TE),
    ("attention-L-nan", "graph.attention(1, 2, nan, 64)", TE),
    ("attention-L-str", "graph.attention(1, 2, '128', 64)", TE),
    ("attention-L-bool", "graph.attention(1, 2, True, 64)", TE),
    ("attention-L-none", "graph.attention(1, 2, None, 64)", TE),
    ("attention-Lk0", "graph.attention(1, 2, 128, 64, Lk=0)", VE),
    ("attention-dv-neg", "graph.attention(1, 2, 128, 64, dv=-64)", VE),
    ("attention-hkv-not-divisor", "graph.attention(1, 6, 128, 64, hkv=4)", VE),
    ("attention-hkv0", "graph.attention(1, 4, 128, 64, hkv=0)", VE),
    ("attention-hkv-without-H", "graph.attention(None, None, 128, 64, hkv=2)", VE),
    ("attention-B-without-H", "graph.attention(2, None, 128, 64)", VE),
    # graph.attention: scale, causal, dtype, func_name.
    ("attention-scale-nan", "graph.attention(1, 2, 128, 64, scale=nan)", VE),
    ("attention-scale-inf", "graph.attention(1, 2, 128, 64, scale=inf)", VE),
    ("attention-scale-neginf", "graph.attention(1, 2, 128, 64, scale=-inf)", VE),
    ("attention-scale-0", "graph.attention(1, 2, 128, 64, scale=0)", VE),
    ("attention-scale-neg", "graph.attention(1, 2, 128, 64, scale=-0.125)", VE),
    ("attention-scale-hugeint", "graph.attention(1, 2, 128, 64, scale=10**400)", VE),
    ("attention-scale-str", "graph.attention(1, 2, 128, 64, scale='0.125')", TE),
    ("attention-scale-inject", "graph.attention(1, 2, 128, 64, scale='1) causal(top_left')", TE),
    ("attention-scale-bool", "graph.attention(1, 2, 128, 64, scale=True)", TE),
    ("attention-causal-bottom_left", "graph.attention(1, 2, 128, 64, causal='bottom_left')", VE),
    ("attention-causal-false-str", "graph.attention(1, 2, 128, 64, causal='false')", VE),
    ("attention-causal-empty", "graph.attention(1, 2, 128, 64, causal='')", VE),
    ("attention-causal-upper", "graph.attention(1, 2, 128, 64, causal='TOP_LEFT')", VE),
    ("attention-causal-int", "graph.attention(1, 2, 128, 64, causal=1)", TE),
    ("attention-causal-none", "graph.attention(1, 2, 128, 64, causal=None)", TE),
    ("attention-causal-inject",
     "graph.attention(1, 2, 128, 64, causal='top_left) : x\\n}\\nfunc.func @g() {')", VE),
    ("attention-dtype-i8", "graph.attention(1, 2, 128, 64, dtype='i8')", VE),
    ("attention-dtype-empty", "graph.attention(1, 2, 128, 64, dtype='')", VE),
    ("attention-dtype-type", "graph.attention(1, 2, 128, 64, dtype=float)", TE),
    ("attention-dtype-inject", "graph.attention(1, 2, 128, 64, dtype='f32>, tensor<1xf32')", VE),
    ("attention-func-name-empty", "graph.attention(1, 2, 128, 64, func_name='')", VE),
    ("attention-func-name-inject",
     "graph.attention(1, 2, 128, 64, func_name='f() {\\n}\\nfunc.func @g')", VE),
    ("attention-func-name-space", "graph.attention(1, 2, 128, 64, func_name='a b')", VE),
    ("attention-func-name-int", "graph.attention(1, 2, 128, 64, func_name=3)", TE),
    # graph.unfused_attention.
    ("unfused-L0", "graph.unfused_attention(1, 2, 0, 16)", VE),
    ("unfused-d-float", "graph.unfused_attention(1, 2, 32, 16.5)", TE),
    ("unfused-scale-nan", "graph.unfused_attention(1, 2, 32, 16, scale=nan)", VE),
    ("unfused-causal-bottom_left", "graph.unfused_attention(1, 2, 32, 16, causal='bottom_left')", VE),
    ("unfused-dtype-bad", "graph.unfused_attention(1, 2, 32, 16, dtype='f8')", VE),
    ("unfused-func-name-inject", "graph.unfused_attention(1, 2, 32, 16, func_name='x y')", VE),
    # run_pipeline: argument types and hostile inputs.
    ("run_pipeline-text-none", "attnopt.run_pipeline(None, 'canonicalize')", TE),
    ("run_pipeline-text-bytes", "attnopt.run_pipeline(G.encode(), 'canonicalize')", TE),
    ("run_pipeline-pipeline-int", "attnopt.run_pipeline(G, 5)", TE),
    ("run_pipeline-surrogate", "attnopt.run_pipeline('\\ud800', 'canonicalize')", VE),
    ("run_pipeline-garbage-text", "attnopt.run_pipeline('\\x00\\xff{{{%%%', 'canonicalize')", ME),
    ("run_pipeline-unclosed-func", "attnopt.run_pipeline('func.func @f( {', 'canonicalize')", ME),
    ("run_pipeline-deep-parens", "attnopt.run_pipeline('(' * 100000, 'canonicalize')", ME),
    ("run_pipeline-deep-attribute",
     "attnopt.run_pipeline('func.func @f() attributes {a = ' + '[' * 20000 + ']' * 20000 + "
     "'} { return }', 'canonicalize')", ME),
    ("run_pipeline-deep-regions",
     "attnopt.run_pipeline('func.func @f() { ' + '\"scf.execute_region\"() ({' * 20000, "
     "'canonicalize')", ME),
    ("run_pipeline-unknown-pass", "attnopt.run_pipeline(G, 'no-such-pass')", ME),
    ("run_pipeline-unbalanced-brace", "attnopt.run_pipeline(G, 'attn-gpu-pipeline{chip=sm_80')", ME),
    ("run_pipeline-unbalanced-paren", "attnopt.run_pipeline(G, 'func.func(attn-fuse')", ME),
    ("run_pipeline-extra-close", "attnopt.run_pipeline(G, 'canonicalize})')", ME),
    ("run_pipeline-unknown-option", "attnopt.run_pipeline(G, 'attn-io-cost{no-such-option=1}')", ME),
    ("run_pipeline-bad-int-option", "attnopt.run_pipeline(G, 'attn-io-cost{sram-bytes=abc}')", ME),
    ("run_pipeline-int-overflow", "attnopt.run_pipeline(G, 'attn-io-cost{sram-bytes=%d}' % 2**70)", ME),
    ("run_pipeline-unknown-target", "attnopt.run_pipeline(G, 'attn-io-cost{target=v100}')", ME),
    ("run_pipeline-gpu-bad-block-q", "attnopt.run_pipeline(G, 'attn-gpu-pipeline{block-q=7}')", ME),
    ("run_pipeline-gpu-bad-kv-stages", "attnopt.run_pipeline(G, 'attn-gpu-pipeline{kv-stages=9}')", ME),
    ("run_pipeline-gpu-bad-mma", "attnopt.run_pipeline(G, 'attn-gpu-pipeline{mma=foo}')", ME),
    ("run_pipeline-gpu-wgmma-sm80",
     "attnopt.run_pipeline(G, 'attn-gpu-pipeline{chip=sm_80 mma=wgmma}')", ME),
    ("run_pipeline-fuse-neg-block", "attnopt.run_pipeline(G, 'func.func(attn-fuse{block-q=-1})')", ME),
    ("run_pipeline-gpu-chip-garbage", "attnopt.run_pipeline(G, 'attn-gpu-pipeline{chip=foo}')", ME),
    ("run_pipeline-cpu-bad-target", "attnopt.run_pipeline(G, 'attn-cpu-pipeline{target=zz}')", ME),
    # detect.
    ("detect-none", "attnopt.detect(None)", TE),
    ("detect-explain-str", "attnopt.detect(U, explain='yes')", TE),
    ("detect-explain-int", "attnopt.detect(U, explain=1)", TE),
    ("detect-garbage", "attnopt.detect('attn.attention = garbage')", ME),
    ("detect-list", "attnopt.detect([U])", TE),
    # io_cost: shapes.
    ("io_cost-nothing", "attnopt.io_cost()", VE),
    ("io_cost-missing", "attnopt.io_cost(B=1, H=1, Lq=16)", VE),
    ("io_cost-L0", "attnopt.io_cost(B=1, H=1, Lq=0, Lk=16, d=16)", VE),
    ("io_cost-Lk-neg", "attnopt.io_cost(B=1, H=1, Lq=16, Lk=-16, d=16)", VE),
    ("io_cost-d-nan", "attnopt.io_cost(B=1, H=1, Lq=16, Lk=16, d=nan)", TE),
    ("io_cost-huge-shapes",
     "attnopt.io_cost(B=2**31-1, H=2**31-1, Lq=2**31-1, Lk=2**31-1, d=2**31-1)", ME),
    ("io_cost-hkv-not-divisor", "attnopt.io_cost(B=1, H=6, hkv=4, Lq=16, Lk=16, d=16)", VE),
    ("io_cost-causal-bottom_left",
     "attnopt.io_cost(B=1, H=1, Lq=16, Lk=16, d=16, causal='bottom_left')", VE),
    ("io_cost-dtype-bad", "attnopt.io_cost(B=1, H=1, Lq=16, Lk=16, d=16, dtype='fp8')", VE),
    ("io_cost-text-and-shapes", "attnopt.io_cost(G, B=1, H=1, Lq=16, Lk=16, d=16)", VE),
    ("io_cost-text-int", "attnopt.io_cost(5)", TE),
    ("io_cost-text-garbage", "attnopt.io_cost('{{{')", ME),
    # io_cost: target and overrides.
    ("io_cost-target-unknown", "attnopt.io_cost(G, target='v100')", VE),
    ("io_cost-target-inject", "attnopt.io_cost(G, target='h100 roofline=/tmp/attnopt-x.svg')", VE),
    ("io_cost-target-brace", "attnopt.io_cost(G, target='h100}')", VE),
    ("io_cost-target-none", "attnopt.io_cost(G, target=None)", TE),
    ("io_cost-hbm-inf", "attnopt.io_cost(G, hbm_bandwidth=inf)", VE),
    ("io_cost-hbm-nan", "attnopt.io_cost(G, hbm_bandwidth=nan)", VE),
    ("io_cost-hbm-neg", "attnopt.io_cost(G, hbm_bandwidth=-1e12)", VE),
    ("io_cost-hbm-zero", "attnopt.io_cost(G, hbm_bandwidth=0.0)", VE),
    ("io_cost-hbm-str", "attnopt.io_cost(G, hbm_bandwidth='1e12')", TE),
    ("io_cost-hbm-inject", "attnopt.io_cost(G, hbm_bandwidth='1e12 roofline=/tmp/x.svg')", TE),
    ("io_cost-peak-inf", "attnopt.io_cost(G, peak_bf16=inf)", VE),
    ("io_cost-hbm-denormal", "attnopt.io_cost(G, hbm_bandwidth=5e-324)", VE),
    ("io_cost-peak-tiny", "attnopt.io_cost(G, peak_bf16=1e-300)", VE),
    ("io_cost-block-q-huge", "attnopt.io_cost(G, block_q=2**63)", VE),
    ("io_cost-peak-hugeint", "attnopt.io_cost(G, peak_f16=10**400)", VE),
    ("io_cost-sram-neg", "attnopt.io_cost(G, sram_bytes=-5)", VE),
    ("io_cost-sram-zero", "attnopt.io_cost(G, sram_bytes=0)", VE),
    ("io_cost-sram-float", "attnopt.io_cost(G, sram_bytes=16384.0)", TE),
    ("io_cost-sram-huge", "attnopt.io_cost(G, sram_bytes=2**70)", VE),
    ("io_cost-sm-count-bool", "attnopt.io_cost(G, sm_count=True)", TE),
    ("io_cost-block-q-neg", "attnopt.io_cost(G, block_q=-16)", VE),
    ("io_cost-block-kv-str", "attnopt.io_cost(G, block_kv='64}')", TE),
    ("io_cost-unknown-override", "attnopt.io_cost(G, roofline='/tmp/x.svg')", TE),
    ("io_cost-report-override", "attnopt.io_cost(G, report='-')", TE),
    # compile.
    ("compile-target-sm70", "attnopt.compile(G, target='sm_70')", VE),
    ("compile-target-empty", "attnopt.compile(G, target='')", VE),
    ("compile-target-inject", "attnopt.compile(G, target='sm_80 dump-dir=/tmp')", VE),
    ("compile-target-brace", "attnopt.compile(G, target='sm_80}')", VE),
    ("compile-target-none", "attnopt.compile(G, target=None)", TE),
    ("compile-mma-bad", "attnopt.compile(G, mma='tcgen05')", VE),
    ("compile-mma-inject", "attnopt.compile(G, mma='auto chip=sm_70')", VE),
    ("compile-wgmma-sm80", "attnopt.compile(G, target='sm_80', mma='wgmma')", VE),
    ("compile-block-q-7", "attnopt.compile(G, block_q=7)", VE),
    ("compile-kv-splits-neg", "attnopt.compile(G, kv_splits=-1)", VE),
    ("compile-kv-splits-huge", "attnopt.compile(G, kv_splits=65536)", VE),
    ("compile-kv-splits-float", "attnopt.compile(G, kv_splits=2.0)", TE),
    ("compile-kv-warps-three", "attnopt.compile(G, kv_warps=3)", VE),
    ("compile-kv-warps-neg", "attnopt.compile(G, kv_warps=-2)", VE),
    ("compile-kv-warps-float", "attnopt.compile(G, kv_warps=2.0)", TE),
    ("compile-kv-loads-name", "attnopt.compile(G, kv_loads='bulk')", VE),
    ("compile-kv-loads-bool", "attnopt.compile(G, kv_loads=True)", TE),
    ("compile-overlap-pv-name", "attnopt.compile(G, overlap_pv='yes')", VE),
    ("compile-overlap-pv-bool", "attnopt.compile(G, overlap_pv=True)", TE),
    ("compile-persistent-name", "attnopt.compile(G, persistent='always')", VE),
    ("compile-fp8-mma-name", "attnopt.compile(G, fp8_mma='yes')", VE),
    ("compile-fp8-mma-bool", "attnopt.compile(G, fp8_mma=True)", TE),
    ("compile-persistent-bool", "attnopt.compile(G, persistent=True)", TE),
    ("compile-block-q-neg", "attnopt.compile(G, block_q=-64)", VE),
    ("compile-block-q-float", "attnopt.compile(G, block_q=64.0)", TE),
    ("compile-rows-per-warp-8", "attnopt.compile(G, rows_per_warp=8)", VE),
    ("compile-block-kv-huge", "attnopt.compile(G, block_kv=2**63)", VE),
    ("compile-kv-stages-9", "attnopt.compile(G, kv_stages=9)", VE),
    ("compile-swizzle-str", "attnopt.compile(G, swizzle='true')", TE),
    ("compile-cost-target-bad", "attnopt.compile(G, cost_target='v100')", VE),
    ("compile-text-none", "attnopt.compile(None)", TE),
    ("compile-no-attention", "attnopt.compile('func.func @f() { return }')", VE),
    ("compile-two-attentions",
     "attnopt.compile(G + graph.attention(1, 2, 128, 64, func_name='g'))", VE),
    ("compile-f64", "attnopt.compile(graph.attention(1, 2, 128, 64, dtype='f64'))", ME),
    ("compile-garbage", "attnopt.compile('%%%')", ME),
]

# Hostile pass pipelines that used to abort in the NVPTX backend (chip=),
# segfault (chip= empty) or be silently ignored (io-cost overrides): the C++
# side now rejects each with a diagnostic, which must reach Python as an
# MLIRError (not as the native module's "attn-opt crashed" recovery).
HOSTILE_PIPELINES = [
    ("chip-empty", "attnopt.run_pipeline(G, 'attn-gpu-pipeline{chip=}')",
     "rejected by C++ validation"),
    ("chip-sm70", "attnopt.run_pipeline(G, 'attn-gpu-pipeline{chip=sm_70}')",
     "rejected by C++ validation"),
    ("chip-sm75", "attnopt.run_pipeline(G, 'attn-gpu-pipeline{chip=sm_75}')",
     "rejected by C++ validation"),
    ("iocost-sram-neg", "attnopt.run_pipeline(G, 'attn-io-cost{sram-bytes=-5}')",
     "rejected by C++ validation"),
    ("iocost-sm-count-zero", "attnopt.run_pipeline(G, 'attn-io-cost{sm-count=0}')",
     "rejected by C++ validation"),
    ("iocost-hbm-inf", "attnopt.run_pipeline(G, 'attn-io-cost{hbm-bandwidth=inf}')",
     "rejected by C++ validation"),
    ("iocost-hbm-nan", "attnopt.run_pipeline(G, 'attn-io-cost{hbm-bandwidth=nan}')",
     "rejected by C++ validation"),
    ("iocost-peak-neg", "attnopt.run_pipeline(G, 'attn-io-cost{peak-bf16=-2}')",
     "rejected by C++ validation"),
]

# Known upstream MLIR 22 parser crashes (test/Fuzz/upstream, FUZZING.md): the
# crash recovery must turn each into an MLIRError.
UPSTREAM_CASES = sorted(f for f in os.listdir(UPSTREAM) if f.endswith(".mlir")) \
    if os.path.isdir(UPSTREAM) else []


def _run(statement, timeout=300):
    return subprocess.run([sys.executable, "-c", RUNNER, statement], capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ))


def _assert_survived(proc, expected):
    assert proc.returncode == 0, (
        "the interpreter died (rc %d%s)\nstdout: %s\nstderr: %s"
        % (proc.returncode, ", signal %d" % -proc.returncode if proc.returncode < 0 else "",
           proc.stdout[-2000:], proc.stderr[-3000:]))
    first = proc.stdout.splitlines()[0] if proc.stdout else ""
    assert first.startswith("RAISED"), "no exception raised: %r\n%s" % (first, proc.stderr[-2000:])
    allowed = expected if isinstance(expected, tuple) else (expected,)
    assert first.split()[1] in allowed, proc.stdout[:2000]


@pytest.mark.parametrize("statement,expected", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_misuse_raises_python_exception(statement, expected):
    proc = _run(statement)
    _assert_survived(proc, expected)
    # Option injection never leaves its file behind.
    assert not os.path.exists("/tmp/attnopt-x.svg")


@pytest.mark.parametrize("statement", [c[1] for c in HOSTILE_PIPELINES],
                         ids=[c[0] for c in HOSTILE_PIPELINES])
def test_hostile_pipeline_never_kills_the_interpreter(statement):
    proc = _run(statement)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.parametrize("statement", [c[1] for c in HOSTILE_PIPELINES],
                         ids=[c[0] for c in HOSTILE_PIPELINES])
def test_hostile_pipeline_gets_a_diagnostic(statement):
    # What C++ validation gives: a diagnostic, not a crash caught by the
    # native module's crash recovery, and not silent acceptance.
    proc = _run(statement)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("RAISED MLIRError"), proc.stdout[:2000]
    assert "crashed" not in proc.stdout, proc.stdout[:2000]
    assert "attn-opt crashed" not in proc.stdout, proc.stdout[:2000]


@pytest.mark.parametrize("name", UPSTREAM_CASES)
def test_upstream_parser_crashes_become_mlir_errors(name):
    path = os.path.join(UPSTREAM, name)
    proc = _run("attnopt.run_pipeline(open(%r, errors='replace').read(), 'canonicalize')" % path)
    _assert_survived(proc, ME)


def test_after_a_crash_the_process_keeps_working():
    # A recovered crash leaks its context; later calls still work.
    proc = _run("import attnopt\n"
                "for _ in range(2):\n"
                "    try:\n"
                "        attnopt.run_pipeline(G, 'attn-gpu-pipeline{chip=sm_70}')\n"
                "    except attnopt.MLIRError:\n"
                "        pass\n"
                "assert attnopt.detect(U).count == 1\n"
                "assert attnopt.io_cost(G)['attention'][0]['flops'] > 0\n"
                "raise ValueError('survived')")
    _assert_survived(proc, VE)
    assert "survived" in proc.stdout


def test_misuse_set_size():
    # The brief: at least ~80 misuse calls over every public function.
    assert len(CASES) + len(HOSTILE_PIPELINES) + len(UPSTREAM_CASES) >= 80
    covered = {c[0].split("-")[0] for c in CASES}
    assert {"attention", "unfused", "run_pipeline", "detect", "io_cost", "compile"} <= covered
