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
