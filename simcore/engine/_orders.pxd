# Declares the queue orders (SEMANTICS §3) as the event loop sees them: the
# key function type, the FUNCTION order's parameter count, the registry's
# entry point for adding an order and its look-up. The key functions and the
# registry itself (ORDER_NAMES, ORDER_MEANINGS, BANDIT_ORDER_COUNT, visible
# from Python) are in _orders.pyx.
#
# The event loop calls order_entry() once when it configures a waiting list
# and keeps the key function pointer in the list, so the hot loop calls the
# key directly (module-level C arrays are not shared across modules by
# cimport; a function is).
#
# To add an order: docs/extending.md, "A queue order".

cdef enum:
    FUNCTION_PARAMS = 8     # φ codes of p, q, r; op codes 1, 2; θ1, θ2, θ3

# Key of a waiting job at instant t: r its submission, e its estimate, q its
# processors, params the simulation's priority function (FUNCTION_PARAMS
# doubles, read only by the parametric order FUNCTION). Keys are ascending;
# ties go to the workload position; a NaN key counts as +inf. A key that
# depends on t must be registered as dynamic.
ctypedef double (*key_fn_t)(double t, double r, double e, double q,
                            const double* params) noexcept nogil

# What a dynamic order promises about the jobs of one class (equal estimate and
# processors; _classes.pxd): at any instant its key never decreases
# (OLDEST_FIRST) or never increases (NEWEST_FIRST) as the submission time r
# grows, rounding included, so that a pass without backfilling may look at one
# job per class. UNKNOWN promises nothing: the whole queue is re-sorted.
# A wrong promise changes schedules; tests/engine/test_orders.py checks the
# registered ones.
cdef enum:
    CLASS_RANK_NEWEST_FIRST = -1
    CLASS_RANK_UNKNOWN = 0
    CLASS_RANK_OLDEST_FIRST = 1

# Append an order to the registry; its code is its position. A NULL key: the
# event loop computes the key from its own state (MULTIFACTOR, whose key needs
# the job's user's fair share: _fairshare.pxd).
cdef int register_order(str name, key_fn_t key, bint dynamic, str meaning,
                        int class_rank=*) except -1

# The key function, dynamic flag and class rank of order `code` (ValueError if
# unknown).
cdef int order_entry(int code, key_fn_t* key, bint* dynamic, int* class_rank) except -1

# Checks of the event loop's arguments (ValueError): `code` is a registered
# order (`what` names the argument); the FUNCTION order's parameters (`needed`:
# FUNCTION is the queue or backfill order).
cdef int check_order(int code, str what) except -1
cdef int check_function(list params, bint needed) except -1
