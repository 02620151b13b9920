# Queue orders (SEMANTICS §3). To add an order: write its key function below
# and add one register_order line at the end of this file. Keys are ascending; ties go to the workload
# position, which is the (r_j, job id) order. A key that depends on t must be
# marked dynamic so that the queue is re-sorted at every pass.

ctypedef double (*key_fn_t)(double t, double r, double e, double q) noexcept nogil

cdef double key_fcfs(double t, double r, double e, double q) noexcept nogil:
    return r

cdef double key_lcfs(double t, double r, double e, double q) noexcept nogil:
    return -r

cdef double key_spf(double t, double r, double e, double q) noexcept nogil:
    return e

cdef double key_lpf(double t, double r, double e, double q) noexcept nogil:
    return -e

cdef double key_sqf(double t, double r, double e, double q) noexcept nogil:
    return q

cdef double key_lqf(double t, double r, double e, double q) noexcept nogil:
    return -q

cdef double key_sexp(double t, double r, double e, double q) noexcept nogil:
    return ((t - r) + e) / e

cdef double key_lexp(double t, double r, double e, double q) noexcept nogil:
    return -(((t - r) + e) / e)

cdef double key_srf(double t, double r, double e, double q) noexcept nogil:
    return e / q

cdef double key_lrf(double t, double r, double e, double q) noexcept nogil:
    return -(e / q)

cdef double key_saf(double t, double r, double e, double q) noexcept nogil:
    return e * q

cdef double key_laf(double t, double r, double e, double q) noexcept nogil:
    return -(e * q)


# The registry: position = order code. Adding an order is one more line here.
cdef enum:
    MAX_ORDERS = 32

cdef key_fn_t ORDER_KEY[MAX_ORDERS]
cdef bint ORDER_DYNAMIC[MAX_ORDERS]
ORDER_NAMES = []
ORDER_MEANINGS = {}


cdef void register_order(str name, key_fn_t key, bint dynamic, str meaning):
    cdef int code = len(ORDER_NAMES)
    assert code < MAX_ORDERS, "raise MAX_ORDERS to register more queue orders"
    ORDER_KEY[code] = key
    ORDER_DYNAMIC[code] = dynamic
    ORDER_NAMES.append(name)
    ORDER_MEANINGS[name] = meaning


register_order("FCFS", key_fcfs, False, "first come first served")
register_order("LCFS", key_lcfs, False, "last come first served")
register_order("SPF", key_spf, False, "smallest estimated processing time first")
register_order("LPF", key_lpf, False, "largest estimated processing time first")
register_order("SQF", key_sqf, False, "smallest processor request first")
register_order("LQF", key_lqf, False, "largest processor request first")
register_order("SEXP", key_sexp, True, "smallest expansion factor (w + e) / e first")
register_order("LEXP", key_lexp, True, "largest expansion factor (w + e) / e first")
register_order("SRF", key_srf, False, "smallest ratio e / q first")
register_order("LRF", key_lrf, False, "largest ratio e / q first")
register_order("SAF", key_saf, False, "smallest area e * q first")
register_order("LAF", key_laf, False, "largest area e * q first")
