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
        study_input("coscheduling"),
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
        options=trace_setting(coscheduling_rules.run_options, config["base_seed"]),
        loads=setting("coscheduling", "e1", "loads"),
        window=setting("coscheduling", "e1", "window"),
        limit=setting_option("--max-windows", "coscheduling", "e1", "max_windows"),
    shell:
        "simcore coscheduling-run {input} --trace {wildcards.trace} --experiment E1 "
        "--loads {params.loads} --window {params.window} {params.limit} {params.options} "
        "--output {output} > {log} 2>&1"


rule coscheduling_replay:
    input:
        study_input("coscheduling"),
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
        options=trace_setting(coscheduling_rules.run_options, config["base_seed"]),
        loads=setting("coscheduling", "e2", "loads"),
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
        options=run_setting(coscheduling_rules.queue_options),
    shell:
        "simcore coscheduling-paper-queue {params.options} --output {output.runs} "
        "--classes {output.classes} > {log} 2>&1"


rule coscheduling_tables:
    input:
        runs=run_files(coscheduling_rules.runs),
        classes=run_files(coscheduling_rules.queue_file, "classes.parquet"),
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
        mem_mb=memory_per_input(12, at_least=1000),
    params:
        outdir=output_folder("tables"),
        classes=input_option("--classes", "classes"),
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
        tables=input_folder("tables"),
        outdir=output_folder(),
    shell:
        "simcore plot-coscheduling --tables {params.tables} --weights {input.weights} "
        "--trace {wildcards.trace} --outdir {params.outdir} > {log} 2>&1"


# The study alone: `snakemake --cores N coscheduling`.
rule coscheduling:
    input:
        study_targets("coscheduling"),
