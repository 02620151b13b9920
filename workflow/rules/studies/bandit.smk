# The bandit paper's online policy selection: every strategy on every variant
# (a chunk of variants per job), then per trace tables, regret and figures.

from simcore.studies.bandit import rules as bandit_rules

register_study(
    "bandit",
    rank=20,
    category="Online policy selection (bandit paper, Table 3)",
    outputs=bandit_rules.outputs,
    traces="campaign",
    in_artifact=True,
    registries=bandit_rules.REGISTRIES,
)


rule learn_strategies:
    input:
        layout.VARIANTS,
    output:
        runs="{root}/bandit/{trace}/{chunk}.runs.parquet",
        weekly="{root}/bandit/{trace}/{chunk}.weekly.parquet",
        choices="{root}/bandit/{trace}/{chunk}.choices.parquet",
    log:
        "{root}/logs/learn/{trace}/{chunk}.log",
    benchmark:
        "{root}/benchmarks/bandit/learn_strategies/{trace}/{chunk}.tsv"
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        mem_mb=memory_per_attempt(3000),
    params:
        select=variant_range("bandit"),
        strategies=run_setting(bandit_rules.strategies_json),
        base=run_setting(bandit_rules.base_json),
        seed=run_setting(bandit_rules.seed),
    shell:
        "simcore learn {input} --trace {wildcards.trace} --select {params.select} "
        "--strategies '{params.strategies}' --base '{params.base}' --seed {params.seed} "
        "--runs {output.runs} --weekly {output.weekly} --choices {output.choices} > {log} 2>&1"


rule aggregate_learners:
    input:
        runs=sweep_outputs("runs", "bandit"),
        weekly=sweep_outputs("weekly", "bandit"),
        choices=sweep_outputs("choices", "bandit"),
    output:
        summary="{root}/summary/{trace}.bandit.runs.parquet",
        curves="{root}/summary/{trace}.bandit.curves.parquet",
        table="{root}/summary/{trace}.bandit.csv",
        regret="{root}/summary/{trace}.bandit.regret.parquet",
        regret_curves="{root}/summary/{trace}.bandit.regret_curves.parquet",
        shares="{root}/summary/{trace}.bandit.shares.parquet",
        predicted="{root}/summary/{trace}.bandit.predicted.csv",
    log:
        "{root}/logs/aggregate_learners/{trace}.log",
    benchmark:
        "{root}/benchmarks/bandit/aggregate_learners/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=4000,
    params:
        strategies=run_setting(bandit_rules.strategy_names),
    shell:
        "simcore aggregate-learners --runs {input.runs} --weekly {input.weekly} --choices {input.choices} "
        "--strategies {params.strategies} --summary {output.summary} --curves {output.curves} "
        "--table {output.table} --regret {output.regret} --regret-curves {output.regret_curves} "
        "--shares {output.shares} --predicted {output.predicted} > {log} 2>&1"


rule plot_learners:
    input:
        curves="{root}/summary/{trace}.bandit.curves.parquet",
        regret_curves="{root}/summary/{trace}.bandit.regret_curves.parquet",
        shares="{root}/summary/{trace}.bandit.shares.parquet",
    output:
        strategies=figure_output(
            "bandit", "{root}/plots", bandit_rules.FIGURES, "strategies"
        ),
        regret=figure_output("bandit", "{root}/plots", bandit_rules.FIGURES, "regret"),
        choices=figure_output("bandit", "{root}/plots", bandit_rules.FIGURES, "choices"),
    log:
        "{root}/logs/plot_learners/{trace}.log",
    benchmark:
        "{root}/benchmarks/bandit/plot_learners/{trace}.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    params:
        strategies=run_setting(bandit_rules.strategy_names),
        learners=run_setting(bandit_rules.strategy_learners),
    shell:
        "simcore plot-learners --trace {wildcards.trace} --curves {input.curves} "
        "--regret-curves {input.regret_curves} --shares {input.shares} --strategies {params.strategies} "
        "--learners {params.learners} --cumulative-wait {output.strategies} --regret {output.regret} --choices {output.choices} > {log} 2>&1"


rule bandit_tables:
    input:
        tables=run_traces("{root}/summary/{trace}.bandit.csv"),
        predicted=run_traces("{root}/summary/{trace}.bandit.predicted.csv"),
    output:
        table_csv=report(
            "{root}/tables/bandit.csv",
            caption="../../report/bandit_table.rst",
            category=report_category("bandit"),
            subcategory=ALL_TRACES,
            labels={"result": "strategies against EASY-FCFS, every trace (Table 3)"},
        ),
        table_md="{root}/tables/bandit.md",
        section="{root}/bandit/report.md",
        rows="{root}/bandit/reproduction.csv",
    log:
        "{root}/logs/bandit_tables.log",
    benchmark:
        "{root}/benchmarks/bandit/bandit_tables.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=1000,
    params:
        configuration=table_configuration,
    shell:
        "simcore bandit-tables {input.tables} --predicted {input.predicted} --configuration {params.configuration} "
        "--table-csv {output.table_csv} --table-md {output.table_md} "
        "--section {output.section} --rows {output.rows} > {log} 2>&1"
