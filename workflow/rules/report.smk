# Figures per trace, tables per study, and the reproduction report.


rule plot_fixed_policies:
    input:
        summary="{root}/summary/{trace}.runs.parquet",
        curves="{root}/summary/{trace}.curves.parquet",
    output:
        cumulative_wait=[
            report(
                "{root}/plots/{trace}.cumulative_wait.png",
                caption="../report/fixed_policy_cumulative_wait.rst",
                category=REPORT_CATEGORIES["fixed_policy"],
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
                caption="../report/fixed_policy_bsld.rst",
                category=REPORT_CATEGORIES["fixed_policy"],
                subcategory="{trace}",
                labels={"result": "AVEbsld per queue order (figure)"},
            ),
            "{root}/plots/{trace}.bsld.pdf",
        ],
    log:
        "{root}/logs/plot/{trace}.log",
    conda:
        "../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    shell:
        "simcore plot --trace {wildcards.trace} --summary {input.summary} --curves {input.curves} "
        "--cumulative-wait {output.cumulative_wait} --bsld {output.bsld} > {log} 2>&1"


rule report:
    input:
        workloads=lambda wildcards: expand(
            "results/traces/{trace}.parquet", trace=settings(wildcards.root)["traces"]
        ),
        bandit_tables=lambda wildcards: expand(
            "{root}/summary/{trace}.bandit.csv",
            root=wildcards.root,
            trace=settings(wildcards.root)["traces"],
        ),
        tables=lambda wildcards: expand(
            "{root}/summary/{trace}.fixed_policy.csv",
            root=wildcards.root,
            trace=settings(wildcards.root)["traces"],
        ),
        sections=lambda wildcards: expand(
            "{root}/{study}/report.md",
            root=wildcards.root,
            study=report_sections(wildcards.root),
        ),
        section_rows=lambda wildcards: expand(
            "{root}/{study}/reproduction.csv",
            root=wildcards.root,
            study=report_sections(wildcards.root),
        ),
    output:
        bandit_csv=report(
            "{root}/tables/bandit.csv",
            caption="../report/bandit_table.rst",
            category=REPORT_CATEGORIES["bandit"],
            subcategory=ALL_TRACES,
            labels={"result": "strategies against EASY-FCFS, every trace (Table 3)"},
        ),
        bandit_md="{root}/tables/bandit.md",
        workloads_csv="{root}/tables/workloads.csv",
        workloads_md="{root}/tables/workloads.md",
        table_csv=report(
            "{root}/tables/fixed_policy.csv",
            caption="../report/fixed_policy_table.rst",
            category=REPORT_CATEGORIES["fixed_policy"],
            subcategory=ALL_TRACES,
            labels={
                "result": "fixed policies against EASY-FCFS, every trace (Table 2)"
            },
        ),
        table_md="{root}/tables/fixed_policy.md",
        reproduction_csv="{root}/reproduction.csv",
        reproduction_md=report(
            "{root}/reproduction.md",
            caption="../report/reproduction.rst",
            category=REPORT_CATEGORIES["reproduction"],
            labels={"result": "published values next to ours, every study"},
        ),
    log:
        "{root}/logs/report.log",
    wildcard_constraints:
        # where the fixed-policy study runs (else rule reproduction_sections)
        root=_alternatives(REPORT_ROOTS),
    conda:
        "../envs/simcore.yaml"
    resources:
        mem_mb=1000,
    params:
        threshold=(
            "none"
            if config["reproduction"]["threshold"] is None
            else config["reproduction"]["threshold"]
        ),
        backfill=config["reproduction"]["backfill"],
    shell:
        "simcore report {input.tables} --workloads {input.workloads} "
        "--bandit-tables {input.bandit_tables} --bandit-csv {output.bandit_csv} --bandit-md {output.bandit_md} "
        "--workloads-csv {output.workloads_csv} --workloads-md {output.workloads_md} --threshold {params.threshold} --backfill {params.backfill} "
        "--table-csv {output.table_csv} --table-md {output.table_md} "
        "--sections {input.sections} --section-rows {input.section_rows} "
        "--reproduction-csv {output.reproduction_csv} --reproduction-md {output.reproduction_md} > {log} 2>&1"


rule reproduction_sections:
    input:
        sections=lambda wildcards: expand(
            "{root}/{study}/report.md",
            root=wildcards.root,
            study=report_sections(wildcards.root),
        ),
        section_rows=lambda wildcards: expand(
            "{root}/{study}/reproduction.csv",
            root=wildcards.root,
            study=report_sections(wildcards.root),
        ),
    output:
        reproduction_csv="{root}/reproduction.csv",
        reproduction_md=report(
            "{root}/reproduction.md",
            caption="../report/reproduction.rst",
            category=REPORT_CATEGORIES["reproduction"],
            labels={"result": "published values next to ours, every study"},
        ),
    log:
        "{root}/logs/reproduction_sections.log",
    wildcard_constraints:
        # where `only` skips the fixed-policy and bandit studies but not all the others
        root=_alternatives(SECTIONS_ONLY_ROOTS),
    conda:
        "../envs/simcore.yaml"
    resources:
        mem_mb=1000,
    params:
        traces=lambda wildcards: settings(wildcards.root)["declared"]["fixed_policy"],
    script:
        "../scripts/reproduction_sections.py"
