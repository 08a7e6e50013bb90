/* One pass over `pack`'s items, and the greedy fill over a density order (algorithms/columns.py).
 *
 * `item_columns(items, item_type)` reads every item of a list once, through the offsets of the
 * type's slot descriptors (what the slot getters read), and returns
 * (scores float64 bytes, tokens int64 bytes, pinned uint8 bytes or None, total tokens, lowest score,
 * the embeddings' length, 0 when none is set), or None whenever an error message or an unusual value
 * is possible: an element
 * that is not exactly `item_type`, an id that is not a str or is repeated, a non-float or non-finite
 * score, a tokens value that is not a positive int64, a pinned that is not a bool, total tokens over
 * 2**62, absolute scores adding up near the float range, or embeddings of different lengths (or one
 * whose length cannot be read). The Python path then runs and raises
 * (or answers) exactly as before; this pass never decides an error itself.
 *
 * `greedy_take(tokens, order, taken, left)`: walk `order`, take every index not in `taken` whose
 * tokens fit in what is left: the loop of `strategies.greedy._python_fill`.
 *
 * `embedding_rows(items, item_type, ndarray, float64, dim, single)`: the items' embeddings row after
 * row as bytes, cast to float32 with `single` (what numpy's cast gives, element for element), else
 * float64 as they are; or None unless every element is exactly `item_type` with a C-contiguous 1-D
 * `ndarray` embedding of dtype `float64` (the dtype object) and `dim` entries (each within
 * float32's range, with `single`).
 *
 * `text_pass(items)`: one read of every byte of every text, for the benchmarks' single-pass bound
 * (experiments/bench/text_pass.py): each element is a str or has a str attribute `text`; the bytes
 * its str holds (length times the kind's 1, 2 or 4 bytes) are folded as native-order 8-byte words,
 * the last one zero-padded, into a wrapping sum. Returns (that sum over all texts, bytes read).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef Py_T_OBJECT_EX
#define Py_T_OBJECT_EX T_OBJECT_EX
#endif

#define MAX_TOTAL_TOKENS (((long long)1) << 62)
/* Far below the Python check's float_info.max / 4: a running double sum of n non-negative terms is
 * within n * 2^-53 of the exact sum, so anything above this is left to math.fsum. */
#define SCORE_SUM_SAFE (DBL_MAX / 16)

enum { F_ID, F_SCORE, F_TOKENS, F_PINNED, F_EMBEDDING, N_FIELDS };
static const char *FIELD_NAMES[N_FIELDS] = {"id", "score", "tokens", "pinned", "embedding"};

/* The offset of slot `name` of `type` (a member descriptor of an object field), or -1. */
static Py_ssize_t slot_offset(PyObject *type, const char *name) {
    PyObject *d = PyObject_GetAttrString(type, name);
    Py_ssize_t offset = -1;
    if (d == NULL) {
        PyErr_Clear();
        return -1;
    }
    if (Py_IS_TYPE(d, &PyMemberDescr_Type)) {
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type == Py_T_OBJECT_EX && PyType_IsSubtype((PyTypeObject *)type, PyDescr_TYPE(d)))
            offset = m->offset;
    }
    Py_DECREF(d);
    return offset;
}

#define FIELD(obj, k) (*(PyObject **)((char *)(obj) + off[k]))

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch((const void *)(p))
#else
#define PREFETCH(p) ((void)0)
#endif
/* How many items ahead the fields (and, twice as far, the item itself) are fetched: the items, their
 * ids, scores and tokens are separate objects scattered over the heap, and each read of one that is
 * not in cache would otherwise wait for memory before the next item's reads can start. */
#define AHEAD 12

/* 1 if some id repeats, 0 if none, -1 on error (a Python exception set). Ids are exact strs whose
 * hashes are in `hashes`; fewer than 2**32 of them. The table holds 1 + the index of each id seen,
 * 4 bytes a slot, so that for 10^5 items it stays within a core's cache. */
static int ids_repeat(PyObject **objs, const Py_hash_t *hashes, Py_ssize_t n, Py_ssize_t off_id) {
    size_t cap = 8;
    while (cap < (size_t)n * 2) cap <<= 1;
    uint32_t *table = PyMem_Calloc(cap, sizeof(uint32_t));
    if (table == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    int found = 0;
    for (Py_ssize_t i = 0; i < n && !found; i++) {
        if (i + AHEAD < n) PREFETCH(&table[(size_t)hashes[i + AHEAD] & (cap - 1)]);
        Py_hash_t h = hashes[i];
        size_t j = (size_t)h & (cap - 1);
        for (; table[j] != 0; j = (j + 1) & (cap - 1)) {
            Py_ssize_t other = (Py_ssize_t)table[j] - 1;
            if (hashes[other] != h) continue;
            int eq = PyUnicode_Compare(*(PyObject **)((char *)objs[other] + off_id),
                                       *(PyObject **)((char *)objs[i] + off_id));
            if (eq == -1 && PyErr_Occurred()) {
                found = -1;
                break;
            }
            if (eq == 0) {
                found = 1;
                break;
            }
        }
        table[j] = (uint32_t)(i + 1);
    }
    PyMem_Free(table);
    return found;
}

static PyObject *item_columns(PyObject *self, PyObject *args) {
    PyObject *items, *type;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &items, &PyType_Type, &type)) return NULL;
    Py_ssize_t off[N_FIELDS];
    for (int k = 0; k < N_FIELDS; k++) {
        off[k] = slot_offset(type, FIELD_NAMES[k]);
        if (off[k] < 0) Py_RETURN_NONE;
    }
    Py_ssize_t n = PyList_GET_SIZE(items);
    if ((size_t)n >= ((size_t)1 << 31)) Py_RETURN_NONE; /* ids_repeat's 4-byte slots */
    PyObject **objs = ((PyListObject *)items)->ob_item;
    PyObject *scores_b = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(double));
    PyObject *tokens_b = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(long long));
    PyObject *pinned_b = PyBytes_FromStringAndSize(NULL, n);
    Py_hash_t *hashes = PyMem_Malloc((n ? n : 1) * sizeof(Py_hash_t));
    if (hashes == NULL) PyErr_NoMemory();
    if (scores_b == NULL || tokens_b == NULL || pinned_b == NULL || hashes == NULL) goto fail;
    double *scores = (double *)PyBytes_AS_STRING(scores_b);
    long long *tokens = (long long *)PyBytes_AS_STRING(tokens_b);
    unsigned char *pinned = (unsigned char *)PyBytes_AS_STRING(pinned_b);
    long long total = 0;
    double abs_sum = 0.0, low = 0.0;
    Py_ssize_t n_pinned = 0;
    Py_ssize_t dim = 0; /* the first embedding's length; 0 while none is set */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i + 2 * AHEAD < n) {
            PREFETCH(objs[i + 2 * AHEAD]);
            PREFETCH((char *)objs[i + 2 * AHEAD] + 64);
        }
        if (i + AHEAD < n && (PyObject *)Py_TYPE(objs[i + AHEAD]) == type) {
            PyObject *next = objs[i + AHEAD]; /* an item: its slots can be read (not yet checked) */
            PREFETCH(FIELD(next, F_ID));
            PREFETCH(FIELD(next, F_SCORE));
            PREFETCH(FIELD(next, F_TOKENS));
        }
        PyObject *it = objs[i];
        if ((PyObject *)Py_TYPE(it) != type) goto decline;
        PyObject *id = FIELD(it, F_ID), *s = FIELD(it, F_SCORE), *t = FIELD(it, F_TOKENS);
        PyObject *p = FIELD(it, F_PINNED), *e = FIELD(it, F_EMBEDDING);
        if (id == NULL || s == NULL || t == NULL || p == NULL || e == NULL) goto decline;
        if (!PyUnicode_CheckExact(id) || !PyFloat_CheckExact(s) || !PyLong_CheckExact(t)) goto decline;
        hashes[i] = PyObject_Hash(id); /* a str caches its hash; -1 only on error */
        if (hashes[i] == -1) goto fail;
        double v = PyFloat_AS_DOUBLE(s);
        if (!isfinite(v)) goto decline;
        int over = 0;
        long long tok = PyLong_AsLongLongAndOverflow(t, &over);
        if (over || tok <= 0 || tok > MAX_TOTAL_TOKENS - total) goto decline;
        if (p == Py_True) {
            pinned[i] = 1;
            n_pinned++;
        } else if (p == Py_False) {
            pinned[i] = 0;
        } else {
            goto decline;
        }
        if (e != Py_None) {
            Py_ssize_t len = PyObject_Size(e);
            if (len < 0) {
                PyErr_Clear(); /* no length: the Python check says what is wrong */
                goto decline;
            }
            if (dim == 0) dim = len;
            else if (len != dim) goto decline;
        }
        scores[i] = v;
        tokens[i] = tok;
        total += tok;
        abs_sum += fabs(v);
        if (i == 0 || v < low) low = v;
    }
    if (abs_sum > SCORE_SUM_SAFE) goto decline;
    int repeat = ids_repeat(objs, hashes, n, off[F_ID]);
    if (repeat < 0) goto fail;
    if (repeat) goto decline;
    PyMem_Free(hashes);
    PyObject *flags = pinned_b;
    if (n_pinned == 0) {
        Py_DECREF(pinned_b);
        flags = Py_NewRef(Py_None);
    }
    return Py_BuildValue("(NNNLdn)", scores_b, tokens_b, flags, total, low, dim);
decline:
    PyMem_Free(hashes);
    Py_XDECREF(scores_b);
    Py_XDECREF(tokens_b);
    Py_XDECREF(pinned_b);
    Py_RETURN_NONE;
fail:
    PyMem_Free(hashes);
    Py_XDECREF(scores_b);
    Py_XDECREF(tokens_b);
    Py_XDECREF(pinned_b);
    return NULL;
}

static PyObject *greedy_take(PyObject *self, PyObject *args) {
    Py_buffer tok_buf, order_buf, taken_buf;
    long long left;
    if (!PyArg_ParseTuple(args, "y*y*y*L", &tok_buf, &order_buf, &taken_buf, &left)) return NULL;
    PyObject *out = NULL;
    Py_ssize_t n = tok_buf.len / (Py_ssize_t)sizeof(long long);
    Py_ssize_t m = order_buf.len / (Py_ssize_t)sizeof(long long);
    const long long *tok = tok_buf.buf, *order = order_buf.buf;
    const unsigned char *taken = taken_buf.buf;
    if (taken_buf.len != n) {
        PyErr_SetString(PyExc_ValueError, "greedy_take: one taken flag per candidate");
        goto done;
    }
    out = PyList_New(0);
    if (out == NULL) goto done;
    for (Py_ssize_t j = 0; j < m && left > 0; j++) {
        long long k = order[j];
        if (k < 0 || k >= n) {
            PyErr_SetString(PyExc_IndexError, "greedy_take: order index out of range");
            Py_CLEAR(out);
            goto done;
        }
        if (taken[k] || tok[k] > left) continue;
        PyObject *pick = PyLong_FromLongLong(k);
        if (pick == NULL || PyList_Append(out, pick) < 0) {
            Py_XDECREF(pick);
            Py_CLEAR(out);
            goto done;
        }
        Py_DECREF(pick);
        left -= tok[k];
    }
done:
    PyBuffer_Release(&tok_buf);
    PyBuffer_Release(&order_buf);
    PyBuffer_Release(&taken_buf);
    return out;
}

static PyObject *embedding_rows(PyObject *self, PyObject *args) {
    PyObject *items, *type, *array_type, *float64;
    Py_ssize_t dim;
    int single;
    if (!PyArg_ParseTuple(args, "O!O!O!Onp", &PyList_Type, &items, &PyType_Type, &type, &PyType_Type, &array_type,
                          &float64, &dim, &single))
        return NULL;
    /* A copy whose address never escapes: the row loops below vectorise only when the compiler
     * knows that the calls between them cannot change their bound. */
    const Py_ssize_t d = dim;
    Py_ssize_t off = slot_offset(type, "embedding");
    Py_ssize_t n = PyList_GET_SIZE(items);
#ifndef __STDC_IEC_559__
    if (single) Py_RETURN_NONE; /* no defined cast of out-of-range doubles: numpy's path */
#endif
    const Py_ssize_t width = single ? (Py_ssize_t)sizeof(float) : (Py_ssize_t)sizeof(double);
    if (off < 0 || d <= 0 || n > PY_SSIZE_T_MAX / width / d) Py_RETURN_NONE;
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * d * width);
    if (out == NULL) return NULL;
    char *rows = PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PyList_GET_ITEM(items, i);
        if ((PyObject *)Py_TYPE(it) != type) goto decline;
        PyObject *e = *(PyObject **)((char *)it + off);
        /* An exact ndarray whose dtype is native float64, as `Item` stores it (an embedding set
         * behind `Item`'s checks may be anything). The dtype is asked of the array: asking the
         * buffer for its format string doubled this pass's cost. */
        if (e == NULL || (PyObject *)Py_TYPE(e) != array_type) goto decline;
        PyObject *dtype = PyObject_GetAttrString(e, "dtype");
        if (dtype == NULL) {
            PyErr_Clear();
            goto decline;
        }
        Py_DECREF(dtype); /* the array holds it; only its identity is compared */
        if (dtype != float64) goto decline;
        Py_buffer view;
        if (PyObject_GetBuffer(e, &view, PyBUF_C_CONTIGUOUS) < 0) {
            PyErr_Clear();
            goto decline;
        }
        const double *restrict src = view.buf;
        int ok = view.ndim == 1 && view.itemsize == (Py_ssize_t)sizeof(double) &&
                 view.len == d * (Py_ssize_t)sizeof(double);
        /* Annex F (IEC 60559 arithmetic, required above) defines the cast of a double beyond
         * float's range: an infinity, which the bits of the result show. Entries are finite (`Item`
         * checks them), so an infinite result is an overflow, and numpy's path takes the items. */
        uint32_t inf = 0;
        if (ok && !single) {
            memcpy(rows + i * d * width, src, (size_t)(d * width));
        } else if (ok) {
            float *restrict dst = (float *)rows + i * d;
            const uint32_t *bits = (const uint32_t *)dst;
            for (Py_ssize_t k = 0; k < d; k++) dst[k] = (float)src[k];
            for (Py_ssize_t k = 0; k < d; k++) inf |= (bits[k] & 0x7f800000u) == 0x7f800000u;
        }
        int in_range = inf == 0;
        PyBuffer_Release(&view);
        if (!ok || !in_range) goto decline;
    }
    return out;
decline:
    Py_DECREF(out);
    Py_RETURN_NONE;
}

/* The wrapping sum of `len` bytes read as native-order 8-byte words, the last one zero-padded: a
 * result that depends on every byte, so the compiler cannot drop a read (it vectorises the loop). */
static uint64_t fold_words(const unsigned char *p, size_t len) {
    uint64_t sum = 0;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        sum += w;
    }
    if (i < len) {
        uint64_t w = 0;
        memcpy(&w, p + i, len - i);
        sum += w;
    }
    return sum;
}

static PyObject *text_pass(PyObject *self, PyObject *args) {
    PyObject *items;
    if (!PyArg_ParseTuple(args, "O!", &PyList_Type, &items)) return NULL;
    PyObject *name = PyUnicode_InternFromString("text");
    if (name == NULL) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(items);
    PyObject **objs = ((PyListObject *)items)->ob_item;
    /* The first item's type and its `text` slot: items of that type are read through the offset
     * (as `item_columns` reads its fields), any other element through getattr. */
    PyObject *type = NULL;
    Py_ssize_t off = -1;
    if (n > 0 && !PyUnicode_Check(objs[0])) {
        type = Py_NewRef((PyObject *)Py_TYPE(objs[0])); /* held: getattr below may drop the item */
        off = slot_offset(type, "text");
    }
    uint64_t sum = 0;
    size_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (off >= 0 && i + 2 * AHEAD < n) PREFETCH((char *)objs[i + 2 * AHEAD] + off);
        if (off >= 0 && i + AHEAD < n && (PyObject *)Py_TYPE(objs[i + AHEAD]) == type) {
            PyObject *next = *(PyObject **)((char *)objs[i + AHEAD] + off);
            if (next != NULL) PREFETCH(next); /* its header; the data follows it in a compact str */
        }
        if (i + AHEAD / 2 < n) {
            PyObject *o = objs[i + AHEAD / 2], *t = NULL;
            if (PyUnicode_CheckExact(o)) t = o;
            else if (off >= 0 && (PyObject *)Py_TYPE(o) == type) t = *(PyObject **)((char *)o + off);
            if (t != NULL && PyUnicode_CheckExact(t) && PyUnicode_IS_COMPACT(t)) {
                const char *d = PyUnicode_DATA(t);
                size_t bytes = (size_t)PyUnicode_GET_LENGTH(t) * (size_t)PyUnicode_KIND(t);
                for (size_t k = 64; k < bytes; k += 64) PREFETCH(d + k);
            }
        }
        PyObject *it = objs[i], *text;
        if (PyUnicode_Check(it)) {
            text = Py_NewRef(it);
        } else if (off >= 0 && (PyObject *)Py_TYPE(it) == type && *(PyObject **)((char *)it + off) != NULL) {
            text = Py_NewRef(*(PyObject **)((char *)it + off));
        } else {
            Py_INCREF(it);
            text = PyObject_GetAttr(it, name);
            Py_DECREF(it);
            if (text == NULL) goto fail;
            /* A getattr runs Python code, which may have changed the list: read it afresh. */
            n = PyList_GET_SIZE(items);
            objs = ((PyListObject *)items)->ob_item;
        }
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "text_pass: element %zd's text is not a str", i);
            Py_DECREF(text);
            goto fail;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(text) < 0) {
            Py_DECREF(text);
            goto fail;
        }
#endif
        size_t len = (size_t)PyUnicode_GET_LENGTH(text) * (size_t)PyUnicode_KIND(text);
        sum += fold_words((const unsigned char *)PyUnicode_DATA(text), len);
        total += len;
        Py_DECREF(text);
    }
    Py_DECREF(name);
    Py_XDECREF(type);
    return Py_BuildValue("(Kn)", (unsigned long long)sum, (Py_ssize_t)total);
fail:
    Py_DECREF(name);
    Py_XDECREF(type);
    return NULL;
}

static PyMethodDef methods[] = {
    {"item_columns", item_columns, METH_VARARGS, "One pass over the items: their columns, or None."},
    {"greedy_take", greedy_take, METH_VARARGS, "Greedy fill over a density order."},
    {"embedding_rows", embedding_rows, METH_VARARGS, "The items' embeddings as float32 or float64 rows, or None."},
    {"text_pass", text_pass, METH_VARARGS, "One read of every text's bytes: (wrapping word sum, bytes read)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_columns_native", NULL, -1, methods};

PyMODINIT_FUNC PyInit__columns_native(void) { return PyModule_Create(&module); }
