# Where a job fits on a cluster of nodes: Slurm 22.05's _eval_nodes
# (src/plugins/select/cons_tres/job_test.c; docs/slurm_mode.md §2) over the CPUs and
# memory free on each node. Inline: the Slurm kernel (_slurm.pyx) compiles it in.

ctypedef long long i64
ctypedef unsigned long long word   # node sets are bitmaps of 64-node words; bits past the last node are 0


cdef extern from *:
    int lowest_bit "__builtin_ctzll"(unsigned long long) nogil


cdef inline bint has_node(const word* nodes, Py_ssize_t i) noexcept nogil:
    return (nodes[i >> 6] >> (i & 63)) & 1


cdef struct Nodes:
    Py_ssize_t n
    int* cpus
    i64* memory
    i64* weight


cdef struct Free:
    # What is free on each node: the machine's own, or a will-run test's copy.
    int* cpus
    i64* memory
    int* held          # jobs holding something on the node
    word* with_cpus    # the nodes with a free CPU: placing looks at these only


cdef inline void add_cpus(Free* f, Py_ssize_t i, int change) noexcept nogil:
    """Node i's free CPUs change; with_cpus follows."""
    f.cpus[i] += change
    if f.cpus[i] > 0:
        f.with_cpus[i >> 6] |= (<word> 1) << (i & 63)
    else:
        f.with_cpus[i >> 6] &= ~((<word> 1) << (i & 63))


cdef struct Ask:
    int cpus
    int nodes          # the -N count; 0 when none was asked
    i64 mem            # MB per node, or per CPU; 0 when none was given
    bint mem_per_cpu
    bint whole         # exclusive, or select/linear
    bint memory_consumable


cdef struct Scratch:
    # Work arrays of one entry per node (sets need at most as many).
    int* usable
    Py_ssize_t* set_start
    Py_ssize_t* set_end
    i64* set_cpus
    Py_ssize_t* set_nodes
    i64* set_weight
    int* held_by_node  # zero but while a placement is sorted: its CPUs on each node


cdef inline int usable_cpus(const Nodes* m, const Free* f, const Ask* a, Py_ssize_t i) noexcept nogil:
    """The CPUs node i can give the job now (step 1 of §2)."""
    cdef i64 need
    cdef int c
    if a.whole:
        return m.cpus[i] if f.held[i] == 0 else 0
    c = f.cpus[i]
    if a.memory_consumable and c > 0:
        if a.mem_per_cpu:
            if f.memory[i] // a.mem < c:
                c = <int> (f.memory[i] // a.mem)
        else:
            # no --mem: Slurm gives the job the node's whole memory
            need = a.mem if a.mem > 0 else m.memory[i]
            if f.memory[i] < need:
                c = 0
    return c


cdef inline i64 memory_taken(const Nodes* m, const Ask* a, Py_ssize_t i, int cpus) noexcept nogil:
    """The memory a job holds on node i where it was given `cpus` CPUs."""
    if not a.memory_consumable:
        return 0
    if a.whole or a.mem == 0:
        return m.memory[i]
    if a.mem_per_cpu:
        return a.mem * cpus
    return a.mem


cdef inline Py_ssize_t place(const Nodes* m, const Free* f, const Ask* a, const word* candidates,
                             Scratch* s, Py_ssize_t* out_nodes, int* out_cpus) noexcept nogil:
    """Slurm's _eval_nodes: writes the nodes taken (ascending) and the CPUs on each, and
    returns their number, or -1 when the job does not fit on the candidates."""
    cdef Py_ssize_t n = m.n, i, k, w, best, first, last, fit, taken = 0, sets = 0, previous = -2
    cdef word bits
    cdef int u, c, fit_size, rem_nodes, max_nodes
    cdef i64 rem_cpus = a.cpus, rem_max_cpus = a.cpus, limit, best_cpus = 0, best_weight = 0
    cdef bint in_set = False, sufficient, best_sufficient = False, better
    rem_nodes = a.nodes if a.nodes > 0 else 1
    max_nodes = a.nodes if a.nodes > 0 else <int> n
    # steps 1-2: usable CPUs, and the sets of consecutive usable nodes of one weight; a node
    # without a free CPU is unusable, so only the candidates with one are looked at (a gap
    # between two of them ends a set, as the unusable nodes in it would)
    for w in range((n + 63) >> 6):
        bits = candidates[w] & f.with_cpus[w]
        while bits:
            i = (w << 6) + lowest_bit(bits)
            bits &= bits - 1
            u = usable_cpus(m, f, a, i)
            s.usable[i] = u
            if u <= 0:
                in_set = False
                continue
            if in_set and (i != previous + 1 or m.weight[i] != s.set_weight[sets - 1]):
                in_set = False
            previous = i
            if not in_set:
                s.set_start[sets] = i
                s.set_cpus[sets] = 0
                s.set_nodes[sets] = 0
                s.set_weight[sets] = m.weight[i]
                sets += 1
                in_set = True
            s.set_end[sets - 1] = i
            s.set_cpus[sets - 1] += u
            s.set_nodes[sets - 1] += 1
    # step 4: take nodes from the best set until the job is satisfied
    while max_nodes > 0:
        best = -1
        for k in range(sets):
            if s.set_nodes[k] == 0:
                continue
            sufficient = s.set_cpus[k] >= rem_cpus and s.set_nodes[k] >= rem_nodes
            better = best < 0 or s.set_weight[k] < best_weight
            if not better and s.set_weight[k] == best_weight:
                better = ((sufficient and not best_sufficient)
                          or (sufficient and s.set_cpus[k] < best_cpus)
                          or (not sufficient and s.set_cpus[k] > best_cpus))
            if better:
                best = k
                best_cpus = s.set_cpus[k]
                best_sufficient = sufficient
                best_weight = s.set_weight[k]
        if best < 0:
            break
        first = s.set_start[best]
        last = s.set_end[best]
        if rem_nodes <= 1:
            # the single node that fits most tightly
            fit = -1
            fit_size = 0
            for i in range(first, last + 1):
                if s.usable[i] <= 0 or s.usable[i] < rem_cpus:
                    continue
                if fit == -1 or s.usable[i] < fit_size:
                    fit = i
                    fit_size = s.usable[i]
                    if fit_size == rem_cpus:
                        break
            if fit != -1:
                for i in range(first, last + 1):
                    if i != fit:
                        s.usable[i] = 0
        for i in range(first, last + 1):
            if max_nodes == 0 or (rem_nodes <= 0 and rem_cpus <= 0):
                break
            c = s.usable[i]
            if c <= 0 or (max_nodes == 1 and c < rem_cpus):
                continue
            if not a.whole:
                limit = rem_max_cpus - (rem_nodes - 1 if rem_nodes > 1 else 0)
                if c > limit:
                    c = <int> (limit if limit > 1 else 1)
            out_nodes[taken] = i
            out_cpus[taken] = c
            taken += 1
            s.usable[i] = 0
            rem_cpus -= c
            rem_max_cpus -= c
            rem_nodes -= 1
            max_nodes -= 1
        if rem_nodes <= 0 and rem_cpus <= 0:
            break
        s.set_cpus[best] = 0
        s.set_nodes[best] = 0
    if rem_nodes > 0 or rem_cpus > 0:
        return -1
    sort_placement(out_nodes, out_cpus, taken, s.held_by_node)
    return taken


cdef inline void sort_placement(Py_ssize_t* nodes, int* cpus, Py_ssize_t size, int* held_by_node) noexcept nogil:
    """Ascending node order: an insertion sort for a few nodes (the sets are taken almost in
    order), else each node's CPUs marked in held_by_node (left zero again) and read back in order,
    linear where sorting thousands of nodes one by one was quadratic."""
    cdef Py_ssize_t i, j, node, low, high
    cdef int c
    if size <= 32:
        for i in range(1, size):
            node = nodes[i]
            c = cpus[i]
            j = i - 1
            while j >= 0 and nodes[j] > node:
                nodes[j + 1] = nodes[j]
                cpus[j + 1] = cpus[j]
                j -= 1
            nodes[j + 1] = node
            cpus[j + 1] = c
        return
    low = high = nodes[0]
    for i in range(size):
        held_by_node[nodes[i]] = cpus[i]    # at least one CPU on each node taken
        low = min(low, nodes[i])
        high = max(high, nodes[i])
    j = 0
    for node in range(low, high + 1):
        if held_by_node[node] > 0:
            nodes[j] = node
            cpus[j] = held_by_node[node]
            held_by_node[node] = 0
            j += 1
