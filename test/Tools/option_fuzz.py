#!/usr/bin/env python3
"""Option-fuzz and CLI-misuse driver for attn-opt (issue 19, hardening).

Nothing here is a hand list of options: the attn-* passes and pipelines and
every option they take are read from `attn-opt --help`, each option is
classified by the type LLVM prints for it (<long>/<int>/<uint>: integer,
<number>: double, <string>: string, or a path when its help says it names a
file or directory, <value> with `=alt` lines: enum, nothing: bool), and each is
run on a small valid input with a battery of hostile values. Then a fixed set
of command-line misuses (bad inputs, bad -o, unknown and conflicting flags,
malformed --pass-pipeline strings, huge pipelines) runs under the same oracle.

The oracle, for every run:
  * no signal: returncode >= 0, and no 'Stack dump' / 'LLVM ERROR' /
    'PLEASE submit a bug report' in stderr (LLVM's crash handler re-raises the
    signal, but an abort from report_fatal_error may also exit 1 with
    'LLVM ERROR');
  * it finishes within TIMEOUT seconds;
  * a non-zero exit comes with a diagnostic (see DIAGNOSTIC_RES), and an
    exit 0 does not follow an error: diagnostic;
  * values that are obviously nonsense for an option are not silently
    accepted (exit 0): the rules are in nonsense_reason() below, each with its
    reason, derived from the option's type and its own help text (a -1
    sentinel, "must be positive", an enumerated list of accepted values);
  * a path option that exits 0 has written what it was asked to (a non-empty
    file, or a directory with files), at the path MLIR's option parser saw;
  * a CLI misuse marked must-fail is rejected.
Every run has its own working directory under WORK_DIR, so relative garbage
paths land there; nothing is written outside WORK_DIR (no /nonexistent: root
can create it).

Failures listed in KNOWN_BUGS are reported but do not fail the run; a listed
bug that no longer reproduces fails it (stale entry), so the table stays
exact. The last lines are a SUMMARY line and PASS or FAIL.

Usage: option_fuzz.py ATTN_OPT SRC_INPUTS_DIR WORK_DIR [--jobs N] [--verbose]
"""

import argparse
import concurrent.futures
import fnmatch
import math
import os
import re
import shutil
import subprocess
import sys
import time

TIMEOUT = 60  # seconds per attn-opt run
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

# ---------------------------------------------------------------------------
# Known bugs. Each entry: (case-id glob, failure kind, what happens).
# A case id is "<flag>:<option>=<value label>" for option fuzzing (e.g.
# "attn-io-cost:hbm-bandwidth=nan"), "<flag>:combo:<label>" for combined
# option strings, "<flag>:pipeline-form:<option>=<label>" for the same value
# given through --pass-pipeline, and "cli:<label>" for CLI misuse.
# Kinds: signal (a signal, or a crash report such as 'LLVM ERROR'), timeout,
# silent (non-zero exit without an error: diagnostic), nonsense (a nonsense
# value or a misuse accepted with exit 0, or a path option that exited 0
# without writing), error-exit-0 (an error: diagnostic, then exit 0).
# Keep this empty when nothing fails; remove an entry when its bug is fixed
# (a listed bug that passes makes the test fail as "stale").
KNOWN_BUGS = [
    # Fixed (2026-12-01): /dev/full writes (the driver and the io-cost/dump
    # writers check and clear the stream's error), the driver's file errors
    # (attn-opt opens input and output itself: "attn-opt: error: ..."), and
    # pipeline option strings (parsed with their message as an error:).
    #
    # Upstream MlirOptMain debugging aids that cannot open their file warn and
    # go on: the compilation itself is unaffected, and the driver cannot see
    # these options (no getters on MlirOptMainConfig).
    # -- MLIR debugging flags that cannot open their file, then exit 0 -----
    ("cli:log-actions-to-parent-is-file", "nonsense",
     "--log-actions-to=<file>/l: prints 'ExecutionContext registered on the "
     "contexterror: Opening file for --log-actions-to failed: ...' (no "
     "newline before 'error:') and exits 0"),
    ("cli:ir-print-tree-parent-is-file", "nonsense",
     "--mlir-print-ir-tree-dir=<file>/d --mlir-print-ir-after-all: 'Error "
     "while creating directory ...: Not a directory', exits 0, nothing dumped"),
]

# A non-zero exit must print one of these. MLIR diagnostics print
# "error:". The one exception is LLVM's command-line library, which reports
# its own errors as "<tool>: <message>" (unknown argument, a value its parser
# rejects, missing/extra positional arguments) before the tool has any
# diagnostic machinery; that is LLVM's convention for every tool, so those
# exact messages count. Nothing else does: any other message without
# "error:" (e.g. MlirOptMain's "cannot open input file") is a finding.
DIAGNOSTIC_RES = [
    re.compile(r"error:"),
    re.compile(r"^attn-opt: Unknown command line argument", re.M),
    re.compile(r"^attn-opt: for the -+\S+ option: ", re.M),
    re.compile(r"^attn-opt: Not enough positional command line arguments", re.M),
    re.compile(r"^attn-opt: Too many positional arguments", re.M),
]
CRASH_MARKERS = ["Stack dump", "LLVM ERROR", "PLEASE submit a bug report",
                 "Assertion `", "AddressSanitizer", "runtime error:"]

# ---------------------------------------------------------------------------
# Discovery.

PASS_RE = re.compile(r"^      --(attn-[\w-]+)\s+-   (.*)$")
OPT_RE = re.compile(r"^        --([\w-]+)(?:=<(\w+)>)?\s+- ?(.*)$")
ENUM_RE = re.compile(r"^\s+=([\w.-]+)\s+-   ")
INT_TYPES = {"int", "uint", "long", "ulong", "ulonglong", "longlong"}


class Option:
    def __init__(self, name, ty, desc):
        self.name, self.ty, self.desc, self.enum = name, ty, desc, []

    @property
    def kind(self):
        if self.ty is None:
            return "bool"
        if self.ty in INT_TYPES:
            return "int"
        if self.ty == "number":
            return "double"
        if self.ty == "value":
            return "enum"
        if self.ty == "string":
            if (re.search(r"\b(file|directory)\b", self.desc, re.I)
                    or re.search(r"(^|-)(dir|file|path)$", self.name)):
                return "path"
            return "string"

    @property
    def is_dir(self):
        return bool(re.search(r"\bdirectory\b", self.desc, re.I)
                    or re.search(r"(^|-)dir$", self.name))
        return "unknown:" + self.ty


def discover(attn_opt):
    """Returns {flag: [Option]} for every attn-* pass and pipeline."""
    out = subprocess.run([attn_opt, "--help"], capture_output=True,
                         text=True, timeout=TIMEOUT).stdout
    passes, cur = {}, None
    for line in out.splitlines():
        m = PASS_RE.match(line)
        if m:
            cur = m.group(1)
            passes[cur] = []
            continue
        if cur is None:
            continue
        m = OPT_RE.match(line)
        if m:
            passes[cur].append(Option(m.group(1), m.group(2), m.group(3)))
            continue
        m = ENUM_RE.match(line)
        if m and passes[cur]:
            passes[cur][-1].enum.append(m.group(1))
            continue
        cur = None  # the next pass (not attn-*) or section
    return passes


def input_for(flag, inputs):
    """The small valid input each pass is fuzzed on."""
    if flag == "attn-detect":
        return inputs["linalg"]
    if flag == "attn-dump-gpu-kernels":
        return inputs["binary"]
    if "gpu" in flag:
        return inputs["f16"]
    return inputs["f32"]


# ---------------------------------------------------------------------------
# Hostile values: (label, value). Labels are ASCII and name the case.

LONG = "9" * 10000
GENERIC = [
    ("empty", ""),
    ("-1", "-1"), ("-5", "-5"), ("0", "0"), ("1", "1"),
    ("2^31", str(2**31)), ("2^63-1", str(2**63 - 1)),
    ("-2^63", str(-2**63)), ("2^64", str(2**64)),
    ("1e308", "1e308"), ("-1e308", "-1e308"), ("1e400", "1e400"),
    ("nan", "nan"), ("-nan", "-nan"), ("inf", "inf"), ("-inf", "-inf"),
    ("1e-320", "1e-320"), ("0x40", "0x40"), ("1.5", "1.5"), ("64abc", "64abc"),
    ("garbage", "garbage"), ("true", "true"),
    ("space", "64 128"), ("braces", "{64}"), ("unbalanced{", "{64"),
    ("unbalanced}", "64}"), ("dquote", '"64"'), ("squote", "'64'"),
    ("lone-dquote", '"'), ("equals", "64=1"), ("comma", "64,128"),
    ("newline", "64\n128"), ("tab", "\t64"),
    ("long-digits-10k", LONG), ("long-alpha-10k", "a" * 10000),
    ("utf8", "\u00fc\u00df\u2603\U0001F600\u202e"),
    ("bad-utf8", "\udcff\udcfe\udcc0\udc80"),
    ("percent", "%s%n%x\\x00"),
]


def values_for(flag, opt, tmp):
    vals = list(GENERIC)
    if opt.kind == "bool":
        vals += [("false", "false"), ("2", "2"), ("yes", "yes")]
    if opt.kind == "enum":
        vals += [(f"enum-{e}", e) for e in opt.enum]
    if opt.kind == "string":
        # Controls: the values its help lists (should be accepted).
        vals += [(f"choice-{c}", c) for c in sorted(string_choices(opt.desc) or ())]
    if opt.kind in ("path", "string"):
        vals += path_values(tmp, f"{flag}-{opt.name}")
    return vals


def path_values(tmp, name):
    """Bad places to write to, plus a good one as a control. A missing
    directory is one under the work dir and one under /proc, not
    /nonexistent/x: the suite may run as root, which can create /nonexistent
    (a directory option is documented to create what is missing, and did),
    and a machine may already have it."""
    return [
        ("missing-dir", os.path.join(tmp, "missing-" + name, "x")),
        ("missing-dir-deep", os.path.join(tmp, "missing-" + name, "a", "b", "c", "x")),
        ("missing-uncreatable", "/proc/attn-opt-fuzz-missing/x"),
        ("parent-is-file", os.path.join(tmp, "file", "x.json")),
        ("parent-is-file-deep", os.path.join(tmp, "file", "a", "b")),
        ("readonly-dir", os.path.join(tmp, "ro", "x.json")),
        ("existing-dir", os.path.join(tmp, "dir")),
        ("existing-file", os.path.join(tmp, "file")),
        ("dev-full", "/dev/full"),
        ("dev-null", "/dev/null"),
        # "/" only when not root: root can write there (and would litter it).
        *([] if IS_ROOT else [("root", "/")]),
        ("dash", "-"),
        ("dot", "."),
        ("proc", "/proc/self/x"),
        ("sys", "/sys/attn-opt-fuzz"),
        ("good", os.path.join(tmp, "out", name + ".out")),
    ]


# ---------------------------------------------------------------------------
# What counts as nonsense accepted. Each rule returns a reason string when a
# value should NOT have been accepted with exit 0, else None. Rules come from
# the option's type and its own help text, so new options are covered too.

def mlir_unquote(v):
    """The value an option's parser sees after MLIR's pass-option lexer:
    surrounding whitespace dropped, one level of {...}, "..." or '...'
    stripped (documented MLIR quoting, so {64} is 64)."""
    v = v.strip(" \t\n")
    if len(v) >= 2 and (v[0], v[-1]) in (("{", "}"), ('"', '"'), ("'", "'")):
        v = v[1:-1]
    return v


def parse_number(v):
    """Numbers as LLVM's cl parser reads them (hex floats like 0x40 too)."""
    for conv in (float, float.fromhex):
        try:
            return conv(v.strip())
        except ValueError:
            pass
    return None


def parse_int(v):
    """Integers as LLVM's cl parser reads them (getAsInteger with radix
    auto-detection: 0x40, 0b1, 0o7 and C octal 010 are integers)."""
    v = v.strip()
    try:
        if re.fullmatch(r"[+-]?0[0-7]+", v):
            return int(v.replace("0", "0o", 1), 0)
        return int(v, 0)
    except ValueError:
        return None


def listed_ints(desc):
    """The integers a help text enumerates as the accepted values, e.g.
    'Query rows per CTA: 64, 128, or 0 to choose' -> {64, 128, 0}; None when
    the help text does not enumerate them (e.g. '0: from io_cost, else 64')."""
    if "else" in desc or "-1:" in desc:
        return None
    nums = re.findall(r"(?<![\w.])(\d+)(?![\w.])", desc.split(":", 1)[-1])
    return {int(n) for n in nums} if len(nums) >= 2 else None


def nonsense_reason(flag, opt, label, value):
    kind = opt.kind
    if kind != "path":
        value = mlir_unquote(value)
    if kind == "bool":
        if value.strip().lower() not in ("", "true", "false", "1", "0"):
            return "a bool option accepted a non-boolean value"
        return None
    if kind == "int":
        n = parse_int(value)
        if n is None:
            return "an integer option accepted a non-integer value"
        if not -2**63 <= n < 2**63:
            return "an integer option accepted a value out of 64-bit range"
        if n < 0 and not (n == -1 and "-1:" in opt.desc):
            return "a size/count option accepted a negative value"
        if "must be positive" in opt.desc and n == 0:
            return "help says the value must be positive, 0 was accepted"
        allowed = listed_ints(opt.desc)
        if allowed is not None and n not in allowed:
            return f"help lists the accepted values {sorted(allowed)}"
        return None
    if kind == "double":
        x = parse_number(value)
        if x is None:
            return "a number option accepted a non-number"
        if math.isnan(x):
            return "a number option (a bandwidth/rate/size) accepted NaN"
        if math.isinf(x):
            return "a number option accepted an infinity"
        # A <number> whose help names a -1 sentinel or says "positive" is a
        # rate, bandwidth or size: 0 and negatives (but the sentinel) are
        # nonsense.
        sentinel = "-1:" in opt.desc
        if (sentinel or "positive" in opt.desc) and x <= 0 and not (sentinel and x == -1):
            return "help says the value must be positive (or the -1 sentinel)"
        return None
    if kind == "enum":
        if value not in opt.enum:
            return f"enum option accepted a value outside {opt.enum}"
        return None
    if kind == "path":
        return path_nonsense(opt, label, value)
    if kind == "string":
        listed = string_choices(opt.desc)
        if listed and value not in listed and value != "":
            return f"help lists the accepted values {sorted(listed)}"
        return None
    return None


def string_choices(desc):
    """Closed lists of words in a string option's help: 'a100, h100 or h200',
    'mma.sync (sm_80+) or wgmma (sm_90a)', 'auto (...), mma.sync, or wgmma'.
    An open list ('sm_90, sm_80, ...') is not closed: None."""
    if "..." in desc:
        return None
    body = re.sub(r"\([^)]*\)", "", desc.split(":", 1)[-1])
    if " or " not in body:
        return None
    words = re.split(r",\s*|\s+or\s+", body.strip())
    words = [w.strip() for w in words if w.strip()]
    if len(words) < 2 or any(" " in w for w in words):
        return None
    return set(words)


# Path values that cannot be written: accepting them silently (exit 0) means
# the requested report/dump was lost. For a directory option ('dump-dir'),
# an existing directory is fine, and so is '.'; for a file option, '-' is
# documented for --report ('a table on stdout') and /dev/null is writable.
UNWRITABLE = {"missing-uncreatable", "parent-is-file", "parent-is-file-deep",
              "dev-full", "root", "proc", "sys"}


def path_nonsense(opt, label, value):
    is_dir = opt.is_dir
    bad = set(UNWRITABLE)
    if not IS_ROOT:
        bad.add("readonly-dir")  # root writes through 0555 directories
    if is_dir:
        bad |= {"existing-file", "dev-null"}
    else:
        # A file option does not create missing parent directories (none of
        # the help texts says so); '-' is stdout by LLVM convention.
        bad |= {"existing-dir", "dot"}
    if label in bad:
        return f"path option accepted an unwritable {'directory' if is_dir else 'file'} ({label})"
    return None


def missing_output(opt, passed, cwd):
    """After exit 0, what a path option asked for must be there: a non-empty
    file, or a directory with files in it. None when it is, or when the
    value asks for no file ('' disables, '-' is stdout, /dev/* are devices)."""
    v = mlir_unquote(passed)
    if v in ("", "-") or v.startswith("/dev/"):
        return None
    p = os.path.join(cwd, v)
    try:
        if opt.is_dir:
            if os.path.isdir(p) and any(os.scandir(p)):
                return None
        elif os.path.isfile(p) and os.path.getsize(p) > 0:
            return None
    except OSError:
        pass
    return f"exit 0 but nothing was written at {p!r}"


# ---------------------------------------------------------------------------
# Running.

class Case:
    cwd = None  # set in main(): where relative paths land

    def __init__(self, cid, argv, opt=None, flag=None, label=None, value=None,
                 expect_error=False):
        self.cid, self.argv, self.opt, self.flag = cid, argv, opt, flag
        self.label, self.value = label, value
        self.passed = value  # the value as written in the option string
        self.expect_error = expect_error  # CLI misuse that must be rejected
        self.rc = None
        self.stderr = ""
        self.secs = 0.0
        self.failure = None  # (kind, detail)


def run_case(case):
    t0 = time.monotonic()
    if case.opt is not None and case.opt.kind == "path":
        # Its own working directory: relative garbage names are created
        # there, and checked there.
        case.cwd = os.path.join(Case.cwd, "p%d" % case.index)
        os.makedirs(case.cwd)
    try:
        p = subprocess.run(case.argv, stdin=subprocess.DEVNULL, cwd=case.cwd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=TIMEOUT)
        case.rc = p.returncode
        case.stderr = p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        case.rc = None
        case.stderr = (e.stderr or b"").decode("utf-8", "replace")
    case.secs = time.monotonic() - t0
    judge(case)
    return case


def judge(case):
    err = case.stderr
    if case.rc is None:
        case.failure = ("timeout", f"no exit within {TIMEOUT} s")
    elif case.rc < 0 or case.rc >= 128:
        case.failure = ("signal", f"killed by signal {-case.rc if case.rc < 0 else case.rc - 128}")
    elif any(m in err for m in CRASH_MARKERS):
        case.failure = ("signal", f"exit {case.rc} with a crash report")
    elif case.rc != 0:
        if not any(r.search(err) for r in DIAGNOSTIC_RES):
            case.failure = ("silent", f"exit {case.rc} without a diagnostic")
    elif re.search(r"(^|\s)error:", err):
        case.failure = ("error-exit-0", "printed an error: diagnostic but exited 0")
    elif case.expect_error:
        case.failure = ("nonsense", "exit 0 on a misuse that must be rejected")
    elif case.opt is not None:
        why = nonsense_reason(case.flag, case.opt, case.label, case.value)
        if not why and case.opt.kind == "path":
            why = missing_output(case.opt, case.passed, case.cwd)
        if why:
            case.failure = ("nonsense", "exit 0: " + why)


def shell_quote(arg):
    """A bash-reproducible spelling of one argument (non-printables as $'..')."""
    if isinstance(arg, bytes):
        arg = arg.decode("utf-8", "surrogateescape")
    if len(arg) > 200:
        head = arg[0]
        if arg == head * len(arg):
            return f"\"$(printf '{head}%.0s' {{1..{len(arg)}}})\""
        if "9" * 1000 in arg:
            pre, _, _ = arg.partition("9" * 1000)
            return f"\"{pre}$(printf '9%.0s' {{1..{arg.count('9')}}})\""
        return shell_quote(arg[:200]) + "...(truncated)"
    if re.fullmatch(r"[\w@%+=:,./-]+", arg):
        return arg
    if all(c.isprintable() and ord(c) < 128 for c in arg):
        return "'" + arg.replace("'", "'\\''") + "'"
    out = "$'"
    for b in arg.encode("utf-8", "surrogateescape"):
        c = chr(b)
        if 32 <= b < 127 and c not in "'\\":
            out += c
        else:
            out += f"\\x{b:02x}"
    return out + "'"


def repro(case, attn_opt):
    args = [shell_quote(a) for a in case.argv]
    args[0] = "attn-opt" if case.argv[0] == attn_opt else args[0]
    cd = f"cd {shell_quote(case.cwd)} && " if case.cwd != Case.cwd else ""
    return cd + " ".join(args)


# ---------------------------------------------------------------------------
# Case generation.

def quote_opt(value):
    """The MLIR pass-option quoting of a value: "..." unless it has a '"'."""
    return '"' + value + '"' if '"' not in value else "{" + value + "}"


QUOTED = {"empty", "space", "equals", "unbalanced{"}


def option_cases(attn_opt, passes, inputs, tmp):
    cases = []
    for flag, opts in sorted(passes.items()):
        inp = input_for(flag, inputs)
        for opt in opts:
            for label, value in values_for(flag, opt, tmp):
                cid = f"{flag}:{opt.name}={label}"
                cases.append(Case(cid, [attn_opt, inp, f"--{flag}={opt.name}={value}",
                                        "-o", os.devnull],
                                  opt, flag, label, value))
                # The same value quoted, so values with spaces, braces and
                # '=' reach the option's own parser whole.
                if label in QUOTED:
                    c = Case(cid + "(quoted)",
                             [attn_opt, inp, f"--{flag}={opt.name}={quote_opt(value)}",
                              "-o", os.devnull], opt, flag, label, value)
                    c.passed = quote_opt(value)
                    cases.append(c)
            # No value at all ("--attn-fuse=block-q"): for a bool it means
            # true; for anything else it is an error or the parser's choice.
            cases.append(Case(f"{flag}:{opt.name}(no value)",
                              [attn_opt, inp, f"--{flag}={opt.name}", "-o", os.devnull]))
    return cases


def anchor_of(attn_opt, flag, inp):
    """The op a pass runs on in --pass-pipeline form, by trying both."""
    for nest in ("{}", "func.func({})"):
        pp = "builtin.module(" + nest.format(flag) + ")"
        p = subprocess.run([attn_opt, inp, "--pass-pipeline=" + pp, "-o", os.devnull],
                           capture_output=True, timeout=TIMEOUT)
        if p.returncode == 0:
            return nest
    return "{}"


WORST = ["empty", "-5", "2^64", "nan", "-inf", "garbage", "unbalanced{",
         "braces", "dquote", "long-alpha-10k", "bad-utf8", "missing-dir",
         "parent-is-file", "existing-dir", "dev-full"]


def pipeline_form_cases(attn_opt, passes, inputs, tmp):
    """The worst values again through --pass-pipeline='...(pass{opt=v})',
    which has its own brace/quote parser."""
    cases = []
    for flag, opts in sorted(passes.items()):
        inp = input_for(flag, inputs)
        nest = anchor_of(attn_opt, flag, inp)
        for opt in opts:
            for label, value in values_for(flag, opt, tmp):
                if label not in WORST:
                    continue
                pp = "builtin.module(" + nest.format(f"{flag}{{{opt.name}={value}}}") + ")"
                cases.append(Case(f"{flag}:pipeline-form:{opt.name}={label}",
                                  [attn_opt, inp, "--pass-pipeline=" + pp, "-o", os.devnull],
                                  opt, flag, label, value))
    return cases


def combo_cases(attn_opt, passes, inputs, tmp):
    """Several options in one string, for every pass that has two or more."""
    cases = []
    bad = {"int": "-5", "double": "nan", "bool": "garbage", "enum": "garbage",
           "string": "garbage", "path": os.path.join(tmp, "file", "x")}
    for flag, opts in sorted(passes.items()):
        if len(opts) < 2:
            continue
        inp = input_for(flag, inputs)
        names = [o.name for o in opts]
        combos = {
            "all-bad": " ".join(f"{o.name}={bad.get(o.kind, 'garbage')}" for o in opts),
            "all-empty": " ".join(f"{o.name}=" for o in opts),
            "all-huge": " ".join(f"{o.name}={2**63 - 1}" for o in opts),
            "duplicate": f"{names[0]}=1 {names[0]}=2 {names[0]}=garbage",
            "unknown-option": f"{names[0]}=0 no-such-option=1",
            "comma-separated": f"{names[0]}=0,{names[1]}=0",
            "braced-whole": "{" + f"{names[0]}=0 {names[1]}=0" + "}",
            "leading-space": f"   {names[0]}=0",
            "only-spaces": "   ",
            "only-equals": "=",
            "double-equals": f"{names[0]}==0",
            "dangling-quote": f'{names[0]}="0 {names[1]}=0',
            "dangling-brace": f"{names[0]}={{0 {names[1]}=0",
            "nested-braces": f"{names[0]}={{{{{{0}}}}}}",
        }
        for label, s in combos.items():
            cases.append(Case(f"{flag}:combo:{label}",
                              [attn_opt, inp, f"--{flag}={s}", "-o", os.devnull]))
    # Pipeline-specific contradictions, from what the help text says.
    gp = {o.name for o in passes.get("attn-gpu-pipeline", [])}
    if {"chip", "mma"} <= gp:
        for label, s in {
            "sm80-wgmma": "chip=sm_80 mma=wgmma",
            "sm90a-mmasync-bq-garbage": "chip=sm_90a mma=mma.sync block-q=3",
            "wgmma-swizzle-stages9": "mma=wgmma swizzle=true kv-stages=9",
            "chip-empty-mma-empty": "chip= mma=",
            "dump-dir-twice": f"dump-dir={tmp}/out/a dump-dir={tmp}/file/b",
        }.items():
            cases.append(Case(f"attn-gpu-pipeline:combo:{label}",
                              [attn_opt, inputs["f16"], f"--attn-gpu-pipeline={s}",
                               "-o", os.devnull]))
    cp = {o.name for o in passes.get("attn-cpu-pipeline", [])}
    if {"detect", "fuse", "target"} <= cp:
        for label, s in {
            "nodetect-nofuse-badtarget": "detect=false fuse=false target=zz",
            "fuse-false-with-tiles": "fuse=false block-q=-1 block-kv=-1",
        }.items():
            cases.append(Case(f"attn-cpu-pipeline:combo:{label}",
                              [attn_opt, inputs["f32"], f"--attn-cpu-pipeline={s}",
                               "-o", os.devnull]))
    return cases


def cli_cases(attn_opt, inputs, tmp):
    """Command-line misuse. Every one of these must be rejected (non-zero
    exit with a diagnostic) except those marked ok=True, which only must not
    crash."""
    f32 = inputs["f32"]
    many = ",".join(["canonicalize"] * 3000)
    deep = "builtin.module(" + "func.func(" * 3000 + "canonicalize" + ")" * 3001
    deep_any = "builtin.module(" + "any(" * 3000 + "canonicalize" + ")" * 3001
    spec = [
        # label, argv (after attn-opt), must-fail
        ("missing-input", [os.path.join(tmp, "no-such.mlir")], True),
        ("input-is-dir", [os.path.join(tmp, "dir")], True),
        ("input-in-missing-dir", [os.path.join(tmp, "missing-cli-in", "x.mlir")], True),
        ("input-parent-is-file", [os.path.join(tmp, "file", "x.mlir")], True),
        ("empty-input", [inputs["empty"], "--attn-cpu-pipeline"], False),
        ("binary-input", [inputs["garbage"]], True),
        ("binary-input-pipeline", [inputs["garbage"], "--attn-gpu-pipeline"], True),
        # MLIR's lexer skips a NUL byte inside the buffer as whitespace.
        ("nul-input", [inputs["nul"]], False),
        ("bad-utf8-input", [inputs["badutf8"], "--attn-detect"], True),
        ("dev-null-input", ["/dev/null", "--attn-fuse"], False),
        ("two-inputs", [f32, f32], True),
        ("out-missing-dir", [f32, "--attn-fuse", "-o", os.path.join(tmp, "missing-cli-out", "x.mlir")], True),
        ("out-missing-uncreatable", [f32, "--attn-fuse", "-o", "/proc/attn-opt-fuzz-missing/x.mlir"], True),
        ("out-parent-is-file", [f32, "--attn-fuse", "-o", os.path.join(tmp, "file", "x")], True),
        ("out-is-dir", [f32, "--attn-fuse", "-o", os.path.join(tmp, "dir")], True),
        ("out-dev-full", [f32, "--attn-fuse", "-o", "/dev/full"], True),
        ("out-dev-full-big", [inputs["f16"], "--attn-gpu-pipeline", "-o", "/dev/full"], True),
        ("out-empty", [f32, "--attn-fuse", "-o", ""], True),
        # The last -o wins, as in most LLVM tools.
        ("out-twice", [f32, "-o", os.path.join(tmp, "out", "a"), "-o", os.devnull], False),
        ("out-no-arg", [f32, "-o"], True),
        ("unknown-flag", [f32, "--attn-no-such-pass"], True),
        ("unknown-flag-value", [f32, "--attn-fuse-typo=block-q=64"], True),
        ("flag-value-on-valueless", [f32, "--verify-diagnostics=garbage"], True),
        ("pass-twice-conflicting", [f32, "--attn-fuse=block-q=16", "--attn-fuse=block-q=garbage"], True),
        ("both-pipelines", [inputs["f16"], "--attn-cpu-pipeline", "--attn-gpu-pipeline"], False),
        ("loops-then-gpu", [inputs["f16"], "--attn-lower-to-loops", "--attn-lower-to-gpu"], False),
        ("gpu-then-loops", [inputs["f16"], "--attn-lower-to-gpu", "--attn-lower-to-loops"], False),
        ("gpu-pipeline-twice", [inputs["f16"], "--attn-gpu-pipeline", "--attn-gpu-pipeline"], False),
        ("dump-without-binary", [f32, "--attn-dump-gpu-kernels=dump-dir=" + os.path.join(tmp, "out", "nb")], False),
        ("pass-and-pass-pipeline", [f32, "--attn-fuse", "--pass-pipeline=builtin.module(canonicalize)"], True),
        ("pp-empty", [f32, "--pass-pipeline="], False),
        ("pp-unbalanced-open", [f32, "--pass-pipeline=builtin.module(func.func(attn-fuse)"], True),
        ("pp-unbalanced-close", [f32, "--pass-pipeline=builtin.module(attn-fuse))"], True),
        ("pp-unbalanced-brace", [f32, "--pass-pipeline=builtin.module(func.func(attn-fuse{block-q=16))"], True),
        ("pp-stray-brace", [f32, "--pass-pipeline=builtin.module(func.func(attn-fuse}))"], True),
        ("pp-unknown-pass", [f32, "--pass-pipeline=builtin.module(attn-no-such-pass)"], True),
        ("pp-unknown-anchor", [f32, "--pass-pipeline=no.such.op(attn-fuse)"], True),
        ("pp-wrong-anchor", [f32, "--pass-pipeline=func.func(attn-fuse)"], True),
        ("pp-options-on-optionless", [f32, "--pass-pipeline=builtin.module(canonicalize,attn-io-cost{},func.func(cse{x=1}))"], True),
        ("pp-options-on-optionless-attn", [inputs["binary"], "--pass-pipeline=builtin.module(attn-dump-gpu-kernels{no=1})"], True),
        ("pp-options-on-anchor", [f32, "--pass-pipeline=builtin.module{x=1}(attn-io-cost)"], True),
        ("pp-empty-name", [f32, "--pass-pipeline=builtin.module(,,)"], True),
        ("pp-garbage", [f32, "--pass-pipeline=)(}{\"'=,"], True),
        ("pp-bad-utf8", [f32, "--pass-pipeline=builtin.module(\udcff\udcfe)"], True),
        ("pp-long-name", [f32, "--pass-pipeline=builtin.module(" + "a" * 10000 + ")"], True),
        ("pp-3000-passes", [f32, "--pass-pipeline=builtin.module(" + many + ")"], False),
        ("pp-nested-3000", [f32, "--pass-pipeline=" + deep], False),
        ("pp-nested-any-3000", [f32, "--pass-pipeline=" + deep_any], False),
        ("pp-nested-unbalanced-3000", [f32, "--pass-pipeline=" + deep[:-1]], True),
        ("flags-2000-passes", [f32] + ["--canonicalize"] * 2000, False),
        ("flags-300-attn-passes", [f32] + ["--attn-io-cost", "--attn-fuse"] * 150, False),
        ("flag-empty-pass-option", [f32, "--attn-fuse="], False),
        ("mlir-pass-statistics", [f32, "--attn-cpu-pipeline", "--mlir-pass-statistics"], False),
        ("mlir-timing-dev-full", [f32, "--attn-fuse", "--mlir-timing", "--mlir-output-format=garbage"], True),
        ("split-input-file-no-marker", [f32, "--split-input-file", "--attn-fuse"], False),
        ("split-marker-garbage", [f32, "--split-input-file=\udcff", "--attn-fuse"], False),
        ("verify-diagnostics-no-expect", [inputs["garbage"], "--verify-diagnostics"], True),
        ("reproducer-parent-is-file", [f32, "--attn-fuse", "--mlir-reproducer-before-all=" + os.path.join(tmp, "file", "r")], True),
        ("ir-print-tree-parent-is-file", [f32, "--attn-fuse", "--mlir-print-ir-tree-dir=" + os.path.join(tmp, "file", "d"), "--mlir-print-ir-after-all"], True),
        ("log-actions-to-parent-is-file", [f32, "--attn-fuse", "--log-actions-to=" + os.path.join(tmp, "file", "l")], True),
        ("help-with-input", [f32, "--attn-fuse", "--help-list"], False),
        ("version", ["--version"], False),
        ("no-args-stdin-devnull", [], False),
        ("dash-input", ["-"], False),
    ]
    cases = []
    for label, rest, must_fail in spec:
        cases.append(Case("cli:" + label, [attn_opt] + rest, expect_error=must_fail))
    return cases


# ---------------------------------------------------------------------------

def make_inputs(attn_opt, src, tmp):
    for d in ("dir", "out", "ro"):
        os.makedirs(os.path.join(tmp, d), exist_ok=True)
    os.chmod(os.path.join(tmp, "ro"), 0o555)
    with open(os.path.join(tmp, "file"), "w") as f:
        f.write("a regular file where a directory is expected\n")
    inputs = {
        "f16": os.path.join(src, "fuzz-attn-f16.mlir"),
        "f32": os.path.join(src, "fuzz-attn-f32.mlir"),
        "linalg": os.path.join(src, "fuzz-linalg-chain.mlir"),
        "empty": os.path.join(tmp, "empty.mlir"),
        "garbage": os.path.join(tmp, "garbage.mlir"),
        "nul": os.path.join(tmp, "nul.mlir"),
        "badutf8": os.path.join(tmp, "badutf8.mlir"),
        "binary": os.path.join(tmp, "gpu-binary.mlir"),
    }
    open(inputs["empty"], "w").close()
    with open(inputs["garbage"], "wb") as f:
        # Deterministic binary garbage: an ELF-ish header and every byte.
        f.write(b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 8)
    with open(inputs["nul"], "wb") as f:
        f.write(b"func.func @f() {\x00 return }\n")
    with open(inputs["badutf8"], "wb") as f:
        f.write(b"func.func @f\xff\xfe() { return }\n// \xc0\x80\n")
    # --attn-dump-gpu-kernels runs after gpu-module-to-binary: its input is
    # the GPU pipeline's output.
    p = subprocess.run([attn_opt, inputs["f16"], "--attn-gpu-pipeline", "-o", inputs["binary"]],
                       capture_output=True, text=True, timeout=TIMEOUT)
    if p.returncode != 0:
        sys.exit("option_fuzz: cannot build the gpu.binary input:\n" + p.stderr)
    return inputs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("attn_opt")
    ap.add_argument("inputs")
    ap.add_argument("work")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--filter", default=None, help="only case ids matching this glob")
    a = ap.parse_args()
    t0 = time.monotonic()
    tmp = os.path.abspath(a.work)
    if os.path.exists(tmp):
        for root, dirs, _ in os.walk(tmp):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
        shutil.rmtree(tmp)
    os.makedirs(tmp)
    inputs = make_inputs(a.attn_opt, os.path.abspath(a.inputs), tmp)

    passes = discover(a.attn_opt)
    nopts = sum(len(o) for o in passes.values())
    print(f"discovered {len(passes)} attn-* passes/pipelines, {nopts} options:")
    for flag, opts in sorted(passes.items()):
        kinds = ", ".join(f"{o.name}:{o.kind}" for o in opts) or "(no options)"
        print(f"  --{flag}: {kinds}")
    unknown = [f"{f}:{o.name}" for f, os_ in passes.items() for o in os_
               if o.kind.startswith("unknown")]
    expected = {"attn-detect", "attn-io-cost", "attn-fuse", "attn-lower-to-loops",
                "attn-lower-to-gpu", "attn-dump-gpu-kernels", "attn-cpu-pipeline",
                "attn-gpu-pipeline"}
    missing = expected - set(passes)

    cases = (option_cases(a.attn_opt, passes, inputs, tmp)
             + pipeline_form_cases(a.attn_opt, passes, inputs, tmp)
             + combo_cases(a.attn_opt, passes, inputs, tmp)
             + cli_cases(a.attn_opt, inputs, tmp))
    if a.filter:
        cases = [c for c in cases if fnmatch.fnmatchcase(c.cid, a.filter)]
    Case.cwd = os.path.join(tmp, "cwd")
    os.makedirs(Case.cwd)
    for i, c in enumerate(cases):
        c.index = i
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        list(ex.map(run_case, cases))

    # Per-option summary: accepted vs rejected values.
    print("\nper-option results (accepted / rejected values):")
    by_opt = {}
    for c in cases:
        if c.opt is not None and ":pipeline-form:" not in c.cid:
            by_opt.setdefault((c.flag, c.opt.name, c.opt.kind), []).append(c)
    for (flag, name, kind), cs in sorted(by_opt.items()):
        acc = sorted({c.label for c in cs if c.rc == 0})
        rej = sorted({c.label for c in cs if c.rc != 0})
        print(f"  --{flag} {name} ({kind}): {len(acc)} accepted, {len(rej)} rejected;"
              f" accepted: {' '.join(acc) if acc else '-'}")

    # Failures against KNOWN_BUGS.
    unexpected, known, matched = [], [], set()
    counts = {"signal": 0, "timeout": 0, "silent": 0, "nonsense": 0, "error-exit-0": 0}
    for c in cases:
        if not c.failure:
            continue
        counts[c.failure[0]] += 1
        hit = [i for i, (pat, kind, _) in enumerate(KNOWN_BUGS)
               if fnmatch.fnmatchcase(c.cid, pat) and kind == c.failure[0]]
        if hit:
            matched.update(hit)
            known.append(c)
        else:
            unexpected.append(c)
    stale = [KNOWN_BUGS[i] for i in range(len(KNOWN_BUGS)) if i not in matched]

    def show(c):
        tail = "\n".join(c.stderr.strip().splitlines()[-3:])[:600]
        print(f"  [{c.failure[0]}] {c.cid}: {c.failure[1]} ({c.secs:.2f} s)\n"
              f"      $ {repro(c, a.attn_opt)}")
        if tail:
            print("      " + tail.replace("\n", "\n      "))

    if known:
        print(f"\nknown bugs ({len(known)} runs, listed in KNOWN_BUGS):")
        for c in known:
            show(c) if a.verbose else print(f"  [{c.failure[0]}] {c.cid}")
    if unexpected:
        print(f"\nUNEXPECTED FAILURES ({len(unexpected)}):")
        for c in unexpected:
            show(c)
    for pat, kind, what in stale:
        print(f"\nSTALE KNOWN_BUGS entry (no longer fails): {pat} [{kind}] {what}")
    for f in sorted(missing):
        print(f"\nMISSING: --{f} not found in --help")
    for u in unknown:
        print(f"\nUNCLASSIFIED option type: {u}")

    per_flag = {}
    for c in cases:
        key = c.cid.split(":", 1)[0]
        per_flag[key] = per_flag.get(key, 0.0) + c.secs
    print("\nseconds per flag (summed over runs): " + ", ".join(
        f"{k} {v:.1f}" for k, v in sorted(per_flag.items(), key=lambda kv: -kv[1])))
    slow = max(cases, key=lambda c: c.secs)
    nvals = len({c.label for c in cases if c.label})
    ok = not unexpected and not stale and not missing and not unknown
    print(f"\nslowest run: {slow.cid} {slow.secs:.2f} s; wall {time.monotonic() - t0:.1f} s")
    print(f"SUMMARY: {len(cases)} runs, {nopts} options, {nvals} distinct values, "
          f"{counts['signal']} signals, {counts['timeout']} timeouts, "
          f"{counts['silent']} silent failures, {counts['nonsense']} nonsense accepted, "
          f"{counts['error-exit-0']} errors with exit 0, "
          f"{len(known)} known, {len(unexpected)} unexpected, {len(stale)} stale")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
