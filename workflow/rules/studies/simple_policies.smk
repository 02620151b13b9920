# The thesis's chapter 4: FCFS, SPF, SQF and SAF with a starvation threshold
# and aggressive backfilling on resampled variants (a chunk per job), then
# tables, figures and a report section over all traces.

from simcore.studies.simple_policies import rules as simple_policies_rules

register_study(
    "simple_policies",
    rank=40,
    category="Simple policies (thesis, chapter 4)",
    outputs=simple_policies_rules.outputs,
    resamples=True,
)


rule simple_sweep:
    input:
        variants=layout.study_variants("simple_policies"),
        trace=study_input("simple_policies"),
    output:
        runs="{root}/simple_policies/sweep/{trace}/{chunk}.runs.parquet",
        weekly="{root}/simple_policies/sweep/{trace}/{chunk}.weekly.parquet",
        delayed="{root}/simple_policies/sweep/{trace}/{chunk}.delayed.parquet",
    log:
        "{root}/logs/simple_sweep/{trace}/{chunk}.log",
    benchmark:
        "{root}/benchmarks/simple_policies/simple_sweep/{trace}/{chunk}.tsv"
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        mem_mb=memory_per_attempt(3000),
    params:
        select=variant_range("simple_policies"),
        orders=setting("simple_policies", "orders"),
        factor=setting("simple_policies", "threshold_factor"),
        backfill=setting("simple_policies", "backfill"),
    shell:
        "simcore simple-sweep {input.variants} --trace-workload {input.trace} --trace {wildcards.trace} "
        "--select {params.select} --orders {params.orders} --threshold-factor {params.factor} "
        "--backfill {params.backfill} --runs {output.runs} --weekly {output.weekly} "
        "--delayed {output.delayed} > {log} 2>&1"


rule simple_aggregate:
    input:
        runs=run_files(simple_policies_rules.sweep_outputs, "runs"),
        weekly=run_files(simple_policies_rules.sweep_outputs, "weekly"),
        delayed=run_files(simple_policies_rules.sweep_outputs, "delayed"),
        traces=run_files(simple_policies_rules.trace_workloads),
    output:
        tables=multiext(
            "{root}/simple_policies/tables/",
            "runs.parquet",
            "curves.parquet",
            "delayed.parquet",
            "gains.csv",
            "summary.csv",
            "premature.csv",
        ),
        markdown=report(
            "{root}/simple_policies/report.md",
            caption="../../report/simple_policies_section.rst",
            category=report_category("simple_policies"),
            subcategory=ALL_TRACES,
            labels={"result": "report section: simple policies (Tables 4.3, 4.4)"},
        ),
        rows="{root}/simple_policies/reproduction.csv",
    log:
        "{root}/logs/simple_aggregate.log",
    benchmark:
        "{root}/benchmarks/simple_policies/simple_aggregate.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=4000,
    params:
        factor=setting("simple_policies", "threshold_factor"),
        outdir=output_folder("tables"),
    shell:
        "simcore simple-aggregate --runs {input.runs} --weekly {input.weekly} --delayed {input.delayed} "
        "--traces {input.traces} --threshold-factor {params.factor} --outdir {params.outdir} "
        "--markdown {output.markdown} --rows {output.rows} > {log} 2>&1"


rule simple_trace_plot:
    input:
        curves="{root}/simple_policies/tables/curves.parquet",
        summary="{root}/simple_policies/tables/summary.csv",  # its variant counts
    output:
        figure_outputs(
            "simple_policies",
            "{root}/simple_policies/plots",
            simple_policies_rules.TRACE_FIGURES,
        ),
    log:
        "{root}/logs/simple_plots/{trace}.log",
    benchmark:
        "{root}/benchmarks/simple_policies/simple_trace_plot/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    params:
        tables=input_folder(),
        outdir=output_folder(),
    shell:
        "simcore simple-plot --tables {params.tables} --outdir {params.outdir} "
        "--trace {wildcards.trace} > {log} 2>&1"


rule simple_summary_plots:
    input:
        "{root}/simple_policies/tables/delayed.parquet",
        "{root}/simple_policies/tables/summary.csv",
        "{root}/simple_policies/tables/runs.parquet",
    output:
        figure_outputs(
            "simple_policies",
            "{root}/simple_policies/plots",
            simple_policies_rules.FIGURES,
            per_trace=False,
        ),
    log:
        "{root}/logs/simple_plots/summary.log",
    benchmark:
        "{root}/benchmarks/simple_policies/simple_summary_plots.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    params:
        tables=input_folder(),
        outdir=output_folder(),
    shell:
        "simcore simple-plot --tables {params.tables} --outdir {params.outdir} > {log} 2>&1"


# The study alone: `snakemake --cores N simple_policies`.
rule simple_policies:
    input:
        study_targets("simple_policies"),
