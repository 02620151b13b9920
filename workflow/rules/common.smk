# Shared by all the rules: the registry the studies join (workflow/rules/studies/*.smk), each
# run's settings (simcore.campaign.settings, where the logic and its tests are) and the file
# layout of the traces and variants.
import re
import sys
from pathlib import Path

from snakemake.logging import logger

from simcore.campaign import layout
from simcore.campaign import local_traces as local_logs
from simcore.campaign.config import campaign_catalogue, one_line_errors
from simcore.campaign.settings import RUN_ROOTS, Campaign, report_command, run_of
from simcore.campaign.studies import Study, StudyRegistry

with one_line_errors():
    CATALOGUE_PATH, CATALOGUE = campaign_catalogue(
        config["catalogue"], workflow.basedir
    )
MODELS = config.get("models", {})
# A site's own logs by path (simcore.campaign.local_traces): their names here, their entries
# (checked once every study registered) in CAMPAIGN.local_traces.
LOCAL_TRACES = list(config.get("local_traces") or {})

# Every study's rules, one file each; the Snakefile includes them all, and each registers
# its study (register_study) before its rules.
STUDY_RULES = sorted((Path(workflow.basedir) / "workflow/rules/studies").glob("*.smk"))
STUDIES = StudyRegistry()
# `variants=N` on the command line caps every study's variants in every run (config/README.md)
with one_line_errors():
    CAMPAIGN = Campaign(
        config,
        CATALOGUE,
        STUDIES,
        workflow.basedir,
        variants_cap=workflow.config_settings.config.get("variants"),
    )

# The HTML report's categories beside the studies' own; figures of one trace go in a
# subcategory named after it, the others in "All traces".
REPORT_CATEGORIES = {
    "reproduction": "Reproduction report",
    "cost": "What the run cost",
}
ALL_TRACES = "All traces"


def register_study(name, **declaration):
    """Add a study to the campaign (simcore.campaign.studies.Study: rank, category,
    outputs, traces, in_artifact, restrict)."""
    return STUDIES.register(Study(name=name, **declaration))


def report_category(name):
    """The HTML report's category of a study's (or the report's) outputs, the artifact
    configuration's told apart from the campaign's (a function of the output's root)."""

    def category(wildcards):
        title = REPORT_CATEGORIES.get(name) or STUDIES[name].category
        if run_of(wildcards.root) == "artifact":
            return f"{title}, artifact configuration"
        return title

    return category


def figure_output(study, folder, labels, name, per_trace=True):
    """A study's figure `name` as a rule's output: its PNG flagged for the HTML report (caption
    workflow/report/<study>_<name>.rst, its label from `labels`, the study's rules' map, under
    its trace or "All traces"), then its PDF."""
    stem = f"{folder}/{{trace}}.{name}" if per_trace else f"{folder}/{name}"
    png = report(
        f"{stem}.png",
        caption=f"../../report/{study}_{name}.rst",
        category=report_category(study),
        subcategory="{trace}" if per_trace else ALL_TRACES,
        labels={"result": labels[name]},
    )
    return [png, f"{stem}.pdf"]


def figure_outputs(study, folder, labels, per_trace=True):
    """The figures of `labels` ({name: label}, a study's rules' map): every PNG
    (figure_output), then every PDF."""
    pairs = [figure_output(study, folder, labels, name, per_trace) for name in labels]
    return [png for png, _ in pairs] + [pdf for _, pdf in pairs]


def _alternatives(names):
    """A regular expression matching exactly the names (none: nothing at all)."""
    if not names:
        return "$^"
    return "|".join(re.escape(name) for name in sorted(names))


wildcard_constraints:
    root=_alternatives(RUN_ROOTS.values()),
    trace=_alternatives(list(CATALOGUE) + LOCAL_TRACES + list(MODELS)),
    chunk=r"\d+",


def settings(root):
    """The settings of the run below root, every study restricted to `only`."""
    return CAMPAIGN.settings(root)


def chunks(root, study="fixed_policy"):
    """Variant ranges (first, stop) of a study, one job each."""
    return CAMPAIGN.chunks(root, study)


_ANNOUNCED = set()


def announce(root):
    """Say once, when the DAG is planned, what `only` leaves of the studies."""
    if root in _ANNOUNCED or not workflow.is_main_process:
        return
    _ANNOUNCED.add(root)
    # the artifact's studies run on the campaign's `traces`, announced already with the campaign's
    announcement = CAMPAIGN.announcement(
        root,
        notes_only=run_of(root) == "artifact" and RUN_ROOTS["campaign"] in _ANNOUNCED,
    )
    if announcement:
        logger.info(announcement)


# The runs' roots whose files were asked for (summarize).
PLANNED = []


def run_outputs(run):
    """Every file of a run (campaign, demo, artifact) that `only` leaves, its cost table too."""
    announce(RUN_ROOTS[run])
    PLANNED.append(RUN_ROOTS[run])
    return CAMPAIGN.outputs(run) + CAMPAIGN.cost_outputs(run)


def study_targets(*studies):
    """The campaign's files of the named studies (a study's own target)."""
    root = RUN_ROOTS["campaign"]
    announce(root)
    PLANNED.append(root)
    return [
        file
        for study in studies
        if CAMPAIGN.active(root, study)
        for file in STUDIES[study].outputs(root, settings(root))
    ]


def summarize():
    """Say where the results of the runs asked for are (simcore.campaign.settings.Campaign.summary)."""
    for root in dict.fromkeys(PLANNED):
        summary = CAMPAIGN.summary(root, report_command(sys.argv))
        if summary:
            logger.info(summary)


def resample_arguments(chosen):
    """`simcore resample` options from a study's settings (variants, resample)."""
    weeks = chosen["resample"].get("weeks")
    return (
        f"--variants {chosen['variants']} --base-seed {config['base_seed']} "
        f"--method {chosen['resample']['method']}"
        + (f" --weeks {weeks}" if weeks else "")
    )


def local_trace(trace):
    """A local trace's entry (path, format, machine_size, filter, join, sacct)."""
    return CAMPAIGN.local_traces[trace]


def log_file(trace):
    """The SWF log a trace is filtered from (simcore.campaign.local_traces.log_file)."""
    return local_logs.log_file(
        trace, CAMPAIGN.local_traces if trace in LOCAL_TRACES else {}
    )


def filter_arguments(trace, section):
    """`simcore filter` options of a trace under `section`'s filter and machine sizes
    (simcore.campaign.local_traces.filter_options)."""
    return local_logs.filter_options(
        trace, section, CAMPAIGN.local_traces if trace in LOCAL_TRACES else {}
    )


def study_workload(study, trace):
    """The trace of a study with its own filter and machine sizes (models as generated)."""
    return layout.study_workload(study, trace, MODELS)


def sweep_outputs(kind, study="fixed_policy"):
    """The chunks of a trace's fixed-policy sweep (or bandit learning), files of one kind."""
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


def table_configuration(root):
    """How the fixed-policy and bandit tables label their reproduction rows."""
    return "artifact" if run_of(root) == "artifact" else "default"
