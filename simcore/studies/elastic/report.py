"""The elastic study's section of the reproduction report: the paper's Tables 2-5 beside ours (means
over seeds and job sets), and whether each of its claims holds, per trace, with the numbers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from simcore.reporting.intervals import HOLDS, OUTCOMES, above, combined, interval, within
from simcore.reporting.published import (
    ELASTIC_SPEEDUP,
    ELASTIC_TABLE1,
    ELASTIC_TABLE_COLUMNS,
    ELASTIC_TABLES,
    ELASTIC_TEXT,
)
from simcore.reporting.reproduction import REPRODUCTION_COLUMNS, mean_and_range, reproduction_row
from simcore.reporting.tables import markdown_table
from simcore.studies.elastic.jobsets import PAPER_INTERACTIVE_SHARE, PAPER_TOP_SHARE
from simcore.studies.elastic.metrics import SAME_POOL, same_pool_name
from simcore.studies.elastic.study import speedup

PAPER = "elastic-2009"
# our summary columns for the paper's (W per type, mean and std, interactive delay mean and std)
OURS = dict(
    zip(
        ELASTIC_TABLE_COLUMNS,
        (
            "W_interactive_mean",
            "W_interactive_std",
            "W_batch_mean",
            "W_batch_std",
            "delay_interactive_mean",
            "delay_interactive_std",
        ),
    )
)


def reproduction_rows(runs: pd.DataFrame, speedups: pd.DataFrame) -> pd.DataFrame:
    """Per trace and run: our mean over seeds and sets next to each published cell."""
    rows = []
    for (trace, name), block in runs.groupby(["trace", "run"], sort=False):
        if name not in ELASTIC_TABLES:
            continue
        kind = block["kind"].iloc[0]
        for column, published in zip(ELASTIC_TABLE_COLUMNS, ELASTIC_TABLES[name]):
            rows.append(
                reproduction_row(
                    PAPER,
                    "Tables 4-5" if kind == "ELA" else "Tables 2-3",
                    f"{trace} {name}",
                    column,
                    published,
                    block[OURS[column]].mean(),
                    trace=trace,
                    sample_size=len(block),
                    sample="runs (seeds x job sets)",
                )
            )
    for (trace, name), block in speedups.groupby(["trace", "run"], sort=False):
        if name in ELASTIC_SPEEDUP:
            rows.append(
                reproduction_row(
                    PAPER,
                    "Table 5",
                    f"{trace} {name}",
                    "speedup %",
                    ELASTIC_SPEEDUP[name],
                    100 * speedup(block),
                    trace=trace,
                    sample_size=len(block),
                    sample="runs (seeds x job sets)",
                )
            )
    return pd.DataFrame(rows, columns=REPRODUCTION_COLUMNS)


LAMBDA_LITTLE = 0.02  # "λ_s has little effect": the paired change of interactive W within ±0.02
EST_CLOSE = 0.02  # "EST ≈ ORA": the paired difference of interactive W within ±0.02
CLOSER_TOLERANCE = 0.75  # "about 4× (3×) closer to W = 1": at least 75 % of the paper's factor
CLOSEST = 1e-3  # the smallest distance 1 − W a ratio divides by
PREFERRED_TOLERANCE = 0.2  # "the preferred pool is 90 cores" (of 81): within 0.2 of that ratio to the rigid pool
UTILISATION_BAND = 0.1  # "≈ 0.5 elastic": within 0.1
FAIRNESS_CLOSE = 0.05  # "the fairness difference RL − NAT is about 0"
NOT_SCORED = "not scored"  # a claim the set-up decides: its numbers are shown, not judged
NON_DISCRIMINATING = "non-discriminating"  # a claim FCFS and EDF meet too
CLAIM_OUTCOMES = (*OUTCOMES, NOT_SCORED, NON_DISCRIMINATING)
CLAIM_COLUMNS = ["trace", "claim", "paper", "outcome", "numbers", "reason"]
SETTINGS = ("model", "lambda", "elastic")


def text(section: str, row: str, column: str) -> float:
    return ELASTIC_TEXT[(section, row, column)]


def spread(values, digits: int = 3, scale: float = 1.0) -> str:
    """mean [10th, 90th percentile] over the runs (seeds x job sets)."""
    values = np.asarray(values, dtype=float) * scale
    return mean_and_range(values.mean(), np.quantile(values, 0.1), np.quantile(values, 0.9), f".{digits}f")


@dataclass(frozen=True)
class Part:
    """One measured part of a claim: paired values (differences, ratios or a metric) over the (job
    set, seed) units, their mean and 95 % interval, and how it is shown."""

    label: str
    mean: float
    low: float
    high: float
    digits: int
    unit: str
    signed: bool  # a difference (shown with its sign) or a value
    units: int  # the paired units it rests on

    @classmethod
    def of(cls, label: str, values, digits: int = 3, scale: float = 1.0, unit: str = "", signed=True) -> Part:
        values = np.asarray(values, dtype=float) * scale
        return cls(label, *interval(values), digits, unit, signed, int(np.count_nonzero(~np.isnan(values))))

    def __str__(self) -> str:
        form = f"{'+' if self.signed else ''}.{self.digits}f"
        ends = f"{self.mean:{form}} [{self.low:{form}}, {self.high:{form}}]" if self.units else "none (no paired run)"
        return f"{self.label} {ends}{self.unit}"


def positive(part: Part) -> str:
    return above(part.low, part.high, 0.0)


def inside(lowest: float, highest: float):
    """The judge of a part that must lie in [lowest, highest]."""
    return lambda part: within(part.low, part.high, lowest, highest)


def judged(claim: str, paper: str, parts: list[Part], judge=positive, extra=(), unjudged: str = "") -> tuple:
    """A claim's row from its parts: each judged on its interval (`judge`), the claim combined from
    them; a claim that does not hold names its parts that do not. `unjudged` ("outcome: why")
    overrides the outcome for a claim the comparison cannot decide (NOT_SCORED, NON_DISCRIMINATING)."""
    outcomes = [judge(part) for part in parts]
    numbers = "; ".join([*(str(part) for part in parts), *extra])
    if unjudged:
        outcome, reason = unjudged.split(": ", 1)
        return claim, paper, outcome, numbers, reason
    outcome = combined(outcomes)
    reason = "" if outcome == HOLDS else "; ".join(f"{part}: {o}" for part, o in zip(parts, outcomes) if o != HOLDS)
    return claim, paper, outcome, numbers, reason


class Claims:
    """The runs of one trace, split as the claims need them: the paper's learner runs (rigid and
    elastic; the ablations of docs/elastic.md §4, §7, §8 left out), NAT, and the baselines."""

    def __init__(self, block: pd.DataFrame):
        learner = block["kind"].isin(["RIG", "ELA"])
        paper = (
            learner
            & (block["reward_utilisation"] == "interval")
            & (block["pre_training_pool"] == "explore")
            & (block["pool_request"] == "headroom")
        )
        self.rigid = block[paper & (block["kind"] == "RIG")]
        self.elastic = block[paper & (block["kind"] == "ELA")]
        self.nat = block[block["run"] == "NAT"]
        self.block = block

    def run(self, name: str) -> pd.DataFrame:
        return self.block[self.block["run"] == name]

    def pairs(self, rows: pd.DataFrame, differ: str, a, b) -> list[tuple[str, str]]:
        """Run names of `rows` that differ only in setting `differ` (a against b)."""
        names = rows.drop_duplicates("run").set_index("run")
        found = []
        for name, row in names[names[differ] == a].iterrows():
            same = np.logical_and.reduce([names[c] == row[c] for c in SETTINGS if c != differ])
            found += [(name, other) for other in names[(names[differ] == b) & same].index]
        return found


def differences(rows: pd.DataFrame, other: pd.DataFrame, metric: str, keys=("jobset",)) -> np.ndarray:
    """`metric` of `rows` minus `other`'s, paired on `keys` (a baseline run once per set: the set)."""
    keys = list(keys)
    both = rows[[*keys, metric]].merge(other[[*keys, metric]], on=keys, suffixes=("", "_other"))
    return (both[metric] - both[f"{metric}_other"]).to_numpy(dtype=float)


def learner_differences(found: Claims, a: str, b: str, metric: str) -> np.ndarray:
    """Run `a` minus run `b`, paired by job set and seed."""
    return differences(found.run(a), found.run(b), metric, ("jobset", "seed"))


def on_site_cores(found: Claims) -> bool:
    """The rigid runs used the site's own cores, on which NAT ran."""
    return bool((found.rigid["rigid_pool"] == found.rigid["site_pool"]).all())


def nat_comparison(found: Claims, claim: str, paper: str, parts: list[Part]) -> tuple:
    """A claim of RL against NAT: scored only on the same cores."""
    if on_site_cores(found):
        return judged(claim, paper, parts)
    pools = f"{found.rigid['rigid_pool'].iloc[0]} against the site's {found.rigid['site_pool'].iloc[0]}"
    return judged(
        claim,
        paper,
        parts,
        unjudged=f"{NOT_SCORED}: the rigid runs used the load-matched pool ({pools} cores NAT ran on): "
        "different machines",
    )


def rl_beats_nat(found: Claims):
    if found.nat.empty or found.rigid.empty:
        return None
    parts = [
        Part.of("W RL − NAT", differences(found.rigid, found.nat, "W_interactive_mean")),
        Part.of("delay NAT − RL", -differences(found.rigid, found.nat, "delay_interactive_mean"), 0, unit=" s"),
    ]
    (rl_w, *_, rl_delay, _), (nat_w, *_, nat_delay, _) = ELASTIC_TABLES["RIG-ORA-0.5"], ELASTIC_TABLES["NAT"]
    paper = f"W {rl_w:.3f} vs NAT {nat_w:.3f}; delay {rl_delay:.0f} vs {nat_delay:.0f} s"
    return nat_comparison(found, "RL beats NAT on interactive W and delay (rigid runs, the same cores)", paper, parts)


def share_above_nat(found: Claims):
    if found.nat.empty or found.rigid.empty:
        return None
    parts = [
        Part.of(f"{kind} P(W > 0.9) RL − NAT", differences(found.rigid, found.nat, f"W_{kind}_above_0.9"), 1, 100, " %")
        for kind in ("interactive", "batch")
    ]
    rl = (
        text("Section 5.2", "RIG", "P(W > 0.9) interactive %, at least"),
        text("Section 5.2", "RIG", "P(W > 0.9) batch %"),
    )
    nat = text("Section 5.2", "NAT", "P(W > 0.9) interactive %"), text("Section 5.2", "NAT", "P(W > 0.9) batch %")
    paper = f"interactive >= {rl[0]:.0f} % vs {nat[0]:.0f} %, batch {rl[1]:.0f} % vs {nat[1]:.0f} %"
    return nat_comparison(found, "more jobs with W > 0.9 with RL than NAT, both types (rigid runs)", paper, parts)


def quick_starts(found: Claims):
    if found.nat.empty or found.rigid.empty:
        return None
    parts = [Part.of("RL − NAT", differences(found.rigid, found.nat, "interactive_within_2_min"), 1, 100, " %")]
    rl_paper, nat_paper = (text("Section 5.2", row, "interactive wait < 2 min %") for row in ("RIG", "NAT"))
    claim = "more interactive waits under 2 minutes with RL than NAT (rigid runs)"
    return nat_comparison(found, claim, f"{rl_paper:.0f} % vs NAT {nat_paper:.0f} %", parts)


def beats_same_pool(found: Claims):
    baselines = [name for name in ("FCFS", "EDF") if name in set(found.block["run"])]
    if not baselines or found.rigid.empty:
        return None
    parts = []
    for name in baselines:
        other = found.run(name)
        parts += [
            Part.of(f"W RL − {name}", differences(found.rigid, other, "W_interactive_mean")),
            Part.of(f"delay {name} − RL", -differences(found.rigid, other, "delay_interactive_mean"), 0, unit=" s"),
        ]
    return judged(
        "RL beats FCFS and EDF on the same rigid pool, interactive W and delay (our ordering claim)",
        "RL beats NAT (Tables 2-3)",
        parts,
    )


def lambda_rigid(found: Claims):
    pairs = found.pairs(found.rigid, "lambda", 0.5, 1.0)
    if not pairs:
        return None
    parts = [Part.of(f"{a} − {b} W", learner_differences(found, a, b, "W_interactive_mean")) for a, b in pairs]
    published = [values[0] for name, values in ELASTIC_TABLES.items() if name.startswith("RIG")]
    return judged(
        f"λ_s has little effect (rigid runs): the change of interactive W within ±{LAMBDA_LITTLE}",
        f"W int. {min(published):.3f}-{max(published):.3f} over λ_s 0.5 and 1",
        parts,
        judge=inside(-LAMBDA_LITTLE, LAMBDA_LITTLE),
    )


def est_close(found: Claims):
    pairs = found.pairs(pd.concat([found.rigid, found.elastic]), "model", "EST", "ORA")
    if not pairs:
        return None
    parts = [Part.of(f"{a} − {b} W", learner_differences(found, a, b, "W_interactive_mean")) for a, b in pairs]
    return judged(
        f"EST ≈ ORA: interactive W within ±{EST_CLOSE}, rigid and elastic",
        "EST about as good as ORA (Tables 2-5)",
        parts,
        judge=inside(-EST_CLOSE, EST_CLOSE),
    )


def elastic_quick(found: Claims):
    if found.elastic.empty:
        return None
    late_limit = text("Section 5.3", "ELA", "interactive wait >= 2 min %, at most")
    above_limit = text("Section 5.3", "ELA", "P(W > 0.9) interactive %, at least")
    late = Part.of("interactive waits >= 2 min", 1 - found.elastic["interactive_within_2_min"], 1, 100, " %", False)
    share = Part.of("P(W > 0.9)", found.elastic["W_interactive_above_0.9"], 1, 100, " %", False)
    bounds = {late.label: (-np.inf, late_limit), share.label: (above_limit, np.inf)}
    return judged(
        "elastic runs: few interactive waits above 2 minutes, most W above 0.9",
        f"<= {late_limit:.0f} % of interactive waits >= 2 min, P(W > 0.9) >= {above_limit:.0f} %",
        [late, share],
        judge=lambda part: inside(*bounds[part.label])(part),
    )


def closer_to_one(found: Claims):
    pairs = found.pairs(pd.concat([found.rigid, found.elastic]), "elastic", True, False)
    if not pairs:
        return None
    parts, bounds = [], {}
    for kind in ("interactive", "batch"):
        metric = f"W_{kind}_mean"
        ratios = []
        for elastic, rigid in pairs:
            both = found.run(elastic).merge(found.run(rigid), on=["jobset", "seed"], suffixes=("", "_rigid"))
            # per pair, a distance below 0.001 counts as 0.001 (a run that delays no job is not infinitely better)
            ratios.append((1 - both[f"{metric}_rigid"]) / np.maximum(1 - both[metric], CLOSEST))
        part = Part.of(f"{kind} (1 − W) RIG / ELA", np.concatenate(ratios), 2, unit="×", signed=False)
        bounds[part.label] = CLOSER_TOLERANCE * text("Section 5.3", "ELA vs RIG", f"(1 - mean W) RIG / ELA {kind}")
        parts.append(part)
    interactive, batch = (
        text("Section 5.3", "ELA vs RIG", f"(1 - mean W) RIG / ELA {kind}") for kind in ("interactive", "batch")
    )
    return judged(
        f"elastic runs closer to W = 1 than rigid ones: at least {CLOSER_TOLERANCE:.0%} of the paper's factors",
        f"about {interactive:.0f}× (interactive), {batch:.0f}× (batch)",
        parts,
        judge=lambda part: inside(bounds[part.label], np.inf)(part),
    )


def speedup_claim(found: Claims, gains: pd.DataFrame):
    own = gains[gains["run"].isin(set(found.elastic["run"]))]
    if own.empty:
        return None
    smallest = min(ELASTIC_SPEEDUP.values())
    # 1 − mean ELA / mean RIG >= s  <=>  mean of (1 − s) RIG − ELA >= 0: a paired difference
    share = 1 - smallest / 100
    parts = [
        Part.of(f"{name} {share:.2f} × RIG − ELA delay", share * pairs["delay_rigid"] - pairs["delay"], 0, unit=" s")
        for name, pairs in own.groupby("run", sort=False)
    ]
    rigid = found.rigid["rigid_pool"].iloc[0] if len(found.rigid) else None
    extra = [f"{name} speedup {100 * speedup(pairs):.0f} %" for name, pairs in own.groupby("run", sort=False)]
    extra += [f"rigid pool {rigid}, elastic mean pool {spread(found.elastic['mean_pool'], 0)}"] if rigid else []
    return judged(
        f"elastic beats rigid on interactive delay by at least {smallest:.0f} % (1 − mean ELA / mean RIG)",
        ", ".join(f"{name} {value:.0f} %" for name, value in ELASTIC_SPEEDUP.items()),
        parts,
        extra=extra,
    )


def beats_own_mean_pool(found: Claims):
    same = found.block[found.block["matches"].isin(set(found.elastic["run"]))]
    if same.empty:
        return None
    parts, extra = [], []
    for policy in SAME_POOL:
        gains, cost = [], []
        for name, ours in found.elastic.groupby("run", sort=False):
            fixed = same[same["run"] == same_pool_name(policy, name)]
            gains.append(-differences(ours, fixed, "delay_interactive_mean", ("jobset", "seed")))
            both = ours.merge(fixed, on=["jobset", "seed"], suffixes=("", "_fixed"))
            cost.append(both["core_hours"] / both["core_hours_fixed"])
        gains = np.concatenate(gains)
        parts.append(Part.of(f"delay {policy} − RL", gains, 0, unit=" s"))
        extra.append(
            f"RL better than {policy} in {int((gains > 0).sum())} of {len(gains)} paired runs "
            f"(core-hours ×{np.concatenate(cost).mean():.2f})"
        )
    return judged(
        "elastic RL beats FCFS and EDF on a fixed pool of its own mean size (same cost) on interactive delay",
        "elastic beats rigid (Table 5); no same-cost baseline",
        parts,
        extra=extra,
    )


def lambda_delay(found: Claims):
    pairs = found.pairs(found.elastic, "lambda", 0.5, 1.0)
    if not pairs:
        return None
    parts = [
        Part.of(f"{a} − {b} delay", learner_differences(found, a, b, "delay_interactive_mean"), 0, unit=" s")
        for a, b in pairs
    ]
    ratio = text("Section 5.3", "ELA-ORA-1 vs ELA-ORA-0.5", "mean delay ratio")
    return judged(
        "λ_e = 1 (utilisation not weighed) has less interactive delay than λ_e = 0.5",
        f"λ 1 has {ratio:.1f}× less delay than λ 0.5 (ORA); less difference under EST",
        parts,
    )


def lambda_pool(found: Claims):
    """Utilisation weighed more (λ_e 0.1) holds a smaller pool at a higher U than λ_e 1 (paired by
    set and seed); the per-set means and seed majorities, and the level-encoded ablation, beside."""
    low, high = "ELA-EST-0.1", "ELA-EST-1"
    if found.run(low).empty or found.run(high).empty or low not in set(found.elastic["run"]):
        return None
    parts = [
        Part.of(f"pool {high} − {low}", learner_differences(found, high, low, "mean_pool"), 1, unit=" cores"),
        Part.of(f"U {low} − {high}", learner_differences(found, low, high, "utilisation")),
    ]
    both = found.run(low).merge(found.run(high), on=["jobset", "seed"], suffixes=("", "_high"))
    both = both.assign(
        learnt=(both["mean_pool"] < both["mean_pool_high"]) & (both["utilisation"] > both["utilisation_high"])
    )
    extra = [
        f"{jobset}: pool {rows['mean_pool'].mean():.1f} vs {rows['mean_pool_high'].mean():.1f}, U "
        f"{rows['utilisation'].mean():.2f} vs {rows['utilisation_high'].mean():.2f}, smaller pool and higher U in "
        f"{int(rows['learnt'].sum())} of {len(rows)} seeds"
        for jobset, rows in both.groupby("jobset", sort=False)
    ]
    level_low, level_high = (found.run(f"{name}-level") for name in (low, high))
    if len(level_low) and len(level_high):
        extra.append(
            f"with the level as input (ablation): pool {level_low['mean_pool'].mean():.1f} vs "
            f"{level_high['mean_pool'].mean():.1f}"
        )
    return judged(
        "utilisation weighed more gives a smaller pool and a higher U (λ_e 0.1 against 1)",
        "the reward trades W for U (Eq. 3); ELA-EST-0.5 nearly 100 % U early (Fig. 9)",
        parts,
        extra=extra,
    )


def preferred(found: Claims):
    if found.elastic.empty:
        return None
    target = text("Section 5.3", "ELA", "preferred pool cores") / text("Section 4.2", "LAL", "cores")
    ratio = found.elastic["preferred_pool"] / found.elastic["rigid_pool"]
    per_set = found.elastic.assign(ratio=ratio).groupby("jobset", sort=False)["ratio"].mean()
    return judged(
        "the preferred pool is a little above the rigid one",
        f"90 cores of 81 (ratio {target:.2f})",
        [Part.of("preferred pool / rigid pool", ratio, 2, signed=False)],
        judge=inside(target - PREFERRED_TOLERANCE, target + PREFERRED_TOLERANCE),
        extra=[", ".join(f"{jobset} {value:.2f}" for jobset, value in per_set.items())],
    )


def elastic_utilisation(found: Claims):
    if found.elastic.empty:
        return None
    target = text("Section 5.3", "ELA-EST", "asymptotic utilisation %") / 100
    return judged(
        f"elastic utilisation ≈ {target:.1f} (± {UTILISATION_BAND})",
        f"{target:.1f} (asymptotic)",
        [Part.of("elastic U", found.elastic["utilisation"], 2, signed=False)],
        judge=inside(target - UTILISATION_BAND, target + UTILISATION_BAND),
    )


def rigid_utilisation(found: Claims):
    if found.rigid.empty:
        return None
    target = text("Section 5.3", "RIG-EST", "steady utilisation %") / 100
    baselines = [
        f"{name} U {found.run(name)['utilisation'].mean():.2f}" for name in ("FCFS", "EDF") if len(found.run(name))
    ]
    return judged(
        f"rigid utilisation ≈ {target:.1f}",
        f"a steady {target:.1f}",
        [Part.of("rigid U", found.rigid["utilisation"], 2, signed=False)],
        extra=baselines,
        unjudged=f"{NOT_SCORED}: set by the set-up, not learnt: every job runs, so U = Σ p / (P · span) on a "
        f"rigid pool of {found.rigid['rigid_pool'].iloc[0]} cores whatever the order",
    )


def fairness_close(found: Claims):
    if found.nat.empty or found.rigid.empty:
        return None
    judge = inside(-FAIRNESS_CLOSE, FAIRNESS_CLOSE)
    ours = Part.of("F RL − NAT", differences(found.rigid, found.nat, "fairness_mean"))
    others = [
        Part.of(f"F {name} − NAT", differences(found.run(name), found.nat, "fairness_mean"))
        for name in ("FCFS", "EDF")
        if len(found.run(name))
    ]
    meet = len(others) == 2 and all(judge(part) == HOLDS for part in others)
    return judged(
        f"the fairness of RL and NAT differ by about 0 (rigid runs, ± {FAIRNESS_CLOSE})",
        "difference negligible (Fig. 6)",
        [ours],
        judge=judge,
        extra=[str(part) for part in others],
        unjudged=f"{NON_DISCRIMINATING}: FCFS and EDF meet it too" if meet and judge(ours) == HOLDS else "",
    )


CHECKS = (
    rl_beats_nat,
    share_above_nat,
    quick_starts,
    beats_same_pool,
    lambda_rigid,
    est_close,
    elastic_quick,
    closer_to_one,
    speedup_claim,
    beats_own_mean_pool,
    lambda_delay,
    lambda_pool,
    preferred,
    elastic_utilisation,
    rigid_utilisation,
    fairness_close,
)
NEEDS_SPEEDUPS = (speedup_claim,)


def claims(runs: pd.DataFrame, speedups: pd.DataFrame) -> pd.DataFrame:
    """Every claim of the paper (its §5.2-5.3) on each trace, computed from the runs: its outcome on
    paired 95 % intervals over (job set, seed) (docs/elastic.md §12), the paper's numbers, ours, and
    when it does not hold, the parts that do not."""
    rows = []
    for trace, block in runs.groupby("trace", sort=False):
        found = Claims(block)
        gains = speedups[speedups["trace"] == trace]
        checks = [check(found, gains) if check in NEEDS_SPEEDUPS else check(found) for check in CHECKS]
        rows += [dict(zip(CLAIM_COLUMNS, (trace, *check))) for check in checks if check is not None]
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def batch_over_interactive_line(found: Claims) -> list[str]:
    """How often a rigid scheduler started a batch job while an interactive one waited."""
    rows = [("rigid RL", found.rigid)] + [(name, found.run(name)) for name in ("FCFS", "EDF")]
    shown = [f"{name} {spread(part['batch_over_interactive'], 0, 100)} %" for name, part in rows if len(part)]
    if found.rigid.empty:
        return []
    return [
        "",
        "Decisions that started a batch job while an interactive one waited, of the decisions made while one "
        "waited (rigid pool): " + ", ".join(shown) + ".",
    ]


TABLE_COLUMNS = {  # summary column -> heading of the report's table
    "W_interactive_mean": "W int.",
    "W_batch_mean": "W batch",
    "W_interactive_above_0.9": "P(W>0.9) int.",
    "W_batch_above_0.9": "P(W>0.9) batch",
    "delay_interactive_mean": "int. delay (s)",
    "interactive_within_2_min": "int. < 2 min",
    "fairness_mean": "F",
    "utilisation": "U",
    "mean_pool": "pool",
}


def _cell(row, metric: str) -> str:
    """mean ± std [p10, p90] where the spread exists, else the mean."""
    mean = row.get(f"{metric}_mean")
    if mean is None or pd.isna(mean):
        return "-"
    digits = 0 if metric.startswith(("delay", "mean_pool")) else 3
    text = f"{mean:.{digits}f}"
    std = row.get(f"{metric}_std")
    if row["runs"] > 1 and std is not None and not pd.isna(std):
        text += f" ± {std:.{digits}f} [{row[f'{metric}_p10']:.{digits}f}, {row[f'{metric}_p90']:.{digits}f}]"
    return text


def summary_markdown(summary: pd.DataFrame) -> str:
    """One trace's runs: each metric's mean ± std [p10, p90] over seeds and job sets."""
    shown = [metric for metric in TABLE_COLUMNS if f"{metric}_mean" in summary]
    rows = [[row["run"], str(row["runs"]), *(_cell(row, m) for m in shown)] for row in summary.to_dict("records")]
    columns = ["run", "runs", *(TABLE_COLUMNS[metric] for metric in shown)]
    return markdown_table(pd.DataFrame(rows, columns=columns), "lr" + "r" * len(shown))


SET_COLUMNS = {  # set statistic -> heading of the job-set table, with LAL's value
    "online_jobs": ("online jobs", "9,500"),
    "monitoring_jobs_removed": ("monitoring jobs removed", "removed (count not given)"),
    "interactive_share": ("interactive share", f"{PAPER_INTERACTIVE_SHARE:.2f}"),
    "interactive_median_s": ("int. median (s)", f"{ELASTIC_TABLE1['interactive'][2]:.0f}"),
    "batch_median_s": ("batch median (s)", f"{ELASTIC_TABLE1['batch'][2]:.0f}"),
    "largest_vo_share": ("largest VO share", f"{PAPER_TOP_SHARE:.2f}"),
    "load_pool": ("P_load", f"{text('Section 4.2', 'LAL', 'cores'):.0f} × 0.56 load (its site)"),
    "site_pool": ("site cores", f"{text('Section 4.2', 'LAL', 'cores'):.0f}"),
    "paper_distance": ("distance", "0"),
}


def job_set_markdown(sets: pd.DataFrame) -> str:
    """One trace's job sets beside LAL's workload (Table 1, Section 4.2)."""
    rows = [["LAL (the paper)", *(paper for _, paper in SET_COLUMNS.values())]]
    for row in sets.to_dict("records"):
        cells = [
            f"{row[c]:,.0f}"
            if c in ("online_jobs", "monitoring_jobs_removed", "load_pool", "site_pool") or c.endswith("_s")
            else f"{row[c]:.2f}"
            for c in SET_COLUMNS
        ]
        rows.append([row["jobset"], *cells])
    columns = ["job set", *(heading for heading, _ in SET_COLUMNS.values())]
    return markdown_table(pd.DataFrame(rows, columns=columns), "l" + "r" * len(SET_COLUMNS))


def ablation_line(runs: pd.DataFrame) -> list[str]:
    """The ablation runs (Eq. 3 as printed, a rigid pre-training pool, the level as the pool request's
    input) beside the paper's learner of the same model and λ: mean pool and interactive delay."""
    learners = runs[runs["kind"] == "ELA"]
    variant = (
        (learners["reward_utilisation"] != "interval")
        | (learners["pre_training_pool"] != "explore")
        | (learners["pool_request"] != "headroom")
    )
    if not variant.any():
        return []
    paper = learners[~variant]
    parts = []
    for name, rows in learners[variant].groupby("run", sort=False):
        same = paper[(paper["model"] == rows["model"].iloc[0]) & (paper["lambda"] == rows["lambda"].iloc[0])]
        reference = (
            f" against {same['run'].iloc[0]} pool {spread(same['mean_pool'], 0)}, "
            f"delay {same['delay_interactive_mean'].mean():.0f} s"
            if len(same)
            else ""
        )
        parts.append(
            f"{name} pool {spread(rows['mean_pool'], 0)}, "
            f"delay {rows['delay_interactive_mean'].mean():.0f} s{reference}"
        )
    return ["", "Ablations of the elastic learner (docs/elastic.md §4, §7, §8): " + "; ".join(parts) + "."]


def claims_markdown(checked: pd.DataFrame) -> str:
    """The claims `checked` (`claims`) with their outcomes."""
    headings = ["trace", "claim", "the paper", "outcome", "our numbers", "why it does not hold"]
    return markdown_table(checked[CLAIM_COLUMNS].set_axis(headings, axis="columns"), "lllc")


def elastic_markdown(
    runs: pd.DataFrame,
    speedups: pd.DataFrame,
    summary: pd.DataFrame,
    sources: dict,
    sets: pd.DataFrame,
    checked: pd.DataFrame,
) -> str:
    """The section: per trace its job sets beside the paper's workload, the summary of every run,
    the speedups against Table 5, the ablations, and the claims `checked` (`claims`)."""
    lines = [
        "## Responsive scheduling and elastic provisioning (SARSA + ESN, seed 003)",
        "",
        "Serial grid jobs of several virtual organisations, scheduled by SARSA with an echo-state-network "
        "Q-function on a rigid pool (RIG) or with the pool size chosen too (ELA), with actual (ORA) or "
        "estimated (EST) execution times (docs/elastic.md). The paper's workload (LAL, 2006) is not public; "
        "LPC-EGEE is a site of the same grid and era, UniLu-Gaia the replication, and lal-81 a model shaped like "
        "LAL's log (its Table 1, its VO shares, load 0.56 on 81 cores, bursts; docs/elastic.md §14), the "
        "controlled test. Absolute values are not comparable (other workloads): compare orderings and ratios. "
        "The rigid runs use the site's own cores (NAT's machine) unless the configuration says otherwise (each "
        "trace's pools are given below); the elastic levels are built on the load-matched pool. "
        "Each cell: mean ± standard deviation [10th, 90th percentile] over seeds and job sets; W is the "
        "responsiveness p / (p + wait), F the fairness at election, U the final utilisation, pool the "
        "time-average pool; first and last 500 online jobs left out. The elastic runs are compared with the "
        "rigid pool and, at the same cost, with FCFS and EDF on a fixed pool of each run's own mean size.",
    ]
    for trace, block in summary.groupby("trace", sort=False):
        own = runs[runs["trace"] == trace]
        lines += [
            "",
            f"### {trace}",
            "",
            f"{own['jobset'].nunique()} job set(s) ({', '.join(dict.fromkeys(own['jobset']))}), "
            f"{own['seed'].nunique()} seed(s), rigid pool "
            f"{', '.join(str(pool) for pool in dict.fromkeys(own['rigid_pool']))} "
            f"(the site's {', '.join(str(pool) for pool in dict.fromkeys(own['site_pool']))} cores), "
            f"elastic levels from the load-matched pool "
            f"{', '.join(str(pool) for pool in dict.fromkeys(own['load_pool']))}; "
            f"VOs from {sources.get(trace, 'the trace')}.",
        ]
        own_sets = sets[sets["trace"] == trace]
        if len(own_sets):
            lines += [
                "",
                "The online jobs of each set beside LAL's (distance: |interactive share − 0.47| + |largest VO "
                "share − 0.53|, the ranking of `simcore elastic-sets`):",
                "",
                job_set_markdown(own_sets),
            ]
        lines += ["", summary_markdown(block)]
        gains = speedups[speedups["trace"] == trace]
        if len(gains):
            mean = gains.groupby("run", sort=False)[gains.columns].apply(speedup) * 100
            lines += [
                "",
                "Speedup of the elastic runs over the rigid ones (1 − mean interactive delay ELA / mean RIG, same "
                "model and λ, over the paired job sets and seeds, as Table 5 from Tables 3 and 5's means): "
                + ", ".join(
                    f"{name} {value:.0f} %"
                    + (f" (paper {ELASTIC_SPEEDUP[name]:.0f} %)" if name in ELASTIC_SPEEDUP else "")
                    for name, value in mean.items()
                )
                + ".",
            ]
        lines += ablation_line(own)
        lines += batch_over_interactive_line(Claims(own))
    lines += [
        "",
        "### The paper's claims",
        "",
        "Each computed from the runs above (the paper's learner: the ablations left out). Each part is a mean "
        "over paired (job set, seed) units with its 95 % Student interval; a part *holds* when its whole "
        "interval is on the claim's side, *fails* when none of it is, and is *undetermined* otherwise. A claim "
        "the set-up decides is *not scored*; one that FCFS and EDF meet as well is *non-discriminating*.",
        "",
        claims_markdown(checked),
    ]
    return "\n".join(lines + [""])
