# Co-scheduling with the ASA_X learner (seed 002, docs/coscheduling.md): E1 (queue
# flush of 45-job windows) and E2 (online replay) per trace, the paper's own queue,
# then the tables, the report section and the figures of each trace.

from simcore.studies.coscheduling import rules as coscheduling_rules

register_study(
    "coscheduling",
    rank=70,
    category="Co-scheduling (ASA_X)",
    outputs=coscheduling_rules.outputs,
)


rule coscheduling_flush:
    input:
        lambda wildcards: study_workload("coscheduling", wildcards.trace),
    output:
        "{root}/coscheduling/runs/{trace}/E1.parquet",
    log:
        "{root}/logs/coscheduling/{trace}/E1.log",
    benchmark:
        "{root}/benchmarks/coscheduling/coscheduling_flush/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        mem_mb=3000,
    params:
        options=lambda wildcards: coscheduling_rules.run_options(
            settings(wildcards.root)["coscheduling"],
            wildcards.trace,
            config["base_seed"],
        ),
        loads=lambda wildcards: " ".join(
            str(load)
            for load in settings(wildcards.root)["coscheduling"]["e1"]["loads"]
        ),
        window=lambda wildcards: settings(wildcards.root)["coscheduling"]["e1"][
            "window"
        ],
        limit=lambda wildcards: (
            f"--max-windows {settings(wildcards.root)['coscheduling']['e1']['max_windows']}"
            if settings(wildcards.root)["coscheduling"]["e1"].get("max_windows")
            else ""
        ),
    shell:
        "simcore coscheduling-run {input} --trace {wildcards.trace} --experiment E1 "
        "--loads {params.loads} --window {params.window} {params.limit} {params.options} "
        "--output {output} > {log} 2>&1"


rule coscheduling_replay:
    input:
        lambda wildcards: study_workload("coscheduling", wildcards.trace),
    output:
        runs="{root}/coscheduling/runs/{trace}/E2.parquet",
        weights="{root}/coscheduling/weights/{trace}.parquet",
    log:
        "{root}/logs/coscheduling/{trace}/E2.log",
    benchmark:
        "{root}/benchmarks/coscheduling/coscheduling_replay/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        mem_mb=3000,
    params:
        options=lambda wildcards: coscheduling_rules.run_options(
            settings(wildcards.root)["coscheduling"],
            wildcards.trace,
            config["base_seed"],
        ),
        loads=lambda wildcards: " ".join(
            str(load)
            for load in settings(wildcards.root)["coscheduling"]["e2"]["loads"]
        ),
    shell:
        "simcore coscheduling-run {input} --trace {wildcards.trace} --experiment E2 "
        "--loads {params.loads} {params.options} --output {output.runs} "
        "--weights {output.weights} > {log} 2>&1"


rule coscheduling_paper_queue:
    output:
        runs="{root}/coscheduling/runs/ASA_X-queue/E1.parquet",
        classes="{root}/coscheduling/runs/ASA_X-queue/classes.parquet",
    log:
        "{root}/logs/coscheduling/ASA_X-queue.log",
    benchmark:
        "{root}/benchmarks/coscheduling/coscheduling_paper_queue.tsv"
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        options=lambda wildcards: coscheduling_rules.queue_options(
            settings(wildcards.root)["coscheduling"]
        ),
    shell:
        "simcore coscheduling-paper-queue {params.options} --output {output.runs} "
        "--classes {output.classes} > {log} 2>&1"


rule coscheduling_tables:
    input:
        runs=lambda wildcards: coscheduling_rules.runs(
            wildcards.root, settings(wildcards.root)["coscheduling"]
        ),
        classes=lambda wildcards: coscheduling_rules.queue_file(
            wildcards.root, settings(wildcards.root)["coscheduling"], "classes.parquet"
        ),
    output:
        tables=multiext(
            "{root}/coscheduling/tables/",
            "runs.parquet",
            "summary.csv",
            "claims.csv",
        ),
        markdown=report(
            "{root}/coscheduling/report.md",
            caption="../../report/coscheduling_section.rst",
            category=report_category("coscheduling"),
            labels={"result": "report section: co-scheduling (ASA_X Tables 2-3)"},
        ),
        rows="{root}/coscheduling/reproduction.csv",
    log:
        "{root}/logs/coscheduling_tables.log",
    benchmark:
        "{root}/benchmarks/coscheduling/coscheduling_tables.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        # every run's rows in memory: about 10 MB per MB of Parquet (UniLu-Gaia and HPC2N, 225 MB: 2.1 GB)
        mem_mb=lambda wildcards, input, attempt: max(1000, round(12 * input.size_mb))
        * attempt,
    params:
        outdir=lambda wildcards: f"{wildcards.root}/coscheduling/tables",
        classes=lambda wildcards, input: (
            f"--classes {input.classes}" if input.classes else ""
        ),
    shell:
        "simcore coscheduling-tables {input.runs} --outdir {params.outdir} "
        "--markdown {output.markdown} --rows {output.rows} {params.classes} > {log} 2>&1"


rule plot_coscheduling:
    input:
        tables="{root}/coscheduling/tables/summary.csv",
        weights="{root}/coscheduling/weights/{trace}.parquet",
    output:
        figure_outputs(
            "coscheduling", "{root}/coscheduling/plots", coscheduling_rules.FIGURES
        ),
    log:
        "{root}/logs/plot_coscheduling/{trace}.log",
    benchmark:
        "{root}/benchmarks/coscheduling/plot_coscheduling/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=4000,  # HPC2N's 1.7 million window runs: 1.9 GB
    params:
        tables=lambda wildcards: f"{wildcards.root}/coscheduling/tables",
        outdir=lambda wildcards: f"{wildcards.root}/coscheduling/plots",
    shell:
        "simcore plot-coscheduling --tables {params.tables} --weights {input.weights} "
        "--trace {wildcards.trace} --outdir {params.outdir} > {log} 2>&1"


# The study alone: `snakemake --cores N coscheduling`.
rule coscheduling:
    input:
        lambda wildcards: study_targets("coscheduling"),
