# Inputs: PWA traces fetched and filtered, or model workloads generated.


rule fetch_trace:
    output:
        "resources/traces/{trace}.swf.gz",
    params:
        catalogue=config["catalogue"],
        mirror=lambda wildcards: f"--mirror {config['pwa_mirror']}" if config.get("pwa_mirror") else "",
    log:
        "logs/fetch_trace/{trace}.log",
    resources:
        mem_mb=500,
    conda:
        "../envs/simcore.yaml"
    shell:
        "simcore fetch {wildcards.trace} --catalogue {params.catalogue} {params.mirror} "
        "--output {output} > {log} 2>&1"


rule filter_trace:
    input:
        "resources/traces/{trace}.swf.gz",
    output:
        "results/traces/{trace}.parquet",
    wildcard_constraints:
        trace=_alternatives(CATALOGUE),
    params:
        filter=config["filter"],
        machine=lambda wildcards: (
            f"--machine-size {config['machine_size'][wildcards.trace]}"
            if wildcards.trace in config.get("machine_size", {}) else ""),
    log:
        "logs/filter_trace/{trace}.log",
    resources:
        mem_mb=2000,
    conda:
        "../envs/simcore.yaml"
    shell:
        "simcore filter {input} --filter {params.filter} {params.machine} --output {output} > {log} 2>&1"


rule model_trace:
    output:
        "results/traces/{trace}.parquet",
    wildcard_constraints:
        trace=_alternatives(MODELS) if MODELS else "$^",
    params:
        model=lambda wildcards: MODELS[wildcards.trace],
    log:
        "logs/model_trace/{trace}.log",
    resources:
        mem_mb=1000,
    conda:
        "../envs/simcore.yaml"
    shell:
        "simcore model --jobs {params.model[jobs]} --machine-size {params.model[machine_size]} "
        "--seed {params.model[seed]} --output {output} > {log} 2>&1"
