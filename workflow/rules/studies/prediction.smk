# The running-time prediction study: every heuristic triple (predictor x
# correction x backfill variant) on whole traces (split over a few jobs per
# trace), leave-one-trace-out selection, then the selected triples and the
# baselines on resampled variants; tables, figures and a report section.

from simcore.studies.prediction import rules as prediction_rules

register_study(
    "prediction",
    rank=30,
    category="Running-time prediction (prediction paper)",
    outputs=prediction_rules.outputs,
    resamples=True,
    site_logs=True,
)


rule predict_grid:
    input:
        study_input("prediction"),
    output:
        runs="{root}/prediction/grid/{trace}/{chunk}.runs.parquet",
        predictions="{root}/prediction/grid/{trace}/{chunk}.predictions.parquet",
    log:
        "{root}/logs/predict_grid/{trace}/{chunk}.log",
    benchmark:
        "{root}/benchmarks/prediction/predict_grid/{trace}/{chunk}.tsv"
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        mem_mb=memory_per_attempt(3000),
    params:
        chunks=setting("prediction", "grid_jobs_per_trace"),
        grid=run_setting(prediction_rules.grid_options),
        l2=setting("prediction", "l2"),
    shell:
        "simcore predict-grid {input} --trace {wildcards.trace} --chunk {wildcards.chunk} "
        "--chunks {params.chunks} {params.grid} --l2 {params.l2} "
        "--runs {output.runs} --predictions {output.predictions} > {log} 2>&1"


rule predict_header_size:
    input:
        log_input,
    output:
        "{root}/prediction/header_size/{trace}.parquet",
    log:
        "{root}/logs/predict_header_size/{trace}.log",
    benchmark:
        "{root}/benchmarks/prediction/predict_header_size/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=3000,
    params:
        filter=setting("prediction", "filter"),
    shell:
        "simcore predict-header-size {input:q} --trace {wildcards.trace} --filter {params.filter} "
        "--runs {output} > {log} 2>&1"


rule select_triples:
    input:
        run_files(prediction_rules.grid_runs),
    output:
        grid="{root}/prediction/grid.parquet",
        selection="{root}/prediction/selection.csv",
    log:
        "{root}/logs/select_triples.log",
    benchmark:
        "{root}/benchmarks/prediction/select_triples.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=1000,
    params:
        rate=setting("prediction", "default_learning_rate"),
    shell:
        "simcore predict-select --runs {input} --default-learning-rate {params.rate} "
        "--grid {output.grid} --selection {output.selection} > {log} 2>&1"


rule predict_variants:
    input:
        variants=layout.study_variants("prediction"),
        selection="{root}/prediction/selection.csv",
    output:
        "{root}/prediction/variant_runs/{trace}/{chunk}.parquet",
    log:
        "{root}/logs/predict_variants/{trace}/{chunk}.log",
    benchmark:
        "{root}/benchmarks/prediction/predict_variants/{trace}/{chunk}.tsv"
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        mem_mb=memory_per_attempt(3000),
    params:
        select=variant_range("prediction"),
        rate=setting("prediction", "default_learning_rate"),
        l2=setting("prediction", "l2"),
    shell:
        "simcore predict-variants {input.variants} --trace {wildcards.trace} --select {params.select} "
        "--selection {input.selection} --default-learning-rate {params.rate} --l2 {params.l2} "
        "--runs {output} > {log} 2>&1"


rule prediction_tables:
    input:
        grid="{root}/prediction/grid.parquet",
        selection="{root}/prediction/selection.csv",
        variant_runs=run_files(prediction_rules.variant_runs),
        header_size_runs=run_files(prediction_rules.header_size_runs),
    output:
        tables=multiext(
            "{root}/prediction/tables/",
            "table1.csv",
            "table6.csv",
            "table7.csv",
            "table8.csv",
            "correlations.csv",
            "variants.csv",
        ),
        markdown=report(
            "{root}/prediction/report.md",
            caption="../../report/prediction_section.rst",
            category=report_category("prediction"),
            subcategory=ALL_TRACES,
            labels={"result": "report section: prediction (Tables 1, 6-8)"},
        ),
        rows="{root}/prediction/reproduction.csv",
    log:
        "{root}/logs/prediction_tables.log",
    benchmark:
        "{root}/benchmarks/prediction/prediction_tables.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    params:
        outdir=output_folder("tables"),
    shell:
        "simcore predict-tables --grid {input.grid} --selection {input.selection} "
        "--variant-runs {input.variant_runs} --header-size-runs {input.header_size_runs} "
        "--outdir {params.outdir} "
        "--markdown {output.markdown} --rows {output.rows} > {log} 2>&1"


rule plot_predictions:
    input:
        predictions=trace_files(prediction_rules.grid_outputs, "predictions"),
        selection="{root}/prediction/selection.csv",
    output:
        errors=figure_output(
            "prediction",
            "{root}/prediction/plots",
            prediction_rules.TRACE_FIGURES,
            "ecdf_errors",
        ),
        values=figure_output(
            "prediction",
            "{root}/prediction/plots",
            prediction_rules.TRACE_FIGURES,
            "ecdf_values",
        ),
    log:
        "{root}/logs/plot_predictions/{trace}.log",
    benchmark:
        "{root}/benchmarks/prediction/plot_predictions/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    shell:
        "simcore plot-predictions --trace {wildcards.trace} --predictions {input.predictions} "
        "--selection {input.selection} --errors {output.errors} --values {output.values} > {log} 2>&1"


rule plot_correlations:
    input:
        "{root}/prediction/grid.parquet",
    output:
        figure_outputs(
            "prediction",
            "{root}/prediction/plots",
            prediction_rules.FIGURES,
            per_trace=False,
        ),
    log:
        "{root}/logs/plot_correlations.log",
    benchmark:
        "{root}/benchmarks/prediction/plot_correlations.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    shell:
        "simcore plot-correlations --grid {input} --output {output} > {log} 2>&1"


# The study alone: `snakemake --cores N prediction`.
rule prediction:
    input:
        study_targets("prediction"),
