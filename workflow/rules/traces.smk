# Inputs: PWA traces fetched and filtered, a site's own logs (local SWF files, sacct dumps
# converted) filtered, or model workloads generated; the studies with traces of their own
# (filter, machine sizes, variants) get them filtered and resampled here.

TRACE_STUDIES = _alternatives(STUDIES.names(traces="own"))


rule fetch_trace:
    output:
        layout.FETCHED_LOG,
    log:
        "logs/fetch_trace/{trace}.log",
    benchmark:
        "results/benchmarks/traces/fetch_trace/{trace}.tsv"
    wildcard_constraints:
        trace=_alternatives(CATALOGUE),
    conda:
        "../envs/simcore.yaml"
    resources:
        mem_mb=500,
    params:
        catalogue=CATALOGUE_PATH,
        mirror=f"--mirror {config['pwa_mirror']}" if config.get("pwa_mirror") else "",
    shell:
        "simcore fetch {wildcards.trace} --catalogue {params.catalogue} {params.mirror} "
        "--output {output} > {log} 2>&1"


rule import_sacct_trace:
    input:
        sacct_dump,
    output:
        layout.FETCHED_LOG,
    log:
        "logs/import_sacct_trace/{trace}.log",
    benchmark:
        "results/benchmarks/traces/import_sacct_trace/{trace}.tsv"
    wildcard_constraints:
        trace=_alternatives(LOCAL_TRACES),
    conda:
        "../envs/simcore.yaml"
    resources:
        mem_mb=1000,
    params:
        options=sacct_options,
    shell:
        "simcore import-sacct {input:q} {params.options} --output {output} > {log} 2>&1"


rule filter_trace:
    input:
        log_input,
    output:
        layout.TRACE,
    log:
        "logs/filter_trace/{trace}.log",
    benchmark:
        "results/benchmarks/traces/filter_trace/{trace}.tsv"
    wildcard_constraints:
        trace=_alternatives(list(CATALOGUE) + LOCAL_TRACES),
    conda:
        "../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    params:
        arguments=filter_options,
    shell:
        "simcore filter {input:q} {params.arguments} --output {output} > {log} 2>&1"


rule model_trace:
    output:
        layout.TRACE,
    log:
        "logs/model_trace/{trace}.log",
    benchmark:
        "results/benchmarks/traces/model_trace/{trace}.tsv"
    wildcard_constraints:
        trace=_alternatives(MODELS) if MODELS else "$^",
    conda:
        "../envs/simcore.yaml"
    resources:
        mem_mb=1000,
    params:
        model=model_parameters,
    shell:
        "simcore model --model {params.model[model]} --jobs {params.model[jobs]} "
        "--machine-size {params.model[machine_size]} "
        "--seed {params.model[seed]} --output {output} > {log} 2>&1"


rule study_trace:
    input:
        log_input,
    output:
        layout.study_trace(),
    log:
        "logs/study_trace/{study}/{trace}.log",
    benchmark:
        "results/benchmarks/traces/study_trace/{trace}/{study}.tsv"
    wildcard_constraints:
        trace=_alternatives(list(CATALOGUE) + LOCAL_TRACES + CONVERTED_TRACES),
        study=TRACE_STUDIES,
    conda:
        "../envs/simcore.yaml"
    resources:
        mem_mb=2000,
    params:
        arguments=filter_options,
    shell:
        "simcore filter {input:q} {params.arguments} --output {output} > {log} 2>&1"


rule resample_study_trace:
    input:
        study_input(None),
    output:
        layout.study_variants(),
    log:
        "{root}/logs/{study}/resample/{trace}.log",
    benchmark:
        "{root}/benchmarks/{study}/resample_study_trace/{trace}.tsv"
    wildcard_constraints:
        study=TRACE_STUDIES,
    conda:
        "../envs/simcore.yaml"
    resources:
        # the variants are written one at a time: 100 as long as the log of CEA-Curie, the
        # largest, 0.35 GB
        mem_mb=memory_per_attempt(1000),
    params:
        arguments=resample_options,
    shell:
        "simcore resample {input} {params.arguments} --output {output} > {log} 2>&1"
