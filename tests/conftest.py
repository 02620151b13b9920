"""Shared fixtures: the real traces of the Parallel Workloads Archive and small SWF files."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import simcore
from simcore.workloads.catalogue import load_catalogue

REPO = Path(__file__).resolve().parent.parent


# Where the workflow fetches a catalogue trace (rule fetch_trace), one file name per trace: NAME.swf.gz.
FETCHED = REPO / "resources" / "traces"


def trace_directory() -> Path:
    """Where the tests read the archive's files: $SCHEDSWEEP_PWA, else the local mirror ../shared/pwa
    beside the repository (both named as in the catalogue, as the archive names them), else
    resources/traces, where the workflow and the README's fetch command put them (NAME.swf.gz)."""
    if os.environ.get("SCHEDSWEEP_PWA"):
        return Path(os.environ["SCHEDSWEEP_PWA"]).resolve()
    shared = REPO.parent / "shared" / "pwa"
    return shared if shared.is_dir() else FETCHED


PWA = trace_directory()
CATALOGUE = REPO / "config" / "pwa_catalogue.yaml"
TRACE_FILES = {
    name: f"{name}.swf.gz" if PWA == FETCHED else entry["file"] for name, entry in load_catalogue(CATALOGUE).items()
}
# The catalogue's trace whose jobs all lack a requested time: every filter empties it.
NO_REQUESTED_TIMES = "NASA-iPSC"
# The traces that keep jobs after filtering: all but NO_REQUESTED_TIMES.
SIMULABLE_TRACES = sorted(set(TRACE_FILES) - {NO_REQUESTED_TIMES})


def shown(path: Path) -> Path:
    """`path` as a command run from the repository names it."""
    return path.relative_to(REPO) if path.is_relative_to(REPO) else path


# CI sets it: a test whose real trace is missing fails instead of skipping.
REQUIRE_TRACES = os.environ.get("REQUIRE_TRACES") == "1"
MISSING = "missing real trace"  # in the reason of every such skip


def mirror_with(*names: str) -> Path:
    """PWA, once it holds the traces `names`. Without them the test skips, for one reason per set of
    missing traces that gives the commands fetching them (or fails if REQUIRE_TRACES)."""
    missing = [name for name in names if not (PWA / TRACE_FILES[name]).is_file()]
    if missing:
        fetch = " && ".join(
            f"simcore fetch {name} --catalogue {shown(CATALOGUE)} -o {shown(PWA / TRACE_FILES[name])}"
            for name in missing
        )
        reason = f"{MISSING}{'s' * (len(missing) > 1)} {', '.join(missing)} in {shown(PWA)}; fetch: {fetch}"
        if REQUIRE_TRACES:
            pytest.fail(f"REQUIRE_TRACES=1: {reason}")
        pytest.skip(reason)
    return PWA


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    """pytest-randomly reseeds random and numpy before each test, not Hypothesis. So that the seed it
    prints (--randomly-seed=N, the same on every xdist worker) repeats a whole run, the Hypothesis tests
    that are not derandomized draw from that seed too, as --hypothesis-seed=N would make them (which
    then leave Hypothesis's example database alone); an explicit --hypothesis-seed wins. Runs after
    pytest-randomly's and Hypothesis's own pytest_configure (trylast), which set and read those options."""
    seed = getattr(config.option, "randomly_seed", None)
    if isinstance(seed, int) and config.getoption("hypothesis_seed", None) is None:
        from hypothesis import core

        core.global_force_seed = seed  # what Hypothesis's plugin sets for --hypothesis-seed


def pytest_report_header():
    present = sum((PWA / file).is_file() for file in TRACE_FILES.values())
    return f"real traces: {present} of {len(TRACE_FILES)} in {PWA}, REQUIRE_TRACES={int(REQUIRE_TRACES)}"


def pytest_terminal_summary(terminalreporter):
    skipped = [report for report in terminalreporter.stats.get("skipped", []) if MISSING in report.longrepr[2]]
    if skipped:
        terminalreporter.write_line(
            f"{len(skipped)} tests skipped for missing real traces in {shown(PWA)}: the SKIPPED lines below "
            "give the commands fetching them (or set SCHEDSWEEP_PWA to a directory holding them)"
        )


@pytest.fixture(scope="session")
def pwa_trace():
    """Path of a real trace by its catalogue name; see mirror_with for when it is missing."""

    def path(name: str) -> Path:
        return mirror_with(name) / TRACE_FILES[name]

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
