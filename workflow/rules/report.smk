# The reproduction report: every running study's section and rows, and the workloads table.


rule report:
    input:
        workloads=lambda wildcards: expand(
            "results/traces/{trace}.parquet", trace=settings(wildcards.root)["traces"]
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
        workloads_csv="{root}/tables/workloads.csv",
        workloads_md="{root}/tables/workloads.md",
        reproduction_csv="{root}/reproduction.csv",
        reproduction_md=report(
            "{root}/reproduction.md",
            caption="../report/reproduction.rst",
            category=REPORT_CATEGORIES["reproduction"],
            labels={"result": "published values next to ours, every study"},
        ),
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
