# schedsweep: the campaign workflow. `snakemake --cores N` runs the full
# campaign of config/config.yaml; `snakemake --cores N demo` the offline demo;
# `snakemake --cores N prediction` (or any study's target: `simple_policies`, `learned_policies`,
# `dynamic_scheduling`, `coscheduling`, `elastic`, `job_selection` (alias `rl_baselines`); `bandit_artifact` for the artifact
# configuration) one study alone; `--config only='[KTH-SP2]'` restricts every study to the
# traces named (config/README.md).
from pathlib import Path

from snakemake.utils import min_version, validate

from simcore.campaign.config import (
    check_registry_names,
    check_schema,
    one_line_errors,
    registries,
    type_overrides,
)

min_version("8.0")


configfile: "config/config.yaml"


# A configuration error is one line naming its key (one_line_errors), here and in common.smk.
CONFIG_SCHEMA = Path(workflow.basedir) / "workflow/schemas/config.schema.yaml"
with one_line_errors():
    # nested --config values arrive as strings ('learned_policies={tuples: 20}'): read them
    # as the schema wants before validating
    type_overrides(config, CONFIG_SCHEMA)
    check_schema(config, CONFIG_SCHEMA)  # before Snakemake's long message
    validate(config, CONFIG_SCHEMA)


include: "workflow/rules/common.smk"


# Each study's rules register the study (workflow/rules/studies/<study>.smk); the traces'
# rules and the report's loop over the registry.
for study_rules in STUDY_RULES:

    include: study_rules


include: "workflow/rules/traces.smk"
include: "workflow/rules/report.smk"


# Every study registered: the names of queue orders and the like, and the studies' own
# (the learners), from the code; then every run's settings (a bad local trace is one line naming
# its key).
with one_line_errors():
    check_registry_names(
        config, CONFIG_SCHEMA, {**registries(), **STUDIES.registries()}
    )
    CAMPAIGN.check()


# Where the results of the runs asked for are, the report's command and what they cost.
onsuccess:
    summarize()


# Targets are functions, evaluated when the DAG is planned: `only` is reported then,
# once, for the run asked for (announce in common.smk). Each study has its own target too.
rule all:
    input:
        run_targets("campaign", "artifact"),


rule demo:
    input:
        run_targets("demo"),


# The bandit paper's Tables 2 and 3 in its artifact's configuration (`bandit_artifact`).
rule bandit_artifact:
    input:
        run_targets("artifact"),
