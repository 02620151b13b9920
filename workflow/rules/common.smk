# Study settings and the file layout shared by all rules.
import json
import re
from pathlib import Path

from snakemake.logging import logger

from simcore.studies.dynamic_scheduling.study import SETTINGS as DYNAMIC_SETTINGS
from simcore.studies.dynamic_scheduling.study import (
    SETTING_TITLES as DYNAMIC_SETTING_TITLES,
)
from simcore.studies.coscheduling.commands import FIGURES as COSCHEDULING_FIGURES
from simcore.studies.elastic.figures import FIGURES as ELASTIC_FIGURES
from simcore.workloads.catalogue import check_trace_names, load_catalogue

# A relative catalogue path is looked up in the working directory, then beside the Snakefile.
CATALOGUE_PATH = next(
    (
        str(path)
        for path in (
            Path(config["catalogue"]),
            Path(workflow.basedir) / config["catalogue"],
        )
        if path.exists()
    ),
    config["catalogue"],
)
CATALOGUE = load_catalogue(CATALOGUE_PATH)
MODELS = config.get("models", {})

# Studies with their own trace list, filter and variants (a section of the config each).
TRACE_STUDIES = (
    "prediction",
    "simple_policies",
    "dynamic_scheduling",
    "coscheduling",
    "elastic",
    "job_selection",
)
# Every study, in the campaign's order (also the order of the reproduction report's
# sections). Each uses the traces study_traces() names: the fixed-policy and bandit
# studies `traces`, the three above their own `traces`, the learned-policies study its
# `model`.
STUDIES = (
    "fixed_policy",
    "bandit",
    "prediction",
    "simple_policies",
    "learned_policies",
    "dynamic_scheduling",
    "coscheduling",
    "elastic",
    "job_selection",
)

# Categories of the HTML report (`snakemake --report`), one per study; figures of one
# trace go in a subcategory named after it, the others in "All traces".
REPORT_CATEGORIES = {
    "fixed_policy": "Fixed policies (bandit paper, Table 2)",
    "bandit": "Online policy selection (bandit paper, Table 3)",
    "prediction": "Running-time prediction (prediction paper)",
    "simple_policies": "Simple policies (thesis, chapter 4)",
    "learned_policies": "Learned priority functions (thesis, chapter 3)",
    "dynamic_scheduling": "Dynamic scheduling (thesis, section 3.3)",
    "coscheduling": "Co-scheduling (ASA_X)",
    "elastic": "Elastic provisioning (SARSA + ESN)",
    "job_selection": "Job selection (RLScheduler's baselines)",
    "reproduction": "Reproduction report",
    "cost": "What the run cost",
}
ALL_TRACES = "All traces"


def report_category(name):
    """The HTML report's category of a study's outputs, the artifact configuration's
    told apart from the campaign's (a function of the output's root)."""

    def category(wildcards):
        if study_of(wildcards.root) == "artifact":
            return f"{REPORT_CATEGORIES[name]}, artifact configuration"
        return REPORT_CATEGORIES[name]

    return category


# Each study writes below its own root: the campaign in results/, the demo in results/demo/,
# the bandit paper's Tables 2 and 3 in its artifact's configuration in results/artifact/.
STUDY_ROOTS = {
    "campaign": "results",
    "demo": "results/demo",
    "artifact": "results/artifact",
}
# The studies of the artifact configuration (config section `bandit_artifact`).
ARTIFACT_STUDIES = ("fixed_policy", "bandit")


def _alternatives(names):
    """A regular expression matching exactly the names (none: nothing at all)."""
    if not names:
        return "$^"
    return "|".join(re.escape(name) for name in sorted(names))


def _only():
    """`only`: the traces and models every study is restricted to (None: no restriction)."""
    only = config.get("only")
    if only is None:
        return None
    only = [only] if isinstance(only, str) else list(only)
    check_trace_names(only, CATALOGUE, MODELS, "only: ", "traces or models")
    return only


ONLY = _only()


wildcard_constraints:
    root=_alternatives(STUDY_ROOTS.values()),
    study=_alternatives(TRACE_STUDIES),
    trace=_alternatives(list(CATALOGUE) + list(MODELS)),
    chunk=r"\d+",
    jobset=r"\d+|all",


def study_of(root):
    return next(study for study, path in STUDY_ROOTS.items() if path == root)


def study_traces(chosen, study):
    """The traces a study uses under settings `chosen` (the learned-policies study: its model)."""
    if study in ("fixed_policy", "bandit"):
        return list(chosen["traces"])
    if study == "learned_policies":
        return [chosen["learned_policies"]["model"]]
    return list(chosen[study]["traces"])


def _declared_settings(root):
    """The campaign's settings, with the demo's overrides for results/demo and the
    artifact configuration's (`bandit_artifact`) for results/artifact."""
    chosen = {
        key: config[key]
        for key in (
            "traces",
            "variants",
            "resample",
            "fixed_policy",
            "bandit",
            "reproduction",
            "learned_policies",
        )
        + TRACE_STUDIES
    }
    if study_of(root) == "artifact":
        artifact = config["bandit_artifact"]
        chosen.update(
            variants=artifact["variants"],
            resample=artifact["resample"],
            reproduction=artifact["reproduction"],
            fixed_policy={**chosen["fixed_policy"], **artifact["fixed_policy"]},
            bandit={**chosen["bandit"], **artifact["bandit"]},
        )
    if study_of(root) == "demo":
        demo = dict(config["demo"])
        chosen.update(
            demo,
            **{
                study: {**chosen[study], **demo.pop(study, {})}
                for study in TRACE_STUDIES + ("learned_policies",)
            },
        )
    check_trace_names(
        chosen["traces"]
        + [trace for study in TRACE_STUDIES for trace in chosen[study]["traces"]]
        + [chosen["learned_policies"]["model"]],
        CATALOGUE,
        MODELS,
        "",
    )
    _check_reproduction(chosen, root)
    return chosen


def _check_reproduction(chosen, root):
    """The setting compared with the bandit paper's Table 2 must be one the sweep runs,
    or the table would be missing from the report."""
    compared, swept = {
        "demo": ("reproduction", "demo.fixed_policy"),
        "artifact": ("bandit_artifact.reproduction", "bandit_artifact.fixed_policy"),
    }.get(study_of(root), ("reproduction", "fixed_policy"))
    for key, runs_of in (("threshold", "thresholds"), ("backfill", "backfills")):
        wanted = chosen["reproduction"][key]
        if wanted not in chosen["fixed_policy"][runs_of]:
            raise ValueError(
                f"config: {compared}.{key} is {wanted!r}, which {swept}.{runs_of} "
                f"{chosen['fixed_policy'][runs_of]} does not run; add it there or choose one of them"
            )


def _restricted(chosen, root):
    """The settings with every study restricted to `only`: the traces each study
    declares (`declared`), the studies left (`studies`: study -> its traces),
    the ones skipped (`skipped`: study -> why) and what else changes (`notes`)."""
    declared = {
        study: study_traces(chosen, study)
        for study in (ARTIFACT_STUDIES if study_of(root) == "artifact" else STUDIES)
    }
    chosen = dict(chosen, declared=declared, skipped={}, notes=[])
    if ONLY is not None:

        def kept(traces):
            return [trace for trace in traces if trace in ONLY]

        chosen["traces"] = kept(chosen["traces"])
        for study in TRACE_STUDIES:
            chosen[study] = {**chosen[study], "traces": kept(chosen[study]["traces"])}
        for study, traces in declared.items():
            if not kept(traces):
                chosen["skipped"][study] = (
                    f"its model {traces[0]} is not in `only`"
                    if study == "learned_policies"
                    else f"none of its traces ({', '.join(traces)}) is in `only`"
                )
    chosen["studies"] = {
        study: [trace for trace in traces if ONLY is None or trace in ONLY]
        for study, traces in declared.items()
        if study not in chosen["skipped"]
    }
    learned = chosen["dynamic_scheduling"]["learned"]
    if (
        "dynamic_scheduling" in chosen["studies"]
        and "learned_policies" in chosen["skipped"]
        and learned
    ):
        # the learned functions come from the learned-policies study: without it, the
        # dynamic scheduling experiments run their other policies only
        chosen["dynamic_scheduling"] = {**chosen["dynamic_scheduling"], "learned": 0}
        chosen["notes"].append(
            f"dynamic_scheduling runs without the learned functions L1-L{learned} "
            "(learned_policies, which fits them, is skipped)"
        )
    return chosen


_SETTINGS = {}


def settings(root):
    """The settings of a study root: the campaign's (results), with the demo's
    overrides (results/demo) or the artifact configuration's (results/artifact), every
    study restricted to `only`."""
    if root not in _SETTINGS:
        _SETTINGS[root] = _restricted(_declared_settings(root), root)
    return _SETTINGS[root]


def runs(root, study):
    """Whether `study` runs under root (False when `only` names none of its traces)."""
    return study in settings(root)["studies"]


_ANNOUNCED = set()


def announce(root):
    """Say once, when the DAG is planned, what `only` leaves of the studies."""
    if ONLY is None or root in _ANNOUNCED or not workflow.is_main_process:
        return
    if study_of(root) == "artifact" and STUDY_ROOTS["campaign"] in _ANNOUNCED:
        return  # its studies run on the campaign's `traces`, already announced
    _ANNOUNCED.add(root)
    chosen = settings(root)
    lines = [
        f"only=[{', '.join(ONLY)}]: every study restricted to these traces ({root}/)"
    ]
    lines += [
        f"  runs:    {study} on {', '.join(traces)}"
        for study, traces in chosen["studies"].items()
    ]
    lines += [f"  skipped: {study}: {why}" for study, why in chosen["skipped"].items()]
    lines += [f"  note:    {note}" for note in chosen["notes"]]
    if not chosen["studies"]:
        lines.append("  nothing to do: no study uses these traces")
    logger.info("\n".join(lines))


def chunks(root, study="fixed_policy"):
    """Variant ranges (first, stop), one sweep (or learner, or predictor) job each."""
    chosen = settings(root)
    variants = chosen["variants"]
    if study == "bandit":
        size = chosen.get(
            "bandit_variants_per_job", chosen["bandit"]["variants_per_job"]
        )
    elif study in TRACE_STUDIES:
        size = chosen[study]["variants_per_job"]
        variants = chosen[study]["variants"]
    else:
        size = chosen["fixed_policy"]["variants_per_job"]
    return [(first, min(first + size, variants)) for first in range(0, variants, size)]


def resample_arguments(chosen):
    """`simcore resample` options from a study's settings (variants, resample)."""
    weeks = chosen["resample"].get("weeks")
    return (
        f"--variants {chosen['variants']} --base-seed {config['base_seed']} "
        f"--method {chosen['resample']['method']}"
        + (f" --weeks {weeks}" if weeks else "")
    )


def sweep_outputs(kind, study="fixed_policy"):
    folder = "sweep" if study == "fixed_policy" else "bandit"

    def outputs(wildcards):
        return expand(
            "{root}/{folder}/{trace}/{chunk}.{kind}.parquet",
            root=wildcards.root,
            folder=folder,
            trace=wildcards.trace,
            chunk=range(len(chunks(wildcards.root, study))),
            kind=kind,
        )

    return outputs


def bandit(root):
    return settings(root)["bandit"]


def strategies_json(root):
    return json.dumps(bandit(root)["strategies"], sort_keys=True)


def bandit_base_json(root):
    return json.dumps(bandit(root)["base"], sort_keys=True)


def table_configuration(root):
    """How the fixed-policy and bandit tables label their reproduction rows."""
    return "artifact" if study_of(root) == "artifact" else "default"


def trace_plots(root, trace):
    return expand(
        "{root}/plots/{trace}.{plot}.{ext}",
        root=root,
        trace=trace,
        plot=["cumulative_wait", "bsld", "strategies", "regret", "choices"],
        ext=["png", "pdf"],
    )


def study_outputs(study):
    """Every output of the campaign (or the demo) that `only` leaves."""
    root = STUDY_ROOTS[study]
    announce(root)
    traces = settings(root)["traces"]
    fixed_policy = (
        [
            *expand("{root}/summary/{trace}.runs.parquet", root=root, trace=traces),
            *[plot for trace in traces for plot in trace_plots(root, trace)],
            f"{root}/tables/workloads.md",
            f"{root}/tables/bandit.md",
            f"{root}/tables/fixed_policy.csv",
            f"{root}/tables/fixed_policy.md",
        ]
        if runs(root, "fixed_policy")
        else []
    )
    reproduction = (
        [f"{root}/reproduction.csv", f"{root}/reproduction.md"]
        if report_sections(root)
        else []
    )
    return (
        prediction_outputs(study)
        + simple_policies_outputs(study)
        + learned_policies_outputs(study)
        + dynamic_scheduling_outputs(study)
        + coscheduling_outputs(study)
        + elastic_outputs(study)
        + job_selection_outputs(study)
        + fixed_policy
        + reproduction
    )


def cost_outputs(study):
    """The cost table of the campaign (or the demo), when any study runs."""
    root = STUDY_ROOTS[study]
    return [f"{root}/cost.csv", f"{root}/cost.md"] if report_sections(root) else []


def root_traces(root):
    """Every trace or model a study of the root uses."""
    return sorted(
        {trace for traces in settings(root)["studies"].values() for trace in traces}
    )


def report_sections(root):
    """The studies whose section the reproduction report appends (those that run)."""
    return [study for study in STUDIES if runs(root, study)]


def report_parts(root, name):
    """The files `name` (report.md, reproduction.csv) of the sections the reproduction
    report of `root` assembles; the campaign's has the artifact configuration's beside
    its own bandit-paper sections."""
    parts = []
    for study in report_sections(root):
        parts.append(f"{root}/{study}/{name}")
        if study == "bandit" and study_of(root) == "campaign":
            artifact = STUDY_ROOTS["artifact"]
            parts += [f"{artifact}/{s}/{name}" for s in report_sections(artifact)]
    return parts


# -- the running-time prediction study (rules/prediction.smk) ------------------


def prediction(root):
    return settings(root)["prediction"]


def study_workload(study, trace):
    """The trace of a study with its own filter and machine sizes (models as generated)."""
    if trace in MODELS:
        return f"results/traces/{trace}.parquet"
    return f"results/{study}/traces/{trace}.parquet"


def grid_outputs(kind, root, trace):
    return expand(
        "{root}/prediction/grid/{trace}/{chunk}.{kind}.parquet",
        root=root,
        trace=trace,
        chunk=range(prediction(root)["grid_jobs_per_trace"]),
        kind=kind,
    )


def prediction_variant_runs(root):
    return [
        f"{root}/prediction/variant_runs/{trace}/{chunk}.parquet"
        for trace in prediction(root)["traces"]
        for chunk in range(len(chunks(root, "prediction")))
    ]


def prediction_header_size_runs(root):
    """The study's traces also run at their header's machine size (prediction.header_size)."""
    return [
        f"{root}/prediction/header_size/{trace}.parquet"
        for trace in prediction(root)["traces"]
        if trace in prediction(root)["header_size"]
    ]


def prediction_outputs(study):
    root = STUDY_ROOTS[study]
    announce(root)
    if not runs(root, "prediction"):
        return []
    return [
        f"{root}/prediction/report.md",
        *expand(
            "{root}/prediction/plots/{trace}.{plot}.{ext}",
            root=root,
            trace=prediction(root)["traces"],
            plot=["ecdf_errors", "ecdf_values"],
            ext=["png", "pdf"],
        ),
        *expand(
            "{root}/prediction/plots/correlations.{ext}", root=root, ext=["png", "pdf"]
        ),
    ]


# -- the simple-policies study (rules/simple_policies.smk) ---------------------


def simple_policies(root):
    return settings(root)["simple_policies"]


def simple_outputs(kind, root):
    return [
        f"{root}/simple_policies/sweep/{trace}/{chunk}.{kind}.parquet"
        for trace in simple_policies(root)["traces"]
        for chunk in range(len(chunks(root, "simple_policies")))
    ]


def simple_policies_outputs(study):
    root = STUDY_ROOTS[study]
    announce(root)
    if not runs(root, "simple_policies"):
        return []
    return [
        f"{root}/simple_policies/report.md",
        *expand(
            "{root}/simple_policies/plots/{trace}.objectives.{ext}",
            root=root,
            trace=simple_policies(root)["traces"],
            ext=["png", "pdf"],
        ),
        *expand(
            "{root}/simple_policies/plots/{figure}.{ext}",
            root=root,
            figure=["delayed", "categories", "backfilled"],
            ext=["png", "pdf"],
        ),
    ]


# -- the learned-functions study (rules/learned_policies.smk) ------------------


def learned_policies(root):
    return settings(root)["learned_policies"]


def tuple_chunks(root):
    """Tuple ranges (first, stop), one trial-scores job each."""
    chosen = learned_policies(root)
    size = chosen["tuples_per_job"]
    return [
        (first, min(first + size, chosen["tuples"]))
        for first in range(0, chosen["tuples"], size)
    ]


def learned_policies_outputs(study):
    """The thesis's chapter 3: the trial scores and the learned functions."""
    root = STUDY_ROOTS[study]
    announce(root)
    if not runs(root, "learned_policies"):
        return []
    return [
        f"{root}/learned_policies/report.md",
        f"{root}/learned_policies/plots/scores.png",
    ]


# -- the dynamic scheduling experiments (rules/dynamic_scheduling.smk) ---------


def dynamic_scheduling(root):
    return settings(root)["dynamic_scheduling"]


def dynamic_runs(root):
    chosen = dynamic_scheduling(root)
    return [
        f"{root}/dynamic_scheduling/runs/{trace}/{chunk}.parquet"
        for trace in chosen["traces"]
        for chunk in range(chosen["jobs_per_trace"])
    ]


def learned_functions_input(root):
    """The learned functions, where the dynamic scheduling experiments use some."""
    if dynamic_scheduling(root)["learned"]:
        return f"{root}/learned_policies/functions.csv"
    return []


def dynamic_scheduling_outputs(study):
    root = STUDY_ROOTS[study]
    announce(root)
    if not runs(root, "dynamic_scheduling"):
        return []
    return [
        f"{root}/dynamic_scheduling/report.md",
        *expand(
            "{root}/dynamic_scheduling/plots/{setting}.{ext}",
            root=root,
            setting=list(DYNAMIC_SETTINGS),
            ext=["png", "pdf"],
        ),
    ]


# -- the co-scheduling study (rules/coscheduling.smk) ---------------------------


def coscheduling(root):
    return settings(root)["coscheduling"]


def coscheduling_options(root, trace):
    """`simcore coscheduling-run` options shared by E1 and E2 for one trace."""
    chosen = coscheduling(root)
    capacity = chosen["memory_capacity"].get(trace)
    profile = chosen["profiles"].get(trace)
    return " ".join(
        [
            f"--configurations '{json.dumps(chosen['configurations'])}'",  # in the config's order
            "--kappas " + " ".join(str(kappa) for kappa in chosen["kappas"]),
            f"--seeds {chosen['seeds']}",
            f"--memory {chosen['memory'].get(trace, 'on')}",
            f"--memory-capacity {capacity}" if capacity else "",
            f"--efficiency {chosen['efficiency'].get(trace, 'require')}",
            (
                f"--profile {profile} --profile-seed {config['base_seed']}"
                if profile
                else ""
            ),
        ]
    )


def coscheduling_queue_options(root):
    """`simcore coscheduling-paper-queue` options: the study's configurations, κ and seeds."""
    chosen = coscheduling(root)
    return " ".join(
        [
            f"--configurations '{json.dumps(chosen['configurations'])}'",
            "--kappas " + " ".join(str(kappa) for kappa in chosen["kappas"]),
            f"--seeds {chosen['seeds']}",
            f"--walltime-factor {chosen['paper_queue']['walltime_factor']}",
        ]
    )


def coscheduling_queue(root, name):
    """The paper queue's file `name` (E1.parquet, classes.parquet), when the study runs the
    queue (`paper_queue`)."""
    if not coscheduling(root)["paper_queue"]:
        return []
    return [f"{root}/coscheduling/runs/ASA_X-queue/{name}"]


def coscheduling_runs(root):
    return [
        f"{root}/coscheduling/runs/{trace}/{experiment}.parquet"
        for trace in coscheduling(root)["traces"]
        for experiment in ("E1", "E2")
    ] + coscheduling_queue(root, "E1.parquet")


def coscheduling_outputs(study):
    root = STUDY_ROOTS[study]
    announce(root)
    if not runs(root, "coscheduling"):
        return []
    return [
        f"{root}/coscheduling/report.md",
        *expand(
            "{root}/coscheduling/plots/{trace}.{figure}.{ext}",
            root=root,
            trace=coscheduling(root)["traces"],
            figure=COSCHEDULING_FIGURES,
            ext=["png", "pdf"],
        ),
    ]


# -- the elastic study (rules/elastic.smk) --------------------------------------


def elastic(root):
    return settings(root)["elastic"]


def elastic_job_sets(root, trace):
    """The job sets of a trace: "1".."N" (the first N consecutive sets), the listed set numbers,
    or "all" (every serial job)."""
    chosen = elastic(root)["job_sets"].get(trace, 1)
    if chosen == "all":
        return ["all"]
    return [
        str(k) for k in (chosen if isinstance(chosen, list) else range(1, chosen + 1))
    ]


def elastic_options(root, trace):
    """`simcore elastic-run` options of a trace's job sets."""
    chosen = elastic(root)
    profile = chosen["profiles"].get(trace)
    return " ".join(
        [
            f"--set-jobs {chosen['set_jobs']} --pre-training {chosen['pre_training']}",
            f"--monitoring {chosen['monitoring']}",
            f"--time-compression {chosen['time_compression'].get(trace, 1)}",
            f"--seeds {chosen['seeds']}",
            f"--runs '{json.dumps(chosen['runs'])}'",  # in the config's order
            (
                f"--vo-profile {profile} --profile-seed {config['base_seed']}"
                if profile
                else ""
            ),
        ]
    )


def elastic_runs(root):
    return [
        f"{root}/elastic/runs/{trace}/{jobset}.parquet"
        for trace in elastic(root)["traces"]
        for jobset in elastic_job_sets(root, trace)
    ]


def elastic_outputs(study):
    root = STUDY_ROOTS[study]
    announce(root)
    if not runs(root, "elastic"):
        return []
    return [
        f"{root}/elastic/report.md",
        *expand(
            "{root}/elastic/plots/{trace}.{figure}.{ext}",
            root=root,
            trace=elastic(root)["traces"],
            figure=ELASTIC_FIGURES,
            ext=["png", "pdf"],
        ),
    ]


# -- the job-selection baselines (rules/job_selection.smk) ---------------------


def job_selection(root):
    return settings(root)["job_selection"]


def job_selection_options(root):
    """`simcore rl-baselines` options."""
    chosen = job_selection(root)
    return (
        f"--orders {' '.join(chosen['orders'])} --sequences {chosen['sequences']} "
        f"--length {chosen['length']} --seed {chosen['seed']}"
    )


def job_selection_outputs(study):
    root = STUDY_ROOTS[study]
    announce(root)
    if not runs(root, "job_selection"):
        return []
    return [f"{root}/job_selection/report.md"]
