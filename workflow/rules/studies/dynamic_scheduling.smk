# The thesis's section 3.3: the hand-engineered orders, its functions F1-F4
# and our learned ones on non-overlapping 15-day sequences of models and logs
# (a share of a trace's sequences per job), then Table 3.3 and the box plots.

from simcore.studies.dynamic_scheduling import rules as dynamic_scheduling_rules

register_study(
    "dynamic_scheduling",
    rank=60,
    category="Dynamic scheduling (thesis, section 3.3)",
    outputs=dynamic_scheduling_rules.outputs,
    restrict=dynamic_scheduling_rules.without_skipped_learned_functions,
)


rule dynamic_sweep:
    input:
        workload=study_input("dynamic_scheduling"),
        # none when `learned` is 0 or `only` skips the learned-policies study
        functions=run_files(dynamic_scheduling_rules.learned_functions_input),
    output:
        "{root}/dynamic_scheduling/runs/{trace}/{chunk}.parquet",
    log:
        "{root}/logs/dynamic_sweep/{trace}/{chunk}.log",
    benchmark:
        "{root}/benchmarks/dynamic_scheduling/dynamic_sweep/{trace}/{chunk}.tsv"
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        parts=setting("dynamic_scheduling", "jobs_per_trace"),
        policies=setting("dynamic_scheduling", "policies"),
        # both or neither: the functions are an input when `learned` is set
        functions=input_option("--functions", "functions"),
        learned=setting_option("--learned", "dynamic_scheduling", "learned"),
        days=setting("dynamic_scheduling", "days"),
        limit=trace_setting(dynamic_scheduling_rules.sequences_limit),
    shell:
        "simcore dynamic-sweep {input.workload} --trace {wildcards.trace} --policies {params.policies} "
        "{params.functions} {params.learned} --days {params.days} {params.limit} --part {wildcards.chunk}/{params.parts} "
        "--output {output} > {log} 2>&1"


rule dynamic_tables:
    input:
        runs=run_files(dynamic_scheduling_rules.runs),
        functions=run_files(dynamic_scheduling_rules.learned_functions_input),
    output:
        tables=multiext(
            "{root}/dynamic_scheduling/tables/",
            "runs.parquet",
            "medians.csv",
            "ratios.csv",
        ),
        markdown=report(
            "{root}/dynamic_scheduling/report.md",
            caption="../../report/dynamic_scheduling_section.rst",
            category=report_category("dynamic_scheduling"),
            labels={"result": "report section: dynamic scheduling (Table 3.3)"},
        ),
        rows="{root}/dynamic_scheduling/reproduction.csv",
    log:
        "{root}/logs/dynamic_tables.log",
    benchmark:
        "{root}/benchmarks/dynamic_scheduling/dynamic_tables.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    params:
        outdir=output_folder("tables"),
        functions=input_option("--functions", "functions"),
    shell:
        "simcore dynamic-tables {input.runs} {params.functions} --outdir {params.outdir} "
        "--markdown {output.markdown} --rows {output.rows} > {log} 2>&1"


rule plot_dynamic:
    input:
        "{root}/dynamic_scheduling/tables/runs.parquet",
    output:
        [
            report(
                f"{{root}}/dynamic_scheduling/plots/{setting_name}.png",
                caption="../../report/dynamic_scheduling_boxplots.rst",
                category=report_category("dynamic_scheduling"),
                labels={
                    "result": "AVEbsld per sequence, "
                    f"{dynamic_scheduling_rules.SETTING_TITLES[setting_name]} (figure)"
                },
            )
            for setting_name in dynamic_scheduling_rules.SETTINGS
        ],
        expand(
            "{{root}}/dynamic_scheduling/plots/{setting}.pdf",
            setting=list(dynamic_scheduling_rules.SETTINGS),
        ),
    log:
        "{root}/logs/plot_dynamic.log",
    benchmark:
        "{root}/benchmarks/dynamic_scheduling/plot_dynamic.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    params:
        outdir=output_folder(),
    shell:
        "simcore plot-dynamic {input} --outdir {params.outdir} > {log} 2>&1"


# The study alone: `snakemake --cores N dynamic_scheduling`.
rule dynamic_scheduling:
    input:
        study_targets("dynamic_scheduling"),
