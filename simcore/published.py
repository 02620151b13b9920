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
