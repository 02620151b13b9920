# The fixed-policy study: resample each trace, sweep orders x thresholds x
# backfill variants on every variant (a chunk of variants per job), combine.


rule resample:
    input:
        "results/traces/{trace}.parquet",
    output:
        "{root}/variants/{trace}.parquet",
    params:
        variants=lambda wildcards: settings(wildcards.root)["variants"],
        method=lambda wildcards: settings(wildcards.root)["resample"]["method"],
        weeks=lambda wildcards: (
            f"--weeks {settings(wildcards.root)['resample']['weeks']}"
            if settings(wildcards.root)["resample"].get("weeks") else ""),
        base_seed=config["base_seed"],
    log:
        "{root}/logs/resample/{trace}.log",
    resources:
        mem_mb=4000,
    conda:
        "../envs/simcore.yaml"
    shell:
        "simcore resample {input} --variants {params.variants} --base-seed {params.base_seed} "
        "--method {params.method} {params.weeks} --output {output} > {log} 2>&1"


rule sweep_fixed_policies:
    input:
        "{root}/variants/{trace}.parquet",
    output:
        runs="{root}/sweep/{trace}/{chunk}.runs.parquet",
        weekly="{root}/sweep/{trace}/{chunk}.weekly.parquet",
    params:
        select=lambda wildcards: "{}:{}".format(*chunks(wildcards.root)[int(wildcards.chunk)]),
        orders=lambda wildcards: " ".join(settings(wildcards.root)["fixed_policy"]["orders"]),
        thresholds=lambda wildcards: " ".join(
            "none" if value is None else str(value)
            for value in settings(wildcards.root)["fixed_policy"]["thresholds"]),
        backfills=lambda wildcards: " ".join(settings(wildcards.root)["fixed_policy"]["backfills"]),
    log:
        "{root}/logs/sweep/{trace}/{chunk}.log",
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 3000 * attempt,
    conda:
        "../envs/simcore.yaml"
    shell:
        "simcore sweep {input} --trace {wildcards.trace} --select {params.select} "
        "--orders {params.orders} --thresholds {params.thresholds} --backfills {params.backfills} "
        "--runs {output.runs} --weekly {output.weekly} > {log} 2>&1"


def sweep_outputs(kind):
    def outputs(wildcards):
        return expand("{root}/sweep/{trace}/{chunk}.{kind}.parquet", root=wildcards.root,
                      trace=wildcards.trace, chunk=range(len(chunks(wildcards.root))), kind=kind)
    return outputs


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
    resources:
        mem_mb=4000,
    conda:
        "../envs/simcore.yaml"
    shell:
        "simcore aggregate --runs {input.runs} --weekly {input.weekly} --summary {output.summary} "
        "--curves {output.curves} --table {output.table} > {log} 2>&1"
