"""The workloads table: one row per trace, counts with thousands separators, and a header when no trace has one."""

from simcore.engine.swf import FILTER_RULES
from simcore.reporting.workloads import workloads_markdown, workloads_table

HEADER = "| trace | machine_size | filter | job_lines | " + " | ".join(FILTER_RULES) + " | truncated | jobs |"
RULE = "|---|--:|---|" + "--:|" * (len(FILTER_RULES) + 3)


def test_a_trace_is_a_row_of_its_counts():
    provenance = {
        "input": "KTH-SP2.swf.gz",
        "machine_size": 100,
        "filter": "strict",
        "jobs": 27992,
        "filter_counts": {"run_over_request": 475, "lines": 28476},
    }
    lines = workloads_markdown(workloads_table({"KTH-SP2": provenance})).splitlines()
    counts = ["475" if rule == "run_over_request" else "0" for rule in FILTER_RULES]
    assert lines[-3:] == [HEADER, RULE, "| KTH-SP2 | 100 | strict | 28,476 | " + " | ".join(counts) + " | 0 | 27,992 |"]


def test_no_trace_gives_the_header_alone():
    """A run without a fixed-policy trace writes the table empty (tests/workflow/test_one_trace.py)."""
    assert workloads_markdown(workloads_table({})).splitlines()[-2:] == [HEADER, RULE]
