"""`python -m tests.testgen.golden update [FILE ...] [--dry-run]`: rewrite the golden files from the current code and
show the diff (see `tests.testgen.golden`)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tests.testgen.golden import files, update


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.testgen.golden", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    updating = commands.add_parser("update", help="rewrite `expected` from the current code and show the diff")
    updating.add_argument("files", nargs="*", type=Path, help="golden files (default: all of them)")
    updating.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
    args = parser.parse_args(argv)
    changed = update(args.files or files(), write=not args.dry_run, out=sys.stdout)
    print(f"{changed} case(s) changed" + (" (not written)" if args.dry_run and changed else ""), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
