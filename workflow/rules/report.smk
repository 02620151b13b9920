# The reproduction report: every running study's section and rows, and the workloads table;
# the cost of the run.


rule report:
    input:
        workloads=run_traces(layout.TRACE),
        sections=of_root(CAMPAIGN.report_parts, "report.md"),
        section_rows=of_root(CAMPAIGN.report_parts, "reproduction.csv"),
    output:
        workloads_csv="{root}/tables/workloads.csv",
        workloads_md="{root}/tables/workloads.md",
        reproduction_csv="{root}/reproduction.csv",
        reproduction_md=report(
            "{root}/reproduction.md",
            caption="../report/reproduction.rst",
            category=report_category("reproduction"),
            labels={"result": "published values next to ours, every study"},
        ),
    log:
        "{root}/logs/report.log",
    benchmark:
        "{root}/benchmarks/report/report.tsv"
    conda:
        "../envs/simcore.yaml"
    resources:
        mem_mb=1000,
    shell:
        "simcore report --workloads {input.workloads} "
        "--workloads-csv {output.workloads_csv} --workloads-md {output.workloads_md} "
        "--sections {input.sections} --section-rows {input.section_rows} "
        "--reproduction-csv {output.reproduction_csv} --reproduction-md {output.reproduction_md} > {log} 2>&1"


# After every other job of the root, whose benchmark files it sums; it reads the files
# that exist (a result from before the benchmarks were declared counts as nothing)
# rather than asking for them, which would rerun every job. It has no benchmark itself.
rule cost:
    input:
        every_output,
    output:
        csv="{root}/cost.csv",
        md=report(
            "{root}/cost.md",
            caption="../report/cost.rst",
            category=report_category("cost"),
            labels={"result": "CPU and wall time per study and trace"},
        ),
    log:
        "{root}/logs/cost.log",
    conda:
        "../envs/simcore.yaml"
    resources:
        mem_mb=500,
    params:
        traces=of_root(CAMPAIGN.traces_used),
        studies=of_root(CAMPAIGN.report_sections),
        other_traces=of_root(CAMPAIGN.other_traces),
        trace_preparation=trace_preparation_option,
    shell:
        "simcore cost --benchmarks {wildcards.root}/benchmarks {params.trace_preparation} "
        "--traces {params.traces} --studies {params.studies} --other-traces {params.other_traces} "
        "--csv {output.csv} --md {output.md} > {log} 2>&1"
