"""Published numbers the campaign regenerates (docs/references.md cites the papers).

The numbers are data: one CSV per paper in resources/published/ of the
repository (resources/published/README.md cites each paper), one published
value a line, with the columns paper, table, row, column, value, conditions.
This module reads them at import and rebuilds the constants the studies
import (BANDIT_TABLE2, PREDICTION_TABLE1, THESIS_TABLE33, ...). Every row must
be used by exactly one constant, and every constant's cell must have a row;
anything else, or a malformed file, raises a ValueError naming the file and
line. Labels, column orders and name mappings are not published numbers and
stay code below.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

# The package is always used from a checkout: <repository>/simcore/reporting/published.py.
PUBLISHED_DIR = Path(__file__).resolve().parents[2] / "resources" / "published"
# <key>.csv, key = the rows' `paper`
PAPERS = ("bandit-2017", "prediction-sc15", "thesis-2019", "asax-2024", "elastic-2009", "rlscheduler-2020")
CSV_COLUMNS = ("paper", "table", "row", "column", "value", "conditions")

# Tables whose values are whole numbers (ints, as the papers print them); the
# others are floats. Cells whose value is text, not a number: (paper, table, column).
_INTEGER_TABLES = {("bandit-2017", "Table 2"), ("bandit-2017", "Table 3")}
_TEXT_CELLS = {("thesis-2019", "Table 3.2", "function")}
_INTEGER = re.compile(r"[+-]?\d+")
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


class PublishedCells:
    """One paper's CSV: its values by (table, row, column), each to be taken once."""

    def __init__(self, path: Path, paper: str):
        self.path = Path(path)
        self.paper = paper
        self._values: dict[tuple[str, str, str], object] = {}
        self._lines: dict[tuple[str, str, str], int] = {}
        self._taken: set[tuple[str, str, str]] = set()
        self._read()

    def _error(self, line: int | None, problem: str) -> ValueError:
        return ValueError(f"{self.path}: {'' if line is None else f'line {line}: '}{problem}")

    def _read(self) -> None:
        if not self.path.is_file():
            raise FileNotFoundError(
                f"{self.path}: published numbers file missing (simcore reads resources/published/"
                f"{self.paper}.csv from its repository checkout)"
            )
        with open(self.path, newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            if header is None:
                raise self._error(1, f"empty file, expected the header {','.join(CSV_COLUMNS)}")
            if tuple(header) != CSV_COLUMNS:
                missing = [c for c in CSV_COLUMNS if c not in header]
                unexpected = [c for c in header if c not in CSV_COLUMNS]
                raise self._error(
                    1,
                    f"header {','.join(header)} is not {','.join(CSV_COLUMNS)}"
                    + (f"; missing column(s) {', '.join(missing)}" if missing else "")
                    + (f"; unexpected column(s) {', '.join(unexpected)}" if unexpected else ""),
                )
            for fields in reader:
                line = reader.line_num
                if not fields:
                    continue  # a blank line
                if len(fields) != len(CSV_COLUMNS):
                    raise self._error(
                        line, f"{len(fields)} fields, expected {len(CSV_COLUMNS)} ({','.join(CSV_COLUMNS)})"
                    )
                paper, table, row, column, text, _conditions = fields
                if paper != self.paper:
                    raise self._error(line, f"paper {paper!r}, but this file holds {self.paper!r}")
                for name, field in (("table", table), ("row", row), ("column", column)):
                    if not field.strip():
                        raise self._error(line, f"empty {name}")
                key = (table, row, column)
                if key in self._lines:
                    raise self._error(
                        line, f"duplicate of line {self._lines[key]} (table {table!r}, row {row!r}, column {column!r})"
                    )
                self._values[key] = self._parse(line, key, text)
                self._lines[key] = line

    def _parse(self, line: int, key: tuple[str, str, str], text: str):
        table, row, column = key
        where = f"table {table!r}, row {row!r}, column {column!r}"
        if (self.paper, table, column) in _TEXT_CELLS:
            if not text.strip():
                raise self._error(line, f"empty value ({where})")
            return text
        if (self.paper, table) in _INTEGER_TABLES:
            if not _INTEGER.fullmatch(text):
                raise self._error(line, f"value {text!r} is not a whole number ({where})")
            return int(text)
        if not _DECIMAL.fullmatch(text):
            raise self._error(line, f"value {text!r} is not a number ({where})")
        return float(text)

    def error_at(self, key: tuple[str, str, str], problem: str) -> ValueError:
        """A ValueError naming this file and the line of the cell `key`."""
        return self._error(self._lines.get(key), problem)

    def take(self, table: str, row: str, column: str):
        """The value of one cell, marked as used."""
        key = (table, row, column)
        if key not in self._values:
            raise self._error(
                None, f"no row for table {table!r}, row {row!r}, column {column!r} (needed by the published constants)"
            )
        if key in self._taken:
            raise self._error(self._lines[key], f"table {table!r}, row {row!r}, column {column!r} used twice")
        self._taken.add(key)
        return self._values[key]

    def rows(self, table: str) -> list[str]:
        """The table's row labels, in file order."""
        return list(dict.fromkeys(r for t, r, _ in self._values if t == table))

    def columns(self, table: str, row: str) -> list[str]:
        """The row's column labels, in file order."""
        return [c for t, r, c in self._values if (t, r) == (table, row)]

    def check_all_used(self) -> None:
        unused = [key for key in self._values if key not in self._taken]
        if unused:
            table, row, column = unused[0]
            raise self._error(
                self._lines[unused[0]],
                f"table {table!r}, row {row!r}, column {column!r} is not used by any published "
                f"constant ({len(unused)} unused row(s) in this file)",
            )


def _grid(cells: PublishedCells, table: str, columns) -> dict[str, tuple]:
    """{row: (value per column, in `columns` order)} for every row of `table`."""
    return {row: tuple(cells.take(table, row, column) for column in columns) for row in cells.rows(table)}


def _column(cells: PublishedCells, table: str, column: str) -> dict:
    return {row: cells.take(table, row, column) for row in cells.rows(table)}


# ---- Labels and orders (code, not published numbers) ----

# The bandit paper's Table 2 columns, under the paper's own labels, in its order.
BANDIT_TABLE2_LABELS = ("LCFS", "LPF", "SPF", "LQF", "SQF", "SEXP", "LEXP", "LRF", "SRF", "LAF", "SAF")

# The paper's simulator inverted three pairs of names (SEMANTICS §3): its
# label -> the order of docs/semantics.md §3 that it actually ran.
BANDIT_LABEL_TO_ORDER = {"LPF": "SPF", "SPF": "LPF", "LQF": "SQF", "SQF": "LQF", "LAF": "SAF", "SAF": "LAF"}


def bandit_order(label: str) -> str:
    return BANDIT_LABEL_TO_ORDER.get(label, label)


# The bandit paper's Table 3 columns and, within each, the periods (CSV column "<column> (<period>)").
BANDIT_TABLE3_COLUMNS = ("Random", "Full", "Noisy", "eps-greedy")
_BANDIT_TABLE3_PERIODS = ("week", "day")
# Our strategy names for each published column and period.
BANDIT_TABLE3_STRATEGIES = {"Random": "Random", "Full": "Full", "Noisy": "Noisy", "eps-greedy": "eps"}

# The running-time prediction paper (Gaussier et al., SC 2015): our trace name
# -> the paper's log name; its Metacentrum log is not in the PWA.
PREDICTION_TRACE_NAMES = {
    "KTH-SP2": "KTH-SP2",
    "CTC-SP2": "CTC-SP2",
    "SDSC-SP2": "SDSC-SP2",
    "SDSC-BLUE": "SDSC-BLUE",
    "CEA-Curie": "Curie",
}
# Table 1's columns: (EASY, EASY clairvoyant).
_PREDICTION_TABLE1_COLUMNS = ("EASY", "EASY-CLAIRVOYANT")
# Table 6's columns: clairvoyant EASY, clairvoyant EASY-SJBF, EASY, EASY++, then
# the best and worst learned triples with EASY and with EASY-SJBF (chosen in hindsight).
PREDICTION_TABLE6_COLUMNS = (
    "clairvoyant_easy",
    "clairvoyant_sjbf",
    "easy",
    "easy_plus_plus",
    "learned_easy_best",
    "learned_easy_worst",
    "learned_sjbf_best",
    "learned_sjbf_worst",
)
# Table 8's columns (seconds): MAE and mean E-Loss.
_PREDICTION_TABLE8_COLUMNS = ("MAE", "Mean E-Loss")
# Section 6.3.2: Pearson correlation between logs, (mean, min, max).
_PREDICTION_CORRELATION_COLUMNS = ("Pearson mean", "Pearson min", "Pearson max")

# The thesis's Table 3.3 columns; the thesis's WFP and UNI are our WFP3 and
# UNICEF. Its rows are "<experiment>, <setting>" (workload model "model-<m>" or trace).
THESIS_TABLE33_POLICIES = ("FCFS", "WFP3", "UNICEF", "SPF", "F4", "F3", "F2", "F1")

# The co-scheduling paper (ASA_X): its strategy labels -> ours, its cluster
# sizes and load labels (rows "<label> <cores> cores (<load>)"), and the columns
# of its Tables 3 and 2.
ASAX_STRATEGIES = {"Slurm": "SPACE", "Static": "STATIC", "ASA_X": "ASAX"}
ASAX_LOADS = {"8x": (8, 64), "4x": (4, 128), "2x": (2, 256)}
ASAX_TABLE3_COLUMNS = ("wait h", "CPU util %", "response h")
ASAX_TABLE2_COLUMNS = ("runtime %", "CPU util %", "mem util %")
# Table 2's per-workflow rows ("<label> <cores> cores (<load>) <workflow>"): the workflows under
# our names (the paper abbreviates Stats and Synth.) and, per strategy and size, the runtime and
# the relative standard deviation printed after it, then CPU and memory utilisation of allocated
# capacity with the standard deviation in points printed after each.
ASAX_WORKFLOWS = ("Montage", "BLAST", "Statistics", "Synthetic")
ASAX_TABLE2_WORKFLOW_COLUMNS = ("runtime h", "runtime sd %", "CPU util %", "CPU util sd", "mem util %", "mem util sd")

# The responsive elastic computing paper (Perez et al., GMAC'09): Table 1's columns (LAL workload,
# rows interactive and batch); the columns of ELASTIC_TABLES, one row per run (RIG-*, NAT, ELA-*),
# W from Tables 2 (rigid, NAT) and 4 (elastic), the interactive queuing delay from Tables 3 and 5.
ELASTIC_TABLE1_COLUMNS = ("jobs", "mean s", "median s", "std s")
_ELASTIC_W_COLUMNS = ("W interactive mean", "W interactive std", "W batch mean", "W batch std")
_ELASTIC_DELAY_COLUMNS = ("delay mean s", "delay std s")
ELASTIC_TABLE_COLUMNS = _ELASTIC_W_COLUMNS + _ELASTIC_DELAY_COLUMNS
# (W table, delay table) of the rigid runs with NAT, then of the elastic runs.
_ELASTIC_TABLE_PAIRS = (("Table 2", "Table 3"), ("Table 4", "Table 5"))
ELASTIC_VOS = 7  # Section 4.2's share vector: six VOs and the aggregation of the small ones
# The numbers of the text, keyed by their (section, row, column) in the CSV.
ELASTIC_TEXT_CELLS = (
    ("Section 4.2", "LAL", "cores"),
    ("Section 4.2", "LAL", "utilisation"),
    ("Section 4.2", "NAT", "fairness F"),
    ("Section 5.2", "RIG", "P(W > 0.9) interactive %, at least"),
    ("Section 5.2", "NAT", "P(W > 0.9) interactive %"),
    ("Section 5.2", "RIG", "P(W > 0.9) batch %"),
    ("Section 5.2", "NAT", "P(W > 0.9) batch %"),
    ("Section 5.2", "RIG vs NAT", "W interactive std reduction %"),
    ("Section 5.2", "RIG", "W plateau"),
    ("Section 5.2", "RIG", "interactive wait < 2 min %"),
    ("Section 5.2", "NAT", "interactive wait < 2 min %"),
    ("Section 5.3", "ELA vs RIG", "(1 - mean W) RIG / ELA interactive"),
    ("Section 5.3", "ELA vs RIG", "(1 - mean W) RIG / ELA batch"),
    ("Section 5.3", "ELA", "P(W > 0.9) interactive %, at least"),
    ("Section 5.3", "ELA", "plateau probability % min"),
    ("Section 5.3", "ELA", "plateau probability % max"),
    ("Section 5.3", "ELA", "W plateau"),
    ("Section 5.3", "ELA-EST-0.1", "W plateau"),
    ("Section 5.3", "ELA", "preferred pool cores"),
    ("Section 5.3", "ELA-EST", "asymptotic utilisation %"),
    ("Section 5.3", "RIG-EST", "steady utilisation %"),
    ("Section 5.3", "ELA", "interactive wait >= 2 min %, at most"),
    ("Section 5.3", "ELA-ORA-1 vs ELA-ORA-0.5", "mean delay ratio"),
)


RLSCHEDULER_METRICS = ("README, bounded slowdown", "README, utilisation")
RLSCHEDULER_COLUMNS = ("FCFS", "WFP3", "UNICEF", "SJF", "F1", "RL")


def load_published(directory: Path | str = PUBLISHED_DIR) -> dict[str, object]:
    """The published constants, by name, from `directory`/<paper>.csv."""
    directory = Path(directory)
    cells = {paper: PublishedCells(directory / f"{paper}.csv", paper) for paper in PAPERS}
    bandit, prediction, thesis, asax, elastic, rlscheduler = (cells[paper] for paper in PAPERS)

    def asax_table(table: str, columns) -> dict:
        """{(our strategy, load): values per column} of one of the ASA_X paper's tables."""
        return {
            (ASAX_STRATEGIES[label], load): tuple(
                asax.take(table, f"{label} {cores} cores ({load})", c) for c in columns
            )
            for label in ASAX_STRATEGIES
            for load, (_, cores) in ASAX_LOADS.items()
            if f"{label} {cores} cores ({load})" in asax.rows(table)
        }

    def elastic_runs(w_table: str, delay_table: str) -> dict:
        """{run: W columns of `w_table`, then the delay columns of `delay_table`} in `w_table`'s row order."""
        return {
            run: tuple(elastic.take(w_table, run, c) for c in _ELASTIC_W_COLUMNS)
            + tuple(elastic.take(delay_table, run, c) for c in _ELASTIC_DELAY_COLUMNS)
            for run in elastic.rows(w_table)
        }

    def table33_key(row: str) -> tuple[str, str]:
        parts = tuple(row.split(", "))
        if len(parts) != 2:
            raise thesis.error_at(
                ("Table 3.3", row, thesis.columns("Table 3.3", row)[0]),
                f"Table 3.3 row {row!r} is not '<experiment>, <setting>'",
            )
        return parts

    constants = {
        # Bandit paper, Table 2 (final version): change of cumulative wait against EASY-FCFS, %.
        "BANDIT_TABLE2": _grid(bandit, "Table 2", BANDIT_TABLE2_LABELS),
        # Table 3: selection strategies against EASY-FCFS, %, (week, day) periods.
        "BANDIT_TABLE3": {
            row: tuple(
                tuple(bandit.take("Table 3", row, f"{column} ({period})") for period in _BANDIT_TABLE3_PERIODS)
                for column in BANDIT_TABLE3_COLUMNS
            )
            for row in bandit.rows("Table 3")
        },
        # Prediction paper, AVEbsld with tau = 10 s on whole traces.
        "PREDICTION_TABLE1": _grid(prediction, "Table 1", _PREDICTION_TABLE1_COLUMNS),
        "PREDICTION_TABLE6": _grid(prediction, "Table 6", PREDICTION_TABLE6_COLUMNS),
        # Table 7: the cross-validated triple (selected with Metacentrum among the training logs).
        "PREDICTION_TABLE7_CV": _column(prediction, "Table 7", "C-V heuristic triple"),
        # Table 8 (the paper does not say on which log): MAE and mean E-Loss, seconds.
        "PREDICTION_TABLE8": _grid(prediction, "Table 8", _PREDICTION_TABLE8_COLUMNS),
        "PREDICTION_CORRELATION": tuple(
            prediction.take("Section 6.3.2", "all trace pairs", column) for column in _PREDICTION_CORRELATION_COLUMNS
        ),
        # Thesis chapter 4: share of premature jobs (request >= 100 x run) per trace in %
        # (Table 4.3) and, per policy, the ratio of the average slowdown of premature
        # jobs to that of standard jobs (Table 4.4); the headline: SAF improves
        # AVEbsld over FCFS by up to 83.4 % (best trace).
        "THESIS_TABLE43": _column(thesis, "Table 4.3", "premature jobs (%)"),
        "THESIS_TABLE44": {
            row: {column: thesis.take("Table 4.4", row, column) for column in thesis.columns("Table 4.4", row)}
            for row in thesis.rows("Table 4.4")
        },
        "THESIS_SAF_BEST_GAIN": thesis.take("Section 4.3", "best trace", "SAF AVEbsld gain over FCFS (%)"),
        # Thesis Table 3.2: the four best learned functions (r in seconds) and their MAE.
        "THESIS_TABLE32": tuple(
            (row, thesis.take("Table 3.2", row, "function"), thesis.take("Table 3.2", row, "MAE"))
            for row in thesis.rows("Table 3.2")
        ),
        # Thesis Table 3.3: median over 15-day sequences of the AVEbsld, per
        # (experiment, setting) and policy.
        "THESIS_TABLE33": {
            table33_key(row): tuple(thesis.take("Table 3.3", row, policy) for policy in THESIS_TABLE33_POLICIES)
            for row in thesis.rows("Table 3.3")
        },
        # ASA_X paper, Table 3: mean wait (h), CPU utilisation of allocated capacity (%),
        # mean response (h) per strategy and load; Table 2: averages against Slurm (% change).
        "ASAX_TABLE3": asax_table("Table 3", ASAX_TABLE3_COLUMNS),
        "ASAX_TABLE2": asax_table("Table 2", ASAX_TABLE2_COLUMNS),
        # Table 2 per workflow, every (strategy, load, workflow): values in ASAX_TABLE2_WORKFLOW_COLUMNS order.
        "ASAX_TABLE2_WORKFLOWS": {
            (ASAX_STRATEGIES[label], load, workflow): tuple(
                asax.take("Table 2 per workflow", f"{label} {cores} cores ({load}) {workflow}", column)
                for column in ASAX_TABLE2_WORKFLOW_COLUMNS
            )
            for label in ASAX_STRATEGIES
            for load, (_, cores) in ASAX_LOADS.items()
            for workflow in ASAX_WORKFLOWS
        },
        # Elastic computing paper (LAL trace), Table 1: per job type, jobs and execution time (s).
        "ELASTIC_TABLE1": _grid(elastic, "Table 1", ELASTIC_TABLE1_COLUMNS),
        # Tables 2-5: per run, W mean and std per type and the interactive queuing delay (s).
        "ELASTIC_TABLES": {run: values for pair in _ELASTIC_TABLE_PAIRS for run, values in elastic_runs(*pair).items()},
        # Table 5: speedup of each elastic run over the rigid run of the same model and λ, %.
        "ELASTIC_SPEEDUP": _column(elastic, "Table 5", "speedup %"),
        # Section 4.2: the VOs' target shares, in the paper's order (the last: the small VOs).
        "ELASTIC_SHARES": tuple(
            elastic.take("Section 4.2", "target shares", f"VO {k}") for k in range(1, ELASTIC_VOS + 1)
        ),
        # The numbers of the text (Sections 4.2, 5.2, 5.3), by (section, row, column).
        "ELASTIC_TEXT": {cell: elastic.take(*cell) for cell in ELASTIC_TEXT_CELLS},
        # RLScheduler's README: per (metric table, "trace, mode"), each policy's mean over its 10 sequences.
        "RLSCHEDULER_TABLES": {
            (table, row): {column: rlscheduler.take(table, row, column) for column in RLSCHEDULER_COLUMNS}
            for table in RLSCHEDULER_METRICS
            for row in rlscheduler.rows(table)
        },
    }
    for paper_cells in cells.values():
        paper_cells.check_all_used()
    return constants


_PUBLISHED = load_published()
BANDIT_TABLE2 = _PUBLISHED["BANDIT_TABLE2"]
BANDIT_TABLE3 = _PUBLISHED["BANDIT_TABLE3"]
PREDICTION_TABLE1 = _PUBLISHED["PREDICTION_TABLE1"]
PREDICTION_TABLE6 = _PUBLISHED["PREDICTION_TABLE6"]
PREDICTION_TABLE7_CV = _PUBLISHED["PREDICTION_TABLE7_CV"]
PREDICTION_TABLE8 = _PUBLISHED["PREDICTION_TABLE8"]
PREDICTION_CORRELATION = _PUBLISHED["PREDICTION_CORRELATION"]
THESIS_TABLE43 = _PUBLISHED["THESIS_TABLE43"]
THESIS_TABLE44 = _PUBLISHED["THESIS_TABLE44"]
THESIS_SAF_BEST_GAIN = _PUBLISHED["THESIS_SAF_BEST_GAIN"]
THESIS_TABLE32 = _PUBLISHED["THESIS_TABLE32"]
THESIS_TABLE33 = _PUBLISHED["THESIS_TABLE33"]
ASAX_TABLE3 = _PUBLISHED["ASAX_TABLE3"]
ASAX_TABLE2 = _PUBLISHED["ASAX_TABLE2"]
ASAX_TABLE2_WORKFLOWS = _PUBLISHED["ASAX_TABLE2_WORKFLOWS"]
ELASTIC_TABLE1 = _PUBLISHED["ELASTIC_TABLE1"]
ELASTIC_TABLES = _PUBLISHED["ELASTIC_TABLES"]
ELASTIC_SPEEDUP = _PUBLISHED["ELASTIC_SPEEDUP"]
ELASTIC_SHARES = _PUBLISHED["ELASTIC_SHARES"]
ELASTIC_TEXT = _PUBLISHED["ELASTIC_TEXT"]
RLSCHEDULER_TABLES = _PUBLISHED["RLSCHEDULER_TABLES"]

# The thesis's setup behind Tables 3.2 and 3.3 (chapter 3, sections 3.3-3.3.2): trial
# scores on m = 256 processors with 256,000 trials per tuple (|S| = 16, |Q| = 32),
# and "fifty dynamic scheduling experiments" of 15 days on each model.
THESIS_TABLE32_MACHINE_SIZE = 256
THESIS_TABLE32_TRIALS = 256_000
THESIS_TABLE33_MODEL_SEQUENCES = 50
THESIS_TABLE33_DAYS = 15
