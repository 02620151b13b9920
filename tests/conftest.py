"""Shared fixtures: the local PWA mirror (../shared/pwa) and small SWF files."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import simcore

REPO = Path(__file__).resolve().parent.parent


# The local mirror of the Parallel Workloads Archive: ../shared/pwa beside the repository,
# or $SCHEDSWEEP_PWA (a checkout elsewhere, e.g. a git worktree).
PWA = Path(os.environ.get("SCHEDSWEEP_PWA") or REPO.parent / "shared" / "pwa").resolve()

TRACE_FILES = {
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "SDSC-BLUE": "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "HPC2N": "HPC2N-2002-2.2-cln.swf.gz",
    "ANL-Intrepid": "ANL-Intrepid-2009-1.swf.gz",
    "CEA-Curie": "CEA-Curie-2011-2.1-cln.swf.gz",
    "UniLu-Gaia": "UniLu-Gaia-2014-2.swf.gz",
    "LPC-EGEE": "LPC-EGEE-2004-1.2-cln.swf.gz",
    "NASA-iPSC": "NASA-iPSC-1993-3.1-cln.swf.gz",
}
# The trace of the mirror whose jobs all lack a requested time: every filter empties it.
NO_REQUESTED_TIMES = "NASA-iPSC"
# The mirror's trace files that keep jobs after filtering: all but NO_REQUESTED_TIMES.
SIMULABLE_MIRROR = sorted(path.name for path in PWA.glob("*.swf.gz") if path.name != TRACE_FILES[NO_REQUESTED_TIMES])


@pytest.fixture(scope="session")
def pwa_trace():
    """Path of a real trace in the local mirror; the mirror is required."""

    def path(name: str) -> Path:
        trace = PWA / TRACE_FILES[name]
        assert trace.exists(), f"missing {trace}: the tests need ../shared/pwa beside the repository"
        return trace

    return path


HEADER = "; Version: 2.2\n; MaxNodes: 4\n; MaxProcs: 8\n"


def job_line(job_id, submit, run, procs, requested, user=1, alloc=None):
    alloc = procs if alloc is None else alloc
    return f"{job_id} {submit} -1 {run} {alloc} -1 -1 {procs} {requested} -1 1 {user} 1 -1 1 -1 -1 -1\n"


@pytest.fixture
def write_swf(tmp_path):
    """Write SWF text (str) to a file and return its path."""

    def write(text: str, name: str = "trace.swf") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


def assert_fuzz_run_is_clean(script: str, seed: int, cwd) -> None:
    """Run a fuzz `script` (seed as its argument) in a subprocess importing the simcore under test,
    whichever checkout that is: a crash or a hang there is a failure here, and the script must
    end by reporting "clean errors" (only Python exceptions came out)."""
    env = {**os.environ, "PYTHONPATH": str(Path(simcore.__file__).resolve().parents[1])}
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, str(seed)], capture_output=True, text=True, timeout=120, cwd=cwd, env=env
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"seed {seed}: the fuzz run hung (an event loop that never ends)")
    assert done.returncode == 0, f"seed {seed}: exit status {done.returncode}\n{done.stderr[-3000:]}"
    assert "clean errors" in done.stdout
