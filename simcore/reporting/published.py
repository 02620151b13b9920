"""Published numbers the campaign regenerates (../shared/docs/REPRODUCE.md)."""

# The bandit paper's Table 2 (final version): change of cumulative wait
# against EASY-FCFS, in %, under the paper's own column labels.
BANDIT_TABLE2_LABELS = ("LCFS", "LPF", "SPF", "LQF", "SQF", "SEXP", "LEXP", "LRF", "SRF", "LAF", "SAF")
BANDIT_TABLE2 = {
    "KTH-SP2": (-13, -16, +5, -16, +3, -8, -15, -8, -13, -12, +15),
    "CTC-SP2": (-40, -19, -14, -47, +15, -36, -19, -38, -12, -44, +22),
    "SDSC-SP2": (-8, -15, +4, -8, +4, -3, -15, -3, -10, -11, +18),
    "SDSC-BLUE": (-26, -29, 0, -29, +17, -17, -26, -15, -15, -32, +23),
    "ANL-Intrepid": (-25, -9, -3, -28, -2, -21, -24, -21, -10, -19, +5),
    "CEA-Curie": (-46, -23, -45, -57, -19, -51, -23, -57, -24, -40, -17),
    "UniLu-Gaia": (-58, -33, -10, -62, +16, -49, -27, -56, -16, -62, +20),
}

# The paper's simulator inverted three pairs of names (SEMANTICS §3): its
# label -> the order of SEMANTICS.md that it actually ran.
BANDIT_LABEL_TO_ORDER = {"LPF": "SPF", "SPF": "LPF", "LQF": "SQF", "SQF": "LQF", "LAF": "SAF", "SAF": "LAF"}


def bandit_order(label: str) -> str:
    return BANDIT_LABEL_TO_ORDER.get(label, label)


# The bandit paper's Table 3: selection strategies against EASY-FCFS, in %,
# (week, day) periods.
BANDIT_TABLE3_COLUMNS = ("Random", "Full", "Noisy", "eps-greedy")
BANDIT_TABLE3 = {
    "KTH-SP2": ((-6, -8), (-12, -11), (-12, -12), (-7, -10)),
    "CTC-SP2": ((-20, -23), (-44, -44), (-44, -44), (-26, -31)),
    "SDSC-SP2": ((-4, -7), (-13, -13), (-13, -13), (-5, -8)),
    "SDSC-BLUE": ((-12, -14), (-31, -31), (-30, -29), (-12, -17)),
    "ANL-Intrepid": ((-13, -20), (-22, -26), (-19, -24), (-13, -20)),
    "CEA-Curie": ((-35, -42), (-53, -47), (-53, -48), (-36, -46)),
    "UniLu-Gaia": ((-29, -31), (-59, -60), (-58, -58), (-33, -34)),
}
# Our strategy names for each published column and period.
BANDIT_TABLE3_STRATEGIES = {"Random": "Random", "Full": "Full", "Noisy": "Noisy", "eps-greedy": "eps"}

# The running-time prediction paper (Gaussier et al., SC 2015), AVEbsld with
# tau = 10 s on whole traces; its Metacentrum log is not in the PWA.
PREDICTION_TRACE_NAMES = {"KTH-SP2": "KTH-SP2", "CTC-SP2": "CTC-SP2", "SDSC-SP2": "SDSC-SP2",
                          "SDSC-BLUE": "SDSC-BLUE", "CEA-Curie": "Curie"}
# Table 1: (EASY, EASY clairvoyant).
PREDICTION_TABLE1 = {"KTH-SP2": (92.6, 71.7), "CTC-SP2": (49.6, 37.2), "SDSC-SP2": (87.9, 70.5),
                     "SDSC-BLUE": (36.5, 30.6), "CEA-Curie": (202.1, 69.9)}
# Table 6: clairvoyant EASY, clairvoyant EASY-SJBF, EASY, EASY++, then the best
# and worst learned triples with EASY and with EASY-SJBF (chosen in hindsight).
PREDICTION_TABLE6 = {
    "KTH-SP2": (71.7, 49.8, 92.6, 63.5, 62.6, 93.2, 51.4, 74.5),
    "CTC-SP2": (37.2, 17.6, 49.6, 85.8, 25.5, 163.5, 16.3, 134.7),
    "SDSC-SP2": (70.5, 56.8, 87.9, 79.4, 70.9, 102.3, 69.7, 194.8),
    "SDSC-BLUE": (30.6, 13.2, 36.5, 21.0, 16.5, 48.0, 12.6, 47.8),
    "CEA-Curie": (69.9, 12.1, 202.1, 193.5, 26.3, 9348.8, 24.3, 4010.0),
}
PREDICTION_TABLE6_COLUMNS = ("clairvoyant_easy", "clairvoyant_sjbf", "easy", "easy_plus_plus",
                             "learned_easy_best", "learned_easy_worst", "learned_sjbf_best",
                             "learned_sjbf_worst")
# Table 7: the cross-validated triple (selected with Metacentrum among the
# training logs, which we do not have).
PREDICTION_TABLE7_CV = {"KTH-SP2": 51.4, "CTC-SP2": 20.5, "SDSC-SP2": 75.0, "SDSC-BLUE": 34.7,
                        "CEA-Curie": 27.9}
# Table 8 (the paper does not say on which log): MAE and mean E-Loss, seconds.
PREDICTION_TABLE8 = {"AVE2": (5217.0, 10.2e8), "E-Loss learning": (6762.0, 2.35e5)}
# Section 6.3.2: Pearson correlation between logs, mean (min, max).
PREDICTION_CORRELATION = (0.26, 0.01, 0.80)

# The thesis's chapter 4 (seed 004): share of premature jobs (request >= 100 x
# run) per trace in % (Table 4.3), and the ratio of the average slowdown of
# premature jobs to that of standard jobs per policy (Table 4.4).
THESIS_TABLE43 = {"HPC2N": 17.4, "SDSC-BLUE": 30.2, "SDSC-SP2": 16.1, "CTC-SP2": 9.5, "KTH-SP2": 12.4}
THESIS_TABLE44 = {
    "FCFS": {"HPC2N": 17.84, "SDSC-BLUE": 3.59, "SDSC-SP2": 3.94, "CTC-SP2": 5.58, "KTH-SP2": 8.69},
    "SPF": {"HPC2N": 17.29, "SDSC-BLUE": 7.17, "SDSC-SP2": 4.36, "CTC-SP2": 5.04, "KTH-SP2": 12.09},
    "SQF": {"HPC2N": 14.02, "SDSC-BLUE": 2.96, "SDSC-SP2": 2.04, "CTC-SP2": 1.67, "KTH-SP2": 9.31},
    "SAF": {"HPC2N": 17.88, "SDSC-BLUE": 7.41, "SDSC-SP2": 3.79, "CTC-SP2": 2.61, "KTH-SP2": 11.41},
}
# The headline: SAF improves AVEbsld over FCFS by up to 83.4 % (best trace).
THESIS_SAF_BEST_GAIN = 83.4

# The thesis's Table 3.2: the four best learned functions (r in seconds) and their MAE.
THESIS_TABLE32 = (
    ("F1", "log10(p)·q + 8.70e2·log10(r)", 5.278e-3),
    ("F2", "sqrt(p)·q + 2.56e4·log10(r)", 5.317e-3),
    ("F3", "p·q + 6.86e6·log10(r)", 5.408e-3),
    ("F4", "p·sqrt(q) + 5.30e5·log10(r)", 5.482e-3),
)

# The thesis's Table 3.3: median over sequences of 15 days of the AVEbsld, per
# experiment (workload model "model-<m>" or trace, setting) and policy. The
# thesis's WFP and UNI are our WFP3 and UNICEF.
THESIS_TABLE33_POLICIES = ("FCFS", "WFP3", "UNICEF", "SPF", "F4", "F3", "F2", "F1")
THESIS_TABLE33 = {
    ("model-256", "actual"): (7830.58, 4018.25, 2717.84, 1222.67, 368.37, 151.53, 37.47, 42.88),
    ("model-256", "estimates"): (7830.58, 7505.74, 4265.58, 5841.89, 590.40, 306.68, 60.76, 50.67),
    ("model-256", "backfilling"): (1306.38, 1220.52, 508.95, 863.76, 122.72, 54.49, 42.91, 50.77),
    ("model-1024", "actual"): (6910.82, 5229.28, 3176.86, 2404.65, 514.43, 73.43, 21.41, 24.78),
    ("model-1024", "estimates"): (6910.82, 6564.50, 3790.40, 5220.45, 1146.34, 559.86, 123.10, 32.33),
    ("model-1024", "backfilling"): (1262.63, 1651.83, 1079.08, 1296.65, 377.99, 180.75, 44.70, 30.24),
    ("CEA-Curie", "actual"): (290.27, 206.57, 110.14, 139.58, 18.77, 8.21, 4.27, 6.57),
    ("ANL-Intrepid", "actual"): (40.93, 11.06, 5.83, 3.91, 2.12, 1.76, 2.07, 2.15),
    ("HPC2N", "actual"): (90.61, 22.20, 11.37, 12.16, 11.65, 15.40, 10.47, 12.12),
    ("SDSC-BLUE", "actual"): (370.22, 67.83, 29.53, 24.65, 20.03, 12.63, 4.41, 8.22),
    ("SDSC-SP2", "actual"): (629.60, 59.60, 25.84, 21.78, 29.14, 45.33, 15.58, 19.53),
    ("CTC-SP2", "actual"): (438.37, 309.72, 33.86, 90.24, 18.77, 15.21, 5.32, 9.13),
    ("CEA-Curie", "estimates"): (290.27, 258.17, 145.19, 218.77, 44.63, 12.15, 8.77, 9.86),
    ("ANL-Intrepid", "estimates"): (40.93, 18.33, 11.94, 9.17, 4.18, 3.29, 2.63, 2.74),
    ("HPC2N", "estimates"): (90.61, 62.24, 28.34, 46.67, 27.81, 20.08, 16.90, 19.83),
    ("SDSC-BLUE", "estimates"): (370.22, 136.11, 57.00, 46.82, 18.69, 9.66, 8.20, 11.52),
    ("SDSC-SP2", "estimates"): (629.60, 243.86, 91.57, 48.43, 40.21, 41.38, 30.04, 34.13),
    ("CTC-SP2", "estimates"): (438.37, 369.93, 104.98, 306.78, 21.76, 18.23, 13.46, 12.33),
    ("CEA-Curie", "backfilling"): (54.94, 49.23, 32.27, 35.72, 14.90, 9.57, 7.80, 9.81),
    ("ANL-Intrepid", "backfilling"): (9.66, 7.19, 4.39, 3.79, 3.59, 2.87, 2.65, 2.74),
    ("HPC2N", "backfilling"): (36.43, 28.08, 16.22, 16.26, 15.31, 15.26, 16.83, 20.46),
    ("SDSC-BLUE", "backfilling"): (36.40, 14.07, 11.08, 9.87, 8.11, 8.02, 8.52, 11.59),
    ("SDSC-SP2", "backfilling"): (66.38, 41.61, 32.66, 28.38, 26.68, 25.31, 23.26, 32.06),
    ("CTC-SP2", "backfilling"): (83.38, 54.32, 24.96, 14.40, 9.90, 11.07, 10.23, 12.88),
}
