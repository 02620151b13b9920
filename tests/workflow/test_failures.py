"""What a user sees on the terminal when a run cannot do what was asked: each failure's one-line
reason (a configuration error naming its key, a failed job's log shown by the default profile's
`show-failed-logs`), and a site log too short for the studies that resample, which are skipped
when the run is planned while the others run to the end."""

import hashlib

import pytest
import yaml
from conftest import REPO
from workflow.test_workflow import TINY, run_snakemake

pytestmark = [pytest.mark.workflow, pytest.mark.xdist_group("failures")]

# The README's sacct command's fields (simcore.workloads.sacct.SACCT_COMMAND).
HEADER = (
    "Cluster|JobID|JobIDRaw|User|Group|Partition|State|Submit|Start|End|Timelimit|AllocCPUS|ReqCPUS|AllocNodes|"
    "ReqNodes|ReqMem|Account"
)


def short_dump(jobs: int = 15) -> str:
    """`jobs` one-CPU jobs submitted 16 s apart (4 minutes), each running 30 s: a dump that a site
    gets from a fresh cluster."""
    lines = [HEADER]
    for job in range(1, jobs + 1):
        submit, start = 16 * (job - 1), 16 * (job - 1) + job % 3
        stamp = [f"2026-11-26T13:{(t // 60):02d}:{(t % 60):02d}" for t in (submit, start, start + 30)]
        lines.append(f"c|{job}|{job}|u{job % 2}|g|batch|COMPLETED|{'|'.join(stamp)}|00:05:00|1|1|1|1|100M|a{job % 2}")
    return "\n".join(lines) + "\n"


def terminal(done) -> str:
    return done.stdout + done.stderr


def test_a_missing_local_trace_is_one_line_naming_its_key(tmp_path):
    done = run_snakemake(tmp_path, {"local_traces": {"gone": "/nowhere/gone.sacct"}, "only": "gone"}, check=False)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "schedsweep: config: local_traces.gone.path: /nowhere/gone.sacct is not a file"
    )
    assert "Traceback" not in terminal(done) and 'File "' not in terminal(done)


def test_a_dump_missing_required_fields_shows_the_importers_reason(tmp_path):
    dump = tmp_path / "bad.sacct"
    dump.write_text("JobIDRaw|State|Submit|Start\n1|COMPLETED|2026-11-26T13:00:00|2026-11-26T13:00:01\n")
    done = run_snakemake(tmp_path / "run", {"local_traces": {"bad": str(dump)}, "only": "bad"}, check=False)
    assert done.returncode == 1
    output = terminal(done)
    assert "Logfile logs/import_sacct_trace/bad.log:" in output  # the failed job's log, shown
    assert f"simcore import-sacct: error: {dump}, line 1: " in output and "End" in output


def test_a_truncated_dump_shows_the_line_it_ends_on(tmp_path):
    dump = tmp_path / "cut.sacct"
    dump.write_text(short_dump()[:-30])  # cut inside the last job line, no newline after it
    done = run_snakemake(tmp_path / "run", {"local_traces": {"cut": str(dump)}, "only": "cut"}, check=False)
    assert done.returncode == 1
    assert f"simcore import-sacct: error: {dump}, line 16: " in terminal(done)


def test_an_offline_fetch_shows_where_it_looked_and_how_to_provide_the_file(tmp_path):
    text = b"; MaxProcs: 8\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n"
    catalogue = tmp_path / "catalogue.yaml"
    entry = {
        "file": "AWAY.swf.gz",
        "url": "http://127.0.0.1:9/AWAY.swf.gz",  # loopback: refused at once, never the network
        "swf_sha256": hashlib.sha256(text).hexdigest(),
        "machine_size": 8,
    }
    # the real catalogue (the configuration's other traces are named in it) and one trace whose
    # sources are away
    real = yaml.safe_load((REPO / "config/pwa_catalogue.yaml").read_text())
    catalogue.write_text(yaml.safe_dump({**real, "traces": {**real["traces"], "AWAY": entry}}))
    (tmp_path / "empty-mirror").mkdir()
    config = {"catalogue": str(catalogue), "pwa_mirror": str(tmp_path / "empty-mirror"), "only": "AWAY"}
    config |= {"traces": ["AWAY"], "recorded_schedule": {"traces": ["AWAY"]}}
    done = run_snakemake(tmp_path / "run", config, check=False)
    assert done.returncode == 1
    output = terminal(done)
    assert "Logfile logs/fetch_trace/AWAY.log:" in output
    assert "cannot obtain trace AWAY" in output and "Provide it with --config pwa_mirror=DIR" in output


def test_a_short_dump_runs_what_it_can_and_says_what_it_skipped(tmp_path):
    dump = tmp_path / "mysite.sacct"
    dump.write_text(short_dump())
    # the README's command for a site's log, on a 15-job, 4-minute dump
    done = run_snakemake(
        tmp_path / "run", {}, "--config", f"local_traces={{mysite: {dump}}}", "only=mysite", "variants=10"
    )
    output = terminal(done)
    why = "mysite is too short: its submits span weeks 0..0; resampling drops the first and last week"
    for study in ("fixed_policy", "bandit", "prediction"):
        assert f"  skipped: {study}: {why}" in output
        assert f"  not run              {study}: {why}" in output  # and again in the closing summary
    assert "  runs:    recorded_schedule on mysite" in output
    assert "schedsweep: the campaign run is done; its results are in results/" in output
    assert (tmp_path / "run/results/tables/recorded_schedule.csv").is_file()
    assert "cost                 " in output


def test_the_tiny_configuration_has_the_studies_the_short_dump_skips():
    # the short dump's test means something only if these studies take a site's log
    assert {"fixed_policy", "bandit", "prediction"} <= set(TINY) and TINY["recorded_schedule"]["traces"]
