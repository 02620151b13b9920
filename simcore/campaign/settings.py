"""The settings of each run of the workflow: the campaign's (config/config.yaml), the demo's
(its `demo` overrides) and the bandit artifact configuration's (`bandit_artifact`), every study
restricted to the traces `only` names.

A *run* is one of these three configurations, written below its own root (`RUN_ROOTS`); a
*study* is one of the registered studies (`simcore.campaign.studies`). An override section
replaces the campaign's top-level keys it names (`traces`, `variants`, `resample`, ...) and is
merged key by key into a study's section.
"""

from __future__ import annotations

import re
import shlex
from functools import cached_property
from pathlib import Path
from typing import TypedDict

import pandas as pd

from simcore.campaign.local_traces import CAMPAIGN_TRACES, joined, local_traces, submit_span
from simcore.campaign.studies import StudyRegistry
from simcore.workloads.catalogue import check_trace_names
from simcore.workloads.resample import too_short_to_resample

# Each run writes below its own root.
RUN_ROOTS = {
    "campaign": "results",
    "demo": "results/demo",
    "artifact": "results/artifact",
}
# The config section holding each run's overrides of the campaign's settings.
OVERRIDES = {"demo": "demo", "artifact": "bandit_artifact"}
# The campaign's top-level settings every run reads, beside the studies' sections.
SHARED_KEYS = ("traces", "variants", "resample", "reproduction")
REPRODUCTION_ROWS = "reproduction.csv"  # a study's rows beside its report section


class RunSettings(TypedDict):
    """A run's settings, as `Campaign.settings(root)` gives them to the rules and to each study's
    `rules.py`: the campaign's shared settings with the run's overrides, one section per registered
    study under its name (its config section, its `traces` restricted to `only`), and what planning
    the run decided. A plain mapping at run time (the rules index it); this declares its keys."""

    traces: list[str]  # the campaign's traces (the fixed-policy and bandit studies'), local ones joined
    variants: int  # resampled variants per trace (at most `variants=N`)
    resample: dict  # how they are resampled (method, weeks)
    reproduction: dict  # the fixed-policy setting compared with the bandit paper's Table 2
    models: list[str]  # the workload models' names: generated, not read from a log
    left_out: dict[str, dict[str, str]]  # study -> local trace too short for it -> why
    capped: list[str]  # the variant counts `variants=N` lowered
    declared: dict[str, list[str]]  # study -> the traces it declares, before `only`
    skipped: dict[str, str]  # study -> why `only` leaves it out
    too_short: list[str]  # the studies skipped because every trace `only` left is too short
    notes: list[str]  # what else planning changed, said once when the DAG is built
    studies: dict[str, list[str]]  # the studies that run -> their traces


def run_of(root: str) -> str:
    """The run ("campaign", "demo", "artifact") written below `root`."""
    for run, path in RUN_ROOTS.items():
        if path == root:
            return run
    raise ValueError(f"{root!r} is no run's root; the runs' roots are {', '.join(RUN_ROOTS.values())}")


def only_traces(config: dict, catalogue: dict) -> list[str] | None:
    """`only`: the traces and models every study is restricted to (None: no restriction);
    `catalogue` has the local traces' names too."""
    only = config.get("only")
    if only is None:
        return None
    only = [only] if isinstance(only, str) else list(only)
    check_trace_names(only, catalogue, config.get("models", {}), "only: ", "traces or models")
    return only


_CORES = re.compile(r"^(--cores|--jobs|-c|-j)(=?(\d+|all))?$")


def report_command(argv: list[str]) -> list[str]:
    """The words of the Snakemake command `argv` with its cores (`--cores N`, `-c N`, `-jN`, ...)
    left out: the same run's HTML report comes from the same targets and configuration."""
    words, value_follows = ["snakemake"], False
    for word in argv[1:]:
        if value_follows and (word.isdigit() or word == "all"):
            value_follows = False
            continue
        match = _CORES.match(word)
        value_follows = bool(match) and match.group(2) is None
        if not match:
            words.append(word)
    return words


def describe_span(seconds: float) -> str:
    """A duration in the largest whole unit that fits (days, hours, minutes, seconds)."""
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


def variant_chunks(chosen: RunSettings, study: str) -> list[tuple[int, int]]:
    """Variant ranges (first, stop) of a study under a run's settings, one job each: its
    section's `variants_per_job` of its `variants` (the campaign's when it has none of its own)."""
    section = chosen[study]
    variants = section.get("variants", chosen["variants"])
    size = section["variants_per_job"]
    return [(first, min(first + size, variants)) for first in range(0, variants, size)]


class Campaign:
    """The settings of the workflow's runs under `config`, for the studies of `registry`
    (consulted when a run's settings are first asked for, after every study registered).

    The site's own logs (`local_traces`, simcore.campaign.local_traces) join the campaign's run
    only: the demo and the artifact configuration are fixed runs."""

    def __init__(self, config: dict, catalogue: dict, registry: StudyRegistry, basedir=None, variants_cap=None):
        self.config = config
        # `variants=N` given on the command line: no run's study resamples more variants than N
        self.variants_cap = variants_cap
        self.basedir = basedir  # where a relative local trace's path is looked up after the working directory
        self.models = config.get("models", {})
        self.registry = registry
        self.published = catalogue
        # the names a configuration may give: the catalogue's and the local traces'
        self.catalogue = {**catalogue, **dict.fromkeys(config.get("local_traces") or {}, {})}
        self.only = only_traces(config, self.catalogue)
        self._settings: dict[str, dict] = {}
        self._too_short: dict[str, str | None] = {}

    @cached_property
    def local_traces(self) -> dict[str, dict]:
        """The configuration's local traces, checked (simcore.campaign.local_traces.local_traces)."""
        return local_traces(
            self.config.get("local_traces"),
            self.published,
            self.models,
            self.registry.names(site_logs=True),
            search=[self.basedir] if self.basedir else [],
        )

    def too_short(self, trace: str) -> str | None:
        """Why a study that resamples cannot take local trace `trace` (None: it can), read from
        the log's submit times when the run is planned (simcore.campaign.local_traces.submit_span)."""
        if trace not in self._too_short:
            span = submit_span(self.local_traces[trace])
            why = span and too_short_to_resample(*span)
            self._too_short[trace] = (
                why and f"{trace} is too short: {why} ({describe_span(span[1] - span[0])} of submits)"
            )
        return self._too_short[trace]

    def _with_local_traces(self, chosen: RunSettings) -> dict:
        """The campaign's settings with each local trace added where its `join` says, except
        to the studies it is too short for (`left_out`: study -> trace -> why)."""
        targets = {CAMPAIGN_TRACES: self.registry.names(traces="campaign")}
        targets.update({study: (study,) for study in self.registry.names(site_logs=True)})
        for target, studies in targets.items():
            joining = []
            for trace in joined(self.local_traces, target):
                if any(self.registry[study].min_weeks for study in studies) and self.too_short(trace):
                    for study in studies:
                        chosen["left_out"].setdefault(study, {})[trace] = self.too_short(trace)
                else:
                    joining.append(trace)
            if target == CAMPAIGN_TRACES:
                chosen["traces"] = list(dict.fromkeys(chosen["traces"] + joining))
            else:
                chosen[target] = {**chosen[target], "traces": list(dict.fromkeys(chosen[target]["traces"] + joining))}
        return chosen

    def studies_of(self, root: str) -> tuple[str, ...]:
        """The studies a run has: the artifact configuration's, or every one."""
        if run_of(root) == "artifact":
            return tuple(study.name for study in self.registry if study.in_artifact)
        return self.registry.names()

    def declared(self, root: str) -> dict:
        """The run's settings before `only`: the campaign's with the run's overrides."""
        chosen = {key: self.config[key] for key in SHARED_KEYS + self.registry.names()} | {
            "left_out": {},
            "models": list(self.models),
        }
        run = run_of(root)
        if run in OVERRIDES:
            for key, value in self.config[OVERRIDES[run]].items():
                chosen[key] = {**chosen[key], **value} if key in self.registry.names() else value
        else:
            chosen = self._with_local_traces(chosen)
        chosen = self._capped(chosen, self.studies_of(root))
        check_trace_names(
            list(
                dict.fromkeys(chosen["traces"] + [t for study in self.registry for t in study.declared_traces(chosen)])
            ),
            self.catalogue,
            self.models,
            "",
        )
        self._check_reproduction(chosen, run)
        return chosen

    def _capped(self, chosen: RunSettings, studies) -> dict:
        """The settings with every variant count (the run's and each of `studies`' own) at most
        `variants_cap`; `capped` lists what it lowered."""
        chosen = dict(chosen, capped=[])
        cap = self.variants_cap
        if cap is None:
            return chosen
        if chosen["variants"] > cap:
            chosen["capped"].append(f"the run's {chosen['variants']} -> {cap}")
            chosen["variants"] = cap
        for study in studies:
            own = chosen[study].get("variants")
            if own is not None and own > cap:
                chosen["capped"].append(f"{study} {own} -> {cap}")
                chosen[study] = {**chosen[study], "variants": cap}
        return chosen

    def _check_reproduction(self, chosen: RunSettings, run: str) -> None:
        """The setting compared with the bandit paper's Table 2 must be one the sweep runs,
        or the table would be missing from the report."""
        section = {"demo": "demo.", "artifact": "bandit_artifact."}.get(run, "")
        overridden = self.config.get(OVERRIDES.get(run, ""), {})
        compared = f"{section}reproduction" if "reproduction" in overridden else "reproduction"
        swept = f"{section}fixed_policy" if "fixed_policy" in overridden else "fixed_policy"
        for key, runs_of in (("threshold", "thresholds"), ("backfill", "backfills")):
            wanted = chosen["reproduction"][key]
            if wanted not in chosen["fixed_policy"][runs_of]:
                raise ValueError(
                    f"config: {compared}.{key} is {wanted!r}, which {swept}.{runs_of} "
                    f"{chosen['fixed_policy'][runs_of]} does not run; add it there or choose one of them"
                )

    def restricted(self, chosen: RunSettings, root: str) -> dict:
        """The settings with every study restricted to `only`: the traces each study
        declares (`declared`), the studies left (`studies`: study -> its traces), the ones
        skipped (`skipped`: study -> why; `too_short`: those skipped as every trace `only` left them
        is a local trace too short for them) and what else changes (`notes`)."""
        declared = {name: self.registry[name].declared_traces(chosen) for name in self.studies_of(root)}
        left_out = chosen["left_out"]
        chosen = dict(chosen, declared=declared, skipped={}, notes=[], too_short=[])
        if chosen["capped"]:
            chosen["notes"].append(
                f"variants={self.variants_cap} caps every study's variants: {', '.join(chosen['capped'])}"
            )
        only = self.only
        if only is not None:

            def kept(traces):
                return [trace for trace in traces if trace in only]

            chosen["traces"] = kept(chosen["traces"])
            for name in self.registry.names(traces="own"):
                chosen[name] = {**chosen[name], "traces": kept(chosen[name]["traces"])}
            for name, traces in declared.items():
                too_short = [why for trace, why in left_out.get(name, {}).items() if trace in only]
                if not kept(traces):
                    if too_short:
                        chosen["too_short"].append(name)
                    chosen["skipped"][name] = (
                        f"its model {traces[0]} is not in `only`"
                        if self.registry[name].traces == "model"
                        else "; ".join(too_short)
                        if too_short
                        else f"none of its traces ({', '.join(traces)}) is in `only`"
                    )
        for name, reasons in left_out.items():
            if name in declared and name not in chosen["skipped"]:
                chosen["notes"] += [
                    f"{name} runs without {trace}: {why}"
                    for trace, why in reasons.items()
                    if only is None or trace in only
                ]
        chosen["studies"] = {
            name: [trace for trace in traces if only is None or trace in only]
            for name, traces in declared.items()
            if name not in chosen["skipped"]
        }
        for name in chosen["studies"]:
            restrict = self.registry[name].restrict
            if restrict is not None:
                chosen["notes"] += restrict(chosen)
        return chosen

    def settings(self, root: str) -> RunSettings:
        """The settings of the run below `root`, every study restricted to `only`."""
        if root not in self._settings:
            self._settings[root] = self.restricted(self.declared(root), root)
        return self._settings[root]

    def active(self, root: str, study: str) -> bool:
        """Whether `study` runs below `root` (not when `only` names none of its traces)."""
        return study in self.settings(root)["studies"]

    def chunks(self, root: str, study: str) -> list[tuple[int, int]]:
        """Variant ranges (first, stop) of a study under the run below `root`, one job each."""
        return variant_chunks(self.settings(root), study)

    def report_sections(self, root: str) -> list[str]:
        """The studies whose section the run's reproduction report appends (those that run)."""
        return [name for name in self.studies_of(root) if self.active(root, name)]

    def report_parts(self, root: str, name: str) -> list[str]:
        """The files `name` (report.md, reproduction.csv) of the sections the reproduction
        report of `root` assembles; the campaign's has the artifact configuration's beside
        its own sections of the artifact's studies."""
        parts = []
        artifact = RUN_ROOTS["artifact"]

        def wanted(study):  # a study with no paper writes no rows
            return name != REPRODUCTION_ROWS or self.registry[study].reproduction

        for study in self.report_sections(root):
            parts += [f"{root}/{study}/{name}"] if wanted(study) else []
            if run_of(root) == "campaign" and study == self.studies_of(artifact)[-1]:
                parts += [f"{artifact}/{s}/{name}" for s in self.report_sections(artifact) if wanted(s)]
        return parts

    def traces_used(self, root: str) -> list[str]:
        """Every trace or model a study of the run uses."""
        return sorted({trace for traces in self.settings(root)["studies"].values() for trace in traces})

    def other_traces(self, root: str) -> list[str]:
        """Every trace or model the configuration names that no study of the run uses."""
        return sorted((set(self.catalogue) | set(self.models)) - set(self.traces_used(root)))

    def outputs(self, run: str) -> list[str]:
        """Every file of a run that `only` leaves: each running study's, then the reproduction
        report's and the cost table's."""
        root = RUN_ROOTS[run]
        chosen = self.settings(root)
        files = [
            file for study in self.registry if self.active(root, study.name) for file in study.outputs(root, chosen)
        ]
        if self.report_sections(root):
            files += [
                f"{root}/tables/workloads.md",
                f"{root}/reproduction.csv",
                f"{root}/reproduction.md",
            ]
        return files

    def cost_outputs(self, run: str) -> list[str]:
        """The cost table of a run, when any study runs."""
        root = RUN_ROOTS[run]
        return [f"{root}/cost.csv", f"{root}/cost.md"] if self.report_sections(root) else []

    def check(self) -> None:
        """Every run's settings, so that a configuration error (a ValueError naming its key) is
        raised when the workflow is read rather than while its jobs are planned."""
        for root in RUN_ROOTS.values():
            self.settings(root)

    def summary(self, root: str, command: list[str]) -> str | None:
        """Where the results of the run below `root` are, the command writing its HTML report
        (`command`, the words the run was started with, less its cores) and what its jobs cost
        (its cost.csv, when written): said at the end of a successful run; None for a run with no files."""
        run = run_of(root)
        files = self.outputs(run)
        if not files:
            return None
        # what is on disk below the root, not below another run's root inside it (results/demo/)
        others = [Path(other) for other in RUN_ROOTS.values() if other != root and other.startswith(root + "/")]
        written = [
            path for path in Path(root).rglob("*") if path.is_file() and not any(path.is_relative_to(o) for o in others)
        ]
        tables = [path for path in written if path.parent.name == "tables"]
        figures = [path for path in written if path.parent.name == "plots" and path.suffix == ".png"]
        lines = [f"schedsweep: the {run} run is done; its results are in {root}/"]
        if f"{root}/reproduction.md" in files:
            lines.append(f"  reproduction report  {root}/reproduction.md (published values next to ours)")
        lines.append(f"  tables               {len(tables)} files in {root}/tables/ and each study's tables/")
        lines.append(
            f"  figures              {len(figures)} PNG (each with a PDF) in {root}/plots/ and each study's plots/"
        )
        lines.append(f"  HTML report          {shlex.join([*command, '--report', f'{root}/report.html'])}")
        cost = Path(f"{root}/cost.csv")
        if cost.is_file():
            table = pd.read_csv(cost)
            lines.append(
                f"  cost                 {int(table['jobs'].sum())} jobs, {describe_span(table['wall_s'].sum())} of "
                f"job wall time, peak {table['max_rss_mb'].max():.0f} MB ({root}/cost.md)"
            )
        chosen = self.settings(root)
        lines += [f"  not run              {name}: {chosen['skipped'][name]}" for name in chosen["too_short"]]
        return "\n".join(lines)

    def announcement(self, root: str, notes_only: bool = False) -> str | None:
        """What `only` leaves of the run's studies and what else changes (a local trace too
        short for a study, `variants=` capping a study's own), to say when the DAG is planned
        (None when nothing does); with `notes_only`, what else changes alone."""
        chosen = self.settings(root)
        if self.only is None or notes_only:
            if not chosen["notes"]:
                return None
            return "\n".join([f"{root}/:"] + [f"  note:    {note}" for note in chosen["notes"]])
        lines = [f"only=[{', '.join(self.only)}]: every study restricted to these traces ({root}/)"]
        lines += [f"  runs:    {study} on {', '.join(traces)}" for study, traces in chosen["studies"].items()]
        lines += [f"  skipped: {study}: {why}" for study, why in chosen["skipped"].items()]
        lines += [f"  note:    {note}" for note in chosen["notes"]]
        if not chosen["studies"]:
            lines.append("  nothing to do: no study uses these traces")
        return "\n".join(lines)
