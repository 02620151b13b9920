"""The campaign's cost (simcore.reporting.cost): benchmark files summed per study and trace."""

import re
from pathlib import Path

import pandas as pd
import pytest

from simcore.reporting.cost import cost_markdown, cost_table, projected_hours, read_benchmarks

REPO = Path(__file__).resolve().parents[2]
HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def benchmark(root: Path, relative: str, wall: float, cpu: float, rss="100.5") -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{wall}\t0:00:01\t{rss}\t1\t1\t1\t0\t0\t0\t{cpu}\n")


@pytest.fixture
def benchmarks(tmp_path):
    root = tmp_path / "benchmarks"
    benchmark(root, "fixed_policy/sweep_fixed_policies/KTH-SP2/0.tsv", 100.0, 90.0, rss="300")
    benchmark(root, "fixed_policy/sweep_fixed_policies/KTH-SP2/1.tsv", 50.0, 45.0)
    benchmark(root, "fixed_policy/resample/CTC-SP2.tsv", 10.0, 9.0)
    benchmark(root, "fixed_policy/fixed_policy_tables.tsv", 2.0, 1.0)
    benchmark(root, "prediction/resample_study_trace/KTH-SP2.tsv", 4.0, 3.0, rss="NA")
    benchmark(root, "learned_policies/trial_scores/3.tsv", 7.0, 7.0)
    benchmark(root, "traces/study_trace/CTC-SP2/prediction.tsv", 1.0, 0.0)
    return root


def test_jobs_are_summed_per_study_and_trace(benchmarks):
    jobs = read_benchmarks(benchmarks, ["KTH-SP2", "CTC-SP2", "lublin-256"])
    assert len(jobs) == 7
    table = cost_table(jobs).set_index(["study", "trace"])
    sweep = table.loc[("fixed_policy", "KTH-SP2")]
    assert (sweep["jobs"], sweep["wall_s"], sweep["cpu_s"], sweep["max_rss_mb"], sweep["longest_job_s"]) == (
        2,
        150.0,
        135.0,
        300.0,
        100.0,
    )
    assert table.loc[("fixed_policy", "CTC-SP2"), "wall_s"] == 10.0
    # a study's tables, and a job whose path names no trace, count for all traces
    assert table.loc[("fixed_policy", "all"), "wall_s"] == 2.0
    assert table.loc[("learned_policies", "all"), "wall_s"] == 7.0
    assert table.loc[("traces", "CTC-SP2"), "jobs"] == 1
    assert pd.isna(table.loc[("prediction", "KTH-SP2"), "max_rss_mb"])  # Snakemake sampled nothing


def test_projection_shares_the_wall_time_but_never_beats_the_longest_job(benchmarks):
    table = cost_table(read_benchmarks(benchmarks, ["KTH-SP2", "CTC-SP2"]))
    assert projected_hours(table, 1) == pytest.approx(174.0 / 3600)
    assert projected_hours(table, 2) == pytest.approx(100.0 / 3600)  # 87 s each, but one job takes 100
    assert projected_hours(table, 56) == pytest.approx(100.0 / 3600)
    text = cost_markdown(table)
    assert "7 jobs" in text and "On 56 cores with perfect packing: 0.03 h" in text
    assert len([line for line in text.splitlines() if line.startswith("| fixed_policy |")]) == 3


def test_no_benchmark_gives_an_empty_table(tmp_path):
    table = cost_table(read_benchmarks(tmp_path / "none", []))
    assert table.empty and "0 jobs" in cost_markdown(table)


def test_a_file_that_is_not_a_benchmark_is_named(tmp_path):
    path = tmp_path / "fixed_policy" / "resample" / "KTH-SP2.tsv"
    path.parent.mkdir(parents=True)
    path.write_text("a\tb\n1\t2\n")
    with pytest.raises(ValueError, match=re.escape(f"{path}: not a Snakemake benchmark file")):
        read_benchmarks(tmp_path, ["KTH-SP2"])


def test_every_rule_that_runs_something_declares_its_benchmark():
    missing = []
    for path in sorted((REPO / "workflow" / "rules").glob("*.smk")):
        for block in re.split(r"\n(?=rule )", path.read_text()):
            name = re.match(r"rule (\w+):", block)
            if name and "shell:" in block and "benchmark:" not in block and name.group(1) != "cost":
                missing.append(f"{path.name}: {name.group(1)}")
    assert not missing, missing


def test_only_this_runs_studies_and_traces_count(benchmarks):
    # an earlier run's files: another trace (before `only=`), a study this run does not have
    jobs = read_benchmarks(benchmarks, ["KTH-SP2"], studies=["fixed_policy"], other_traces=["CTC-SP2"])
    assert sorted(zip(jobs["study"], jobs["trace"])) == [
        ("fixed_policy", "KTH-SP2"),
        ("fixed_policy", "KTH-SP2"),
        ("fixed_policy", "all"),
    ]
    # the trace preparation and the report count whichever studies the run has
    benchmark(benchmarks, "traces/filter_trace/KTH-SP2.tsv", 1.0, 1.0)
    benchmark(benchmarks, "report/report.tsv", 1.0, 1.0)
    jobs = read_benchmarks(benchmarks, ["KTH-SP2"], studies=[], other_traces=["CTC-SP2"])
    assert sorted(jobs["study"]) == ["report", "traces"]
