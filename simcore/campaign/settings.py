"""The settings of each run of the workflow: the campaign's (config/config.yaml), the demo's
(its `demo` overrides) and the bandit artifact configuration's (`bandit_artifact`), every study
restricted to the traces `only` names.

A *run* is one of these three configurations, written below its own root (`RUN_ROOTS`); a
*study* is one of the registered studies (`simcore.campaign.studies`). An override section
replaces the campaign's top-level keys it names (`traces`, `variants`, `resample`, ...) and is
merged key by key into a study's section.
"""

from __future__ import annotations

from functools import cached_property

from simcore.campaign.studies import StudyRegistry
from simcore.workloads.catalogue import check_trace_names
from simcore.workloads.local import CAMPAIGN_TRACES, joined, local_traces

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


def variant_chunks(chosen: dict, study: str) -> list[tuple[int, int]]:
    """Variant ranges (first, stop) of a study under a run's settings, one job each: its
    section's `variants_per_job` of its `variants` (the campaign's when it has none of its own)."""
    section = chosen[study]
    variants = section.get("variants", chosen["variants"])
    size = section["variants_per_job"]
    return [(first, min(first + size, variants)) for first in range(0, variants, size)]


class Campaign:
    """The settings of the workflow's runs under `config`, for the studies of `registry`
    (consulted when a run's settings are first asked for, after every study registered).

    The site's own logs (`local_traces`, simcore.workloads.local) join the campaign's run
    only: the demo and the artifact configuration are fixed runs."""

    def __init__(self, config: dict, catalogue: dict, registry: StudyRegistry, basedir=None):
        self.config = config
        self.basedir = basedir  # where a relative local trace's path is looked up after the working directory
        self.models = config.get("models", {})
        self.registry = registry
        self.published = catalogue
        # the names a configuration may give: the catalogue's and the local traces'
        self.catalogue = {**catalogue, **dict.fromkeys(config.get("local_traces") or {}, {})}
        self.only = only_traces(config, self.catalogue)
        self._settings: dict[str, dict] = {}

    @cached_property
    def local_traces(self) -> dict[str, dict]:
        """The configuration's local traces, checked (simcore.workloads.local.local_traces)."""
        return local_traces(
            self.config.get("local_traces"),
            self.published,
            self.models,
            self.registry.names(site_logs=True),
            search=[self.basedir] if self.basedir else [],
        )

    def _with_local_traces(self, chosen: dict) -> dict:
        """The campaign's settings with each local trace added where its `join` says."""
        chosen = dict(chosen)
        chosen["traces"] = list(dict.fromkeys(chosen["traces"] + joined(self.local_traces, CAMPAIGN_TRACES)))
        for study in self.registry.names(site_logs=True):
            traces = chosen[study]["traces"] + joined(self.local_traces, study)
            chosen[study] = {**chosen[study], "traces": list(dict.fromkeys(traces))}
        return chosen

    def studies_of(self, root: str) -> tuple[str, ...]:
        """The studies a run has: the artifact configuration's, or every one."""
        if run_of(root) == "artifact":
            return tuple(study.name for study in self.registry if study.in_artifact)
        return self.registry.names()

    def declared(self, root: str) -> dict:
        """The run's settings before `only`: the campaign's with the run's overrides."""
        chosen = {key: self.config[key] for key in SHARED_KEYS + self.registry.names()}
        run = run_of(root)
        if run in OVERRIDES:
            for key, value in self.config[OVERRIDES[run]].items():
                chosen[key] = {**chosen[key], **value} if key in self.registry.names() else value
        else:
            chosen = self._with_local_traces(chosen)
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

    def _check_reproduction(self, chosen: dict, run: str) -> None:
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

    def restricted(self, chosen: dict, root: str) -> dict:
        """The settings with every study restricted to `only`: the traces each study
        declares (`declared`), the studies left (`studies`: study -> its traces), the ones
        skipped (`skipped`: study -> why) and what else changes (`notes`)."""
        declared = {name: self.registry[name].declared_traces(chosen) for name in self.studies_of(root)}
        chosen = dict(chosen, declared=declared, skipped={}, notes=[])
        only = self.only
        if only is not None:

            def kept(traces):
                return [trace for trace in traces if trace in only]

            chosen["traces"] = kept(chosen["traces"])
            for name in self.registry.names(traces="own"):
                chosen[name] = {**chosen[name], "traces": kept(chosen[name]["traces"])}
            for name, traces in declared.items():
                if not kept(traces):
                    chosen["skipped"][name] = (
                        f"its model {traces[0]} is not in `only`"
                        if self.registry[name].traces == "model"
                        else f"none of its traces ({', '.join(traces)}) is in `only`"
                    )
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

    def settings(self, root: str) -> dict:
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
        for study in self.report_sections(root):
            parts.append(f"{root}/{study}/{name}")
            if run_of(root) == "campaign" and study == self.studies_of(artifact)[-1]:
                parts += [f"{artifact}/{s}/{name}" for s in self.report_sections(artifact)]
        return parts

    def traces_used(self, root: str) -> list[str]:
        """Every trace or model a study of the run uses."""
        return sorted({trace for traces in self.settings(root)["studies"].values() for trace in traces})

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

    def announcement(self, root: str) -> str | None:
        """What `only` leaves of the run's studies, to say when the DAG is planned (None
        without `only`)."""
        if self.only is None:
            return None
        chosen = self.settings(root)
        lines = [f"only=[{', '.join(self.only)}]: every study restricted to these traces ({root}/)"]
        lines += [f"  runs:    {study} on {', '.join(traces)}" for study, traces in chosen["studies"].items()]
        lines += [f"  skipped: {study}: {why}" for study, why in chosen["skipped"].items()]
        lines += [f"  note:    {note}" for note in chosen["notes"]]
        if not chosen["studies"]:
            lines.append("  nothing to do: no study uses these traces")
        return "\n".join(lines)
