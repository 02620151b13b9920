# Sorted arrays and a binary min-heap of (key, position) entries, shared by
# the event loops (simcore/engine/_core.pyx, the co-scheduling kernel). All
# inline: a loop that cimports them compiles them in, as if written there.
# Ties on the key are broken by the position, so every order is total.

from libc.string cimport memmove


cdef struct Entry:
    double key
    Py_ssize_t idx


cdef inline bint entry_less(double key_a, Py_ssize_t idx_a,
                            double key_b, Py_ssize_t idx_b) noexcept nogil:
    return key_a < key_b or (key_a == key_b and idx_a < idx_b)


cdef inline int compare_entries(const void* a, const void* b) noexcept nogil:
    cdef const Entry* x = <const Entry*> a
    cdef const Entry* y = <const Entry*> b
    if entry_less(x.key, x.idx, y.key, y.idx):
        return -1
    if entry_less(y.key, y.idx, x.key, x.idx):
        return 1
    return 0


cdef inline Py_ssize_t lower_bound(Entry* items, Py_ssize_t size,
                                   double key, Py_ssize_t idx) noexcept nogil:
    """First position whose entry is not less than (key, idx)."""
    cdef Py_ssize_t lo = 0, hi = size, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if entry_less(items[mid].key, items[mid].idx, key, idx):
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline void sorted_insert(Entry* items, Py_ssize_t* size,
                               double key, Py_ssize_t idx) noexcept nogil:
    cdef Py_ssize_t pos = lower_bound(items, size[0], key, idx)
    memmove(&items[pos + 1], &items[pos], (size[0] - pos) * sizeof(Entry))
    items[pos].key = key
    items[pos].idx = idx
    size[0] += 1


cdef inline void sorted_remove(Entry* items, Py_ssize_t* size,
                               double key, Py_ssize_t idx) noexcept nogil:
    cdef Py_ssize_t pos = lower_bound(items, size[0], key, idx)
    memmove(&items[pos], &items[pos + 1], (size[0] - pos - 1) * sizeof(Entry))
    size[0] -= 1


# A binary min-heap of (time, job position) events.
cdef struct Heap:
    Entry* items
    Py_ssize_t size


cdef inline void heap_push(Heap* heap, double time, Py_ssize_t idx) noexcept nogil:
    cdef Py_ssize_t i = heap.size, parent
    heap.size += 1
    while i > 0:
        parent = (i - 1) >> 1
        if not entry_less(time, idx, heap.items[parent].key, heap.items[parent].idx):
            break
        heap.items[i] = heap.items[parent]
        i = parent
    heap.items[i].key = time
    heap.items[i].idx = idx


cdef inline Py_ssize_t heap_pop(Heap* heap) noexcept nogil:
    cdef Py_ssize_t top = heap.items[0].idx
    cdef Entry last
    cdef Py_ssize_t i = 0, child
    heap.size -= 1
    last = heap.items[heap.size]
    while True:
        child = 2 * i + 1
        if child >= heap.size:
            break
        if child + 1 < heap.size and entry_less(
                heap.items[child + 1].key, heap.items[child + 1].idx,
                heap.items[child].key, heap.items[child].idx):
            child += 1
        if not entry_less(heap.items[child].key, heap.items[child].idx,
                          last.key, last.idx):
            break
        heap.items[i] = heap.items[child]
        i = child
    heap.items[i] = last
    return top
