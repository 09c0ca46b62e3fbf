"""`attn-opt` as a console command of the wheel (and `python -m attnopt`):
the same driver as the executable, run in this process through the C API."""
import sys


def main() -> None:
    from . import _core
    sys.stdout.flush()
    sys.exit(_core.main(["attn-opt"] + sys.argv[1:]))
