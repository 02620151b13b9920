# Shared by all the rules: the registry the studies join (workflow/rules/studies/*.smk), each
# run's settings (simcore.campaign.settings, where the logic and its tests are) and the file
# layout of the traces and variants.
import os
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
# Every log read under another filter mode than its study's (simcore.campaign.layout)
CONVERTED_TRACES = layout.converted_traces(list(CATALOGUE) + LOCAL_TRACES)

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
    trace=_alternatives(
        list(CATALOGUE) + LOCAL_TRACES + CONVERTED_TRACES + list(MODELS)
    ),
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


def run_targets(*runs):
    """An input function: every file of the runs (run_outputs), asked for when the DAG is planned."""

    def run_files(wildcards):
        return [file for run in runs for file in run_outputs(run)]

    return run_files


def study_targets(*studies):
    """An input function: the campaign's files of the named studies (a study's own target)."""

    def study_files(wildcards):
        root = RUN_ROOTS["campaign"]
        announce(root)
        PLANNED.append(root)
        return [
            file
            for study in studies
            if CAMPAIGN.active(root, study)
            for file in STUDIES[study].outputs(root, settings(root))
        ]

    return study_files


def summarize():
    """Say where the results of the runs asked for are (simcore.campaign.settings.Campaign.summary)."""
    for root in dict.fromkeys(PLANNED):
        summary = CAMPAIGN.summary(root, report_command(sys.argv))
        if summary:
            logger.info(summary)


def resample_options(wildcards):
    """`simcore resample` options from the settings (variants, resample) of the job's run, or of
    its study when it resamples its own trace."""
    chosen = settings(wildcards.root)
    if wildcards.get("study"):
        chosen = chosen[wildcards.study]
    weeks = chosen["resample"].get("weeks")
    return (
        f"--variants {chosen['variants']} --base-seed {config['base_seed']} "
        f"--method {chosen['resample']['method']}"
        + (f" --weeks {weeks}" if weeks else "")
    )


def local_trace(trace):
    """A local trace's entry (path, format, machine_size, filter, join, sacct)."""
    return CAMPAIGN.local_traces[trace]


def site_slurm_file(key):
    """An input function: a local trace's file named by `key` (path, slurm_conf, slurm_assoc;
    none: [])."""

    def path(wildcards):
        return local_trace(wildcards.trace)[key] or []

    return path


def site_slurm_traces(template, study):
    """An input function: `template` for each trace of `study` that is a site log given with its
    slurm.conf (local_traces.NAME.slurm_conf)."""

    def files(wildcards):
        traces = settings(wildcards.root)[study]["traces"]
        given = [
            t for t in traces if t in LOCAL_TRACES and local_trace(t)["slurm_conf"]
        ]
        return expand(template, root=wildcards.root, trace=given)

    return files


def sacct_dump(wildcards):
    """The sacct dump a local trace is converted from."""
    return local_trace(wildcards.trace)["path"]


def sacct_options(wildcards):
    """`simcore import-sacct` options of a local trace (simcore.campaign.local_traces.import_options)."""
    return local_logs.import_options(local_trace(wildcards.trace)["sacct"])


def local_entries(trace):
    """The local traces' entries when `trace` is one (or converted from one), else none."""
    local = layout.split_conversion(trace)[0] in LOCAL_TRACES
    return CAMPAIGN.local_traces if local else {}


def log_file(trace):
    """The SWF log a trace is filtered from (simcore.campaign.local_traces.log_file)."""
    return local_logs.log_file(trace, local_entries(trace))


def filter_options(wildcards):
    """`simcore filter` options of a trace under the campaign's filter and machine sizes, or its
    study's (simcore.campaign.local_traces.filter_options)."""
    section = config[wildcards.study] if wildcards.get("study") else config
    trace = wildcards.trace
    return local_logs.filter_options(trace, section, local_entries(trace))


def model_parameters(wildcards):
    """A model workload's parameters (`models`), the Lublin model unless another is named."""
    return {"model": "lublin"} | MODELS[wildcards.trace]


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


def table_configuration(wildcards):
    """How the fixed-policy and bandit tables label their reproduction rows."""
    return "artifact" if run_of(wildcards.root) == "artifact" else "default"


def of_root(function, *args):
    """A params or input function: function(root, *args) of the job's run root."""

    def of_run(wildcards):
        return function(wildcards.root, *args)

    of_run.__name__ = function.__name__
    return of_run


def every_output(wildcards):
    """Every file of the job's run (CAMPAIGN.outputs)."""
    return CAMPAIGN.outputs(run_of(wildcards.root))


def trace_preparation_option(wildcards):
    """Where the cost table of a run other than the campaign finds the traces' preparation,
    which the campaign's benchmarks hold."""
    if wildcards.root == RUN_ROOTS["campaign"]:
        return ""
    return f"--trace-preparation {RUN_ROOTS['campaign']}/benchmarks"


# Named input and params functions: a rule asks for the settings of its job's run (the
# wildcard root) or for a study's files through these, the logic being in the library
# (each study's rules.py, simcore.campaign), so a rule holds no lambda.


def setting(*keys):
    """A params function: the run's setting at `keys` (a list is written space-separated)."""

    def value(wildcards):
        found = settings(wildcards.root)
        for key in keys:
            found = found[key]
        return found

    value.__name__ = "setting_" + "_".join(keys)
    return value


def setting_option(flag, *keys):
    """A params function: `flag value` when the run's setting at `keys` is given and set, else
    nothing."""
    section = setting(*keys[:-1])

    def option(wildcards):
        given = section(wildcards).get(keys[-1])
        return f"{flag} {given}" if given else ""

    return option


def input_option(flag, name):
    """A params function: `flag file` when the rule's input `name` is there, else nothing."""

    def option(wildcards, input):
        given = getattr(input, name)
        return f"{flag} {given}" if given else ""

    return option


def _folder(files, name):
    """The folder of `files`' entry `name` (a position or a name; a list: its first file)."""
    found = getattr(files, name) if isinstance(name, str) else files[name]
    return os.path.dirname(found if isinstance(found, str) else found[0])


def input_folder(name=0):
    """A params function: the folder of the rule's input `name`, which the command reads."""

    def folder(wildcards, input):
        return _folder(input, name)

    return folder


def output_folder(name=0):
    """A params function: the folder of the rule's output `name`, where the command writes."""

    def folder(wildcards, output):
        return _folder(output, name)

    return folder


def run_files(function, *args):
    """An input function: function(*args, root, chosen), a study's files under the job's run
    (its root and settings)."""

    def files(wildcards):
        return function(*args, wildcards.root, settings(wildcards.root))

    files.__name__ = function.__name__
    return files


def trace_files(function, *args):
    """An input function: function(*args, root, chosen, trace), a study's files of one trace."""

    def files(wildcards):
        return function(
            *args, wildcards.root, settings(wildcards.root), wildcards.trace
        )

    files.__name__ = function.__name__
    return files


def run_setting(function, *args):
    """A params or input function: function(*args, chosen), drawn from the job's run settings."""

    def options(wildcards):
        return function(*args, settings(wildcards.root))

    options.__name__ = function.__name__
    return options


def trace_setting(function, *args):
    """A params function: function(*args, chosen, trace), drawn from the run settings for one trace."""

    def options(wildcards):
        return function(*args, settings(wildcards.root), wildcards.trace)

    options.__name__ = function.__name__
    return options


def chunk_setting(function):
    """A params function: function(chosen, chunk), drawn from the run settings for the job's chunk."""

    def options(wildcards):
        return function(settings(wildcards.root), int(wildcards.chunk))

    options.__name__ = function.__name__
    return options


def run_traces(template, study=None):
    """An input function: `template` for each trace of the run (of `study`, given one)."""

    def files(wildcards):
        chosen = settings(wildcards.root)
        traces = (chosen[study] if study else chosen)["traces"]
        return expand(template, root=wildcards.root, trace=traces)

    return files


def study_input(study):
    """An input function: the trace of a study (None: the job's `study`), with the study's own
    filter (study_workload)."""

    def workload(wildcards):
        return study_workload(
            wildcards.study if study is None else study, wildcards.trace
        )

    return workload


def study_workloads(study):
    """An input function: the study's traces (study_workload), each with the study's filter."""

    def workloads(wildcards):
        return [
            study_workload(study, trace)
            for trace in settings(wildcards.root)[study]["traces"]
        ]

    return workloads


def log_input(wildcards):
    """The SWF log a trace's job filters (log_file)."""
    return log_file(wildcards.trace)


def variant_range(study="fixed_policy"):
    """A params function: the job's variants `first:stop` (its chunk of the study's variants)."""

    def select(wildcards):
        return "{}:{}".format(*chunks(wildcards.root, study)[int(wildcards.chunk)])

    return select


def memory_per_input(factor, at_least):
    """A resources function: `factor` MB per MB of input (at least `at_least`), more at each retry."""

    def mem_mb(wildcards, input, attempt):
        return max(at_least, round(factor * input.size_mb)) * attempt

    return mem_mb


def memory_per_attempt(megabytes):
    """A resources function: `megabytes` more memory at each retry."""

    def mem_mb(wildcards, attempt):
        return megabytes * attempt

    return mem_mb
