# schedsweep: the campaign workflow. `snakemake --cores N` runs the full
# campaign of config/config.yaml; `snakemake --cores N demo` the offline demo;
# `snakemake --cores N prediction` (or `simple_policies`, `learned_policies`,
# `dynamic_scheduling`, `coscheduling`, `elastic`, `rl_baselines`, `bandit_artifact`) one study alone; `--config only='[KTH-SP2]'` restricts
# every study to the traces named (config/README.md).
from pathlib import Path

from snakemake.utils import min_version, validate

from simcore.studies.bandit.learners import LEARNERS
from simcore.workloads.config_overrides import (
    check_registry_names,
    check_schema,
    registries,
    type_overrides,
)

min_version("8.0")


configfile: "config/config.yaml"


# nested --config values arrive as strings ('learned_policies={tuples: 20}'): read them
# as the schema wants before validating
CONFIG_SCHEMA = Path(workflow.basedir) / "workflow/schemas/config.schema.yaml"
type_overrides(config, CONFIG_SCHEMA)
check_schema(
    config, CONFIG_SCHEMA
)  # one line naming the key, before Snakemake's long one
validate(config, CONFIG_SCHEMA)
# queue orders and the like, and the learners, from the code
check_registry_names(
    config, CONFIG_SCHEMA, {**registries(), "learners": tuple(LEARNERS)}
)


include: "workflow/rules/common.smk"
include: "workflow/rules/traces.smk"
include: "workflow/rules/fixed_policy.smk"
include: "workflow/rules/bandit.smk"
include: "workflow/rules/prediction.smk"
include: "workflow/rules/simple_policies.smk"
include: "workflow/rules/learned_policies.smk"
include: "workflow/rules/dynamic_scheduling.smk"
include: "workflow/rules/coscheduling.smk"
include: "workflow/rules/elastic.smk"
include: "workflow/rules/job_selection.smk"
include: "workflow/rules/report.smk"


# Targets are functions, evaluated when the DAG is planned: `only` is reported then,
# once, for the study root asked for (announce in common.smk).
rule all:
    input:
        lambda wildcards: study_outputs("campaign")
        + cost_outputs("campaign")
        + study_outputs("artifact")
        + cost_outputs("artifact"),


rule demo:
    input:
        lambda wildcards: study_outputs("demo") + cost_outputs("demo"),


# The bandit paper's Tables 2 and 3 in its artifact's configuration (`bandit_artifact`).
rule bandit_artifact:
    input:
        lambda wildcards: study_outputs("artifact") + cost_outputs("artifact"),


rule prediction:
    input:
        lambda wildcards: prediction_outputs("campaign"),


rule simple_policies:
    input:
        lambda wildcards: simple_policies_outputs("campaign"),


rule learned_policies:
    input:
        lambda wildcards: learned_policies_outputs("campaign")
        + dynamic_scheduling_outputs("campaign"),


rule dynamic_scheduling:
    input:
        lambda wildcards: dynamic_scheduling_outputs("campaign"),


rule coscheduling:
    input:
        lambda wildcards: coscheduling_outputs("campaign"),


rule elastic:
    input:
        lambda wildcards: elastic_outputs("campaign"),


rule rl_baselines:
    input:
        lambda wildcards: job_selection_outputs("campaign"),
