"""Where the workflow's trace files lie: each path template spelled once, for the rules'
`output:` and `input:` and for the library that names the files (`{trace}`, `{study}` and `{root}`
are the rules' wildcards; a study's own templates are in its `rules.py`)."""

from simcore.engine.swf import FILTER_MODES

# A trace's SWF log below resources/: fetched from the archive, or converted from a sacct dump
FETCHED_LOG = "resources/traces/{trace}.swf.gz"
# A trace filtered by the campaign's filter and machine sizes, or a model as generated
TRACE = "results/traces/{trace}.parquet"
# The campaign's resampled variants of a trace (the fixed-policy and bandit studies')
VARIANTS = "{root}/variants/{trace}.parquet"


def study_trace(study: str = "{study}") -> str:
    """A trace filtered by a study's own filter and machine sizes."""
    return f"results/{study}/traces/{{trace}}.parquet"


def study_variants(study: str = "{study}") -> str:
    """A study's own resampled variants of a trace."""
    return f"{{root}}/{study}/variants/{{trace}}.parquet"


def study_workload(study: str, trace: str, models) -> str:
    """The trace a study with its own filter runs on (a model as generated: models have one size)."""
    return (TRACE if trace in models else study_trace(study)).format(trace=trace)


# A trace read under another filter mode than its study's (SEMANTICS §1; e.g. `batsim`, Batsim's
# standard converter) is the trace `{trace}+{mode}`: its own study trace, variants and rows.
CONVERSION_MARK = "+"


def converted_trace(trace: str, mode: str) -> str:
    """The name of `trace` read under filter mode `mode`."""
    return f"{trace}{CONVERSION_MARK}{mode}"


def converted_traces(traces) -> list[str]:
    """Every name `traces` (logs) can take read under another filter mode."""
    return [converted_trace(trace, mode) for trace in traces for mode in FILTER_MODES]


def split_conversion(name: str) -> tuple[str, str | None]:
    """(trace, filter mode) of a converted trace's name; (name, None) for any other."""
    trace, mark, mode = name.rpartition(CONVERSION_MARK)
    return (trace, mode) if mark and mode in FILTER_MODES else (name, None)
