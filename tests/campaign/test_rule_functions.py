"""The functions of the studies' rules.py that the workflow's rules call through the named input and
params functions of workflow/rules/common.smk (run_files, run_setting, trace_files, trace_setting,
chunk_setting): what each gives for a run's settings."""

from __future__ import annotations

from simcore.studies.bandit import rules as bandit_rules
from simcore.studies.coscheduling import rules as coscheduling_rules
from simcore.studies.dynamic_scheduling import rules as dynamic_scheduling_rules
from simcore.studies.elastic import rules as elastic_rules
from simcore.studies.fixed_policy import rules as fixed_policy_rules
from simcore.studies.learned_policies import rules as learned_policies_rules
from simcore.studies.prediction import rules as prediction_rules


def test_fixed_policy_options_spell_no_threshold_as_none():
    chosen = {
        "fixed_policy": {"thresholds": [None, 3600]},
        "reproduction": {"threshold": None},
        "resample": {},
    }
    assert fixed_policy_rules.thresholds(chosen) == ["none", "3600"]
    assert fixed_policy_rules.reproduction_threshold(chosen) == "none"
    assert fixed_policy_rules.weeks_compared(chosen) == "interior"
    chosen["reproduction"]["threshold"], chosen["resample"]["weeks"] = 7200, 10
    assert fixed_policy_rules.reproduction_threshold(chosen) == "7200"
    assert fixed_policy_rules.weeks_compared(chosen) == 10


def test_site_policy_files_follow_the_fixed_policy_chunks_and_policies():
    chosen = {
        "traces": ["A", "B"],
        "variants": 5,
        "fixed_policy": {"variants_per_job": 2, "site_policies": {}},
    }
    assert fixed_policy_rules.site_policy_sweeps("fair_share", "r", chosen) == [
        f"r/sweep/{trace}/{chunk}.fair_share.parquet" for trace in "AB" for chunk in range(3)
    ]
    assert fixed_policy_rules.site_policies_section("r", chosen) == []
    chosen["fixed_policy"]["site_policies"] = {
        "EASY-FCFS": {"order": "FCFS"},
        "DEPTH-2": {"order": "FCFS", "reservations": 2},
    }
    assert fixed_policy_rules.site_policies_section("r", chosen) == "r/fixed_policy/site_policies.md"


def test_sequence_limit_only_for_a_capped_trace():
    chosen = {"dynamic_scheduling": {"max_sequences": {"lublin-256-long": 50}}}
    assert dynamic_scheduling_rules.sequences_limit(chosen, "lublin-256-long") == "--max-sequences 50"
    assert dynamic_scheduling_rules.sequences_limit(chosen, "SDSC-BLUE") == ""


def test_elastic_figures_draw_the_first_job_set():
    chosen = {"elastic": {"job_sets": {"A": [4, 2], "B": "all"}}}
    assert elastic_rules.first_job_set("series", "r", chosen, "A") == "r/elastic/series/A/4.parquet"
    assert elastic_rules.first_job_set("pools", "r", chosen, "B") == "r/elastic/pools/B/all.parquet"
    assert elastic_rules.first_job_set("pools", "r", chosen, "C") == "r/elastic/pools/C/1.parquet"


def test_prediction_grid_options_every_dimension_in_order():
    chosen = {"prediction": {key: [1, 2] for key in prediction_rules.GRID_DIMENSIONS}}
    assert prediction_rules.grid_options(chosen) == (
        "--learning-rates 1 2 --bases 1 2 --weightings 1 2 --corrections 1 2 --backfills 1 2"
    )


def test_learned_policy_tuple_ranges_cover_every_tuple_once():
    chosen = {"learned_policies": {"tuples": 10, "tuples_per_job": 4, "model": "lublin-256"}}
    assert [learned_policies_rules.tuple_range(chosen, chunk) for chunk in range(3)] == ["0:4", "4:8", "8:10"]
    assert learned_policies_rules.score_files("r", chosen) == [
        f"r/learned_policies/scores/{chunk}.parquet" for chunk in range(3)
    ]
    assert learned_policies_rules.model_workload(chosen) == "results/traces/lublin-256.parquet"


def test_coscheduling_runs_take_the_paper_queue_only_when_it_runs():
    chosen = {"coscheduling": {"traces": ["A"], "paper_queue": {}}}
    assert coscheduling_rules.runs("r", chosen) == [
        "r/coscheduling/runs/A/E1.parquet",
        "r/coscheduling/runs/A/E2.parquet",
    ]
    assert coscheduling_rules.queue_file("classes.parquet", "r", chosen) == []
    chosen["coscheduling"]["paper_queue"] = {"walltime_factor": 2}
    assert coscheduling_rules.runs("r", chosen)[-1] == "r/coscheduling/runs/ASA_X-queue/E1.parquet"


def test_bandit_strategies_and_their_learners_in_the_config_order():
    chosen = {"bandit": {"strategies": {"Z": {"learner": "exp3"}, "A": {"learner": "ucb"}}}}
    assert bandit_rules.strategy_names(chosen) == ["Z", "A"]
    assert bandit_rules.strategy_learners(chosen) == ["exp3", "ucb"]
    assert bandit_rules.seed(chosen) == 0
