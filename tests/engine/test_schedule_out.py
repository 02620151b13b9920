"""`simcore simulate --schedule-out`: the simulated schedule as SWF, read back by our parser and by
evalys (the Batsim ecosystem's analysis tool), whose waits and utilisation must be ours."""

import gzip

import numpy as np
import pandas as pd
import pytest
from conftest import HEADER
from evalys.metrics import load_mean
from evalys.workload import Workload as EvalysWorkload

from simcore.cli import main
from simcore.engine.simulation import simulate
from simcore.engine.swf import ALLOC_PROCS, JOB_ID, REQ_TIME, RUN, STATUS, SUBMIT, WAIT, parse_swf


def swf_line(job_id, submit, run, procs, requested, status=1):
    return f"{job_id} {submit} 77 {run} {procs} 12.5 -1 {procs} {requested} -1 {status} 3 1 -1 1 -1 -1 -1\n"


# Jobs out of (submit, id) order in the file, a fractional submit and run, one job over its request
# (truncate keeps it at its limit, strict drops it), one too wide for the 8 processors, one cancelled
# (status 5: evalys's reader drops it).
SYNTHETIC = HEADER + "".join(
    [
        swf_line(1, 0, 100, 4, 200),
        swf_line(2, 0, 50, 4, 100),
        swf_line(9, 60, 10, 2, 20),
        swf_line(3, 10, 300, 8, 250),
        swf_line(4, 20, 30, 2, 60),
        swf_line(5, 30.25, 40.5, 3, 60),
        swf_line(6, 40, 20, 9, 60),
        swf_line(7, 50, 10, 2, 20, status=5),
        swf_line(8, 60, 10, 2, 20),
    ]
)


@pytest.fixture(params=["synthetic", "KTH-SP2"])
def trace(request, write_swf, pwa_trace):
    return write_swf(SYNTHETIC) if request.param == "synthetic" else pwa_trace("KTH-SP2")


def simulate_to_schedule(trace, schedule, *options):
    """The schedule written by the command, and our own simulation of the same trace and options."""
    assert main(["simulate", str(trace), "--schedule-out", str(schedule), *options]) == 0
    policy = dict(zip(options[::2], options[1::2]))
    log = parse_swf(trace)
    workload = log.workload(filter=policy.get("--filter", "strict"))
    order = policy.get("--policy", "FCFS")
    return log, simulate(workload, order=order, backfill=policy.get("--backfill", "queue"))


@pytest.mark.parametrize("options", [(), ("--filter", "truncate", "--policy", "SPF", "--backfill", "SPF")])
def test_the_schedule_reads_back_as_the_kept_lines_with_the_simulated_waits(trace, tmp_path, options):
    log, result = simulate_to_schedule(trace, tmp_path / "schedule.swf.gz", *options)
    schedule = parse_swf(tmp_path / "schedule.swf.gz")
    workload = result.workload
    kept = log.fields[[np.flatnonzero(log.fields[:, JOB_ID] == job)[0] for job in workload.job_id]]
    unchanged = [field for field in range(18) if field not in (WAIT, RUN)]
    assert np.array_equal(schedule.fields[:, unchanged], kept[:, unchanged])
    assert np.array_equal(schedule.fields[:, WAIT], result.start - workload.submit)
    assert np.array_equal(schedule.fields[:, RUN], np.minimum(kept[:, RUN], kept[:, REQ_TIME]))
    truncated = int(np.count_nonzero(kept[:, RUN] > kept[:, REQ_TIME]))
    assert truncated == workload.filter_counts["truncated"]
    assert schedule.header_lines[: len(log.header_lines)] == log.header_lines
    notes = "\n".join(schedule.header_lines[len(log.header_lines) :])
    assert f"SimcorePolicy: {' '.join(f'{key}={value}' for key, value in result.options.items())}" in notes
    assert f"{len(workload):,} jobs of {len(log.fields):,} job lines" in notes
    assert f"for the {truncated:,} jobs that ran past it" in notes
    # read back and filtered again, the schedule is the same workload
    again = schedule.workload(filter=workload.filter_mode)
    assert np.array_equal(again.job_id, workload.job_id) and np.array_equal(again.run, workload.run)


def test_the_synthetic_schedule_drops_says_and_orders(write_swf, tmp_path):
    log, result = simulate_to_schedule(write_swf(SYNTHETIC), tmp_path / "s.swf", "--filter", "truncate")
    text = (tmp_path / "s.swf").read_text()
    assert "not in this schedule: procs_over_machine 1" in text
    jobs = [line.split() for line in text.splitlines() if not line.startswith(";")]
    assert [int(job[0]) for job in jobs] == [1, 2, 3, 4, 5, 7, 8, 9]
    assert jobs[2][3] == "250"  # job 3 ran 300 s past its 250 s request: killed at the limit
    assert jobs[4][1:4] == ["30.25", str(result.start[4] - 30.25), "40.5"]  # no `.0`, fractions as read
    assert jobs[0][5] == "12.5" and jobs[0][2] == "0"


def test_reruns_give_the_same_bytes_and_gzip_holds_the_plain_text(write_swf, tmp_path):
    trace = write_swf(SYNTHETIC)
    for name in ("a.swf.gz", "b.swf.gz", "plain.swf"):
        assert main(["simulate", str(trace), "--schedule-out", str(tmp_path / name)]) == 0
    packed = (tmp_path / "a.swf.gz").read_bytes()
    assert packed == (tmp_path / "b.swf.gz").read_bytes()
    assert packed[4:8] == b"\0\0\0\0"  # gzip's mtime
    assert gzip.decompress(packed) == (tmp_path / "plain.swf").read_bytes()


def test_a_schedule_file_must_be_named_swf(write_swf, tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["simulate", str(write_swf(SYNTHETIC)), "--schedule-out", str(tmp_path / "s.csv")])
    assert "name a .swf or a .swf.gz file" in capsys.readouterr().err


@pytest.fixture
def evalys_from_csv(monkeypatch):
    """evalys's SWF reader, Workload.from_csv. Every evalys release (4.0.7, the newest, included)
    calls pandas.read_csv(delim_whitespace=True), a keyword pandas 3 removed; while the test runs
    it is translated into sep=r"\\s+", the replacement pandas documents. Nothing else of evalys is
    changed."""
    read_csv = pd.read_csv

    def read_csv_with_delim_whitespace(*args, delim_whitespace=False, **options):
        if delim_whitespace:
            options["sep"] = r"\s+"
        return read_csv(*args, **options)

    monkeypatch.setattr(pd, "read_csv", read_csv_with_delim_whitespace)
    return lambda path: EvalysWorkload.from_csv(str(path))


def mean_utilisation(jobs: pd.DataFrame, processors: str, machine_size: int) -> float:
    """Utilisation as evalys's Workload.utilisation and load_mean define it, from our per-job frame:
    the processor-seconds of the jobs holding processors over the machine's from the first start to
    the last end of those jobs (ours, the summary's, counts from the first submit instead)."""
    holding = jobs[jobs[processors] > 0]
    span = holding["end"].max() - holding["start"].min()
    return float((holding[processors] * (holding["end"] - holding["start"])).sum() / (machine_size * span))


def test_evalys_reads_our_waits_and_utilisation(trace, tmp_path, evalys_from_csv):
    """evalys's reader keeps the jobs of status 0 or 1 and, taking the first job line for a header
    (read_csv(header=0) with its own column names), loses the first job: the job sets must differ
    by exactly these. On them, its waits are ours exactly, and its utilisation (on allocated
    processors, field 5) is ours exactly, computed from our frame on the same processors and span."""
    log, result = simulate_to_schedule(trace, tmp_path / "schedule.swf")
    read = evalys_from_csv(tmp_path / "schedule.swf")
    ours = result.to_frame()
    schedule = parse_swf(tmp_path / "schedule.swf")
    kept = schedule.fields[:, STATUS] <= 1
    kept[0] = False
    assert read.df["jobID"].tolist() == schedule.fields[kept, JOB_ID].astype(int).tolist()
    ours = ours.set_index("job_id").loc[read.df["jobID"]]
    assert np.array_equal(read.df["waiting_time"].to_numpy(float), ours["wait"].to_numpy())
    assert np.array_equal(
        read.df["submission_time"] + read.df["waiting_time"] + read.df["execution_time"], ours["end"].to_numpy()
    )
    # the summary's utilisation is this one on every job, their q processors and from the first start: the first
    # job starts at its submit on the empty machine
    machine_size = result.workload.machine_size
    assert result.summary()["utilization"] == mean_utilisation(result.to_frame(), "procs", machine_size)
    evalys_mean = load_mean(read.utilisation)  # processors in use, averaged from its first event to its last
    ours["allocated"] = schedule.fields[kept, ALLOC_PROCS]
    assert evalys_mean / read.MaxProcs == mean_utilisation(ours, "allocated", machine_size)
    if np.array_equal(ours["allocated"], ours["procs"]):  # field 5 is the processors simulated (q)
        assert evalys_mean / read.MaxProcs == mean_utilisation(ours, "procs", machine_size)
    assert read.df["submission_time"].tolist() == schedule.fields[kept, SUBMIT].tolist()
