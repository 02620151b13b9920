"""The reproduction report when `only` skips the fixed-policy and bandit studies:
the other studies' sections and published-vs-ours rows, without the bandit
paper's tables (rule reproduction_sections; `simcore report` needs them)."""

from pathlib import Path

import pandas as pd

from simcore.cli_common import write_csv, write_text
from simcore.report import REPRODUCTION_COLUMNS

snakemake = globals()["snakemake"]  # set by Snakemake's script directive

header = "\n".join(
    [
        "# Reproduction report",
        "",
        "The bandit paper's studies (fixed policies, its Table 2, and online policy "
        "selection, its Table 3) did not run: `only` names none of their traces "
        f"({', '.join(snakemake.params.traces)}). The sections of the studies that ran "
        "follow.",
        "",
    ]
)
sections = [Path(path).read_text() for path in snakemake.input.sections]
rows = [pd.read_csv(path) for path in snakemake.input.section_rows]
write_csv(
    pd.concat(rows, ignore_index=True).reindex(columns=REPRODUCTION_COLUMNS),
    snakemake.output.reproduction_csv,
)
write_text(snakemake.output.reproduction_md, "\n".join([header, *sections]))
with open(snakemake.log[0], "w") as log:
    print(
        f"{snakemake.output.reproduction_md}: {len(sections)} sections, "
        f"{sum(len(frame) for frame in rows)} published values compared",
        file=log,
    )
