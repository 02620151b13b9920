# Figures per trace, tables per study, and the reproduction report.


rule plot_fixed_policies:
    input:
        summary="{root}/summary/{trace}.runs.parquet",
        curves="{root}/summary/{trace}.curves.parquet",
    output:
        cumulative_wait=[
            report("{root}/plots/{trace}.cumulative_wait.png", category="Figures"),
            "{root}/plots/{trace}.cumulative_wait.pdf",
        ],
        bsld=[
            report("{root}/plots/{trace}.bsld.png", category="Figures"),
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
        sections=expand("{{root}}/{study}/report.md", study=REPORT_SECTIONS),
        section_rows=expand("{{root}}/{study}/reproduction.csv", study=REPORT_SECTIONS),
    output:
        workloads_csv="{root}/tables/workloads.csv",
        workloads_md="{root}/tables/workloads.md",
        reproduction_csv="{root}/reproduction.csv",
        reproduction_md=report("{root}/reproduction.md", category="Reproduction"),
    log:
        "{root}/logs/report.log",
    conda:
        "../envs/simcore.yaml"
    resources:
        mem_mb=1000,
    shell:
        "simcore report --workloads {input.workloads} "
        "--workloads-csv {output.workloads_csv} --workloads-md {output.workloads_md} "
        "--sections {input.sections} --section-rows {input.section_rows} "
        "--reproduction-csv {output.reproduction_csv} --reproduction-md {output.reproduction_md} > {log} 2>&1"
