# Study settings and the file layout shared by all rules.
import json
import re
from pathlib import Path

from simcore.studies.dynamic_scheduling.study import SETTINGS as DYNAMIC_SETTINGS
from simcore.workloads.catalogue import load_catalogue

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
TRACE_STUDIES = ("prediction", "simple_policies", "dynamic_scheduling")
# Studies whose report section is appended to the reproduction report, in this order.
REPORT_SECTIONS = (
    "fixed_policy",
    "bandit",
    "prediction",
    "simple_policies",
    "learned_policies",
    "dynamic_scheduling",
)

# Each study writes below its own root: the campaign in results/, the demo in results/demo/.
STUDY_ROOTS = {"campaign": "results", "demo": "results/demo"}


def _alternatives(names):
    return "|".join(re.escape(name) for name in sorted(names))


wildcard_constraints:
    root=_alternatives(STUDY_ROOTS.values()),
    study=_alternatives(TRACE_STUDIES),
    trace=_alternatives(list(CATALOGUE) + list(MODELS)),
    chunk=r"\d+",


def study_of(root):
    return next(study for study, path in STUDY_ROOTS.items() if path == root)


def settings(root):
    """The campaign's settings, with the demo's overrides for results/demo."""
    chosen = {
        key: config[key]
        for key in (
            "traces",
            "variants",
            "resample",
            "fixed_policy",
            "learned_policies",
        )
        + TRACE_STUDIES
    }
    if study_of(root) == "demo":
        demo = dict(config["demo"])
        chosen.update(
            demo,
            **{
                study: {**chosen[study], **demo.pop(study, {})}
                for study in TRACE_STUDIES + ("learned_policies",)
            },
        )
    unknown = [
        trace
        for trace in chosen["traces"]
        + [trace for study in TRACE_STUDIES for trace in chosen[study]["traces"]]
        if trace not in CATALOGUE and trace not in MODELS
    ]
    if unknown:
        raise ValueError(
            f"config: unknown traces {unknown}; known: {sorted(CATALOGUE) + sorted(MODELS)}"
        )
    return chosen


def chunks(root, study="fixed_policy"):
    """Variant ranges (first, stop), one sweep (or learner, or predictor) job each."""
    chosen = settings(root)
    variants = chosen["variants"]
    if study == "bandit":
        size = chosen.get(
            "bandit_variants_per_job", config["bandit"]["variants_per_job"]
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


def strategies_json():
    return json.dumps(config["bandit"]["strategies"], sort_keys=True)


def bandit_base_json():
    return json.dumps(config["bandit"]["base"], sort_keys=True)


def trace_plots(root, trace):
    return expand(
        "{root}/plots/{trace}.{plot}.{ext}",
        root=root,
        trace=trace,
        plot=["cumulative_wait", "bsld", "strategies", "regret", "choices"],
        ext=["png", "pdf"],
    )


def study_outputs(study):
    root = STUDY_ROOTS[study]
    traces = settings(root)["traces"]
    return (
        prediction_outputs(study)
        + simple_policies_outputs(study)
        + learned_policies_outputs(study)
        + [
            *expand("{root}/summary/{trace}.runs.parquet", root=root, trace=traces),
            *[plot for trace in traces for plot in trace_plots(root, trace)],
            f"{root}/tables/workloads.md",
            f"{root}/tables/bandit.md",
            f"{root}/tables/fixed_policy.csv",
            f"{root}/tables/fixed_policy.md",
            f"{root}/reproduction.csv",
            f"{root}/reproduction.md",
        ]
    )


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


def prediction_outputs(study):
    root = STUDY_ROOTS[study]
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
    """The thesis's chapter 3: learned functions, then the dynamic scheduling experiments."""
    root = STUDY_ROOTS[study]
    return [
        f"{root}/learned_policies/report.md",
        f"{root}/learned_policies/plots/scores.png",
    ] + dynamic_scheduling_outputs(study)


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


def dynamic_scheduling_outputs(study):
    root = STUDY_ROOTS[study]
    return [
        f"{root}/dynamic_scheduling/report.md",
        *expand(
            "{root}/dynamic_scheduling/plots/{setting}.{ext}",
            root=root,
            setting=list(DYNAMIC_SETTINGS),
            ext=["png", "pdf"],
        ),
    ]
