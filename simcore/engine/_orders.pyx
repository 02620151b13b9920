# cython: language_level=3, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""Queue orders (SEMANTICS §3): key functions and their registry.

To add an order: write its key function below and add one register_order line
at the end of this file (or see _orders.pxd for an order in its own file).
Keys are ascending; ties go to the workload position, which is the (r_j, job
id) order; a NaN key counts as +inf. A key that depends on t must be marked
dynamic so that the queue is re-sorted at every pass; it may also promise how
it ranks the jobs of one class (equal estimate and processors, _orders.pxd),
which spares passes without backfilling the re-sort. `params` is the
simulation's priority function (FUNCTION_PARAMS doubles), read only by the
parametric order FUNCTION.
"""

from libc.math cimport fmax, isfinite, log2, log10, sqrt

cdef double key_fcfs(double t, double r, double e, double q,
                     const double* params) noexcept nogil:
    return r

cdef double key_lcfs(double t, double r, double e, double q,
                     const double* params) noexcept nogil:
    return -r

cdef double key_spf(double t, double r, double e, double q,
                    const double* params) noexcept nogil:
    return e

cdef double key_lpf(double t, double r, double e, double q,
                    const double* params) noexcept nogil:
    return -e

cdef double key_sqf(double t, double r, double e, double q,
                    const double* params) noexcept nogil:
    return q

cdef double key_lqf(double t, double r, double e, double q,
                    const double* params) noexcept nogil:
    return -q

cdef double key_sexp(double t, double r, double e, double q,
                     const double* params) noexcept nogil:
    return ((t - r) + e) / e

cdef double key_lexp(double t, double r, double e, double q,
                     const double* params) noexcept nogil:
    return -(((t - r) + e) / e)

cdef double key_srf(double t, double r, double e, double q,
                    const double* params) noexcept nogil:
    return e / q

cdef double key_lrf(double t, double r, double e, double q,
                    const double* params) noexcept nogil:
    return -(e / q)

cdef double key_saf(double t, double r, double e, double q,
                    const double* params) noexcept nogil:
    return e * q

cdef double key_laf(double t, double r, double e, double q,
                    const double* params) noexcept nogil:
    return -(e * q)


# The thesis's hand-engineered orders (its Table 3.1, after Tang et al.); w = t - r.
cdef double key_wfp3(double t, double r, double e, double q,
                     const double* params) noexcept nogil:
    cdef double ratio = (t - r) / e
    return -(ratio * ratio * ratio) * q

cdef double key_unicef(double t, double r, double e, double q,
                       const double* params) noexcept nogil:
    # log2(1) = 0 would divide by zero: a 1-processor job counts as 2
    return -(t - r) / (log2(fmax(q, 2.0)) * e)


# The family of learned scheduling functions (the thesis's chapter 3):
# (θ1 φ1(e)) op1 (θ2 φ2(q)) op2 (θ3 φ3(r)), × and ÷ before +; e, q, r are
# floored at 1 first so that log10 and 1/x stay finite.
cdef inline double phi(int code, double x) noexcept nogil:
    x = fmax(x, 1.0)
    if code == 0:
        return x
    if code == 1:
        return sqrt(x)
    if code == 2:
        return log10(x)
    return 1.0 / x

cdef inline double combine(double a, double b, int op) noexcept nogil:
    if op == 0:
        return a + b
    if op == 1:
        return a * b
    return a / b

cdef double key_function(double t, double r, double e, double q,
                         const double* params) noexcept nogil:
    cdef double a = params[5] * phi(<int> params[0], e)
    cdef double b = params[6] * phi(<int> params[1], q)
    cdef double c = params[7] * phi(<int> params[2], r)
    cdef int op1 = <int> params[3], op2 = <int> params[4]
    if op1 == 0 and op2 != 0:
        return a + combine(b, c, op2)
    return combine(combine(a, b, op1), c, op2)


# The registry: position = order code. Adding an order is one more line here.
cdef enum:
    MAX_ORDERS = 32

cdef key_fn_t ORDER_KEY[MAX_ORDERS]
cdef bint ORDER_DYNAMIC[MAX_ORDERS]
cdef int ORDER_CLASS_RANK[MAX_ORDERS]
ORDER_NAMES = []
ORDER_MEANINGS = {}
ORDER_CLASS_RANKS = {}      # name: class rank (_orders.pxd), for the tests


cdef int register_order(str name, key_fn_t key, bint dynamic, str meaning,
                        int class_rank=CLASS_RANK_UNKNOWN) except -1:
    cdef int code = len(ORDER_NAMES)
    assert code < MAX_ORDERS, "raise MAX_ORDERS to register more queue orders"
    if not CLASS_RANK_NEWEST_FIRST <= class_rank <= CLASS_RANK_OLDEST_FIRST:
        raise ValueError(f"order {name}: class rank {class_rank} is not -1, 0 or 1")
    ORDER_KEY[code] = key
    ORDER_DYNAMIC[code] = dynamic
    ORDER_CLASS_RANK[code] = class_rank if dynamic else CLASS_RANK_UNKNOWN
    ORDER_NAMES.append(name)
    ORDER_MEANINGS[name] = meaning
    ORDER_CLASS_RANKS[name] = ORDER_CLASS_RANK[code]
    return 0


cdef int order_entry(int code, key_fn_t* key, bint* dynamic, int* class_rank) except -1:
    if not 0 <= code < len(ORDER_NAMES):
        raise ValueError(f"unknown queue order code {code}")
    key[0] = ORDER_KEY[code]
    dynamic[0] = ORDER_DYNAMIC[code]
    class_rank[0] = ORDER_CLASS_RANK[code]
    return 0


cdef int check_order(int code, str what) except -1:
    if not 0 <= code < len(ORDER_NAMES):
        raise ValueError(f"{what} code {code} is not a queue order: "
                         f"allowed are 0 to {len(ORDER_NAMES) - 1} ({', '.join(ORDER_NAMES)})")
    return 0


cdef int check_function(list params, bint needed) except -1:
    """A FUNCTION order (`needed`) needs the priority function's FUNCTION_PARAMS
    numbers: φ codes in [0, 3], op codes in [0, 2] (phi, combine), θ finite."""
    if params is None:
        if needed:
            raise ValueError("the order FUNCTION needs a priority function's parameters")
        return 0
    if len(params) != FUNCTION_PARAMS:
        raise ValueError(f"a priority function has {FUNCTION_PARAMS} "
                         f"parameters, got {len(params)}")
    for k, top in enumerate((3, 3, 3, 2, 2)):
        if params[k] not in range(top + 1):
            raise ValueError(f"priority function parameter {k} is {params[k]}, "
                             f"a code in 0 to {top}")
    for k in range(5, FUNCTION_PARAMS):
        if not isfinite(params[k]):
            raise ValueError(f"priority function coefficient {k - 4} is {params[k]}, "
                             "not a finite number")
    return 0


register_order("FCFS", key_fcfs, False, "first come first served")
register_order("LCFS", key_lcfs, False, "last come first served")
register_order("SPF", key_spf, False,
               "smallest estimated processing time first")
register_order("LPF", key_lpf, False,
               "largest estimated processing time first")
register_order("SQF", key_sqf, False, "smallest processor request first")
register_order("LQF", key_lqf, False, "largest processor request first")
register_order("SEXP", key_sexp, True,
               "smallest expansion factor (w + e) / e first", CLASS_RANK_NEWEST_FIRST)
register_order("LEXP", key_lexp, True,
               "largest expansion factor (w + e) / e first", CLASS_RANK_OLDEST_FIRST)
register_order("SRF", key_srf, False, "smallest ratio e / q first")
register_order("LRF", key_lrf, False, "largest ratio e / q first")
register_order("SAF", key_saf, False, "smallest area e * q first")
register_order("LAF", key_laf, False, "largest area e * q first")
# the bandit paper's 12 end here; the thesis's follow
BANDIT_ORDER_COUNT = len(ORDER_NAMES)
register_order("WFP3", key_wfp3, True,
               "largest (w / e)^3 * q first (Tang et al.)", CLASS_RANK_OLDEST_FIRST)
register_order("UNICEF", key_unicef, True,
               "largest w / (log2(max(q, 2)) * e) first (Tang et al.)",
               CLASS_RANK_OLDEST_FIRST)
register_order("FUNCTION", key_function, False,
               "smallest value of the simulation's priority function of e, q and r "
               "first")
# A multifactor priority after Slurm's (not its exact formula): dynamic (age, fair
# share), its key computed by the event loop (_fairshare.pxd)
register_order("MULTIFACTOR", NULL, True,
               "highest Slurm multifactor priority (age, fair share, size) first")
