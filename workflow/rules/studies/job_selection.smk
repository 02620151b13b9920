# Job selection (docs/job_selection.md): the field's baselines, each order run by the core on
# RLScheduler-style episodes of each trace, then the table beside RLScheduler's published one.

from simcore.studies.job_selection import rules as job_selection_rules

register_study(
    "job_selection",
    rank=90,
    category="Job selection (RLScheduler's baselines)",
    outputs=job_selection_rules.outputs,
)


rule rl_baselines_run:
    input:
        study_input("job_selection"),
    output:
        "{root}/job_selection/runs/{trace}.parquet",
    log:
        "{root}/logs/job_selection/{trace}.log",
    benchmark:
        "{root}/benchmarks/job_selection/rl_baselines_run/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        options=run_setting(job_selection_rules.baselines_options),
    shell:
        "simcore rl-baselines {input} --trace {wildcards.trace} {params.options} "
        "--output {output} > {log} 2>&1"


rule rl_baselines_tables:
    input:
        run_traces("{root}/job_selection/runs/{trace}.parquet", "job_selection"),
    output:
        summary="{root}/job_selection/tables/summary.csv",
        markdown=report(
            "{root}/job_selection/report.md",
            caption="../../report/job_selection_section.rst",
            category=report_category("job_selection"),
            labels={
                "result": "report section: job-selection baselines (RLScheduler's table)"
            },
        ),
        rows="{root}/job_selection/reproduction.csv",
    log:
        "{root}/logs/rl_baselines_tables.log",
    benchmark:
        "{root}/benchmarks/job_selection/rl_baselines_tables.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=1000,
    params:
        outdir=output_folder("summary"),
    shell:
        "simcore rl-baselines-tables {input} --outdir {params.outdir} "
        "--markdown {output.markdown} --rows {output.rows} > {log} 2>&1"


# The study alone: `snakemake --cores N job_selection` (`rl_baselines`, its earlier name, too).
rule job_selection:
    input:
        study_targets("job_selection"),


rule rl_baselines:
    input:
        rules.job_selection.input,
