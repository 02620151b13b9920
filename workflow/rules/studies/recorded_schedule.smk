# How believable the simulation of a site is: each site policy simulated on each trace as
# recorded (no resampling), its per-job waits compared with the log's, per week; the closest
# policy per trace, a table, a figure and the report's section. A site log given with its
# slurm.conf is also run in the Slurm mode, under the site's configuration and variants of it.

from simcore.studies.recorded_schedule import rules as recorded_schedule_rules

register_study(
    "recorded_schedule",
    rank=92,
    category="Recorded schedules (how believable each site's simulation is)",
    outputs=recorded_schedule_rules.outputs,
    site_logs=True,
    reproduction=False,  # no paper: its section has no published values to compare
)


rule recorded_schedule_trace:
    input:
        study_input("recorded_schedule"),
    output:
        runs="{root}/recorded_schedule/{trace}.runs.parquet",
        weekly="{root}/recorded_schedule/{trace}.weekly.parquet",
    log:
        "{root}/logs/recorded_schedule/{trace}.log",
    benchmark:
        "{root}/benchmarks/recorded_schedule/recorded_schedule_trace/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        policies=run_setting(recorded_schedule_rules.policies_json),
    shell:
        "simcore recorded-schedule {input} --trace {wildcards.trace} --policies {params.policies:q} "
        "--runs {output.runs} --weekly {output.weekly} > {log} 2>&1"


rule recorded_schedule_slurm:
    input:
        log=site_slurm_file("path"),
        slurm_conf=site_slurm_file("slurm_conf"),
        slurm_assoc=site_slurm_file("slurm_assoc"),
    output:
        runs="{root}/recorded_schedule/{trace}.slurm.parquet",
    log:
        "{root}/logs/recorded_schedule/{trace}.slurm.log",
    benchmark:
        "{root}/benchmarks/recorded_schedule/recorded_schedule_slurm/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        variants=run_setting(recorded_schedule_rules.slurm_variants_json),
        assoc=lambda wildcards, input: (
            f"--slurm-assoc {input.slurm_assoc}" if input.slurm_assoc else ""
        ),
    shell:
        "simcore recorded-schedule-slurm {input.log} --trace {wildcards.trace} "
        "--slurm-conf {input.slurm_conf} {params.assoc} --variants {params.variants:q} "
        "--runs {output.runs} > {log} 2>&1"


rule recorded_schedule_tables:
    input:
        runs=run_traces(
            "{root}/recorded_schedule/{trace}.runs.parquet", "recorded_schedule"
        ),
        weekly=run_traces(
            "{root}/recorded_schedule/{trace}.weekly.parquet", "recorded_schedule"
        ),
        slurm=site_slurm_traces(
            "{root}/recorded_schedule/{trace}.slurm.parquet", "recorded_schedule"
        ),
    output:
        summary="{root}/recorded_schedule/summary.parquet",
        table_csv=report(
            "{root}/tables/recorded_schedule.csv",
            caption="../../report/recorded_schedule_table.rst",
            category=report_category("recorded_schedule"),
            subcategory=ALL_TRACES,
            labels={"result": "the closest site policy per trace (table)"},
        ),
        section=report(
            "{root}/recorded_schedule/report.md",
            caption="../../report/recorded_schedule_section.rst",
            category=report_category("recorded_schedule"),
            labels={"result": "report section: recorded against simulated schedules"},
        ),
        figure=[
            report(
                "{root}/plots/recorded_schedule.png",
                caption="../../report/recorded_schedule.rst",
                category=report_category("recorded_schedule"),
                subcategory=ALL_TRACES,
                labels={
                    "result": "recorded against simulated mean wait per week (figure)"
                },
            ),
            "{root}/plots/recorded_schedule.pdf",
        ],
    log:
        "{root}/logs/recorded_schedule_tables.log",
    benchmark:
        "{root}/benchmarks/recorded_schedule/recorded_schedule_tables.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=1000,
    params:
        policies=run_setting(recorded_schedule_rules.policies_json),
    shell:
        "simcore recorded-schedule-tables --runs {input.runs} --weekly {input.weekly} "
        "--slurm {input.slurm} --policies {params.policies:q} --summary {output.summary} --table-csv {output.table_csv} "
        "--section {output.section} --figure {output.figure} > {log} 2>&1"


# The study alone: `snakemake --cores N recorded_schedule`.
rule recorded_schedule:
    input:
        study_targets("recorded_schedule"),
