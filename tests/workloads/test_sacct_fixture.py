"""`simcore import-sacct` on a real Slurm's accounting: the committed fixture tests/fixtures/sacct/
is the sacct dump of one run of .ci/slurm-accounting (Slurm 22.05 with slurmdbd and MariaDB, the job
mix of tests/sacct_mix.py submitted by two users) and its submission record (what was submitted,
the job ids sbatch returned, what slurmctld said of each job). No Slurm is needed here: the dump is
imported and checked with the same `check` as the live run, field by field against the record and
against the dump's own values. Refresh it with
`SLURM_ACCOUNTING_FIXTURE=tests/fixtures/sacct .ci/slurm-accounting` (root, apt-get).

tests/fixtures/sacct/aliases/ is a later run of the same script (refreshed with
SLURM_ACCOUNTING_FIXTURE=tests/fixtures/sacct/aliases), which also dumped the same jobs with sacct's
other names of the fields (tests/sacct_mix.py ALIAS_FIELDS: NCPUS, NNodes, TimelimitRaw, UID, GID,
with Elapsed and Suspended): both dumps must import to the same SWF but for the header lines that
name the dump and the field names read. (The first fixture stays as it is: the demo's pinned
outputs are made from it.)
"""

import json
import subprocess
import sys

import numpy as np
import pytest
from conftest import REPO
from sacct_mix import ALIAS_FIELDS, DUMP_SPECIFIC, MIX, check, different, expected_records, read_dump

from simcore.engine.swf import parse_swf
from simcore.workloads.sacct import import_sacct

FIXTURE = REPO / "tests" / "fixtures" / "sacct"
DUMP = FIXTURE / "slurm-accounting.sacct"
RECORD = json.loads((FIXTURE / "submitted.json").read_text())
DUMP_TEXT = DUMP.read_text()
ALIASES = FIXTURE / "aliases"


@pytest.fixture
def imported(tmp_path):
    result = import_sacct(DUMP, tmp_path / "slurm-accounting.swf.gz")
    return result, parse_swf(result.output)


def test_the_fixture_imports_to_what_was_submitted(imported):
    result, swf = imported
    assert check(RECORD, DUMP_TEXT, swf.fields, swf.header, result.slurm_job_ids) == []


def test_the_fixture_holds_the_whole_mix(imported):
    result, swf = imported
    assert [job["label"] for job in RECORD["jobs"]] == [job.label for job in MIX]
    records = [item for item in expected_records(RECORD) if item["job"]["in_accounting"]]
    assert result.jobs == len(records) == len(read_dump(DUMP_TEXT)) == 14
    counts = result.counts
    assert (counts["array_tasks"], counts["het_components"]) == (3, 2)
    # cancel_pending and the two het components never started; cancel_running did
    assert (counts["cancelled_before_start"], counts["cancelled_after_start"], counts["never_started"]) == (3, 1, 3)
    status = swf.fields[:, 10].astype(int)
    assert sorted(np.unique(status)) == [0, 1, 5]
    assert len(np.unique(swf.fields[:, 11])) == 2  # two users
    assert len(np.unique(swf.fields[:, 15])) == 2  # two partitions
    assert (swf.fields[:, 2] >= 1).sum() >= 3  # jobs that waited
    assert {row["State"].split(" by ")[0] for row in read_dump(DUMP_TEXT)} == {
        "COMPLETED",
        "FAILED",
        "TIMEOUT",
        "CANCELLED",
    }
    # held, then cancelled before it was ever eligible: Slurm never sent it to slurmdbd
    assert "held" not in {row["JobName"] for row in read_dump(DUMP_TEXT)}


@pytest.mark.parametrize(
    ("column", "field"),
    [(1, "submit"), (2, "start"), (3, "end"), (4, "allocated processors"), (8, "requested time"), (9, "memory")],
)
def test_the_check_names_the_job_and_field_of_a_mismatch(imported, column, field):
    result, swf = imported
    fields = swf.fields.copy()
    row = int(np.flatnonzero(fields[:, 10] == 1)[-1])  # a job that completed
    fields[row, column] += 1
    before = set(check(RECORD, DUMP_TEXT, swf.fields, swf.header, result.slurm_job_ids))
    problems = [
        problem
        for problem in check(RECORD, DUMP_TEXT, fields, swf.header, result.slurm_job_ids)
        if problem not in before
    ]
    assert problems, f"a changed field {column + 1} went unnoticed"
    assert all(f"SWF {row + 1})" in problem for problem in problems)
    assert any(field in problem for problem in problems)


def test_the_command_line_writes_the_same_swf(imported, tmp_path):
    result, _ = imported
    output = tmp_path / "cli.swf.gz"
    done = subprocess.run(
        [sys.executable, "-m", "simcore.cli", "import-sacct", str(DUMP), "-o", str(output)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert output.read_bytes() == result.output.read_bytes()


@pytest.fixture
def both_dumps(tmp_path):
    """The aliases run's two dumps imported: (SacctImport of the README's fields, of sacct's other names)."""
    return (
        import_sacct(ALIASES / "slurm-accounting.sacct", tmp_path / "readme.swf"),
        import_sacct(ALIASES / "slurm-accounting-aliases.sacct", tmp_path / "aliases.swf"),
    )


def test_the_aliases_run_imports_to_what_was_submitted(both_dumps):
    readme, _ = both_dumps
    record = json.loads((ALIASES / "submitted.json").read_text())
    swf = parse_swf(readme.output)
    assert record["slurm"] == "slurm-wlm 22.05.8" and readme.notes == {}
    assert (
        check(record, (ALIASES / "slurm-accounting.sacct").read_text(), swf.fields, swf.header, readme.slurm_job_ids)
        == []
    )


def test_the_dump_with_saccts_other_field_names_imports_to_the_same_swf(both_dumps):
    readme, aliases = both_dumps
    assert different(readme.output.read_text(), aliases.output.read_text()) == []
    assert np.array_equal(parse_swf(aliases.output).fields, parse_swf(readme.output).fields)
    assert aliases.slurm_job_ids.tolist() == readme.slurm_job_ids.tolist() and aliases.counts == readme.counts
    differing = sorted(set(aliases.output.read_text().splitlines()) - set(readme.output.read_text().splitlines()))
    assert all(line.startswith(DUMP_SPECIFIC) for line in differing) and len(differing) == 1 + 5
    assert list(aliases.notes) == ["Timelimit", "AllocCPUS", "AllocNodes", "User", "Group"]
    # the three jobs cancelled while pending: NNodes shows their request, only Start = End says they never ran
    assert aliases.checks == {"elapsed_checked": 11, "never_started_start_is_end": 3}
    assert aliases.counts["never_started"] == 3 and "suspended" not in aliases.counts


def test_sacct_prints_its_own_names_whatever_the_case_asked():
    header = (ALIASES / "slurm-accounting-aliases.sacct").read_text().split("\n", 1)[0]
    assert header.lower() == ALIAS_FIELDS.replace(",", "|") and "NNodes" in header.split("|")
    rows = {row["JobID"]: row for row in read_dump((ALIASES / "slurm-accounting-aliases.sacct").read_text())}
    readme = {row["JobID"]: row for row in read_dump((ALIASES / "slurm-accounting.sacct").read_text())}
    assert rows.keys() == readme.keys()
    for job, row in rows.items():
        assert row["NCPUS"] == readme[job]["AllocCPUS"] and row["TimelimitRaw"] == readme[job]["TimelimitRaw"]
        assert row["NNodes"] == (
            readme[job]["AllocNodes"] if readme[job]["AllocNodes"] != "0" else readme[job]["ReqNodes"]
        )
        assert (row["Elapsed"], row["UID"]) == (readme[job]["Elapsed"], readme[job]["UID"])
