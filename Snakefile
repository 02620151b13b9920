# schedsweep: the campaign workflow. `snakemake --cores N` runs the full
# campaign of config/config.yaml; `snakemake --cores N demo` the offline demo;
# `snakemake --cores N prediction` (or `simple_policies`, `learned_policies`,
# `dynamic_scheduling`) one study alone.
from snakemake.utils import min_version, validate

min_version("8.0")


configfile: "config/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/traces.smk"
include: "workflow/rules/fixed_policy.smk"
include: "workflow/rules/bandit.smk"
include: "workflow/rules/prediction.smk"
include: "workflow/rules/simple_policies.smk"
include: "workflow/rules/learned_policies.smk"
include: "workflow/rules/dynamic_scheduling.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        study_outputs("campaign"),


rule demo:
    input:
        study_outputs("demo"),


rule prediction:
    input:
        prediction_outputs("campaign"),


rule simple_policies:
    input:
        simple_policies_outputs("campaign"),


rule learned_policies:
    input:
        learned_policies_outputs("campaign"),


rule dynamic_scheduling:
    input:
        dynamic_scheduling_outputs("campaign"),
