# The fixed-policy study: resample each trace, sweep orders x thresholds x
# backfill variants on every variant (a chunk of variants per job), combine;
# and the site policies (reservation depth, multifactor priority) on the same
# variants, their table and figure appended to the study's report section.

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
        layout.TRACE,
    output:
        layout.VARIANTS,
    log:
        "{root}/logs/resample/{trace}.log",
    benchmark:
        "{root}/benchmarks/fixed_policy/resample/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        # the variants are written one at a time: 100 of 100 weeks of CEA-Curie, the largest,
        # 0.44 GB
        mem_mb=memory_per_attempt(1000),
    params:
        arguments=resample_options,
    shell:
        "simcore resample {input} {params.arguments} --output {output} > {log} 2>&1"


rule sweep_fixed_policies:
    input:
        layout.VARIANTS,
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
        mem_mb=memory_per_attempt(1500),
    params:
        select=variant_range(),
        orders=setting("fixed_policy", "orders"),
        thresholds=run_setting(fixed_policy_rules.thresholds),
        backfills=setting("fixed_policy", "backfills"),
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
        cumulative_wait=figure_output(
            "fixed_policy",
            "{root}/plots",
            fixed_policy_rules.FIGURES,
            "cumulative_wait",
        ),
        bsld=figure_output(
            "fixed_policy", "{root}/plots", fixed_policy_rules.FIGURES, "bsld"
        ),
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
        tables=run_traces("{root}/summary/{trace}.fixed_policy.csv"),
        site_policies=run_files(fixed_policy_rules.site_policies_section),
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
        threshold=run_setting(fixed_policy_rules.reproduction_threshold),
        backfill=setting("reproduction", "backfill"),
        weeks=run_setting(fixed_policy_rules.weeks_compared),
        method=run_setting(fixed_policy_rules.resample_method),
        configuration=table_configuration,
        site_policies=input_option("--site-policies", "site_policies"),
    shell:
        "simcore fixed-policy-tables {input.tables} --threshold {params.threshold} --backfill {params.backfill} "
        "--weeks {params.weeks} --method {params.method} --configuration {params.configuration} "
        "--table-csv {output.table_csv} --table-md {output.table_md} "
        "--section {output.section} --rows {output.rows} {params.site_policies} > {log} 2>&1"


rule sweep_site_policies:
    input:
        layout.VARIANTS,
    output:
        runs="{root}/sweep/{trace}/{chunk}.site_policies.parquet",
        fair_share="{root}/sweep/{trace}/{chunk}.fair_share.parquet",
    log:
        "{root}/logs/sweep_site_policies/{trace}/{chunk}.log",
    benchmark:
        "{root}/benchmarks/fixed_policy/sweep_site_policies/{trace}/{chunk}.tsv"
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        mem_mb=memory_per_attempt(1500),
    params:
        select=variant_range(),
        policies=run_setting(fixed_policy_rules.site_policies_json),
    shell:
        "simcore sweep-site-policies {input} --trace {wildcards.trace} --select {params.select} "
        "--policies {params.policies:q} --runs {output.runs} --fair-share {output.fair_share} > {log} 2>&1"


rule site_policy_tables:
    input:
        runs=run_files(fixed_policy_rules.site_policy_sweeps, "site_policies"),
        fair_share=run_files(fixed_policy_rules.site_policy_sweeps, "fair_share"),
    output:
        summary="{root}/summary/site_policies.parquet",
        fair_share="{root}/summary/fair_share.parquet",
        table_csv=report(
            "{root}/tables/site_policies.csv",
            caption="../../report/site_policies_table.rst",
            category=report_category("fixed_policy"),
            subcategory=ALL_TRACES,
            labels={
                "result": "site policies (depth, multifactor) against EASY-FCFS, every trace"
            },
        ),
        section="{root}/fixed_policy/site_policies.md",
        figure=[
            report(
                "{root}/plots/site_policies.png",
                caption="../../report/site_policies.rst",
                category=report_category("fixed_policy"),
                subcategory=ALL_TRACES,
                labels={"result": "site policies against EASY-FCFS (figure)"},
            ),
            "{root}/plots/site_policies.pdf",
        ],
    log:
        "{root}/logs/site_policy_tables.log",
    benchmark:
        "{root}/benchmarks/fixed_policy/site_policy_tables.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    params:
        policies=run_setting(fixed_policy_rules.site_policies_json),
    shell:
        "simcore site-policy-tables --runs {input.runs} --fair-share {input.fair_share} "
        "--policies {params.policies:q} --summary {output.summary} --fair-share-out {output.fair_share} "
        "--table-csv {output.table_csv} --section {output.section} --figure {output.figure} > {log} 2>&1"
