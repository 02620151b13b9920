"""The published numbers are data (resources/published/*.csv) read by
simcore.reporting.published: the loaded constants are exactly those of the
code they replaced, every row is used, and bad data fails loudly."""

import csv
import shutil
from pathlib import Path

import pytest

from simcore.reporting import published
from simcore.reporting.published import (
    CSV_COLUMNS,
    PAPERS,
    PUBLISHED_DIR,
    load_published,
)

# A frozen copy of simcore/reporting/published.py at 4e0ccf1, when the numbers
# were Python constants (generated from that module with pprint; its reprs are exact).
EXPECTED = {
    "BANDIT_TABLE2_LABELS": ("LCFS", "LPF", "SPF", "LQF", "SQF", "SEXP", "LEXP", "LRF", "SRF", "LAF", "SAF"),
    "BANDIT_TABLE2": {
        "KTH-SP2": (-13, -16, 5, -16, 3, -8, -15, -8, -13, -12, 15),
        "CTC-SP2": (-40, -19, -14, -47, 15, -36, -19, -38, -12, -44, 22),
        "SDSC-SP2": (-8, -15, 4, -8, 4, -3, -15, -3, -10, -11, 18),
        "SDSC-BLUE": (-26, -29, 0, -29, 17, -17, -26, -15, -15, -32, 23),
        "ANL-Intrepid": (-25, -9, -3, -28, -2, -21, -24, -21, -10, -19, 5),
        "CEA-Curie": (-46, -23, -45, -57, -19, -51, -23, -57, -24, -40, -17),
        "UniLu-Gaia": (-58, -33, -10, -62, 16, -49, -27, -56, -16, -62, 20),
    },
    "BANDIT_LABEL_TO_ORDER": {"LPF": "SPF", "SPF": "LPF", "LQF": "SQF", "SQF": "LQF", "LAF": "SAF", "SAF": "LAF"},
    "BANDIT_TABLE3_COLUMNS": ("Random", "Full", "Noisy", "eps-greedy"),
    "BANDIT_TABLE3": {
        "KTH-SP2": ((-6, -8), (-12, -11), (-12, -12), (-7, -10)),
        "CTC-SP2": ((-20, -23), (-44, -44), (-44, -44), (-26, -31)),
        "SDSC-SP2": ((-4, -7), (-13, -13), (-13, -13), (-5, -8)),
        "SDSC-BLUE": ((-12, -14), (-31, -31), (-30, -29), (-12, -17)),
        "ANL-Intrepid": ((-13, -20), (-22, -26), (-19, -24), (-13, -20)),
        "CEA-Curie": ((-35, -42), (-53, -47), (-53, -48), (-36, -46)),
        "UniLu-Gaia": ((-29, -31), (-59, -60), (-58, -58), (-33, -34)),
    },
    "BANDIT_TABLE3_STRATEGIES": {"Random": "Random", "Full": "Full", "Noisy": "Noisy", "eps-greedy": "eps"},
    "PREDICTION_TRACE_NAMES": {
        "KTH-SP2": "KTH-SP2",
        "CTC-SP2": "CTC-SP2",
        "SDSC-SP2": "SDSC-SP2",
        "SDSC-BLUE": "SDSC-BLUE",
        "CEA-Curie": "Curie",
    },
    "PREDICTION_TABLE1": {
        "KTH-SP2": (92.6, 71.7),
        "CTC-SP2": (49.6, 37.2),
        "SDSC-SP2": (87.9, 70.5),
        "SDSC-BLUE": (36.5, 30.6),
        "CEA-Curie": (202.1, 69.9),
    },
    "PREDICTION_TABLE6": {
        "KTH-SP2": (71.7, 49.8, 92.6, 63.5, 62.6, 93.2, 51.4, 74.5),
        "CTC-SP2": (37.2, 17.6, 49.6, 85.8, 25.5, 163.5, 16.3, 134.7),
        "SDSC-SP2": (70.5, 56.8, 87.9, 79.4, 70.9, 102.3, 69.7, 194.8),
        "SDSC-BLUE": (30.6, 13.2, 36.5, 21.0, 16.5, 48.0, 12.6, 47.8),
        "CEA-Curie": (69.9, 12.1, 202.1, 193.5, 26.3, 9348.8, 24.3, 4010.0),
    },
    "PREDICTION_TABLE6_COLUMNS": (
        "clairvoyant_easy",
        "clairvoyant_sjbf",
        "easy",
        "easy_plus_plus",
        "learned_easy_best",
        "learned_easy_worst",
        "learned_sjbf_best",
        "learned_sjbf_worst",
    ),
    "PREDICTION_TABLE7_CV": {"KTH-SP2": 51.4, "CTC-SP2": 20.5, "SDSC-SP2": 75.0, "SDSC-BLUE": 34.7, "CEA-Curie": 27.9},
    "PREDICTION_TABLE8": {"AVE2": (5217.0, 1020000000.0), "E-Loss learning": (6762.0, 235000.0)},
    "PREDICTION_CORRELATION": (0.26, 0.01, 0.8),
    "THESIS_TABLE43": {"HPC2N": 17.4, "SDSC-BLUE": 30.2, "SDSC-SP2": 16.1, "CTC-SP2": 9.5, "KTH-SP2": 12.4},
    "THESIS_TABLE44": {
        "FCFS": {"HPC2N": 17.84, "SDSC-BLUE": 3.59, "SDSC-SP2": 3.94, "CTC-SP2": 5.58, "KTH-SP2": 8.69},
        "SPF": {"HPC2N": 17.29, "SDSC-BLUE": 7.17, "SDSC-SP2": 4.36, "CTC-SP2": 5.04, "KTH-SP2": 12.09},
        "SQF": {"HPC2N": 14.02, "SDSC-BLUE": 2.96, "SDSC-SP2": 2.04, "CTC-SP2": 1.67, "KTH-SP2": 9.31},
        "SAF": {"HPC2N": 17.88, "SDSC-BLUE": 7.41, "SDSC-SP2": 3.79, "CTC-SP2": 2.61, "KTH-SP2": 11.41},
    },
    "THESIS_SAF_BEST_GAIN": 83.4,
    "THESIS_TABLE32": (
        ("F1", "log10(p)·q + 8.70e2·log10(r)", 0.005278),
        ("F2", "sqrt(p)·q + 2.56e4·log10(r)", 0.005317),
        ("F3", "p·q + 6.86e6·log10(r)", 0.005408),
        ("F4", "p·sqrt(q) + 5.30e5·log10(r)", 0.005482),
    ),
    "THESIS_TABLE33_POLICIES": ("FCFS", "WFP3", "UNICEF", "SPF", "F4", "F3", "F2", "F1"),
    "THESIS_TABLE33": {
        ("model-256", "actual"): (7830.58, 4018.25, 2717.84, 1222.67, 368.37, 151.53, 37.47, 42.88),
        ("model-256", "estimates"): (7830.58, 7505.74, 4265.58, 5841.89, 590.4, 306.68, 60.76, 50.67),
        ("model-256", "backfilling"): (1306.38, 1220.52, 508.95, 863.76, 122.72, 54.49, 42.91, 50.77),
        ("model-1024", "actual"): (6910.82, 5229.28, 3176.86, 2404.65, 514.43, 73.43, 21.41, 24.78),
        ("model-1024", "estimates"): (6910.82, 6564.5, 3790.4, 5220.45, 1146.34, 559.86, 123.1, 32.33),
        ("model-1024", "backfilling"): (1262.63, 1651.83, 1079.08, 1296.65, 377.99, 180.75, 44.7, 30.24),
        ("CEA-Curie", "actual"): (290.27, 206.57, 110.14, 139.58, 18.77, 8.21, 4.27, 6.57),
        ("ANL-Intrepid", "actual"): (40.93, 11.06, 5.83, 3.91, 2.12, 1.76, 2.07, 2.15),
        ("HPC2N", "actual"): (90.61, 22.2, 11.37, 12.16, 11.65, 15.4, 10.47, 12.12),
        ("SDSC-BLUE", "actual"): (370.22, 67.83, 29.53, 24.65, 20.03, 12.63, 4.41, 8.22),
        ("SDSC-SP2", "actual"): (629.6, 59.6, 25.84, 21.78, 29.14, 45.33, 15.58, 19.53),
        ("CTC-SP2", "actual"): (438.37, 309.72, 33.86, 90.24, 18.77, 15.21, 5.32, 9.13),
        ("CEA-Curie", "estimates"): (290.27, 258.17, 145.19, 218.77, 44.63, 12.15, 8.77, 9.86),
        ("ANL-Intrepid", "estimates"): (40.93, 18.33, 11.94, 9.17, 4.18, 3.29, 2.63, 2.74),
        ("HPC2N", "estimates"): (90.61, 62.24, 28.34, 46.67, 27.81, 20.08, 16.9, 19.83),
        ("SDSC-BLUE", "estimates"): (370.22, 136.11, 57.0, 46.82, 18.69, 9.66, 8.2, 11.52),
        ("SDSC-SP2", "estimates"): (629.6, 243.86, 91.57, 48.43, 40.21, 41.38, 30.04, 34.13),
        ("CTC-SP2", "estimates"): (438.37, 369.93, 104.98, 306.78, 21.76, 18.23, 13.46, 12.33),
        ("CEA-Curie", "backfilling"): (54.94, 49.23, 32.27, 35.72, 14.9, 9.57, 7.8, 9.81),
        ("ANL-Intrepid", "backfilling"): (9.66, 7.19, 4.39, 3.79, 3.59, 2.87, 2.65, 2.74),
        ("HPC2N", "backfilling"): (36.43, 28.08, 16.22, 16.26, 15.31, 15.26, 16.83, 20.46),
        ("SDSC-BLUE", "backfilling"): (36.4, 14.07, 11.08, 9.87, 8.11, 8.02, 8.52, 11.59),
        ("SDSC-SP2", "backfilling"): (66.38, 41.61, 32.66, 28.38, 26.68, 25.31, 23.26, 32.06),
        ("CTC-SP2", "backfilling"): (83.38, 54.32, 24.96, 14.4, 9.9, 11.07, 10.23, 12.88),
    },
    # ASA_X paper (arXiv:2401.09706), Table 3: wait h, CPU util %, response h; Table 2: % against Slurm
    "ASAX_TABLE3": {
        ("SPACE", "8x"): (3.5, 53.0, 4.4),
        ("SPACE", "4x"): (1.5, 45.0, 2.4),
        ("SPACE", "2x"): (0.5, 32.0, 1.4),
        ("STATIC", "8x"): (1.7, 90.0, 4.8),
        ("STATIC", "4x"): (0.8, 92.0, 2.8),
        ("STATIC", "2x"): (0.3, 89.0, 2.0),
        ("ASAX", "8x"): (1.8, 82.0, 3.5),
        ("ASAX", "4x"): (1.0, 84.0, 2.0),
        ("ASAX", "2x"): (0.3, 83.0, 0.9),
    },
    "ASAX_TABLE2": {
        ("STATIC", "8x"): (10.0, 230.0, 0.0),
        ("STATIC", "4x"): (19.0, 5.0, 0.0),
        ("STATIC", "2x"): (10.0, 36.0, 0.0),
        ("ASAX", "8x"): (3.0, 227.0, 0.0),
        ("ASAX", "4x"): (9.0, 5.0, 0.0),
        ("ASAX", "2x"): (5.0, 50.0, 1.0),
    },
    # Table 2 per workflow, added as data (typed here from the seed text, the CSV separately):
    # runtime h, runtime sd %, CPU util %, CPU util sd, mem util %, mem util sd
    "ASAX_WORKFLOWS": ("Montage", "BLAST", "Statistics", "Synthetic"),
    "ASAX_TABLE2_WORKFLOW_COLUMNS": (
        "runtime h",
        "runtime sd %",
        "CPU util %",
        "CPU util sd",
        "mem util %",
        "mem util sd",
    ),
    "ASAX_TABLE2_WORKFLOWS": {
        ("SPACE", "8x", "Montage"): (0.35, 4.0, 45.0, 5.0, 10.0, 5.0),
        ("SPACE", "8x", "BLAST"): (0.71, 21.0, 96.0, 4.0, 44.0, 5.0),
        ("SPACE", "8x", "Statistics"): (0.69, 10.0, 26.0, 2.0, 5.0, 1.0),
        ("SPACE", "8x", "Synthetic"): (0.49, 15.0, 99.0, 1.0, 95.0, 3.0),
        ("SPACE", "4x", "Montage"): (0.32, 4.0, 33.0, 5.0, 7.0, 3.0),
        ("SPACE", "4x", "BLAST"): (0.72, 22.0, 95.0, 3.0, 45.0, 5.0),
        ("SPACE", "4x", "Statistics"): (0.7, 10.0, 16.0, 2.0, 1.0, 1.0),
        ("SPACE", "4x", "Synthetic"): (0.5, 15.0, 99.0, 1.0, 93.0, 4.0),
        ("SPACE", "2x", "Montage"): (0.29, 4.0, 21.0, 5.0, 5.0, 3.0),
        ("SPACE", "2x", "BLAST"): (0.7, 21.0, 91.0, 3.0, 42.0, 6.0),
        ("SPACE", "2x", "Statistics"): (0.72, 10.0, 10.0, 2.0, 1.0, 1.0),
        ("SPACE", "2x", "Synthetic"): (0.48, 14.0, 99.0, 1.0, 92.0, 2.0),
        ("STATIC", "8x", "Montage"): (0.38, 7.0, 94.0, 5.0, 10.0, 5.0),
        ("STATIC", "8x", "BLAST"): (0.82, 30.0, 99.0, 1.0, 44.0, 5.0),
        ("STATIC", "8x", "Statistics"): (0.77, 30.0, 51.0, 3.0, 6.0, 1.0),
        ("STATIC", "8x", "Synthetic"): (0.57, 21.0, 99.0, 1.0, 95.0, 1.0),
        ("STATIC", "4x", "Montage"): (0.35, 6.0, 73.0, 5.0, 7.0, 3.0),
        ("STATIC", "4x", "BLAST"): (0.79, 29.0, 99.0, 1.0, 44.0, 5.0),
        ("STATIC", "4x", "Statistics"): (0.76, 11.0, 36.0, 6.0, 2.0, 1.0),
        ("STATIC", "4x", "Synthetic"): (0.57, 21.0, 99.0, 1.0, 93.0, 3.0),
        ("STATIC", "2x", "Montage"): (0.32, 6.0, 55.0, 5.0, 5.0, 3.0),
        ("STATIC", "2x", "BLAST"): (0.8, 29.0, 99.0, 1.0, 43.0, 6.0),
        ("STATIC", "2x", "Statistics"): (0.76, 11.0, 26.0, 2.0, 1.0, 1.0),
        ("STATIC", "2x", "Synthetic"): (0.53, 19.0, 99.0, 1.0, 91.0, 2.0),
        ("ASAX", "8x", "Montage"): (0.35, 5.0, 95.0, 4.0, 10.0, 4.0),
        ("ASAX", "8x", "BLAST"): (0.75, 25.0, 99.0, 1.0, 44.0, 5.0),
        ("ASAX", "8x", "Statistics"): (0.73, 11.0, 61.0, 4.0, 5.0, 1.0),
        ("ASAX", "8x", "Synthetic"): (0.56, 18.0, 99.0, 1.0, 95.0, 1.0),
        ("ASAX", "4x", "Montage"): (0.33, 5.0, 75.0, 5.0, 7.0, 3.0),
        ("ASAX", "4x", "BLAST"): (0.73, 24.0, 99.0, 1.0, 44.0, 5.0),
        ("ASAX", "4x", "Statistics"): (0.72, 11.0, 43.0, 7.0, 1.0, 1.0),
        ("ASAX", "4x", "Synthetic"): (0.55, 18.0, 99.0, 1.0, 93.0, 4.0),
        ("ASAX", "2x", "Montage"): (0.3, 4.0, 51.0, 5.0, 5.0, 3.0),
        ("ASAX", "2x", "BLAST"): (0.76, 25.0, 99.0, 1.0, 43.0, 6.0),
        ("ASAX", "2x", "Statistics"): (0.73, 11.0, 86.0, 6.0, 1.0, 1.0),
        ("ASAX", "2x", "Synthetic"): (0.52, 17.0, 99.0, 1.0, 93.0, 1.0),
    },
    # Responsive elastic computing (Perez et al., GMAC'09), added as data (never code): Table 1 (LAL
    # workload), Tables 2-5 per run (W interactive mean/std, W batch mean/std, interactive delay
    # mean/std in s), Table 5's speedups (%), Section 4.2's shares and the text's numbers.
    "ELASTIC_TABLE1_COLUMNS": ("jobs", "mean s", "median s", "std s"),
    "ELASTIC_TABLE1": {"interactive": (4480.0, 160.0, 190.0, 108.0), "batch": (5020.0, 34927.0, 15615.0, 78755.0)},
    "ELASTIC_TABLE_COLUMNS": (
        "W interactive mean",
        "W interactive std",
        "W batch mean",
        "W batch std",
        "delay mean s",
        "delay std s",
    ),
    "ELASTIC_TABLES": {
        "RIG-ORA-0.5": (0.866, 0.314, 0.892, 0.228, 1096.0, 5137.0),
        "RIG-ORA-1": (0.869, 0.308, 0.893, 0.226, 862.0, 3505.0),
        "RIG-EST-0.5": (0.864, 0.319, 0.894, 0.223, 1087.0, 4838.0),
        "RIG-EST-1": (0.867, 0.311, 0.899, 0.216, 1152.0, 5417.0),
        "NAT": (0.628, 0.418, 0.83, 0.265, 2756.0, 8844.0),
        "ELA-ORA-0.5": (0.965, 0.177, 0.966, 0.116, 606.0, 4245.0),
        "ELA-ORA-1": (0.971, 0.16, 0.966, 0.121, 236.0, 2200.0),
        "ELA-EST-0.5": (0.958, 0.184, 0.96, 0.123, 458.0, 3771.0),
        "ELA-EST-1": (0.968, 0.167, 0.968, 0.113, 414.0, 3584.0),
    },
    "ELASTIC_SPEEDUP": {"ELA-ORA-0.5": 45.0, "ELA-ORA-1": 73.0, "ELA-EST-0.5": 58.0, "ELA-EST-1": 64.0},
    "ELASTIC_SHARES": (0.53, 0.02, 0.17, 0.08, 0.01, 0.16, 0.03),
    "ELASTIC_TEXT": {
        ("Section 4.2", "LAL", "cores"): 81.0,
        ("Section 4.2", "LAL", "utilisation"): 0.56,
        ("Section 4.2", "NAT", "fairness F"): 0.7,
        ("Section 5.2", "RIG", "P(W > 0.9) interactive %, at least"): 82.0,
        ("Section 5.2", "NAT", "P(W > 0.9) interactive %"): 53.0,
        ("Section 5.2", "RIG", "P(W > 0.9) batch %"): 77.0,
        ("Section 5.2", "NAT", "P(W > 0.9) batch %"): 64.0,
        ("Section 5.2", "RIG vs NAT", "W interactive std reduction %"): 25.0,
        ("Section 5.2", "RIG", "W plateau"): 0.98,
        ("Section 5.2", "RIG", "interactive wait < 2 min %"): 86.0,
        ("Section 5.2", "NAT", "interactive wait < 2 min %"): 63.0,
        ("Section 5.3", "ELA vs RIG", "(1 - mean W) RIG / ELA interactive"): 4.0,
        ("Section 5.3", "ELA vs RIG", "(1 - mean W) RIG / ELA batch"): 3.0,
        ("Section 5.3", "ELA", "P(W > 0.9) interactive %, at least"): 94.0,
        ("Section 5.3", "ELA", "plateau probability % min"): 94.0,
        ("Section 5.3", "ELA", "plateau probability % max"): 96.0,
        ("Section 5.3", "ELA", "W plateau"): 0.98,
        ("Section 5.3", "ELA-EST-0.1", "W plateau"): 0.93,
        ("Section 5.3", "ELA", "preferred pool cores"): 90.0,
        ("Section 5.3", "ELA-EST", "asymptotic utilisation %"): 50.0,
        ("Section 5.3", "RIG-EST", "steady utilisation %"): 70.0,
        ("Section 5.3", "ELA", "interactive wait >= 2 min %, at most"): 5.0,
        ("Section 5.3", "ELA-ORA-1 vs ELA-ORA-0.5", "mean delay ratio"): 2.5,
    },
    # RLScheduler's README (FCFS, WFP3, UNICEF, SJF, F1, RL), written out by hand from it
    "RLSCHEDULER_TABLES": {
        ("README, bounded slowdown", "Lublin-1, without backfilling"): {
            "FCFS": 7273.77,
            "WFP3": 19753.53,
            "UNICEF": 22274.74,
            "SJF": 277.35,
            "F1": 258.37,
            "RL": 254.67,
        },
        ("README, bounded slowdown", "SDSC-SP2, without backfilling"): {
            "FCFS": 1727.54,
            "WFP3": 3000.88,
            "UNICEF": 1848.45,
            "SJF": 2680.55,
            "F1": 1232.06,
            "RL": 466.44,
        },
        ("README, bounded slowdown", "HPC2N, without backfilling"): {
            "FCFS": 297.18,
            "WFP3": 426.99,
            "UNICEF": 609.77,
            "SJF": 157.71,
            "F1": 118.01,
            "RL": 117.01,
        },
        ("README, bounded slowdown", "Lublin-2, without backfilling"): {
            "FCFS": 7842.47,
            "WFP3": 9523.18,
            "UNICEF": 11265.31,
            "SJF": 787.89,
            "F1": 698.34,
            "RL": 724.51,
        },
        ("README, bounded slowdown", "Lublin-1, with backfilling"): {
            "FCFS": 235.82,
            "WFP3": 133.87,
            "UNICEF": 307.23,
            "SJF": 73.31,
            "F1": 75.07,
            "RL": 58.64,
        },
        ("README, bounded slowdown", "SDSC-SP2, with backfilling"): {
            "FCFS": 1595.12,
            "WFP3": 1083.12,
            "UNICEF": 548.01,
            "SJF": 2167.84,
            "F1": 1098.22,
            "RL": 397.82,
        },
        ("README, bounded slowdown", "HPC2N, with backfilling"): {
            "FCFS": 127.38,
            "WFP3": 97.39,
            "UNICEF": 175.12,
            "SJF": 122.04,
            "F1": 71.95,
            "RL": 86.14,
        },
        ("README, bounded slowdown", "Lublin-2, with backfilling"): {
            "FCFS": 247.61,
            "WFP3": 318.35,
            "UNICEF": 379.59,
            "SJF": 91.99,
            "F1": 148.25,
            "RL": 118.79,
        },
        ("README, utilisation", "Lublin-1, without backfilling"): {
            "FCFS": 0.657,
            "WFP3": 0.747,
            "UNICEF": 0.691,
            "SJF": 0.762,
            "F1": 0.816,
            "RL": 0.714,
        },
        ("README, utilisation", "SDSC-SP2, without backfilling"): {
            "FCFS": 0.67,
            "WFP3": 0.658,
            "UNICEF": 0.688,
            "SJF": 0.645,
            "F1": 0.674,
            "RL": 0.671,
        },
        ("README, utilisation", "HPC2N, without backfilling"): {
            "FCFS": 0.638,
            "WFP3": 0.636,
            "UNICEF": 0.636,
            "SJF": 0.64,
            "F1": 0.637,
            "RL": 0.64,
        },
        ("README, utilisation", "Lublin-2, without backfilling"): {
            "FCFS": 0.404,
            "WFP3": 0.543,
            "UNICEF": 0.51,
            "SJF": 0.562,
            "F1": 0.478,
            "RL": 0.562,
        },
        ("README, utilisation", "Lublin-1, with backfilling"): {
            "FCFS": 0.868,
            "WFP3": 0.864,
            "UNICEF": 0.883,
            "SJF": 0.778,
            "F1": 0.84,
            "RL": 0.85,
        },
        ("README, utilisation", "SDSC-SP2, with backfilling"): {
            "FCFS": 0.682,
            "WFP3": 0.681,
            "UNICEF": 0.706,
            "SJF": 0.661,
            "F1": 0.677,
            "RL": 0.707,
        },
        ("README, utilisation", "HPC2N, with backfilling"): {
            "FCFS": 0.639,
            "WFP3": 0.637,
            "UNICEF": 0.638,
            "SJF": 0.641,
            "F1": 0.638,
            "RL": 0.642,
        },
        ("README, utilisation", "Lublin-2, with backfilling"): {
            "FCFS": 0.587,
            "WFP3": 0.583,
            "UNICEF": 0.587,
            "SJF": 0.593,
            "F1": 0.552,
            "RL": 0.593,
        },
    },
}

# The constants that come from the CSVs (the others are labels and orders, code).
FROM_DATA = (
    "BANDIT_TABLE2",
    "BANDIT_TABLE3",
    "PREDICTION_TABLE1",
    "PREDICTION_TABLE6",
    "PREDICTION_TABLE7_CV",
    "PREDICTION_TABLE8",
    "PREDICTION_CORRELATION",
    "THESIS_TABLE43",
    "THESIS_TABLE44",
    "THESIS_SAF_BEST_GAIN",
    "THESIS_TABLE32",
    "THESIS_TABLE33",
    "ASAX_TABLE3",
    "ASAX_TABLE2",
    "ASAX_TABLE2_WORKFLOWS",
    "ELASTIC_TABLE1",
    "ELASTIC_TABLES",
    "ELASTIC_SPEEDUP",
    "ELASTIC_SHARES",
    "ELASTIC_TEXT",
    "RLSCHEDULER_TABLES",
)


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def write_rows(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_loaded_constants_are_exactly_the_former_code(name):
    # repr equality: same values bit for bit, same types (int vs float, tuple vs list), same order
    assert repr(getattr(published, name)) == repr(EXPECTED[name])
    assert getattr(published, name) == EXPECTED[name]


def test_loading_again_gives_the_same_constants():
    assert repr(load_published()) == repr({name: EXPECTED[name] for name in FROM_DATA})
    assert published.bandit_order("LPF") == "SPF" and published.bandit_order("LCFS") == "LCFS"


def test_one_file_per_paper_with_the_expected_columns_and_exact_value_text():
    """Each file is resources/published/<paper>.csv with exactly the six columns, every
    row's paper is the file's key, and every number is written as the repr of its value
    (so the text in the file is the value read, bit for bit)."""
    assert PUBLISHED_DIR == Path(published.__file__).resolve().parents[2] / "resources" / "published"
    assert sorted(path.stem for path in PUBLISHED_DIR.glob("*.csv")) == sorted(PAPERS)
    assert (PUBLISHED_DIR / "README.md").is_file()
    for paper in PAPERS:
        header, *rows = read_rows(PUBLISHED_DIR / f"{paper}.csv")
        assert tuple(header) == CSV_COLUMNS
        for paper_key, table, _, column, text, conditions in rows:
            assert paper_key == paper and conditions.strip()
            if (paper, table, column) in published._TEXT_CELLS:
                continue
            value = int(text) if (paper, table) in published._INTEGER_TABLES else float(text)
            assert repr(value) == text, (paper, table, text)


def count_cells(value) -> int:
    """Published values in a constant: its numbers (dict keys are labels, not values)."""
    if isinstance(value, dict):
        return sum(count_cells(v) for v in value.values())
    if isinstance(value, tuple):
        return sum(count_cells(v) for v in value)
    return int(isinstance(value, (int, float)))


def test_every_row_of_every_file_is_used_by_a_constant():
    rows = sum(len(read_rows(PUBLISHED_DIR / f"{paper}.csv")) - 1 for paper in PAPERS)
    numbers = sum(count_cells(EXPECTED[name]) for name in FROM_DATA)
    formulas = len(EXPECTED["THESIS_TABLE32"])  # Table 3.2's functions: text cells
    # 45: the ASA_X paper's Tables 3 and 2; 216: its Table 2 per workflow, 3 strategies x 3 sizes x
    # 4 workflows x 6 columns; 96: the elastic paper's Tables 1 to 5 (66), its shares (7) and the numbers
    # of its text (23); 96: RLScheduler's README, two metrics x 8 rows x 6 policies
    assert rows == numbers + formulas == 421 + 45 + 216 + 96 + 96


@pytest.fixture
def data(tmp_path):
    """A copy of resources/published/ to spoil."""
    for paper in PAPERS:
        shutil.copy(PUBLISHED_DIR / f"{paper}.csv", tmp_path)
    return tmp_path


def spoil(directory, paper, change):
    """Rewrite <paper>.csv with change(rows) (rows[0] is the header, rows[i] is line i + 1)."""
    path = directory / f"{paper}.csv"
    rows = read_rows(path)
    change(rows)
    write_rows(path, rows)
    return path


def set_cell(line, field, text):
    def change(rows):
        rows[line - 1][CSV_COLUMNS.index(field)] = text

    return change


def test_a_copy_of_the_files_loads_from_a_given_directory(data):
    assert repr(load_published(data)) == repr(load_published())


@pytest.mark.parametrize(
    "paper, change, problem",
    [
        (
            "bandit-2017",
            lambda rows: [row.pop(5) for row in rows],
            r"line 1: header paper,table,row,column,value is not .*; missing column\(s\) conditions",
        ),
        (
            "prediction-sc15",
            lambda rows: rows[0].__setitem__(4, "published"),
            r"line 1: .*missing column\(s\) value; unexpected column\(s\) published",
        ),
        (
            "bandit-2017",
            set_cell(2, "value", "n/a"),
            r"line 2: value 'n/a' is not a whole number \(table 'Table 2', row 'KTH-SP2', column 'LCFS'\)",
        ),
        ("bandit-2017", set_cell(3, "value", "-16.0"), r"line 3: value '-16.0' is not a whole number"),
        (
            "prediction-sc15",
            set_cell(4, "value", "49.6 %"),
            r"line 4: value '49.6 %' is not a number \(table 'Table 1', row 'CTC-SP2', column 'EASY'\)",
        ),
        ("thesis-2019", set_cell(3, "value", ""), r"line 3: value '' is not a number"),
        ("thesis-2019", lambda rows: rows.append(list(rows[5])), r"line 228: duplicate of line 6 \(table 'Table 3.2'"),
        (
            "prediction-sc15",
            lambda rows: rows.append(["prediction-sc15", "Table 1", "Metacentrum", "EASY", "97.6", "x"]),
            r"prediction-sc15.csv: no row for table 'Table 1', row 'Metacentrum', column 'EASY-CLAIRVOYANT'",
        ),
        (
            "prediction-sc15",
            lambda rows: rows.append(["prediction-sc15", "Table 4", "KTH-SP2", "jobs", "28476", "x"]),
            r"line 64: table 'Table 4', row 'KTH-SP2', column 'jobs' is not used by any published constant",
        ),
        (
            "bandit-2017",
            lambda rows: rows.append(["bandit-2017", "Table 2", "KTH-SP2", "LFP", "1", "typo"]),
            r"line 135: table 'Table 2', row 'KTH-SP2', column 'LFP' is not used by any published constant",
        ),
        (
            "bandit-2017",
            lambda rows: rows.pop(5),
            r"bandit-2017.csv: no row for table 'Table 2', row 'KTH-SP2', column 'SQF'",
        ),
        (
            "asax-2024",
            lambda rows: rows.pop(),
            r"asax-2024.csv: no row for table 'Table 2 per workflow', row 'ASA_X 256 cores \(2x\) Synthetic', "
            r"column 'mem util sd'",
        ),
        ("thesis-2019", set_cell(2, "paper", "thesis"), r"line 2: paper 'thesis', but this file holds 'thesis-2019'"),
        ("thesis-2019", lambda rows: rows[2].append("extra"), r"line 3: 7 fields, expected 6"),
        (
            "thesis-2019",
            lambda rows: [row.__setitem__(2, "model-256 actual") for row in rows if row[2] == "model-256, actual"],
            r"line \d+: Table 3.3 row 'model-256 actual' is not '<experiment>, <setting>'",
        ),
    ],
)
def test_bad_data_is_a_value_error_naming_file_line_and_problem(data, paper, change, problem):
    path = spoil(data, paper, change)
    with pytest.raises(ValueError, match=problem) as error:
        load_published(data)
    assert str(error.value).startswith(f"{path}: ")


def test_a_missing_file_is_named(data):
    (data / "prediction-sc15.csv").unlink()
    with pytest.raises(FileNotFoundError, match="prediction-sc15.csv: published numbers file missing"):
        load_published(data)


def test_asax_table2_per_workflow_rows_name_the_paper_and_its_odd_cells():
    """Every (strategy, size, workflow) has its six cells; the paper's abbreviations and the cells
    it prints oddly ("+30%" without the ±, two outliers) say so in `conditions`."""
    header, *rows = read_rows(PUBLISHED_DIR / "asax-2024.csv")
    per_workflow = [dict(zip(header, row)) for row in rows if row[1] == "Table 2 per workflow"]
    assert len(per_workflow) == len(published.ASAX_TABLE2_WORKFLOWS) * 6 == 216
    conditions = {(row["row"], row["column"]): row["conditions"] for row in per_workflow}
    assert "printed '+30%' without the ±, read as ±30%" in conditions[("Static 64 cores (8x) BLAST", "runtime sd %")]
    assert "as printed" in conditions[("Static 64 cores (8x) Statistics", "runtime sd %")]
    assert "as printed" in conditions[("ASA_X 256 cores (2x) Statistics", "CPU util %")]
    for ours, printed in (("Statistics", "'Stats'"), ("Synthetic", "'Synth.'")):
        abbreviated = [text for (row, _), text in conditions.items() if row.endswith(ours)]
        assert len(abbreviated) == 54 and all(f"{printed} (the paper's abbreviation" in text for text in abbreviated)
