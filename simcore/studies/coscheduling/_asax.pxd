# The ASAX learner (the co-scheduling paper's section 5; docs/coscheduling.md)
# for the co-scheduling event loop (_sharing.pyx): four experts (CPU, MEM,
# TYPE, PHASE), each a decision tree whose leaf is a distribution over the
# sharing levels, mixed by Hedge weights. All inline, like the engine's
# _fairshare.pxd; the event loop computes the state the experts read (Hp, the
# phase, the metrics) and the losses, and keeps the logs.
#
# Its lifecycle: asax_init (with the run), the learner's state set or read as
# a mapping (the carried learner of the paper's queue: a Learner converts to
# and from {"alpha": [...], "risk": [...], "round": r}), asax_free.

from libc.math cimport INFINITY, exp, floor, log, sqrt
from libc.stdlib cimport free, malloc

cdef enum:
    N_EXPERTS = 4
    LEVELS_LIMIT = 64


# One learner: the experts' weights, their risks since the last round, the round.
cdef struct Learner:
    double alpha[N_EXPERTS]
    double risk[N_EXPERTS]
    double round


cdef struct Asax:
    Learner shared
    Learner* per_donor              # scope per-donor: one learner per job, else NULL
    int levels
    bint learn                      # off: a frozen learner keeps its rounds, not its updates
    double leaf[4][LEVELS_LIMIT]    # leaf distribution per f* in {0, .25, .5, .75}
    # suggested quota f* as a multiple of 1/4, at [expert][Hp bin][metric bin]
    # (section 5.4; TYPE has two bins, its third column is unused)
    int quarters[N_EXPERTS * 9]


cdef inline void learner_reset(Learner* learner) noexcept nogil:
    cdef int i
    for i in range(N_EXPERTS):
        learner.alpha[i] = 1.0 / N_EXPERTS
        learner.risk[i] = 0.0
    learner.round = 1.0


cdef inline bint asax_init(Asax* asax, int levels, Py_ssize_t per_donor, bint learn) noexcept nogil:
    """Fresh learners (per_donor > 0: that many more, one per job) over `levels`
    sharing levels; False: out of memory (free with asax_free)."""
    cdef int s, k, k_star, neighbours, others
    cdef Py_ssize_t j
    cdef int[N_EXPERTS * 9] quarters = [1, 0, 0, 2, 1, 0, 3, 2, 1,    # CPU: low / mid / high
                                        1, 0, 0, 2, 1, 0, 3, 2, 1,    # MEM
                                        1, 0, 0, 2, 1, 0, 3, 2, 0,    # TYPE: sequential / parallel
                                        0, 0, 0, 1, 1, 2, 2, 2, 3]    # PHASE: early / middle / late
    asax.levels = levels
    asax.learn = learn
    for k in range(N_EXPERTS * 9):
        asax.quarters[k] = quarters[k]
    # each leaf puts 0.6 on its level, 0.3 on its neighbours, 0.1 on the others (section 5.4)
    for s in range(4):
        k_star = <int> floor(0.25 * s * levels + 1e-9)
        if k_star > levels - 1:
            k_star = levels - 1
        neighbours = (k_star > 0) + (k_star < levels - 1)
        others = levels - 1 - neighbours
        for k in range(levels):
            if k == k_star:
                asax.leaf[s][k] = 0.6
            elif k == k_star - 1 or k == k_star + 1:
                asax.leaf[s][k] = 0.3 / neighbours
            else:
                asax.leaf[s][k] = 0.1 / others
    learner_reset(&asax.shared)
    asax.per_donor = NULL
    if per_donor > 0:
        asax.per_donor = <Learner*> malloc(per_donor * sizeof(Learner))
        if asax.per_donor == NULL:
            return False
        for j in range(per_donor):
            learner_reset(&asax.per_donor[j])
    return True


cdef inline void asax_free(Asax* asax) noexcept nogil:
    free(asax.per_donor)
    asax.per_donor = NULL


cdef inline Learner* asax_learner(Asax* asax, Py_ssize_t donor) noexcept nogil:
    """The learner that decides for `donor`'s cases."""
    return &asax.per_donor[donor] if asax.per_donor != NULL else &asax.shared


cdef inline int metric_bin(double value) noexcept nogil:
    if value < 0.25:
        return 0
    return 1 if value <= 0.75 else 2


cdef inline void asax_leaves(const Asax* asax, int hp, int phase_bin, double cpu, double memory,
                             bint parallel, int* leaf) noexcept nogil:
    """Each expert's leaf (an index into asax.leaf) for a donor in Hp bin hp and
    phase bin phase_bin, with CPU use `cpu`, memory share `memory`."""
    leaf[0] = asax.quarters[hp * 3 + metric_bin(cpu)]
    leaf[1] = asax.quarters[9 + hp * 3 + metric_bin(memory)]
    leaf[2] = asax.quarters[18 + hp * 3 + parallel]
    leaf[3] = asax.quarters[27 + hp * 3 + phase_bin]


cdef inline int asax_draw(const Asax* asax, const Learner* learner, const int* leaf,
                          const unsigned char* admissible, double draw) noexcept nogil:
    """The level drawn (`draw` uniform in [0, 1)) from the learner's mixture over
    the admissible levels."""
    cdef int i, k, chosen = 0
    cdef double mixture, total = 0.0, cumulative = 0.0
    cdef double kept[LEVELS_LIMIT]
    for k in range(asax.levels):
        mixture = 0.0
        for i in range(N_EXPERTS):
            mixture += learner.alpha[i] * asax.leaf[leaf[i]][k]
        kept[k] = mixture if admissible[k] else 0.0
        total += kept[k]
    for k in range(asax.levels):
        if admissible[k]:
            chosen = k
            cumulative += kept[k]
            if draw * total < cumulative:
                break
    return chosen


cdef inline double asax_probabilities(const Asax* asax, const Learner* learner, const int* leaf,
                                      int chosen, double* probabilities) noexcept nogil:
    """Each expert's probability of level `chosen` (unrenormalised) into
    `probabilities`; returns the mixture's."""
    cdef int i
    cdef double mixture = 0.0
    for i in range(N_EXPERTS):
        probabilities[i] = asax.leaf[leaf[i]][chosen]
        mixture += learner.alpha[i] * probabilities[i]
    return mixture


cdef inline bint asax_charge(const Asax* asax, Learner* learner, const double* probabilities,
                             double loss) noexcept nogil:
    """A case's loss charged to the experts (section 5.5): their risks, and a
    Hedge round once one risk passes 1. True when a round closed."""
    cdef int i
    cdef double gamma, norm, worst = -INFINITY
    for i in range(N_EXPERTS):
        learner.risk[i] += probabilities[i] * loss
        if learner.risk[i] > worst:
            worst = learner.risk[i]
    if worst <= 1.0:
        return False
    gamma = sqrt(2.0 * log(<double> N_EXPERTS) / learner.round)
    norm = 0.0
    for i in range(N_EXPERTS):
        if asax.learn:
            learner.alpha[i] = learner.alpha[i] * exp(-gamma * learner.risk[i])
        norm += learner.alpha[i]
    for i in range(N_EXPERTS):
        learner.alpha[i] = learner.alpha[i] / norm
        learner.risk[i] = 0.0
    learner.round += 1.0
    return True
