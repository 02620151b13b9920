"""Reading, header parsing and filtering of SWF logs (SEMANTICS §1)."""

import gzip

import numpy as np
import pytest
from conftest import HEADER, job_line

import simcore
from simcore.engine.swf import header_machine_size, parse_header


def test_header_keys_with_carriage_returns_and_odd_spacing(write_swf):
    text = ";Version:2.2\r\n;   MaxProcs:    338 (batch partition; 512 total)\r\n; MaxNodes: 12\n" + job_line(
        1, 0, 10, 2, 20
    )
    workload = simcore.read_swf(write_swf(text))
    assert workload.machine_size == 338
    assert workload.header["Version"] == "2.2"


def test_machine_size_falls_back_to_max_nodes_and_override_wins(write_swf):
    assert header_machine_size({"MaxProcs": "-1", "MaxNodes": "16"}) == 16
    assert header_machine_size({"maxprocs": "0"}) is None
    path = write_swf("; MaxNodes: 16\n" + job_line(1, 0, 10, 2, 20))
    assert simcore.read_swf(path).machine_size == 16
    assert simcore.read_swf(path, machine_size=4).machine_size == 4


def test_first_header_occurrence_wins():
    assert parse_header([(1, " MaxProcs: 10"), (2, " MaxProcs: 20"), (3, " no key here")]) == {"MaxProcs": "10"}


def test_gzip_and_plain_give_the_same_workload(write_swf, tmp_path):
    text = HEADER + job_line(2, 5, 10, 2, 20) + job_line(1, 5, 3, 1, 20)
    plain = write_swf(text)
    packed = tmp_path / "trace.swf.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    a, b = simcore.read_swf(plain), simcore.read_swf(packed)
    assert a.job_id.tolist() == b.job_id.tolist() == [1, 2]  # sorted by (submit, id)
    assert a.source_sha256 != b.source_sha256  # hash of the file as stored


def _filter_text():
    return HEADER + "".join(
        [
            job_line(1, 0, 10, 2, 20),  # kept
            job_line(2, 1, 10, 9, 20),  # rule 1: f8 > m
            job_line(3, 2, 10, 2, 20, alloc=9),  # rule 1: f5 > m
            job_line(4, 3, 10, -1, 20, alloc=0),  # rule 2: q <= 0
            job_line(5, -1, 10, 2, 20),  # rule 3: negative submit
            job_line(6, 4, -1, 2, 20),  # rule 4: negative run time
            job_line(7, 5, 0, 2, 20),  # rule 4 (strict only): zero run time
            job_line(8, 6, 10, 2, -1),  # rule 5: no requested time
            job_line(9, 7, 30, 2, 20),  # rule 6: run over request
            job_line(10, 8, 10, -1, 20, alloc=3),  # q from f5
        ]
    )


def test_strict_filter_counts_every_rule(write_swf):
    workload = simcore.read_swf(write_swf(_filter_text()), filter="strict")
    assert workload.job_id.tolist() == [1, 10]
    assert workload.procs.tolist() == [2, 3]
    assert workload.filter_counts == {
        "lines": 10,
        "procs_over_machine": 2,
        "no_procs": 1,
        "negative_submit": 1,
        "bad_run_time": 2,
        "no_requested_time": 1,
        "run_over_request": 1,
        "truncated": 0,
        "kept": 2,
    }


def test_truncate_filter_keeps_zero_runs_and_truncates(write_swf):
    workload = simcore.read_swf(write_swf(_filter_text()), filter="truncate")
    assert workload.job_id.tolist() == [1, 7, 9, 10]
    assert workload.run.tolist() == [10, 0, 20, 10]  # job 9 killed at its request
    assert workload.filter_counts["bad_run_time"] == 1
    assert workload.filter_counts["truncated"] == 1
    assert workload.filter_counts["run_over_request"] == 0


def test_batsim_filter_reads_the_log_as_batsims_converter(write_swf):
    """Allocated processors, a zero run dropped, no request needed: each job runs floor(f4) + 1 s
    under max(2 f4, f9) (SEMANTICS §1, `batsim`)."""
    workload = simcore.read_swf(write_swf(_filter_text()), filter="batsim")
    assert workload.job_id.tolist() == [1, 8, 9, 10]
    assert workload.run.tolist() == [11, 11, 31, 11]
    assert workload.requested.tolist() == [20, 20, 60, 20]  # job 8 had none, job 9 ran over its 20 s
    assert workload.procs.tolist() == [2, 2, 2, 3]
    assert workload.filter_counts == {
        "lines": 10,
        "procs_over_machine": 2,
        "no_procs": 1,
        "negative_submit": 1,
        "bad_run_time": 2,
        "no_requested_time": 0,
        "run_over_request": 0,
        "truncated": 0,
        "kept": 4,
    }


def test_batsim_filter_takes_the_allocated_processors_whatever_was_requested(write_swf):
    text = HEADER + job_line(1, 0, 10.5, 9, 20, alloc=4) + job_line(2, 1, 10, 2, 20, alloc=-1)
    assert simcore.read_swf(write_swf(text), filter="batsim").procs.tolist() == [4]
    assert simcore.read_swf(write_swf(text), filter="batsim").run.tolist() == [11]  # floor(10.5) + 1
    assert simcore.read_swf(write_swf(text), filter="strict").job_id.tolist() == [2]


@pytest.mark.parametrize(
    "line, message",
    [
        ("1 0 -1 10 2\n", "line 4: expected 18 whitespace-separated fields, found 5"),
        (job_line(1, 0, 10, 2, 20).strip() + " 7\n", "line 4: expected 18 whitespace-separated fields, found 19"),
        (job_line(1, 0, 10, 2, 20).replace(" 10 ", " 1O ", 1), "line 4: field 4 is not a finite number: '1O'"),
        (job_line(1, 0, 10, 2, 20).replace(" 10 ", " nan ", 1), "line 4: field 4 is not a finite number: 'nan'"),
    ],
)
def test_malformed_line_names_file_and_line(write_swf, line, message):
    path = write_swf(HEADER + line)
    with pytest.raises(simcore.SwfFormatError) as error:
        simcore.read_swf(path)
    assert str(error.value) == f"{path}, {message}"


def test_duplicate_job_id_is_an_error(write_swf):
    path = write_swf(HEADER + job_line(1, 0, 10, 2, 20) + "\n" + job_line(1, 5, 10, 2, 20))
    with pytest.raises(simcore.SwfFormatError, match=r"line 6: job id 1 appears twice"):
        simcore.read_swf(path)


@pytest.mark.parametrize("text", ["", "; MaxProcs: 8\n; only comments\n", "\n\n  \n"])
def test_empty_file_is_an_error(write_swf, text):
    with pytest.raises(simcore.SwfFormatError, match="no job lines"):
        simcore.read_swf(write_swf(text))


def test_missing_header_needs_a_machine_size(write_swf):
    path = write_swf(job_line(1, 0, 10, 2, 20))
    with pytest.raises(simcore.SwfFormatError, match="no positive MaxProcs or MaxNodes"):
        simcore.read_swf(path)
    assert len(simcore.read_swf(path, machine_size=4)) == 1


def test_unknown_filter_and_bad_machine_size(write_swf):
    path = write_swf(HEADER + job_line(1, 0, 10, 2, 20))
    with pytest.raises(ValueError, match="unknown filter mode 'loose'"):
        simcore.read_swf(path, filter="loose")
    with pytest.raises(ValueError, match="machine size must be positive"):
        simcore.read_swf(path, machine_size=0)


def test_not_gzip_despite_magic(write_swf, tmp_path):
    path = tmp_path / "broken.swf.gz"
    path.write_bytes(b"\x1f\x8bnot really gzip")
    with pytest.raises(simcore.SwfFormatError, match="not a readable gzip file"):
        simcore.read_swf(path)


# The strict-filter job counts of the bandit paper's artifact (issue #2).
STRICT_COUNTS = {
    "KTH-SP2": 27992,
    "CTC-SP2": 70025,
    "SDSC-SP2": 49865,
    "SDSC-BLUE": 209102,
    "ANL-Intrepid": 56694,
    "CEA-Curie": 290124,
    "UniLu-Gaia": 50359,
}


@pytest.mark.parametrize("name", sorted(STRICT_COUNTS))
def test_strict_counts_of_the_bandit_artifact(pwa_trace, name):
    workload = simcore.read_swf(pwa_trace(name), filter="strict")
    assert len(workload) == STRICT_COUNTS[name]
    counts = workload.filter_counts
    assert (
        counts["lines"] - sum(v for k, v in counts.items() if k not in ("lines", "kept", "truncated"))
        == counts["kept"]
        == len(workload)
    )
    assert np.all(np.diff(workload.submit) >= 0)


def test_a_parquet_file_is_named_as_such(tmp_path):
    from simcore.workloads.files import write_workload

    path = tmp_path / "w.parquet"
    write_workload(
        simcore.Workload.from_arrays(submit=[0.0], run=[1.0], requested=[2.0], procs=[1], user=[0], machine_size=4),
        path,
        {},
    )
    with pytest.raises(simcore.SwfFormatError, match="Parquet file .* not an SWF log"):
        simcore.read_swf(path)
