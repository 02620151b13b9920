"""The `simcore` command, run as a real subprocess."""

import json
import subprocess
import sys

import pandas as pd
import pytest

from conftest import HEADER, job_line
from simcore.output import read_provenance

REQUIRED_COLUMNS = {"job_id", "submit", "start", "end", "wait", "run", "procs", "requested", "backfilled"}


def simcore_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "simcore.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, timeout=120)


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    path = tmp_path_factory.mktemp("example") / "example.swf"
    done = simcore_cli("example", "-o", path)
    assert done.returncode == 0, done.stderr
    return path


def test_example_is_deterministic(example, tmp_path):
    again = tmp_path / "again.swf"
    assert simcore_cli("example", "-o", again).returncode == 0
    assert again.read_bytes() == example.read_bytes()


def test_simulate_prints_a_readable_summary(example):
    done = simcore_cli("simulate", example, "--policy", "SAF", "--threshold", "144000")
    assert done.returncode == 0, done.stderr
    assert "EASY(SAF, threshold=144000.0)" in done.stdout
    assert "AVEbsld" in done.stdout and "kernel" in done.stdout


def test_simulate_json_and_parquet(example, tmp_path):
    out = tmp_path / "jobs.parquet"
    done = simcore_cli("simulate", example, "--backfill", "SPF", "--estimate", "clairvoyant", "--json",
                       "--output", out)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert {"jobs", "avg_wait", "max_wait", "avg_bsld", "backfilled", "kernel_seconds"} <= set(summary)
    frame = pd.read_parquet(out)
    assert REQUIRED_COLUMNS <= set(frame.columns)
    assert len(frame) == summary["jobs"]
    assert frame["backfilled"].sum() == summary["backfilled"]
    assert frame["wait"].mean() == pytest.approx(summary["avg_wait"])
    provenance = read_provenance(out)
    assert provenance["options"] == {"order": "FCFS", "threshold": None, "backfill": "SPF",
                                     "estimate": "clairvoyant", "correction": "request"}
    assert provenance["filter"] == "strict" and provenance["filter_counts"]["kept"] == summary["jobs"]
    assert provenance["input_sha256"] and provenance["code_version"]


def test_rerun_gives_identical_bytes(example, tmp_path):
    for name in ("a.parquet", "b.parquet"):
        assert simcore_cli("simulate", example, "--policy", "LQF", "-o", tmp_path / name).returncode == 0
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def test_filter_and_info(pwa_trace, tmp_path):
    out = tmp_path / "kth.parquet"
    done = simcore_cli("filter", pwa_trace("KTH-SP2"), "-o", out)
    assert done.returncode == 0, done.stderr
    assert len(pd.read_parquet(out)) == 27992
    info = simcore_cli("info", pwa_trace("KTH-SP2"), "--json")
    assert info.returncode == 0, info.stderr
    facts = json.loads(info.stdout)
    assert facts["machine_size"] == 100 and facts["jobs"] == 27992 and facts["job_lines"] == 28476
    assert facts["filter_counts"]["truncate"]["kept"] == 28475
    assert facts["users"] > 100 and facts["span_days"] > 300
    text = simcore_cli("info", pwa_trace("KTH-SP2"))
    assert "run_over_request" in text.stdout and "27,992" in text.stdout


@pytest.mark.parametrize("args, message", [
    (["--policy", "FIFO"], "invalid choice: 'FIFO'"),
    (["--threshold", "-5"], "must be a number of seconds >= 0"),
    (["--backfill", "sideways"], "invalid choice: 'sideways'"),
])
def test_bad_options(example, args, message):
    done = simcore_cli("simulate", example, *args)
    assert done.returncode == 2
    assert message in done.stderr


def test_malformed_trace_is_one_clear_line(write_swf, tmp_path):
    path = write_swf(HEADER + job_line(1, 0, 10, 2, 20) + "2 5 -1 x 2\n")
    out = tmp_path / "never.parquet"
    done = simcore_cli("simulate", path, "-o", out)
    assert done.returncode == 2
    assert done.stderr.strip() == f"simcore simulate: error: {path}, line 5: field 4 is not a finite number: 'x'"
    assert "Traceback" not in done.stderr
    assert not out.exists()


def test_missing_file(tmp_path):
    done = simcore_cli("info", tmp_path / "nope.swf")
    assert done.returncode == 2 and "No such file" in done.stderr
