"""Shared fixtures: the local PWA mirror (../shared/pwa) and small SWF files."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _pwa_mirror() -> Path:
    """The local mirror: $SCHEDSWEEP_PWA, else ../shared/pwa beside the repository, or
    beside the main checkout when the repository is a git worktree elsewhere."""
    if os.environ.get("SCHEDSWEEP_PWA"):
        return Path(os.environ["SCHEDSWEEP_PWA"]).resolve()
    beside = REPO.parent / "shared" / "pwa"
    dot_git = REPO / ".git"
    if beside.exists() or not dot_git.is_file():
        return beside
    # a linked worktree: .git says "gitdir: MAIN/.git/worktrees/NAME", MAIN's parent has shared/
    gitdir = REPO / dot_git.read_text().partition("gitdir:")[2].strip()
    commondir = gitdir / "commondir"
    common = (gitdir / commondir.read_text().strip()) if commondir.exists() else gitdir.parent.parent
    main = common.resolve().parent / ".." / "shared" / "pwa"
    return main.resolve() if main.exists() else beside


PWA = _pwa_mirror()

TRACE_FILES = {
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "SDSC-BLUE": "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "HPC2N": "HPC2N-2002-2.2-cln.swf.gz",
    "ANL-Intrepid": "ANL-Intrepid-2009-1.swf.gz",
    "CEA-Curie": "CEA-Curie-2011-2.1-cln.swf.gz",
    "UniLu-Gaia": "UniLu-Gaia-2014-2.swf.gz",
}


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
