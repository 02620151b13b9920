# The fixed-policy study: resample each trace, sweep orders x thresholds x
# backfill variants on every variant (a chunk of variants per job), combine.

from simcore.studies.fixed_policy import rules as fixed_policy_rules

register_study(
    "fixed_policy",
    rank=10,
    category="Fixed policies (bandit paper, Table 2)",
    outputs=fixed_policy_rules.outputs,
    traces="campaign",
    in_artifact=True,
)


rule resample:
    input:
        "results/traces/{trace}.parquet",
    output:
        "{root}/variants/{trace}.parquet",
    log:
        "{root}/logs/resample/{trace}.log",
    benchmark:
        "{root}/benchmarks/fixed_policy/resample/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        # the variants are written one at a time: 100 of 100 weeks of CEA-Curie, the largest,
        # 0.44 GB
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
    params:
        arguments=lambda wildcards: resample_arguments(settings(wildcards.root)),
    shell:
        "simcore resample {input} {params.arguments} --output {output} > {log} 2>&1"


rule sweep_fixed_policies:
    input:
        "{root}/variants/{trace}.parquet",
    output:
        runs="{root}/sweep/{trace}/{chunk}.runs.parquet",
        weekly="{root}/sweep/{trace}/{chunk}.weekly.parquet",
    log:
        "{root}/logs/sweep/{trace}/{chunk}.log",
    benchmark:
        "{root}/benchmarks/fixed_policy/sweep_fixed_policies/{trace}/{chunk}.tsv"
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        # reads its variants one at a time: 10 of CEA-Curie, the largest, 0.67 GB
        mem_mb=lambda wildcards, attempt: 1500 * attempt,
    params:
        select=lambda wildcards: "{}:{}".format(
            *chunks(wildcards.root)[int(wildcards.chunk)]
        ),
        orders=lambda wildcards: " ".join(
            settings(wildcards.root)["fixed_policy"]["orders"]
        ),
        thresholds=lambda wildcards: " ".join(
            "none" if value is None else str(value)
            for value in settings(wildcards.root)["fixed_policy"]["thresholds"]
        ),
        backfills=lambda wildcards: " ".join(
            settings(wildcards.root)["fixed_policy"]["backfills"]
        ),
    shell:
        "simcore sweep {input} --trace {wildcards.trace} --select {params.select} "
        "--orders {params.orders} --thresholds {params.thresholds} --backfills {params.backfills} "
        "--runs {output.runs} --weekly {output.weekly} > {log} 2>&1"


rule aggregate_fixed_policies:
    input:
        runs=sweep_outputs("runs"),
        weekly=sweep_outputs("weekly"),
    output:
        summary="{root}/summary/{trace}.runs.parquet",
        curves="{root}/summary/{trace}.curves.parquet",
        table="{root}/summary/{trace}.fixed_policy.csv",
    log:
        "{root}/logs/aggregate/{trace}.log",
    benchmark:
        "{root}/benchmarks/fixed_policy/aggregate_fixed_policies/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=4000,
    shell:
        "simcore aggregate --runs {input.runs} --weekly {input.weekly} --summary {output.summary} "
        "--curves {output.curves} --table {output.table} > {log} 2>&1"


rule plot_fixed_policies:
    input:
        summary="{root}/summary/{trace}.runs.parquet",
        curves="{root}/summary/{trace}.curves.parquet",
    output:
        cumulative_wait=[
            report(
                "{root}/plots/{trace}.cumulative_wait.png",
                caption="../../report/fixed_policy_cumulative_wait.rst",
                category=report_category("fixed_policy"),
                subcategory="{trace}",
                labels={
                    "result": "cumulative waiting time against EASY-FCFS (figure)"
                },
            ),
            "{root}/plots/{trace}.cumulative_wait.pdf",
        ],
        bsld=[
            report(
                "{root}/plots/{trace}.bsld.png",
                caption="../../report/fixed_policy_bsld.rst",
                category=report_category("fixed_policy"),
                subcategory="{trace}",
                labels={"result": "AVEbsld per queue order (figure)"},
            ),
            "{root}/plots/{trace}.bsld.pdf",
        ],
    log:
        "{root}/logs/plot/{trace}.log",
    benchmark:
        "{root}/benchmarks/fixed_policy/plot_fixed_policies/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    shell:
        "simcore plot --trace {wildcards.trace} --summary {input.summary} --curves {input.curves} "
        "--cumulative-wait {output.cumulative_wait} --bsld {output.bsld} > {log} 2>&1"


rule fixed_policy_tables:
    input:
        lambda wildcards: expand(
            "{root}/summary/{trace}.fixed_policy.csv",
            root=wildcards.root,
            trace=settings(wildcards.root)["traces"],
        ),
    output:
        table_csv=report(
            "{root}/tables/fixed_policy.csv",
            caption="../../report/fixed_policy_table.rst",
            category=report_category("fixed_policy"),
            subcategory=ALL_TRACES,
            labels={
                "result": "fixed policies against EASY-FCFS, every trace (Table 2)"
            },
        ),
        table_md="{root}/tables/fixed_policy.md",
        section="{root}/fixed_policy/report.md",
        rows="{root}/fixed_policy/reproduction.csv",
    log:
        "{root}/logs/fixed_policy_tables.log",
    benchmark:
        "{root}/benchmarks/fixed_policy/fixed_policy_tables.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=1000,
    params:
        threshold=lambda wildcards: (
            "none"
            if settings(wildcards.root)["reproduction"]["threshold"] is None
            else settings(wildcards.root)["reproduction"]["threshold"]
        ),
        backfill=lambda wildcards: settings(wildcards.root)["reproduction"]["backfill"],
        weeks=lambda wildcards: settings(wildcards.root)["resample"].get("weeks")
        or "interior",
        configuration=lambda wildcards: table_configuration(wildcards.root),
    shell:
        "simcore fixed-policy-tables {input} --threshold {params.threshold} --backfill {params.backfill} "
        "--weeks {params.weeks} --configuration {params.configuration} "
        "--table-csv {output.table_csv} --table-md {output.table_md} "
        "--section {output.section} --rows {output.rows} > {log} 2>&1"
