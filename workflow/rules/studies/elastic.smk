# Responsive scheduling and elastic provisioning with SARSA and an echo-state network
# (seed 003, docs/elastic.md): every run of one job set per job, then the tables, the
# report section and the figures of each trace (drawn from its first job set).

from simcore.studies.elastic import rules as elastic_rules

register_study(
    "elastic",
    rank=80,
    category="Elastic provisioning (SARSA + ESN)",
    outputs=elastic_rules.outputs,
)


rule elastic_run:
    input:
        study_input("elastic"),
    output:
        runs="{root}/elastic/runs/{trace}/{jobset}.parquet",
        series="{root}/elastic/series/{trace}/{jobset}.parquet",
        pools="{root}/elastic/pools/{trace}/{jobset}.parquet",
    log:
        "{root}/logs/elastic/{trace}/{jobset}.log",
    benchmark:
        "{root}/benchmarks/elastic/elastic_run/{trace}/{jobset}.tsv"
    wildcard_constraints:
        jobset=r"\d+|all",
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        options=trace_setting(elastic_rules.run_options, config["base_seed"]),
    shell:
        "simcore elastic-run {input} --trace {wildcards.trace} --set {wildcards.jobset} "
        "{params.options} --output {output.runs} --series {output.series} "
        "--pools {output.pools} > {log} 2>&1"


rule elastic_tables:
    input:
        run_files(elastic_rules.runs),
    output:
        tables=multiext(
            "{root}/elastic/tables/",
            "runs.parquet",
            "summary.csv",
            "speedups.csv",
            "job_sets.csv",
            "claims.csv",
        ),
        markdown=report(
            "{root}/elastic/report.md",
            caption="../../report/elastic_section.rst",
            category=report_category("elastic"),
            labels={"result": "report section: elastic provisioning (Tables 2-5)"},
        ),
        rows="{root}/elastic/reproduction.csv",
    log:
        "{root}/logs/elastic_tables.log",
    benchmark:
        "{root}/benchmarks/elastic/elastic_tables.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=1000,
    params:
        outdir=output_folder("tables"),
    shell:
        "simcore elastic-tables {input} --outdir {params.outdir} "
        "--markdown {output.markdown} --rows {output.rows} > {log} 2>&1"


rule plot_elastic:
    input:
        runs="{root}/elastic/tables/runs.parquet",
        series=trace_files(elastic_rules.first_job_set, "series"),
        pools=trace_files(elastic_rules.first_job_set, "pools"),
    output:
        figure_outputs("elastic", "{root}/elastic/plots", elastic_rules.FIGURES),
    log:
        "{root}/logs/plot_elastic/{trace}.log",
    benchmark:
        "{root}/benchmarks/elastic/plot_elastic/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    params:
        outdir=output_folder(),
    shell:
        "simcore plot-elastic --runs {input.runs} --series {input.series} --pools {input.pools} "
        "--trace {wildcards.trace} --outdir {params.outdir} > {log} 2>&1"


# The study alone: `snakemake --cores N elastic`.
rule elastic:
    input:
        study_targets("elastic"),
