"""Time and memory of `simcore import-sacct` on a generated 1,000,000-line sacct dump.

    python benchmarks/bench_sacct.py [--lines 1000000] [--seed 0] [--repeat 3]

The dump (tests/sacct_dumps.py, seeded: the same bytes every run) has every form the importer
reads: array tasks and heterogeneous components, job steps, every state, jobs not ended, each
time-limit form, ReqMem per CPU, per node and per job, four partitions, Zipf-distributed users. It
is written to a temporary folder, then `simcore import-sacct DUMP -o OUT.swf.gz` runs in a fresh
process `--repeat` times: the best wall time (process start included) and the peak RSS of those
processes (each one's own getrusage, from os.wait4) are printed with the lines per second, and PASS or FAIL
against the targets, 10 s and 1 GB. A FAIL does not change the exit code: this is a measurement.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_SECONDS, TARGET_BYTES = 10.0, 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=1_000_000, help="about this many dump lines (header excluded)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    python_path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    environment = {**os.environ, "PYTHONPATH": python_path}  # this checkout's simcore

    with tempfile.TemporaryDirectory() as folder:
        dump, output = Path(folder) / "sacct.txt", Path(folder) / "trace.swf.gz"
        began = time.perf_counter()
        # generated in a process of its own: its gigabytes would count in the peak of a child forked from here
        generator = [sys.executable, str(REPO / "tests" / "sacct_dumps.py"), str(dump), str(args.lines), str(args.seed)]
        lines = int(subprocess.run(generator, capture_output=True, text=True, env=environment, check=True).stdout)
        size = dump.stat().st_size / 1e6
        print(f"dump: {lines:,} lines, {size:,.0f} MB, generated in {time.perf_counter() - began:.1f} s")
        times, peaks = [], []
        for _ in range(args.repeat):
            began = time.perf_counter()
            command = [sys.executable, "-m", "simcore.cli", "import-sacct", str(dump), "-o", str(output)]
            process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment
            )
            stdout, stderr = process.stdout.read(), process.stderr.read()
            _, status, usage = os.wait4(process.pid, 0)  # this child's own rusage (RUSAGE_CHILDREN, per child)
            times.append(time.perf_counter() - began)
            peaks.append(usage.ru_maxrss * 1024)  # KB on Linux
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"import-sacct failed:\n{stderr}")
        print(stdout.splitlines()[-1].replace(str(output), "trace.swf.gz"))
        best, peak = min(times), max(peaks)
        print(f"wall time  {best:.2f} s (best of {args.repeat}; {', '.join(f'{t:.2f}' for t in times)})")
        print(f"peak RSS   {peak / 1e6:,.0f} MB (the largest of the {args.repeat} runs)")
        print(f"speed      {lines / best:,.0f} lines/s")
        print(f"{'PASS' if best <= TARGET_SECONDS else 'FAIL'} wall time <= {TARGET_SECONDS:.0f} s")
        print(f"{'PASS' if peak <= TARGET_BYTES else 'FAIL'} peak RSS <= {TARGET_BYTES / 1e9:.0f} GB")


if __name__ == "__main__":
    main()
