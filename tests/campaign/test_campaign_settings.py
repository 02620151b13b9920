"""Each run's settings (simcore.campaign.settings) over a registry of studies
(simcore.campaign.studies): the demo's and the artifact configuration's overrides, the `only`
restriction with what it skips and why, the variant chunks, and every file a run asks for."""

import copy

import pytest

from simcore.campaign.settings import RUN_ROOTS, Campaign, RunSettings, report_command, run_of, variant_chunks
from simcore.campaign.studies import Study, StudyRegistry, figure_files
from simcore.studies.dynamic_scheduling.rules import without_skipped_learned_functions

CATALOGUE = {"A": {}, "B": {}, "C": {}, "OLD": {"unusable": "no requested times"}}
CONFIG = {
    "traces": ["A", "B"],
    "variants": 10,
    "resample": {"method": "user-weeks", "weeks": 100},
    "reproduction": {"threshold": None, "backfill": "queue"},
    "models": {"m1": {}, "m2": {}},
    "fixed_policy": {"orders": ["FCFS"], "thresholds": [None, 7], "backfills": ["queue"], "variants_per_job": 4},
    "bandit": {"variants_per_job": 5, "strategies": {}},
    "own": {"traces": ["B", "C"], "variants": 6, "variants_per_job": 4, "resample": {}},
    "learned_policies": {"model": "m1", "tuples": 4},
    "dynamic_scheduling": {"traces": ["C", "m2"], "learned": 3},
    "bandit_artifact": {
        "variants": 3,
        "resample": {"method": "user-weeks", "weeks": 104},
        "fixed_policy": {"thresholds": [200], "backfills": ["LQF"]},
        "bandit": {"variants_per_job": 1},
        "reproduction": {"threshold": 200, "backfill": "LQF"},
    },
    "demo": {
        "traces": ["m1"],
        "variants": 2,
        "bandit": {"variants_per_job": 2},
        "own": {"traces": ["m2"], "variants": 3},
    },
}


def files(name):
    return lambda root, chosen: [f"{root}/{name}/report.md"]


def registry():
    studies = StudyRegistry()
    # registered out of rank order, as the rules files are included alphabetically
    studies.register(Study("own", rank=30, category="Own traces", outputs=files("own")))
    studies.register(
        Study("bandit", rank=20, category="Bandit", outputs=files("bandit"), traces="campaign", in_artifact=True)
    )
    studies.register(
        Study(
            "fixed_policy",
            rank=10,
            category="Fixed",
            outputs=files("fixed_policy"),
            traces="campaign",
            in_artifact=True,
        )
    )
    studies.register(Study("learned_policies", rank=40, category="Learned", outputs=files("learned"), traces="model"))
    studies.register(
        Study(
            "dynamic_scheduling",
            rank=50,
            category="Dynamic",
            outputs=files("dynamic"),
            restrict=without_skipped_learned_functions,
        )
    )
    return studies


def campaign(only=None, **changes):
    config = copy.deepcopy(CONFIG)
    config.update(changes)
    if only is not None:
        config["only"] = only
    return Campaign(config, CATALOGUE, registry())


def test_the_registry_orders_studies_by_rank_and_refuses_twins():
    studies = registry()
    assert studies.names() == ("fixed_policy", "bandit", "own", "learned_policies", "dynamic_scheduling")
    assert studies.names(traces="own") == ("own", "dynamic_scheduling")
    with pytest.raises(ValueError, match="study own is registered twice"):
        studies.register(Study("own", rank=99, category="", outputs=files("x")))
    with pytest.raises(ValueError, match="study new: rank 30 is study own's already"):
        studies.register(Study("new", rank=30, category="", outputs=files("x")))
    with pytest.raises(ValueError, match="study new: traces='section', expected one of own, campaign, model"):
        Study("new", rank=1, category="", outputs=files("x"), traces="section")


def test_a_run_root_names_its_run():
    assert [run_of(root) for root in RUN_ROOTS.values()] == ["campaign", "demo", "artifact"]
    with pytest.raises(ValueError, match="'results/other' is no run's root"):
        run_of("results/other")


@pytest.mark.parametrize("only", [None, ["m1"]])
@pytest.mark.parametrize("root", sorted(RUN_ROOTS.values()))
def test_a_run_has_the_settings_run_settings_declares_and_one_section_per_study(root, only):
    chosen = campaign(only).settings(root)
    assert set(chosen) == set(RunSettings.__annotations__) | set(registry().names())
    assert all(isinstance(chosen[key], dict) for key in registry().names())


def test_the_demo_replaces_shared_keys_and_merges_study_sections():
    chosen = campaign().settings("results/demo")
    assert chosen["traces"] == ["m1"] and chosen["variants"] == 2
    assert chosen["own"] == {"traces": ["m2"], "variants": 3, "variants_per_job": 4, "resample": {}}
    assert chosen["bandit"] == {"variants_per_job": 2, "strategies": {}}
    assert chosen["studies"] == {
        "fixed_policy": ["m1"],
        "bandit": ["m1"],
        "own": ["m2"],
        "learned_policies": ["m1"],
        "dynamic_scheduling": ["C", "m2"],
    }


def test_the_artifact_configuration_has_its_studies_only():
    chosen = campaign().settings("results/artifact")
    assert chosen["fixed_policy"]["thresholds"] == [200] and chosen["fixed_policy"]["orders"] == ["FCFS"]
    assert chosen["variants"] == 3
    assert list(chosen["studies"]) == ["fixed_policy", "bandit"]


def test_an_unknown_trace_or_an_unswept_reproduction_setting_names_its_key():
    bad = copy.deepcopy(CONFIG["own"]) | {"traces": ["B", "Z"]}
    with pytest.raises(ValueError, match=r"config: unknown traces \['Z'\]"):
        campaign(own=bad).settings("results")
    with pytest.raises(ValueError, match="trace OLD cannot be used: no requested times"):
        campaign(traces=["OLD"]).settings("results")
    unswept = {"threshold": 9, "backfill": "queue"}
    with pytest.raises(
        ValueError, match=r"config: reproduction.threshold is 9, which fixed_policy.thresholds \[None, 7\]"
    ):
        campaign(reproduction=unswept).settings("results")
    with pytest.raises(ValueError, match="config: reproduction.threshold is 9, which demo.fixed_policy.thresholds"):
        campaign(reproduction=unswept, demo={**CONFIG["demo"], "fixed_policy": {"thresholds": [None]}}).settings(
            "results/demo"
        )
    with pytest.raises(ValueError, match="config: only: unknown traces or models"):
        campaign(only=["Z"])


def test_only_restricts_every_study_and_says_what_it_skips():
    run = campaign(only="C")
    chosen = run.settings("results")
    assert chosen["studies"] == {"own": ["C"], "dynamic_scheduling": ["C"]}
    assert chosen["skipped"] == {
        "fixed_policy": "none of its traces (A, B) is in `only`",
        "bandit": "none of its traces (A, B) is in `only`",
        "learned_policies": "its model m1 is not in `only`",
    }
    # the learned functions come from the skipped study: the experiments run without them
    assert chosen["dynamic_scheduling"]["learned"] == 0
    assert chosen["notes"] == [
        "dynamic_scheduling runs without the learned functions L1-L3 (learned_policies, which fits them, is skipped)"
    ]
    assert chosen["own"]["traces"] == ["C"] and chosen["traces"] == []
    assert run.announcement("results").splitlines() == [
        "only=[C]: every study restricted to these traces (results/)",
        "  runs:    own on C",
        "  runs:    dynamic_scheduling on C",
        "  skipped: fixed_policy: none of its traces (A, B) is in `only`",
        "  skipped: bandit: none of its traces (A, B) is in `only`",
        "  skipped: learned_policies: its model m1 is not in `only`",
        "  note:    dynamic_scheduling runs without the learned functions L1-L3 (learned_policies, which fits them, "
        "is skipped)",
    ]
    assert campaign().announcement("results") is None
    # with the model kept, the learned functions stay
    assert campaign(only=["C", "m1"]).settings("results")["dynamic_scheduling"]["learned"] == 3


def test_variant_chunks_come_from_the_study_section_or_the_campaign():
    run = campaign()
    assert run.chunks("results", "fixed_policy") == [(0, 4), (4, 8), (8, 10)]
    assert run.chunks("results", "bandit") == [(0, 5), (5, 10)]
    assert run.chunks("results", "own") == [(0, 4), (4, 6)]
    assert run.chunks("results/demo", "bandit") == [(0, 2)]
    assert variant_chunks({"variants": 1, "x": {"variants_per_job": 3}}, "x") == [(0, 1)]


def test_a_run_asks_for_its_studies_files_in_rank_order_then_the_report():
    assert campaign().outputs("campaign") == [
        "results/fixed_policy/report.md",
        "results/bandit/report.md",
        "results/own/report.md",
        "results/learned/report.md",
        "results/dynamic/report.md",
        "results/tables/workloads.md",
        "results/reproduction.csv",
        "results/reproduction.md",
    ]
    assert campaign().cost_outputs("artifact") == ["results/artifact/cost.csv", "results/artifact/cost.md"]
    nothing = campaign(only="m2", dynamic_scheduling={"traces": ["C"], "learned": 0}, demo={"traces": ["m1"]})
    assert nothing.outputs("campaign") == [] and nothing.cost_outputs("campaign") == []
    assert nothing.outputs("artifact") == []


def test_the_campaign_report_has_the_artifact_sections_after_its_own_bandit_section():
    run = campaign()
    assert run.report_parts("results", "report.md") == [
        "results/fixed_policy/report.md",
        "results/bandit/report.md",
        "results/artifact/fixed_policy/report.md",
        "results/artifact/bandit/report.md",
        "results/own/report.md",
        "results/learned_policies/report.md",
        "results/dynamic_scheduling/report.md",
    ]
    assert run.report_parts("results/demo", "x.csv")[:3] == [
        "results/demo/fixed_policy/x.csv",
        "results/demo/bandit/x.csv",
        "results/demo/own/x.csv",
    ]
    assert run.traces_used("results") == ["A", "B", "C", "m1", "m2"]


def test_figure_files_name_each_trace_figure_and_format():
    assert figure_files("r/plots", ["a"]) == ["r/plots/a.png", "r/plots/a.pdf"]
    assert figure_files("r/plots", ["a", "b"], ["T1", "T2"])[::2] == [
        "r/plots/T1.a.png",
        "r/plots/T1.b.png",
        "r/plots/T2.a.png",
        "r/plots/T2.b.png",
    ]


def test_an_unknown_trace_is_named_once_whichever_studies_use_it():
    with pytest.raises(ValueError, match=r"config: unknown traces \['Z'\]; known"):
        campaign(traces=["A", "Z"]).settings("results")


def test_variants_on_the_command_line_caps_every_study_of_every_run():
    run = Campaign(copy.deepcopy(CONFIG), CATALOGUE, registry(), variants_cap=4)
    chosen = run.settings("results")
    assert chosen["variants"] == 4 and chosen["own"]["variants"] == 4  # the study's own 6 too
    assert chosen["notes"] == ["variants=4 caps every study's variants: the run's 10 -> 4, own 6 -> 4"]
    assert run.chunks("results", "own") == [(0, 4)]
    artifact = run.settings("results/artifact")
    assert artifact["variants"] == 3 and artifact["notes"] == []  # fewer than the cap already
    assert run.settings("results/demo")["own"]["variants"] == 3
    # what the planning says, the artifact's notes alone once the campaign was announced
    assert "  note:    variants=4 caps every study's variants" in run.announcement("results")
    low = Campaign(copy.deepcopy(CONFIG), CATALOGUE, registry(), variants_cap=1)
    assert low.announcement("results/artifact", notes_only=True) == (
        "results/artifact/:\n  note:    variants=1 caps every study's variants: the run's 3 -> 1"
    )
    # no cap: the configuration's counts
    assert campaign().settings("results")["own"]["variants"] == 6


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["snakemake", "--cores", "2", "demo"], ["snakemake", "demo"]),
        (["snakemake", "-c2", "--config", "only=A"], ["snakemake", "--config", "only=A"]),
        (["snakemake", "demo", "--cores"], ["snakemake", "demo"]),
        (["snakemake", "-j", "all", "--cores=4", "--profile", "slurm"], ["snakemake", "--profile", "slurm"]),
    ],
)
def test_the_report_command_is_the_runs_own_without_its_cores(argv, words):
    assert report_command(argv) == words


def test_a_finished_run_says_where_its_results_are_and_what_it_cost(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = campaign(only=["A"])
    summary = run.summary("results", ["snakemake", "--config", "only=A"])
    assert summary.splitlines()[:2] == [
        "schedsweep: the campaign run is done; its results are in results/",
        "  reproduction report  results/reproduction.md (published values next to ours)",
    ]
    assert "  HTML report          snakemake --config only=A --report results/report.html" in summary
    assert "cost" not in summary  # no cost.csv yet
    assert "  tables               0 files in results/tables/ and each study's tables/" in summary
    # what is written counts, another run's below this one's root (results/demo/) does not
    for path in ("results/tables/a.csv", "results/own/tables/b.md", "results/demo/tables/c.csv", "results/plots/d.png"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x")
    summary = run.summary("results", ["snakemake"])
    assert "  tables               2 files in results/tables/ and each study's tables/" in summary
    assert "  figures              1 PNG (each with a PDF) in results/plots/ and each study's plots/" in summary
    (tmp_path / "results/cost.csv").write_text(
        "study,trace,jobs,wall_s,cpu_s,max_rss_mb,longest_job_s\nbandit,A,3,4000,3900,120,3000\nown,all,2,5,5,80,4\n"
    )
    assert "  cost                 5 jobs, 1.1 h of job wall time, peak 120 MB (results/cost.md)" in run.summary(
        "results", ["snakemake"]
    )
    assert campaign(only=["m2"]).summary("results/artifact", ["snakemake"]) is None  # nothing to do there
