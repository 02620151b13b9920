"""`simcore import-sacct`: Slurm accounting dumps to SWF (the rules of simcore/workloads/sacct.py)."""

import gzip

import numpy as np
import pytest
from sacct_dumps import ALIAS_FIELDS, CORES_PER_NODE, FIELDS, generate_dump, time_limit_forms
from sacct_mix import DUMP_SPECIFIC, different

from simcore.cli import main
from simcore.engine.swf import parse_swf, read_swf
from simcore.workloads.sacct import (
    SACCT_COMMAND,
    SacctFormatError,
    import_sacct,
    parse_memory,
    parse_sacct,
    parse_time_limit,
    swf_fields,
)

BASE = {
    "Cluster": "c1",
    "JobID": "100",
    "JobIDRaw": "100",
    "User": "alice",
    "Group": "g1",
    "Partition": "batch",
    "State": "COMPLETED",
    "Submit": "2026-01-01T00:00:00",
    "Start": "2026-01-01T00:01:00",
    "End": "2026-01-01T01:01:00",
    "Timelimit": "02:00:00",
    "AllocCPUS": "4",
    "ReqCPUS": "4",
    "AllocNodes": "1",
    "ReqNodes": "1",
    "ReqMem": "1000Mc",
    "Account": "proj1",
    "NodeList": "n1",
}
EPOCH_2026 = 1767225600  # 2026-01-01T00:00:00 UTC


def line(**values) -> str:
    return "|".join({**BASE, **values}[name] for name in FIELDS)


def write_dump(path, *lines, fields=FIELDS):
    path.write_text("\n".join(["|".join(fields), *lines]) + "\n")
    return path


def imported(tmp_path, *lines, **options):
    """(SWF job lines as an int array, header, SacctImport) of importing `lines`."""
    dump = write_dump(tmp_path / "dump.txt", *lines)
    result = import_sacct(dump, tmp_path / "out.swf", **options)
    log = parse_swf(tmp_path / "out.swf")
    assert np.array_equal(log.fields, np.round(log.fields))
    return log.fields.astype(np.int64), log.header, result


def swf_row(**values) -> list:
    """An expected SWF job line: -1 everywhere but `values` (f1=..., f2=... by field number)."""
    row = [-1] * 18
    for key, value in values.items():
        row[int(key[1:]) - 1] = value
    return row


def test_a_completed_job_field_by_field_and_the_simulator_reads_it(tmp_path):
    fields, header, result = imported(tmp_path, line())
    assert fields.tolist() == [
        swf_row(f1=1, f2=0, f3=60, f4=3600, f5=4, f8=4, f9=7200, f10=1024000, f11=1, f12=1, f13=1, f16=1)
    ]
    assert header["UnixStartTime"] == str(EPOCH_2026) and header["TimeZoneString"] == "UTC"
    assert header["Computer"] == "c1" and header["Version"] == "2.2"
    assert header["MaxProcs"].startswith("4 (inferred") and header["MaxNodes"].startswith("1 (inferred")
    assert header["StartTime"] == "2026-01-01T00:00:00+00:00" and header["EndTime"] == "2026-01-01T01:01:00+00:00"
    assert header["Partitions"] == "1 batch" and header["MaxPartitions"] == "1"
    assert result.jobs == 1 and result.slurm_job_ids.tolist() == [100] and result.machine_size == 4
    workload = read_swf(tmp_path / "out.swf")
    assert len(workload) == 1 and workload.machine_size == 4 and workload.run.tolist() == [3600.0]


def test_arrays_het_components_and_steps(tmp_path):
    fields, header, result = imported(
        tmp_path,
        line(JobID="7_1", JobIDRaw="8", Submit="2026-01-01T00:00:10"),
        line(JobID="7_1.batch", JobIDRaw="8.batch", User="", Group="", ReqMem=""),
        line(JobID="7_1.extern", JobIDRaw="8.extern", User="", Group="", ReqMem=""),
        line(JobID="7_2", JobIDRaw="9", Submit="2026-01-01T00:00:10"),
        line(JobID="20+0", JobIDRaw="20", Submit="2026-01-01T00:00:05"),
        line(JobID="20+1", JobIDRaw="21", Submit="2026-01-01T00:00:05"),
        line(JobID="20+1.0", JobIDRaw="21.0"),
    )
    # renumbered by (Submit, JobIDRaw): 20, 21 (submitted at 5 s) before 8, 9 (at 10 s)
    assert result.slurm_job_ids.tolist() == [20, 21, 8, 9]
    assert fields[:, 0].tolist() == [1, 2, 3, 4] and fields[:, 1].tolist() == [0, 0, 5, 5]
    assert fields[:, 2].tolist() == [55, 55, 50, 50]
    counts = result.counts
    assert (counts["job_steps"], counts["array_tasks"], counts["het_components"], counts["lines"]) == (3, 2, 2, 7)
    assert header["SacctCount.job_steps"] == "3" and header["SacctCount.array_tasks"] == "2"


@pytest.mark.parametrize(
    "state, status",
    [
        ("COMPLETED", 1),
        ("FAILED", 0),
        ("TIMEOUT", 0),
        ("NODE_FAIL", 0),
        ("OUT_OF_MEMORY", 0),
        ("BOOT_FAIL", 0),
        ("DEADLINE", 0),
        ("PREEMPTED", 0),
        ("CANCELLED by 1234", 5),
        ("CANCELLED", 5),
    ],
)
def test_ended_states(tmp_path, state, status):
    fields, _, _ = imported(tmp_path, line(State=state))
    assert fields[0, 10] == status and fields[0, 3] == 3600


def test_jobs_cancelled_before_and_after_start(tmp_path):
    fields, _, result = imported(
        tmp_path,
        line(JobIDRaw="1"),  # a job that ran, for the machine size
        # cancelled while pending: Slurm's Start = End = the cancel time, no CPU allocated
        line(
            JobIDRaw="2",
            State="CANCELLED by 5",
            Start="2026-01-01T00:10:00",
            End="2026-01-01T00:10:00",
            AllocCPUS="0",
            AllocNodes="0",
        ),
        line(JobIDRaw="3", State="CANCELLED by 5", Start="Unknown", End="2026-01-01T00:10:00", AllocCPUS="0"),
        line(JobIDRaw="4", State="CANCELLED by 5", Start="None", End="None", AllocCPUS="0"),
        line(JobIDRaw="5", State="CANCELLED by 5", End="2026-01-01T00:31:00"),  # after start: ran 30 min
    )
    assert fields[:, 10].tolist() == [1, 5, 5, 5, 5]
    assert fields[1:4, 2].tolist() == [-1] * 3 and fields[1:4, 3].tolist() == [-1] * 3
    assert fields[1:4, 4].tolist() == [-1] * 3 and fields[1:4, 7].tolist() == [4] * 3
    assert fields[4, 2:5].tolist() == [60, 1800, 4]
    counts = result.counts
    assert (counts["cancelled_before_start"], counts["cancelled_after_start"], counts["never_started"]) == (3, 1, 3)
    workload = read_swf(tmp_path / "out.swf")
    assert len(workload) == 2 and workload.filter_counts["bad_run_time"] == 3


def test_jobs_not_ended_at_dump_time_are_excluded_and_counted(tmp_path):
    _, header, result = imported(
        tmp_path,
        line(JobIDRaw="1"),
        line(JobIDRaw="2", State="PENDING", Start="Unknown", End="Unknown", AllocCPUS="0"),
        line(JobIDRaw="3", State="RUNNING", End="Unknown"),
        line(JobIDRaw="4", State="SUSPENDED", End="Unknown"),
        line(JobIDRaw="5", State="REQUEUED"),
        line(JobIDRaw="6", State="RESIZING"),
        line(JobIDRaw="7", State="PENDING", Start="Unknown", End="Unknown", AllocCPUS="0"),
    )
    assert result.jobs == 1 and result.counts["not_ended"] == 6
    assert {key: value for key, value in result.counts.items() if key.startswith("not_ended_")} == {
        "not_ended_PENDING": 2,
        "not_ended_RUNNING": 1,
        "not_ended_SUSPENDED": 1,
        "not_ended_REQUEUED": 1,
        "not_ended_RESIZING": 1,
    }
    assert header["SacctCount.not_ended_PENDING"] == "2"


@pytest.mark.parametrize(
    "text, seconds",
    [
        ("00:30:00", 1800),
        ("12:34", 754),  # MM:SS
        ("90", 5400),  # minutes
        ("1-00:00:00", 86400),
        ("2-12", 216000),  # D-HH
        ("1-02:30", 95400),  # D-HH:MM
        ("10-01:02:03", 867723),
        ("UNLIMITED", -1),
        ("Partition_Limit", -1),
        ("", -1),
    ],
)
def test_time_limit_forms(tmp_path, text, seconds):
    fields, _, _ = imported(tmp_path, line(Timelimit=text, End="2026-01-01T00:02:00"))
    assert fields[0, 8] == seconds


def test_the_generator_writes_each_time_limit_form_of_the_same_limit():
    for minutes in (5, 90, 1440, 4320):
        assert {parse_time_limit(form)[0] for form in time_limit_forms(minutes)} == {minutes * 60}


def test_unlimited_limits_take_the_partition_limit_given(tmp_path):
    lines = (
        line(JobIDRaw="1", Timelimit="UNLIMITED"),
        line(JobIDRaw="2", Timelimit="Partition_Limit", Partition="gpu"),
        line(JobIDRaw="3", Timelimit="01:00:00", Partition="gpu", End="2026-01-01T00:02:00"),
    )
    fields, _, result = imported(tmp_path, *lines)
    assert fields[:, 8].tolist() == [-1, -1, 3600]
    assert (result.counts["unlimited_time_limit"], result.counts["partition_time_limit"]) == (1, 1)
    assert read_swf(tmp_path / "out.swf").filter_counts["no_requested_time"] == 2
    fields, _, result = imported(tmp_path, *lines, partition_limit={"batch": 86400, "gpu": 7200})
    assert fields[:, 8].tolist() == [86400, 7200, 3600] and result.counts["time_limit_from_option"] == 2
    fields, _, _ = imported(tmp_path, *lines, partition_limit=600)
    assert fields[:, 8].tolist() == [600, 600, 3600]


@pytest.mark.parametrize(
    "text, cpus, nodes, kb",
    [
        ("1000Mc", 4, 1, 1024000),  # old Slurm, per CPU
        ("2Gc", 4, 1, 2097152),
        ("8Gn", 4, 1, 2097152),  # old Slurm, per node: 8 GB over 4 CPUs
        ("8000Mn", 8, 2, 2048000),  # per node x 2 nodes over 8 CPUs
        ("16G", 8, 2, 2097152),  # Slurm >= 21.08: the job's total
        ("4000M", 4, 1, 1024000),
        ("4000", 4, 1, 1024000),  # no unit: MB
        ("4096000K", 4, 1, 1024000),
        ("1.50G", 3, 1, 524288),
        ("1T", 1024, 32, 1048576),
        ("0", 4, 1, -1),  # --mem=0: no request
        ("", 4, 1, -1),
    ],
)
def test_memory_forms(tmp_path, text, cpus, nodes, kb):
    fields, _, _ = imported(
        tmp_path, line(ReqMem=text, AllocCPUS=str(cpus), ReqCPUS=str(cpus), AllocNodes=str(nodes), ReqNodes=str(nodes))
    )
    assert fields[0, 9] == kb


def test_memory_of_a_job_that_never_ran_uses_its_request(tmp_path):
    fields, _, _ = imported(
        tmp_path,
        line(JobIDRaw="1"),
        line(
            JobIDRaw="2",
            State="CANCELLED",
            Start="Unknown",
            AllocCPUS="0",
            AllocNodes="0",
            ReqCPUS="8",
            ReqNodes="2",
            ReqMem="8Gn",
        ),
    )
    assert fields[1, 9] == 2 * 8 * 1024 * 1024 // 8


def test_counting_nodes(tmp_path):
    fields, header, _ = imported(
        tmp_path,
        line(AllocCPUS="40", ReqCPUS="40", AllocNodes="2", ReqNodes="2", ReqMem="64Gn"),
        count="nodes",
        cores_per_node=32,
    )
    assert fields[0, 4] == 64 and fields[0, 7] == 64 and fields[0, 9] == 2 * 64 * 1024 * 1024 // 64
    assert header["MaxProcs"].startswith("64 ")
    fields, _, _ = imported(
        tmp_path, line(AllocNodes="1.50K", ReqNodes="1.50K", ReqMem=""), count="nodes", cores_per_node=2
    )
    assert fields[0, 4] == 3072


def test_partitions_their_numbers_selection_and_machine_sizes(tmp_path):
    lines = (
        line(JobIDRaw="1", Partition="zeta", AllocCPUS="8", ReqCPUS="8"),
        line(JobIDRaw="2", Partition="alpha", Submit="2026-01-01T00:00:01"),
        line(
            JobIDRaw="3",
            Partition="zeta",
            Submit="2026-01-01T00:00:02",
            Start="2026-01-01T02:00:00",
            End="2026-01-01T03:00:00",
        ),
        line(
            JobIDRaw="4",
            Partition="alpha,zeta",
            State="CANCELLED",
            Start="Unknown",
            AllocCPUS="0",
            Submit="2026-01-01T00:00:03",
        ),
    )
    fields, header, result = imported(tmp_path, *lines)
    assert fields[:, 15].tolist() == [2, 1, 2, 1] and header["Partitions"] == "1 alpha, 2 zeta"
    assert (
        result.machine_size == 12
        and header["MaxProcs"] == "12 (inferred: the peak number of processors allocated at the same time)"
    )
    fields, header, result = imported(tmp_path, *lines, partitions=["zeta"])
    assert result.slurm_job_ids.tolist() == [1, 3] and fields[:, 15].tolist() == [1, 1]
    assert result.counts["other_partitions"] == 2 and result.machine_size == 8 and header["Partitions"] == "1 zeta"
    _, header, result = imported(tmp_path, *lines, machine_size={"alpha": 16, "zeta": 100})
    assert result.machine_size == 116 and header["MaxProcs"] == "116 (given)"
    _, _, result = imported(tmp_path, *lines, partitions=["zeta"], machine_size={"zeta": 100})
    assert result.machine_size == 100
    with pytest.raises(ValueError, match="no machine size for partition alpha"):
        imported(tmp_path, *lines, machine_size={"zeta": 100})
    with pytest.raises(ValueError, match=r"no ended job in partition nope \(partitions of the dump: alpha, zeta\)"):
        imported(tmp_path, *lines, partitions=["nope"])


def test_users_and_groups_numbered_by_first_submission_ties_by_name(tmp_path):
    fields, _, _ = imported(
        tmp_path,
        line(JobIDRaw="1", User="zoe", Group="gz", Submit="2026-01-01T00:00:05"),
        line(JobIDRaw="2", User="bob", Group="gb", Submit="2026-01-01T00:00:00"),
        line(JobIDRaw="3", User="amy", Group="gb", Submit="2026-01-01T00:00:05"),
        line(JobIDRaw="4", User="bob", Group="gz", Submit="2026-01-01T00:00:07"),
    )
    # order: bob (0 s), then amy and zoe at 5 s by name
    assert fields[:, 11].tolist() == [1, 3, 2, 1] and fields[:, 12].tolist() == [1, 2, 1, 2]


def test_local_times_in_a_time_zone(tmp_path):
    # 2026-10-25 02:30 happens twice in Paris: the earlier instant (summer time, UTC+2) is taken
    fields, header, _ = imported(
        tmp_path,
        line(Submit="2026-10-25T02:30:00", Start="2026-10-25T03:30:00", End="2026-10-25T04:00:00"),
        timezone="Europe/Paris",
    )
    assert header["UnixStartTime"] == str(1792888200) and header["TimeZoneString"] == "Europe/Paris"
    assert fields[0, 2] == 2 * 3600 and fields[0, 3] == 1800
    assert header["StartTime"] == "2026-10-25T02:30:00+02:00"
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Olympus'"):
        imported(tmp_path, line(), timezone="Mars/Olympus")


# --- bad input ------------------------------------------------------------------------------------------------

BAD_LINES = {
    "truncated_line": ("1|2|3", "field User: truncated line: 3 of the header's 18 fields (got '1|2|3')"),
    "extra_fields": (
        line() + "|x",
        "field NodeList: 19 fields where the header has 18 (a '|' inside a value?) (got '" + line() + "|x')",
    ),
    "unknown_state": (line(State="EXPLODED"), "field State: unknown job state (got 'EXPLODED')"),
    "impossible_time": (
        line(End="2026-01-01T00:00:30"),
        "field End: end before start (Start 2026-01-01T00:01:00) (got '2026-01-01T00:00:30')",
    ),
    "bad_time": (
        line(Start="01/01/2026 00:01"),
        "field Start: not a time Y-m-dTH:M:S, Unknown or None (got '01/01/2026 00:01')",
    ),
    "unknown_submit": (line(Submit="Unknown"), "field Submit: unknown submit time (got 'Unknown')"),
    "bad_number": (line(AllocCPUS="four"), "field AllocCPUS: not a count (got 'four')"),
    "bad_time_limit": (
        line(Timelimit="1:2:3:4"),
        "field Timelimit: not a time limit ([D-]HH:MM:SS, MM:SS, MM, UNLIMITED) (got '1:2:3:4')",
    ),
    "bad_memory": (
        line(ReqMem="4Xc"),
        "field ReqMem: not a memory size (a number, a unit K M G T P, a suffix c or n) (got '4Xc')",
    ),
    "bad_job_id": (line(JobIDRaw="12a"), "field JobIDRaw: not a job id (got '12a')"),
    "unknown_end": (line(End="Unknown"), "field End: unknown end of a job that ran (got 'Unknown')"),
    "duplicate_job": (line(JobIDRaw="1"), "field JobIDRaw: this job id is on line 2 already (got '1')"),
}


@pytest.mark.parametrize("reason", sorted(BAD_LINES))
def test_a_bad_line_is_one_line_naming_file_line_and_field_and_nothing_is_written(tmp_path, reason):
    bad, message = BAD_LINES[reason]
    dump = write_dump(tmp_path / "dump.txt", line(JobIDRaw="1"), "", bad, line(JobIDRaw="2"))
    with pytest.raises(SacctFormatError) as raised:
        import_sacct(dump, tmp_path / "out.swf.gz")
    assert str(raised.value) == f"{dump}, line 4: {message}"
    assert "\n" not in str(raised.value)
    assert list(tmp_path.iterdir()) == [dump]


def test_start_before_submit_is_an_impossible_time(tmp_path):
    dump = write_dump(tmp_path / "d.txt", line(Start="2025-12-31T23:00:00"))
    with pytest.raises(SacctFormatError, match=r"d.txt, line 2: field Start: start before submit \(Submit 2026"):
        import_sacct(dump, tmp_path / "out.swf")


def test_skip_bad_lines_skips_and_counts_each_reason(tmp_path):
    lines = [line(JobIDRaw="1"), ""] + [BAD_LINES[reason][0] for reason in sorted(BAD_LINES)] + [line(JobIDRaw="2")]
    _, header, result = imported(tmp_path, *lines, skip_bad_lines=True)
    assert result.slurm_job_ids.tolist() == [1, 2] and result.counts["blank_lines"] == 1
    assert {key: value for key, value in result.counts.items() if key.startswith("skipped_")} == {
        f"skipped_{reason}": 1 for reason in BAD_LINES
    }
    assert header["SacctCount.skipped_unknown_state"] == "1"


def test_a_dump_without_needed_fields_or_header(tmp_path):
    fields = [name for name in FIELDS if name not in ("ReqMem", "State")]
    dump = write_dump(tmp_path / "d.txt", "|".join(BASE[name] for name in fields), fields=fields)
    with pytest.raises(SacctFormatError) as raised:
        import_sacct(dump, tmp_path / "out.swf")
    assert str(raised.value) == (
        f"{dump}, line 1: field State: missing (nearest in the header: Start); the header's 16 fields: "
        "Cluster|JobID|JobIDRaw|User|Group|Partition|Submit|Start|End|Timelimit|AllocCPUS|ReqCPUS|AllocNodes|ReqNodes|"
        "Account|NodeList; "
        f"dump with: {SACCT_COMMAND}"
    )
    headless = tmp_path / "headless.txt"
    headless.write_text(line() + "\n")
    with pytest.raises(SacctFormatError) as raised:
        import_sacct(headless, tmp_path / "out.swf")
    assert str(raised.value) == (
        f"{headless}, line 1: not the header line of a sacct --parsable2 dump (made with --noheader, or without "
        f"--parsable2?): no field the importer reads (got {line()}); dump with: {SACCT_COMMAND}"
    )
    assert not (tmp_path / "out.swf").exists()


def test_no_ended_job_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="no ended job to write"):
        imported(tmp_path, line(State="PENDING", Start="Unknown", End="Unknown", AllocCPUS="0"))


def test_fields_in_another_order_extra_fields_and_parsable_trailing_bar(tmp_path):
    fields = ["Elapsed", *reversed(FIELDS), ""]
    rows = [{**BASE, "Elapsed": "01:00:00", "": ""}]
    dump = write_dump(tmp_path / "d.txt", *("|".join(row[name] for name in fields) for row in rows), fields=fields)
    import_sacct(dump, tmp_path / "a.swf")
    import_sacct(write_dump(tmp_path / "e.txt", line()), tmp_path / "b.swf")
    assert parse_swf(tmp_path / "a.swf").fields.tolist() == parse_swf(tmp_path / "b.swf").fields.tolist()


def test_a_gzip_dump_and_gzip_output_are_reproducible(tmp_path):
    text, _ = generate_dump(300, seed=3)
    (tmp_path / "d.txt.gz").write_bytes(gzip.compress(text.encode(), mtime=0))
    first = import_sacct(tmp_path / "d.txt.gz", tmp_path / "one.swf.gz")
    again = import_sacct(tmp_path / "d.txt.gz", tmp_path / "two.swf.gz")
    assert (tmp_path / "one.swf.gz").read_bytes() == (tmp_path / "two.swf.gz").read_bytes()
    assert first.counts == again.counts and first.jobs > 200
    (tmp_path / "d.txt").write_text(text)
    import_sacct(tmp_path / "d.txt", tmp_path / "plain.swf")
    plain = (tmp_path / "plain.swf").read_bytes()
    assert (
        gzip.decompress((tmp_path / "one.swf.gz").read_bytes())
        .replace(b"d.txt.gz", b"d.txt")
        .split(b"sha256")[1]
        .split(b"\n", 1)[1]
        == plain.split(b"sha256")[1].split(b"\n", 1)[1]
    )


def test_parsers_refuse_what_is_not_slurm():
    assert parse_time_limit("1-2:3:4:5") is None and parse_memory("4Gx") is None and parse_memory("G") is None


# --- round trip -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_round_trip_of_generated_dumps(tmp_path, seed):
    text, truth = generate_dump(3000, seed)
    (tmp_path / "d.txt").write_text(text)
    result = import_sacct(tmp_path / "d.txt", tmp_path / "out.swf")
    fields = parse_swf(tmp_path / "out.swf").fields.astype(np.int64)
    order = np.lexsort((truth["job_id"], truth["submit"]))
    assert result.slurm_job_ids.tolist() == truth["job_id"][order].tolist()
    expected = {
        0: np.arange(1, len(order) + 1),
        1: truth["submit"][order] - truth["submit"].min(),
        2: truth["wait"][order],
        3: truth["run"][order],
        4: truth["alloc_procs"][order],
        5: np.full(len(order), -1),
        6: np.full(len(order), -1),
        7: truth["req_procs"][order],
        8: truth["requested_time"][order],
        9: truth["memory_kb"][order],
        10: truth["status"][order],
        11: _numbered(truth["user"][order]),
        12: _numbered(truth["group"][order]),
        15: _numbered(truth["partition"][order], by_name=True),
    }
    for column, values in expected.items():
        assert fields[:, column].tolist() == values.tolist(), f"SWF field {column + 1}"
    assert (fields[:, [13, 14, 16, 17]] == -1).all()
    for count in ("job_steps", "not_ended", "array_tasks", "het_components", "lines"):
        assert result.counts[count] == truth[count], count
    workload = read_swf(tmp_path / "out.swf")
    assert workload.machine_size == result.machine_size and len(workload) > 0.5 * len(order)

    nodes = import_sacct(tmp_path / "d.txt", tmp_path / "nodes.swf", count="nodes", cores_per_node=CORES_PER_NODE)
    fields = parse_swf(tmp_path / "nodes.swf").fields.astype(np.int64)
    alloc_nodes = truth["alloc_nodes"][order]
    assert fields[:, 4].tolist() == np.where(alloc_nodes > 0, alloc_nodes * CORES_PER_NODE, -1).tolist()
    assert fields[:, 7].tolist() == (truth["req_nodes"][order] * CORES_PER_NODE).tolist()
    assert nodes.jobs == result.jobs


def _numbered(names: np.ndarray, by_name: bool = False) -> np.ndarray:
    """1-based numbers of `names` (in SWF order): by name, or by first appearance (the SWF order is the
    submission order, and ties of the first submission go by name)."""
    if by_name:
        ranks = {name: number for number, name in enumerate(sorted(set(names.tolist())), start=1)}
    else:
        ranks = {}
        for name in names.tolist():
            ranks.setdefault(name, len(ranks) + 1)
    return np.array([ranks[name] for name in names.tolist()])


# --- the command ------------------------------------------------------------------------------------------------


def test_the_command_end_to_end(tmp_path, capsys):
    dump = write_dump(
        tmp_path / "dump.txt",
        line(JobIDRaw="1", Timelimit="UNLIMITED"),
        line(JobIDRaw="2", Partition="gpu"),
        line(JobIDRaw="3", Partition="gpu", State="RUNNING", End="Unknown"),
    )
    out = tmp_path / "trace.swf.gz"
    assert main(["import-sacct", str(dump), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "not_ended_RUNNING" in printed and printed.splitlines()[-1].startswith(f"{out}: 2 jobs, machine size 8")
    assert len(read_swf(out)) == 1  # the UNLIMITED job has no requested time
    code = main(
        [
            *("import-sacct", str(dump), "-o", str(out), "--partition", "gpu", "--machine-size", "gpu=64"),
            *("--partition-limit", "gpu=1-00:00:00", "--count", "nodes", "--cores-per-node", "16"),
            *("--timezone", "Europe/Paris", "--skip-bad-lines"),
        ]
    )
    assert code == 0
    log = parse_swf(out)
    assert log.fields[:, 4].tolist() == [16] and log.header["MaxProcs"] == "64 (given)"
    assert log.header["TimeZoneString"] == "Europe/Paris"
    assert main(["import-sacct", str(dump), "-o", str(out), "--partition-limit", "90"]) == 0
    assert parse_swf(out).fields[:, 8].tolist() == [5400, 7200]


def test_the_command_reports_a_bad_line_in_one_line(tmp_path, capsys):
    dump = write_dump(tmp_path / "dump.txt", line(State="EXPLODED"))
    out = tmp_path / "trace.swf.gz"
    assert main(["import-sacct", str(dump), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"simcore import-sacct: error: {dump}, line 2: field State: unknown job state (got 'EXPLODED')\n"
    assert not out.exists()


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--count", "nodes"], "counting processors in nodes needs the cores per node"),
        (["--cores-per-node", "4"], "cores per node are used only when counting nodes"),
        (["--machine-size", "8", "--machine-size", "batch=4"], "--machine-size: give one value, or PART=VALUE"),
    ],
)
def test_the_command_refuses_inconsistent_options(tmp_path, capsys, arguments, message):
    dump = write_dump(tmp_path / "dump.txt", line())
    assert main(["import-sacct", str(dump), "-o", str(tmp_path / "t.swf"), *arguments]) == 2
    assert message in capsys.readouterr().err


def test_the_command_refuses_a_bad_time_limit_option(tmp_path, capsys):
    dump = write_dump(tmp_path / "dump.txt", line())
    with pytest.raises(SystemExit):
        main(["import-sacct", str(dump), "-o", str(tmp_path / "t.swf"), "--partition-limit", "UNLIMITED"])
    assert "a time limit such as 90 (minutes)" in capsys.readouterr().err


# --- sacct's other field names, fewer fields, cross-checks ------------------------------------------------------


def convert(tmp_path, name: str, fields, *rows: dict, **options):
    """(SWF text, SacctImport) of a dump of `rows` (BASE with changes, by field name) with `fields`."""
    dump = tmp_path / name
    dump.write_text(
        "\n".join(["|".join(fields), *("|".join({**BASE, **row}[f] for f in fields) for row in rows)]) + "\n"
    )
    result = import_sacct(dump, tmp_path / f"{name}.swf", **options)
    return (tmp_path / f"{name}.swf").read_text(), result


def without_dump_lines(text: str) -> list[str]:
    """The SWF lines but those naming the dump and the field names read (sacct_mix.DUMP_SPECIFIC)."""
    return [line for line in text.splitlines() if not line.startswith(DUMP_SPECIFIC)]


TWO_JOBS = (
    {"JobIDRaw": "1", "JobID": "1", "UID": "1000", "GID": "100", "NCPUS": "4", "NNodes": "1", "TimelimitRaw": "120"},
    {
        **{"JobIDRaw": "2", "JobID": "2", "User": "bob", "Group": "g2", "UID": "1001", "GID": "101"},
        **{"Submit": "2026-01-01T00:00:30", "AllocCPUS": "8", "NCPUS": "8", "ReqCPUS": "8", "AllocNodes": "2"},
        **{"NNodes": "2", "ReqNodes": "2", "Timelimit": "1-00:00:00", "TimelimitRaw": "1440", "ReqMem": "16G"},
    },
)
ALIAS_NOTES = {
    "NCPUS": ("AllocCPUS", "read from NCPUS, the same count in sacct"),
    "NNodes": (
        "AllocNodes",
        "read from NNodes, the nodes allocated to a job that ran, but those requested by one that did not: a job "
        "never started when it has no Start, AllocCPUS 0 or Start = End (0 jobs) (Slurm 22.05 gives one cancelled "
        "while pending Start = End)",
    ),
    "TimelimitRaw": ("Timelimit", "read from TimelimitRaw, in minutes"),
    "UID": ("User", "read from UID: users numbered in order of first submission, ties by UID"),
    "GID": ("Group", "read from GID: groups numbered in order of first submission, ties by GID"),
    "Eligible": (
        "Submit",
        "read from Eligible (the dump has no Submit): a job's submit time (field 2) is the time it became eligible, "
        "so its wait (field 3) leaves out the time it was held or waited for a dependency or its begin time",
    ),
    "JobID": (
        "JobIDRaw",
        "read from JobID, the job id of a plain job; an array task or heterogeneous job component, whose job id "
        "only JobIDRaw gives, is a bad line (no_raw_job_id)",
    ),
}


@pytest.mark.parametrize("alias", sorted(ALIAS_NOTES))
def test_each_of_saccts_other_names_gives_the_same_swf_and_says_so(tmp_path, alias):
    name, note = ALIAS_NOTES[alias]
    rows = [{**row, "Eligible": row.get("Submit", BASE["Submit"])} for row in TWO_JOBS]
    fields = [alias if field == name else field for field in FIELDS]
    if alias == "JobID":  # JobID is in FIELDS already: JobIDRaw goes
        fields = [field for field in FIELDS if field != "JobIDRaw"]
    expected, _ = convert(tmp_path, "readme.txt", FIELDS, *rows)
    text, result = convert(tmp_path, "alias.txt", fields, *rows)
    assert without_dump_lines(text) == without_dump_lines(expected)
    assert result.notes == {name: note}
    assert [line for line in text.splitlines() if line.startswith("; Note: field ")] == [
        f"; Note: field {name}: {note}"
    ]


def test_field_names_in_any_case(tmp_path):
    expected, _ = convert(tmp_path, "readme.txt", FIELDS, *TWO_JOBS)
    for name, fields in (("lower.txt", [f.lower() for f in FIELDS]), ("upper.txt", [f.upper() for f in FIELDS])):
        dump = tmp_path / name
        dump.write_text((tmp_path / "readme.txt").read_text().replace("|".join(FIELDS), "|".join(fields), 1))
        result = import_sacct(dump, tmp_path / "out.swf")
        text = (tmp_path / "out.swf").read_text()
        assert result.notes == {} and text.replace(name, "readme.txt").split("\n", 4)[4] == expected.split("\n", 4)[4]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("count", ["cpus", "nodes"])
def test_a_generated_dump_with_saccts_other_names_converts_to_the_same_swf(tmp_path, seed, count):
    options = {"count": count, "cores_per_node": CORES_PER_NODE if count == "nodes" else None}
    texts = []
    for name, fields in (("readme.txt", FIELDS), ("aliases.txt", ALIAS_FIELDS)):
        text, _ = generate_dump(2000, seed, fields=fields)
        (tmp_path / name).write_text(text)
        result = import_sacct(tmp_path / name, tmp_path / f"{name}.swf", **options)
        texts.append((tmp_path / f"{name}.swf").read_text())
    assert different(*texts) == []
    assert set(result.notes) == {"AllocCPUS", "AllocNodes", "Timelimit", "User", "Group"}
    assert result.checks["elapsed_checked"] == result.jobs - result.counts["never_started"]


def test_without_allocnodes_start_equal_to_end_is_a_job_cancelled_while_pending(tmp_path):
    # Slurm 22.05: cancelled while pending, Start = End = the cancel time, AllocCPUS and NNodes its request
    pending = {"JobIDRaw": "2", "State": "CANCELLED by 0", "Start": "2026-01-01T00:10:00", "End": "2026-01-01T00:10:00"}
    rows = ({"JobIDRaw": "1", "NNodes": "1"}, {**pending, "AllocNodes": "0", "NNodes": "1"})
    fields = [{"AllocNodes": "NNodes"}.get(field, field) for field in FIELDS]
    expected, _ = convert(tmp_path, "readme.txt", FIELDS, *rows)
    text, result = convert(tmp_path, "nnodes.txt", fields, *rows)
    assert without_dump_lines(text) == without_dump_lines(expected)
    assert result.counts["never_started"] == 1 and result.checks["never_started_start_is_end"] == 1
    assert "AllocCPUS 0 or Start = End (1 jobs)" in result.notes["AllocNodes"]
    assert parse_swf(tmp_path / "nnodes.txt.swf").fields[1, 2:5].tolist() == [-1, -1, -1]


def test_eligible_stands_in_for_a_missing_submit(tmp_path):
    fields = [{"Submit": "Eligible"}.get(field, field) for field in FIELDS]
    _, result = convert(tmp_path, "eligible.txt", fields, {"Eligible": "2026-01-01T00:00:30"})
    log = parse_swf(tmp_path / "eligible.txt.swf")
    assert log.fields[0, 2] == 30 and log.header["UnixStartTime"] == str(EPOCH_2026 + 30)
    assert result.notes == {"Submit": ALIAS_NOTES["Eligible"][1]}
    for row, message in (
        ({"Eligible": "Unknown"}, "field Eligible: unknown eligible time (got 'Unknown')"),
        (
            {"Eligible": "2026-01-01T00:02:00"},
            "field Start: start before eligible (Eligible 2026-01-01T00:02:00) (got '2026-01-01T00:01:00')",
        ),
    ):
        with pytest.raises(SacctFormatError) as raised:
            convert(tmp_path, "bad.txt", fields, row)
        assert str(raised.value) == f"{tmp_path / 'bad.txt'}, line 2: {message}"
    # with Submit present, Eligible is only an extra field
    text, result = convert(tmp_path, "both.txt", [*FIELDS, "Eligible"], {"Eligible": "2026-01-01T00:00:30"})
    assert result.notes == {} and parse_swf(tmp_path / "both.txt.swf").fields[0, 2] == 60


def test_jobid_stands_in_for_jobidraw_for_plain_jobs_only(tmp_path):
    fields = [field for field in FIELDS if field != "JobIDRaw"]
    rows = ({"JobID": "7"}, {"JobID": "7.batch"}, {"JobID": "8_1"}, {"JobID": "9+1"}, {"JobID": "10"})
    with pytest.raises(SacctFormatError) as raised:
        convert(tmp_path, "jobid.txt", fields, *rows)
    assert str(raised.value) == (
        f"{tmp_path / 'jobid.txt'}, line 4: field JobID: an array task or heterogeneous job component, whose job id "
        "only JobIDRaw gives (dump JobIDRaw) (got '8_1')"
    )
    _, result = convert(tmp_path, "jobid.txt", fields, *rows, skip_bad_lines=True)
    assert result.slurm_job_ids.tolist() == [7, 10] and result.counts["skipped_no_raw_job_id"] == 2
    assert result.counts["job_steps"] == 1


MINIMAL = ("JobIDRaw", "State", "Submit", "Start", "End", "Timelimit", "AllocCPUS")
MINIMAL_NOTES = {
    "ReqCPUS": "not in the dump: requested processors (field 8) -1, which the simulator replaces with the allocated "
    "ones",
    "AllocNodes": "not in the dump (nor NNodes): MaxNodes unknown; a job never started when it has no Start, "
    "AllocCPUS 0 or Start = End (1 jobs) (Slurm 22.05 gives one cancelled while pending Start = End)",
    "ReqMem": "not in the dump: requested memory (field 10) -1",
    "Partition": "not in the dump: every job is in partition 1 (field 16)",
    "User": "not in the dump (nor UID): user (field 12) -1",
    "Group": "not in the dump (nor GID): group (field 13) -1",
}


def test_a_dump_of_the_needed_fields_only_converts_and_says_what_follows(tmp_path, capsys):
    pending = {"JobIDRaw": "2", "State": "CANCELLED", "Start": "2026-01-01T00:10:00", "End": "2026-01-01T00:10:00"}
    text, result = convert(tmp_path, "minimal.txt", MINIMAL, {"JobIDRaw": "1"}, pending)
    log = parse_swf(tmp_path / "minimal.txt.swf")
    assert log.fields.astype(int).tolist() == [
        swf_row(f1=1, f2=0, f3=60, f4=3600, f5=4, f9=7200, f11=1, f16=1),
        swf_row(f1=2, f2=0, f9=7200, f11=5, f16=1),
    ]
    assert result.notes == MINIMAL_NOTES
    assert [line for line in text.splitlines() if line.startswith("; Note: field ")] == [
        f"; Note: field {name}: {note}" for name, note in MINIMAL_NOTES.items()
    ]
    assert "MaxNodes" not in log.header and log.header["Partitions"] == "1 (the dump has no Partition field)"
    assert log.header["MaxProcs"] == "4 (inferred: the peak number of processors allocated at the same time)"
    assert result.counts["no_memory_request"] == 2 and read_swf(tmp_path / "minimal.txt.swf").machine_size == 4
    assert main(["import-sacct", str(tmp_path / "minimal.txt"), "-o", str(tmp_path / "cli.swf")]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[:6] == [f"field {name}: {note}" for name, note in MINIMAL_NOTES.items()]
    assert printed[6] == "jobs taken as never started for Start = End (no AllocNodes field): 1"
    assert printed[7].split() == ["lines", "2"] and printed[-1].startswith(f"{tmp_path / 'cli.swf'}: 2 jobs")


def test_requested_cpus_alone_size_the_machine(tmp_path):
    fields = [*MINIMAL[:-1], "ReqCPUS"]
    _, result = convert(tmp_path, "req.txt", fields, {"JobIDRaw": "1"}, {"JobIDRaw": "2", "ReqCPUS": "8"})
    log = parse_swf(tmp_path / "req.txt.swf")
    assert log.fields[:, 4].tolist() == [-1, -1] and log.fields[:, 7].tolist() == [4, 8]
    assert log.header["MaxProcs"] == (
        "12 (inferred: the peak number of processors requested by the jobs running at the same time)"
    )
    assert result.notes["AllocCPUS"] == (
        "not in the dump (nor NCPUS): allocated processors (field 5) -1, which the simulator replaces with the "
        "requested ones; the machine size, unless given, is the peak number of CPUs requested by the jobs running at "
        "the same time"
    )
    assert "ReqCPUS" not in result.notes


@pytest.mark.parametrize(
    ("fields", "options", "message"),
    [
        (
            [name for name in MINIMAL if name != "AllocCPUS"],
            {},
            "field AllocCPUS, NCPUS or ReqCPUS: missing: a CPU count is needed (or --count nodes with AllocNodes, "
            "NNodes or ReqNodes) (nearest in the header: none); the header's 6 fields: "
            "JobIDRaw|State|Submit|Start|End|Timelimit",
        ),
        (
            MINIMAL,
            {"count": "nodes", "cores_per_node": 4},
            "field AllocNodes, NNodes or ReqNodes: missing: --count nodes needs a node count (nearest in the header: "
            "AllocCPUS); the header's 7 fields: JobIDRaw|State|Submit|Start|End|Timelimit|AllocCPUS",
        ),
        (
            ["JobIDRaw", "Stat", "Submitted", "Start", "Timelimit", "AllocCPUS", "Elapsed"],
            {},
            "field State: missing (nearest in the header: Stat, Start); field Submit or Eligible: missing (nearest in "
            "the header: Submitted); field End: missing (nearest in the header: none); the header's 7 fields: "
            "JobIDRaw|Stat|Submitted|Start|Timelimit|AllocCPUS|Elapsed",
        ),
        (
            [*MINIMAL[:-1], *(f"Field{number:02d}" for number in range(60))],
            {},
            "field AllocCPUS, NCPUS or ReqCPUS: missing: a CPU count is needed (or --count nodes with AllocNodes, "
            "NNodes or ReqNodes) (nearest in the header: none); the header's 66 fields: "
            "JobIDRaw|State|Submit|Start|End|Timelimit|"
            + "|".join(f"Field{number:02d}" for number in range(24))
            + "|... (+36 more)",
        ),
    ],
)
def test_a_missing_field_names_the_nearest_names_and_the_header_by_whole_names(tmp_path, fields, options, message):
    dump = tmp_path / "d.txt"
    dump.write_text("|".join(fields) + "\n")
    with pytest.raises(SacctFormatError) as raised:
        import_sacct(dump, tmp_path / "out.swf", **options)
    assert str(raised.value) == f"{dump}, line 1: {message}; dump with: {SACCT_COMMAND}"


def test_partition_options_without_a_partition_field(tmp_path):
    with pytest.raises(ValueError) as raised:
        convert(tmp_path, "p.txt", MINIMAL, {}, partitions=["batch"])
    assert str(raised.value) == f"{tmp_path / 'p.txt'}: no Partition field in the dump, so no partition batch to keep"
    with pytest.raises(ValueError) as raised:
        convert(tmp_path, "p.txt", MINIMAL, {}, machine_size={"batch": 8})
    assert (
        str(raised.value) == "a machine size per partition, but the dump has no Partition field: give one value for all"
    )
    _, result = convert(tmp_path, "p.txt", MINIMAL, {}, machine_size=8, partition_limit=600)
    assert result.machine_size == 8


ELAPSED_AT = "(Start 2026-01-01T00:01:00, End 2026-01-01T01:01:00)"


@pytest.mark.parametrize(
    ("extra", "values", "outcome"),
    [
        (["Elapsed"], ["01:00:00"], None),
        (["ElapsedRaw"], ["3600"], None),
        (["Elapsed"], ["00:00:00"], "suspended"),  # suspended for the whole hour
        (["Elapsed"], ["00:50:00"], "suspended"),
        (["Elapsed", "Suspended"], ["00:50:00", "00:10:00"], "suspended"),
        (["Elapsed", "Suspended"], ["01:00:00", "00:00:00"], None),
        (
            ["Elapsed"],
            ["01:00:01"],
            f"field Elapsed: 3601 s, more than End - Start, 3600 s {ELAPSED_AT} (got '01:00:01')",
        ),
        (
            ["Elapsed"],
            ["1-00:00:00"],
            f"field Elapsed: 86400 s, more than End - Start, 3600 s {ELAPSED_AT} (got '1-00:00:00')",
        ),
        (
            ["ElapsedRaw"],
            ["3601"],
            f"field ElapsedRaw: 3601 s, more than End - Start, 3600 s {ELAPSED_AT} (got '3601')",
        ),
        (
            ["Elapsed", "Suspended"],
            ["00:50:00", "00:05:00"],
            f"field Elapsed: 3000 s, plus Suspended 300 s, is not End - Start, 3600 s {ELAPSED_AT} (got '00:50:00')",
        ),
        (["Elapsed"], ["1:00"], "field Elapsed: not a duration ([D-]HH:MM:SS) (got '1:00')"),
        (["ElapsedRaw"], ["01:00:00"], "field ElapsedRaw: not a duration (a number of seconds) (got '01:00:00')"),
        (["Elapsed", "Suspended"], ["00:50:00", "x"], "field Suspended: not a duration ([D-]HH:MM:SS) (got 'x')"),
    ],
)
def test_elapsed_is_checked_against_end_minus_start(tmp_path, extra, values, outcome):
    row = dict(zip(extra, values))
    if outcome is None or outcome == "suspended":
        text, result = convert(tmp_path, "e.txt", [*FIELDS, *extra], row)
        plain, _ = convert(tmp_path, "plain.txt", FIELDS, {})
        assert result.checks["elapsed_checked"] == 1 and parse_swf(tmp_path / "e.txt.swf").fields[0, 3] == 3600
        if outcome is None:  # the same SWF as without Elapsed
            assert text.replace("e.txt", "plain.txt").split("\n", 4)[4] == plain.split("\n", 4)[4]
            assert "suspended" not in result.counts and result.notes == {}
        else:
            assert result.counts["suspended"] == 1 and result.notes == {
                "Elapsed": "less than End - Start for 1 job, by the time suspended, which Elapsed leaves out and the "
                "run time (field 4), End - Start, includes"
            }
        return
    with pytest.raises(SacctFormatError) as raised:
        convert(tmp_path, "e.txt", [*FIELDS, *extra], row)
    assert str(raised.value) == f"{tmp_path / 'e.txt'}, line 2: {outcome}"


def test_elapsed_of_jobs_that_never_ran_and_bad_elapsed_lines_skipped(tmp_path):
    rows = (
        {"JobIDRaw": "1", "Elapsed": "01:00:00"},
        {"JobIDRaw": "2", "State": "CANCELLED", "Start": "Unknown", "AllocCPUS": "0", "AllocNodes": "0", "Elapsed": ""},
        {"JobIDRaw": "3", "Elapsed": "02:00:00"},
        {"JobIDRaw": "4", "Elapsed": "INVALID"},  # sacct's for a negative time: not checked
        {"JobIDRaw": "5", "Elapsed": "soon"},
    )
    _, result = convert(tmp_path, "e.txt", [*FIELDS, "Elapsed"], *rows, skip_bad_lines=True)
    assert result.slurm_job_ids.tolist() == [1, 2, 4]
    assert (result.counts["skipped_elapsed_mismatch"], result.counts["skipped_bad_elapsed"]) == (1, 1)
    assert result.checks["elapsed_checked"] == 1


@pytest.mark.parametrize("compressed", [False, True])
def test_a_dump_cut_short_is_a_bad_last_line(tmp_path, compressed):
    text = "\n".join(["|".join(FIELDS), line(JobIDRaw="1"), "", line(JobIDRaw="2")])
    dump = tmp_path / ("cut.txt.gz" if compressed else "cut.txt")
    dump.write_bytes(gzip.compress(text.encode(), mtime=0) if compressed else text.encode())
    with pytest.raises(SacctFormatError) as raised:
        import_sacct(dump, tmp_path / "out.swf")
    assert str(raised.value) == (
        f"{dump}, line 4: no newline at the end of the file: the dump is cut short (an interrupted copy?) "
        f"(got {line(JobIDRaw='2')!r})"
    )
    assert not (tmp_path / "out.swf").exists()
    result = import_sacct(dump, tmp_path / "out.swf", skip_bad_lines=True)
    assert result.slurm_job_ids.tolist() == [1] and result.counts["skipped_unterminated_line"] == 1
    assert (result.counts["lines"], result.counts["blank_lines"]) == (3, 1)


def test_a_last_line_cut_inside_a_field_counts_once_and_a_blank_last_line_is_no_cut(tmp_path):
    cut = "\n".join(["|".join(FIELDS), line(JobIDRaw="1"), line(JobIDRaw="2")[:30]])
    (tmp_path / "cut.txt").write_text(cut)
    result = import_sacct(tmp_path / "cut.txt", tmp_path / "out.swf", skip_bad_lines=True)
    assert result.counts["skipped_unterminated_line"] == 1 and result.counts.get("skipped_truncated_line", 0) == 0
    assert result.slurm_job_ids.tolist() == [1]
    (tmp_path / "blank.txt").write_text(cut.rsplit("\n", 1)[0] + "\n\n")
    result = import_sacct(tmp_path / "blank.txt", tmp_path / "out.swf")
    assert result.counts["blank_lines"] == 1 and "skipped_unterminated_line" not in result.counts
    (tmp_path / "header.txt").write_text("|".join(FIELDS))
    with pytest.raises(SacctFormatError) as raised:
        import_sacct(tmp_path / "header.txt", tmp_path / "out.swf", skip_bad_lines=True)
    assert str(raised.value) == (
        f"{tmp_path / 'header.txt'}, line 1: no newline at the end of the file: the dump is cut short (an "
        f"interrupted copy?) (got {'|'.join(FIELDS)})"
    )


def test_the_command_reports_a_dump_cut_short(tmp_path, capsys):
    dump = tmp_path / "cut.txt"
    dump.write_text("|".join(FIELDS) + "\n" + line())
    assert main(["import-sacct", str(dump), "-o", str(tmp_path / "t.swf")]) == 2
    assert capsys.readouterr().err == (
        f"simcore import-sacct: error: {dump}, line 2: no newline at the end of the file: the dump is cut short (an "
        f"interrupted copy?) (got {line()!r})\n"
    )
    assert main(["import-sacct", str(dump), "-o", str(tmp_path / "t.swf"), "--skip-bad-lines"]) == 2
    assert "no ended job to write (lines 1, skipped_unterminated_line 1)" in capsys.readouterr().err


@pytest.mark.parametrize("fields", [FIELDS, ALIAS_FIELDS, MINIMAL])
def test_a_dump_of_its_header_alone_has_no_job_to_write(tmp_path, fields):
    dump = write_dump(tmp_path / "d.txt", fields=fields)
    with pytest.raises(ValueError) as raised:
        import_sacct(dump, tmp_path / "out.swf")
    assert str(raised.value) == f"{dump}: no ended job to write (no job line)"


@pytest.mark.parametrize(
    ("alias", "value", "message"),
    [
        ("TimelimitRaw", "02:00:00", "field TimelimitRaw: not a time limit (minutes, UNLIMITED, Partition_Limit)"),
        ("NCPUS", "four", "field NCPUS: not a count"),
        ("NNodes", "1.5X", "field NNodes: not a count"),
        ("Eligible", "01/01/2026", "field Eligible: not a time Y-m-dTH:M:S, Unknown or None"),
    ],
)
def test_a_bad_line_names_the_field_as_the_header_does(tmp_path, alias, value, message):
    name = {"TimelimitRaw": "Timelimit", "NCPUS": "AllocCPUS", "NNodes": "AllocNodes", "Eligible": "Submit"}[alias]
    fields = [alias if field == name else field for field in FIELDS]
    with pytest.raises(SacctFormatError) as raised:
        convert(tmp_path, "bad.txt", fields, {alias: value})
    assert str(raised.value) == f"{tmp_path / 'bad.txt'}, line 2: {message} (got {value!r})"


def test_a_dump_parsed_for_cpus_cannot_be_counted_in_nodes_without_node_fields(tmp_path):
    dump = write_dump(tmp_path / "d.txt", "|".join(BASE[name] for name in MINIMAL), fields=MINIMAL)
    with pytest.raises(ValueError) as raised:
        swf_fields(parse_sacct(dump), count="nodes", cores_per_node=4)
    assert str(raised.value) == f"{dump}: counting nodes needs AllocNodes, NNodes or ReqNodes, which the dump has not"


def test_the_slurm_modes_requests_are_header_lines_naming_swf_job_numbers(tmp_path):
    """What no SWF field holds (docs/slurm_accounting.md): -N counts, exclusivity, the jobs killed
    at their limit and the memory per node, by SWF job number (1..N in submit order)."""
    lines = [
        line(JobIDRaw="1", ReqNodes="2", AllocNodes="2", ReqMem="8000M"),
        line(JobIDRaw="2", Submit="2026-01-01T00:00:10", AllocCPUS="8", ReqMem="2000Mn"),
        line(JobIDRaw="3", Submit="2026-01-01T00:00:20", State="TIMEOUT"),
    ]
    _, header, _ = imported(tmp_path, *lines)
    assert header["SlurmReqNodes"] == "1:2" and header["SlurmExclusive"] == "2" and header["SlurmTimeout"] == "3"
    # a bare ReqMem over the nodes, a per-node one as it is; job 3's is per CPU: SWF's field 10
    assert header["SlurmMemPerNode"] == "1:4000 2:2000"


def test_a_dump_without_such_requests_writes_no_such_line(tmp_path):
    _, header, _ = imported(tmp_path, line(ReqMem=""))
    assert not [key for key in header if key.startswith("Slurm")]
