# The thesis's chapter 3, sections 3.2-3.3.1: trial scores of tuples drawn
# from a model workload (a chunk of tuples per job), the score spread against
# the number of trials, and the nonlinear regression of the function family.

from simcore.studies.learned_policies import rules as learned_policies_rules

register_study(
    "learned_policies",
    rank=50,
    category="Learned priority functions (thesis, chapter 3)",
    outputs=learned_policies_rules.outputs,
    traces="model",
)


rule trial_scores:
    input:
        run_setting(learned_policies_rules.model_workload),
    output:
        "{root}/learned_policies/scores/{chunk}.parquet",
    log:
        "{root}/logs/trial_scores/{chunk}.log",
    benchmark:
        "{root}/benchmarks/learned_policies/trial_scores/{chunk}.tsv"
    conda:
        "../../envs/simcore.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        tuples=setting("learned_policies", "tuples"),
        select=chunk_setting(learned_policies_rules.tuple_range),
        trials=setting("learned_policies", "trials"),
        seed=setting("learned_policies", "seed"),
    shell:
        "simcore trial-scores {input} --tuples {params.tuples} --select {params.select} "
        "--trials {params.trials} --seed {params.seed} --output {output} > {log} 2>&1"


rule trial_spread:
    input:
        run_setting(learned_policies_rules.model_workload),
    output:
        "{root}/learned_policies/spread.csv",
    log:
        "{root}/logs/trial_spread.log",
    benchmark:
        "{root}/benchmarks/learned_policies/trial_spread.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=1000,
    params:
        trials=setting("learned_policies", "spread_trials"),
        repeats=setting("learned_policies", "spread_repeats"),
        seed=setting("learned_policies", "seed"),
    shell:
        "simcore trial-spread {input} --trials {params.trials} --repeats {params.repeats} "
        "--seed {params.seed} --output {output} > {log} 2>&1"


rule fit_functions:
    input:
        scores=run_files(learned_policies_rules.score_files),
        spread="{root}/learned_policies/spread.csv",
    output:
        functions=report(
            "{root}/learned_policies/functions.csv",
            caption="../../report/learned_policies_functions.rst",
            category=report_category("learned_policies"),
            labels={"result": "fitted functions ranked by MAE (Table 3.2)"},
        ),
        markdown=report(
            "{root}/learned_policies/report.md",
            caption="../../report/learned_policies_section.rst",
            category=report_category("learned_policies"),
            labels={"result": "report section: learned functions (Table 3.2)"},
        ),
        rows="{root}/learned_policies/reproduction.csv",
    log:
        "{root}/logs/fit_functions.log",
    benchmark:
        "{root}/benchmarks/learned_policies/fit_functions.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    shell:
        "simcore fit-functions {input.scores} --spread {input.spread} --output {output.functions} "
        "--markdown {output.markdown} --rows {output.rows} > {log} 2>&1"


rule plot_trial_scores:
    input:
        scores=run_files(learned_policies_rules.score_files),
        spread="{root}/learned_policies/spread.csv",
    output:
        report(
            "{root}/learned_policies/plots/scores.png",
            caption="../../report/learned_policies_scores.rst",
            category=report_category("learned_policies"),
            labels={"result": "trial scores and their spread (Figure 3.1)"},
        ),
        "{root}/learned_policies/plots/scores.pdf",
    log:
        "{root}/logs/plot_trial_scores.log",
    benchmark:
        "{root}/benchmarks/learned_policies/plot_trial_scores.tsv"
    conda:
        "../../envs/simcore.yaml"
    resources:
        mem_mb=1000,
    shell:
        "simcore plot-trial-scores {input.scores} --spread {input.spread} --output {output} > {log} 2>&1"


# The study alone: `snakemake --cores N learned_policies` (with the dynamic scheduling experiments that use its functions).
rule learned_policies:
    input:
        study_targets("learned_policies", "dynamic_scheduling"),
