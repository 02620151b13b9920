# cython: language_level=3, boundscheck=False, wraparound=False
"""Tokenizer for Standard Workload Format text: job lines to a float array.

Kept in C because real logs have hundreds of thousands of lines; the header
and filter logic live in simcore/swf.py.
"""

import numpy as np

from libc.math cimport isfinite
from libc.stdlib cimport strtod

cdef enum:
    N_FIELDS = 18


class SwfFormatError(ValueError):
    """A malformed SWF file; the message names the file and line."""


cdef inline bint is_space(char c) noexcept nogil:
    return c == b' ' or c == b'\t' or c == b'\r' or c == b'\v' or c == b'\f'


def tokenize(const unsigned char[::1] data, str source):
    """Split SWF text into (fields[n, 18], line_numbers[n], header_lines).

    Blank lines are skipped; `;` lines are comments (the header is the list
    of (line number, text) of those before the first job line).
    """
    cdef Py_ssize_t size = data.shape[0]
    cdef Py_ssize_t n_lines = 1, i
    for i in range(size):
        if data[i] == b'\n':
            n_lines += 1
    fields_arr = np.empty((n_lines, N_FIELDS), dtype=np.float64)
    lines_arr = np.empty(n_lines, dtype=np.int64)
    cdef double[:, ::1] fields = fields_arr
    cdef long long[::1] line_numbers = lines_arr
    header = []
    if size == 0:
        return fields_arr[:0], lines_arr[:0], header
    cdef const char* text = <const char*> &data[0]
    cdef const char* end = text + size
    cdef const char* p = text
    cdef const char* line_start
    cdef const char* line_end
    cdef char* after
    cdef Py_ssize_t n_jobs = 0, line_no = 0
    cdef int k
    cdef double value
    while p < end:
        line_no += 1
        line_start = p
        line_end = p
        while line_end < end and line_end[0] != b'\n':
            line_end += 1
        p = line_end + 1
        while line_start < line_end and is_space(line_start[0]):
            line_start += 1
        if line_start == line_end:
            continue
        if line_start[0] == b';':
            if n_jobs == 0:
                header.append((line_no, (<bytes> line_start[1:line_end - line_start]).decode(
                    "utf-8", "replace").rstrip("\r")))
            continue
        k = 0
        while True:
            while line_start < line_end and is_space(line_start[0]):
                line_start += 1
            if line_start == line_end:
                break
            if k == N_FIELDS:
                _raise_field_count(source, line_no, line_start, line_end, k)
            value = strtod(line_start, &after)
            if after == line_start or (after < line_end and not is_space(after[0])) or not isfinite(value):
                _raise_bad_field(source, line_no, k, line_start, line_end)
            fields[n_jobs, k] = value
            k += 1
            line_start = after
        if k != N_FIELDS:
            _raise_field_count(source, line_no, line_start, line_end, k)
        line_numbers[n_jobs] = line_no
        n_jobs += 1
    return fields_arr[:n_jobs], lines_arr[:n_jobs], header


cdef _raise_bad_field(str source, Py_ssize_t line_no, int k, const char* start, const char* end):
    cdef const char* stop = start
    while stop < end and not is_space(stop[0]):
        stop += 1
    token = (<bytes> start[:stop - start]).decode("utf-8", "replace")
    raise SwfFormatError(
        f"{source}, line {line_no}: field {k + 1} is not a finite number: {token!r}")


cdef _raise_field_count(str source, Py_ssize_t line_no, const char* start, const char* end, int k):
    cdef Py_ssize_t count = k
    cdef bint in_token = False
    while start < end:      # count the remaining tokens for the message
        if is_space(start[0]):
            in_token = False
        elif not in_token:
            in_token = True
            count += 1
        start += 1
    raise SwfFormatError(
        f"{source}, line {line_no}: expected {N_FIELDS} whitespace-separated fields, found {count}")
