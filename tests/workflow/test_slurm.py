"""Cluster execution on a real one-node Slurm (.ci/slurm-smoke, .ci/slurm-failure),
and its accounting read back by `simcore import-sacct` (.ci/slurm-accounting).

Each script installs Debian's Slurm, brings a cluster up on this host, runs a
small campaign through workflow/profiles/slurm (or, with slurmdbd and MariaDB,
a job mix whose sacct dump it imports and checks) and stops everything again.
They need root and apt-get, so they are deselected by default (`-m "not
slurm"` in pyproject.toml); CI runs them with `pytest -m slurm` and
REQUIRE_SLURM=1, which turns a script that could not run Slurm into a failure.
"""

import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import REPO
from workloads.test_slurm_twin_fixtures import ALL_CLUSTERS, assert_live_agreement

SKIPPED = "SLURM TEST SKIPPED"


def verdict(returncode: int, output: str, required: bool) -> tuple[str, str]:
    """What a Slurm script's run means: ("pass" | "skip" | "fail", why)."""
    if returncode != 0:
        return "fail", output[-5000:]
    if SKIPPED in output:
        reason = output[output.index(SKIPPED) :].splitlines()[0]
        return ("fail", f"REQUIRE_SLURM=1 but {reason}") if required else ("skip", reason)
    return "pass", ""


@pytest.mark.slurm
@pytest.mark.workflow
@pytest.mark.parametrize("script", ["slurm-smoke", "slurm-failure", "slurm-accounting"])
def test_slurm_script(script):
    done = subprocess.run(["bash", str(REPO / ".ci" / script)], capture_output=True, text=True, timeout=1800)
    output = done.stdout + done.stderr
    print(output[-20000:])
    outcome, why = verdict(done.returncode, output, os.environ.get("REQUIRE_SLURM") == "1")
    if outcome == "skip":
        pytest.skip(why)
    assert outcome == "pass", why


@pytest.mark.slurm
@pytest.mark.workflow
def test_live_twins_agree_as_the_fixtures_do():
    """Eight real Slurm clusters run the seeded workloads of tests/fixtures/slurm_twin now
    (.ci/slurm-twin; CI starts it beside the test suite and names its output in SLURM_TWIN_OUT), and
    each dump, simulated from its own slurm.conf as an operator runs it, agrees with the real
    schedule: pooled over the clusters, each cluster's start order, and each one's one-step replay
    (a live schedule is chaotic in sub-second timing: tests/workloads/test_slurm_twin_fixtures.py
    says what is held and why; the committed fixtures are held to issue #46's 80 % / 95 %)."""
    given = os.environ.get("SLURM_TWIN_OUT")
    out = Path(given) if given else Path(tempfile.mkdtemp()) / "twin"
    output = ""
    if not given:
        done = subprocess.run(["bash", str(REPO / ".ci" / "slurm-twin"), str(out)], capture_output=True, text=True)
        output = done.stdout + done.stderr
        outcome, why = verdict(done.returncode, output, os.environ.get("REQUIRE_SLURM") == "1")
        if outcome == "skip":
            pytest.skip(why)
        assert outcome == "pass", why
    missing = [cluster for cluster in ALL_CLUSTERS if not (out / cluster / "sacct.txt").is_file()]
    assert not missing, f"{out}: no dump of {missing}; {output[-3000:]}"
    print((out / "run.txt").read_text()[-3000:])
    assert_live_agreement(out)


SKIP_OUTPUT = f"installing...\n{SKIPPED} -- cluster execution was NOT tested: not root\nmore\n"


@pytest.mark.parametrize(
    ("returncode", "output", "required", "expected"),
    [
        (0, "all good\n", True, "pass"),
        (0, "all good\n", False, "pass"),
        (0, SKIP_OUTPUT, False, "skip"),
        (0, SKIP_OUTPUT, True, "fail"),
        (1, "sbatch: error\n", False, "fail"),
    ],
)
def test_a_skipped_slurm_run_fails_when_slurm_is_required(returncode, output, required, expected):
    outcome, why = verdict(returncode, output, required)
    assert outcome == expected
    if SKIPPED in output and outcome != "pass":
        assert why.endswith(f"{SKIPPED} -- cluster execution was NOT tested: not root")
