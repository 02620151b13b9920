"""sha256 of every file the demo writes, pinned in `demo_sha256.json`.

The demo (`snakemake --cores 2 demo`) is deterministic, so the digests of its
outputs pin the behaviour of every study end to end. What legitimately varies
between two runs of the same configuration is left out of the digest: the
code version in the Parquet provenance (it names the git commit) and pandas'
own metadata (its version). Figures carry no date and no software version
(simcore.reporting.style.save), so PNG and PDF files are digested whole: a
new matplotlib release that draws differently needs a new pin. Logs are not
outputs and are not digested, nor are the timings (benchmarks/, cost.csv,
cost.md).

    python tests/demo_digests.py --check results/demo     # after `snakemake --cores 2 demo`
    python tests/demo_digests.py --write results/demo     # pin an intended change (say why)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import pyarrow.parquet as pq

PINNED = Path(__file__).resolve().parent / "demo_sha256.json"
PROVENANCE_KEY = b"schedsweep"  # simcore.workloads.files.PROVENANCE_KEY


def parquet_digest(path: Path) -> str:
    """The table's schema, rows (full float precision) and provenance, without the code version."""
    table = pq.read_table(path)
    provenance = json.loads((table.schema.metadata or {}).get(PROVENANCE_KEY, b"{}"))
    provenance.pop("code_version", None)
    digest = hashlib.sha256()
    digest.update(table.schema.remove_metadata().to_string().encode())
    digest.update(json.dumps(provenance, sort_keys=True).encode())
    digest.update(table.to_pandas().to_csv(index=False).encode())
    return digest.hexdigest()


def file_digest(path: Path) -> str:
    if path.suffix == ".parquet":
        return parquet_digest(path)
    return hashlib.sha256(path.read_bytes()).hexdigest()


# Timings: what each job cost (benchmarks/) and their sums (cost.csv, cost.md).
TIMINGS = ("cost.csv", "cost.md")


def digests(root: Path) -> dict[str, str]:
    def digested(relative: Path) -> bool:
        return (
            not {"logs", "benchmarks"} & set(relative.parts)
            and relative.suffix != ".log"
            and str(relative) not in TIMINGS
        )

    return {
        str(path.relative_to(root)): file_digest(path)
        for path in sorted(root.rglob("*"))
        if path.is_file() and digested(path.relative_to(root))
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help=f"pin the digests in {PINNED.name}")
    action.add_argument("--check", action="store_true", help="compare with the pinned digests")
    parser.add_argument("root", type=Path, help="the demo's output directory (results/demo)")
    args = parser.parse_args(argv)
    computed = digests(args.root)
    if not computed:
        parser.error(f"{args.root}: no files; run the demo first")
    if args.write:
        tmp = PINNED.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(computed, indent=1, sort_keys=True) + "\n")
        tmp.replace(PINNED)
        print(f"pinned {len(computed)} files of {args.root} in {PINNED}")
        return 0
    pinned = json.loads(PINNED.read_text())
    problems = [
        f"{name}: {'missing' if name not in computed else 'differs'}"
        for name in pinned
        if computed.get(name) != pinned[name]
    ]
    problems += [f"{name}: not pinned" for name in computed if name not in pinned]
    print("\n".join(problems) or f"{len(pinned)} files identical to the pinned digests")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
