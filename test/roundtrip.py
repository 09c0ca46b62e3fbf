#!/usr/bin/env python3
"""attn-opt as lit runs it under `--param roundtrip=1`.

Runs the real attn-opt with the test's arguments plus --verify-roundtrip
(the input, once parsed, must print and parse back to the same IR), passes
its output and exit code through unchanged, and then checks the *output* the
same way: whatever IR attn-opt printed must parse back and round-trip too
(in the spirit of CIRCT's round-trip mode). A failure of the second step
makes the command fail with the reason on stderr.

Skipped for the output: runs that fail (their output is diagnostics), runs
under -verify-diagnostics, and runs whose stdout also carries a text report
(io-cost's report=-), which is not IR.
"""
import subprocess
import sys


def main():
    attn_opt, args = sys.argv[1], sys.argv[2:]
    first = subprocess.run([attn_opt, "--verify-roundtrip"] + args,
                           stdin=sys.stdin.buffer, capture_output=True)
    sys.stdout.buffer.write(first.stdout)
    sys.stdout.buffer.flush()
    sys.stderr.buffer.write(first.stderr)
    sys.stderr.buffer.flush()
    if first.returncode != 0 or "-verify-diagnostics" in args or \
            any("report=-" in a for a in args):
        return first.returncode

    output = first.stdout
    if "-o" in args:
        path = args[args.index("-o") + 1]
        if path == "/dev/null" or path == "-":
            return first.returncode if path == "/dev/null" else 0
        with open(path, "rb") as f:
            output = f.read()
    if not output.strip():
        return 0
    again = [attn_opt, "--verify-roundtrip", "-o", "/dev/null"]
    again += [a for a in args if a in ("-split-input-file", "--split-input-file",
                                       "-allow-unregistered-dialect",
                                       "--allow-unregistered-dialect")]
    second = subprocess.run(again, input=output, capture_output=True)
    if second.returncode != 0:
        sys.stderr.write("roundtrip: the output of `attn-opt %s` does not "
                         "parse back and round-trip:\n" % " ".join(args))
        sys.stderr.buffer.write(second.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
