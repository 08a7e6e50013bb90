/* The "jaccard" join in one pass over the texts' bytes: tokenise, counting filter, exact prefix join.
 *
 * Built by the package's own setup.py as packbench.algorithms.dedupe._jaccard_native (optional: without
 * a compiler the numpy path of exact.py runs, with the same answers). See docs/dedupe-speed.md.
 *
 * jaccard_join(items, n_pinned, threshold, slack, nfkc, char_class, empty_key, join_order) -> bytes | None
 *
 *   items      list of items (their `text`, a str, and for the active candidates `score`, a float), the
 *              pinned ones first, in input order; read here rather than by a Python loop.
 *   nfkc       callable(str) -> str: the NFKC form (tokenise.nfkc), for non-ASCII texts; C folds its
 *              characters' case as str.casefold does (character by character).
 *   char_class callable(str) -> str: a character's class in the word rule (tokenise._char_class: W letter
 *              or digit, M combining mark, S a word by itself, space otherwise); asked once per character.
 *   empty_key  callable(str) -> bytes: the signature of a text without words (NUL first, never a word).
 *   join_order callable(bytes, bytes) -> int64 buffer: given the active mask (one byte per text) and the
 *              scores (float64 per item; 0 for the pinned and the inactive ones), the active
 *              texts' positions in join order (active pinned ones first, in input order, then the active
 *              candidates in visiting order).
 *
 * Returns the partner per join position as int64 bytes (-1: kept; else the join position of the first
 * anchor it matches), or None when the vocabulary is too large for packed trigram keys (the caller then
 * runs the numpy path).
 *
 * Stages (none can change the answer):
 *  A. Every text is tokenised by the byte rule of tokenise.py (ASCII letters and digits lower-cased, and
 *     every byte >= 0x80 of the UTF-8 word form of a non-ASCII text, are word bytes); a word of up to 8
 *     bytes is its own 64-bit code, a longer one a hash of its bytes. Each shingle occurrence's 32-bit
 *     hash is counted by radix partition (a cache-sized table of about 4 slots per entry per partition);
 *     a slot hit once holds a shingle found once in the whole batch.
 *  B. A text whose shingles seen once in the whole batch number at least its prefix length
 *     s - ceil(t s) + 1 (s bounded by its shingle occurrences) shares at most ceil(t s) - 1 shingles with
 *     any text: it matches none and is left out (it is kept and absorbs nothing).
 *  C. The active texts are tokenised again (in input order, where they lie in memory) with exact word ids
 *     (interned bytes), so a trigram key (three 21-bit ids) is one-to-one with the shingle; each text's keys
 *     are made distinct, and found by its join position.
 *     A second count table over the active texts' keys orders the shingles by (count, slot, key), a total
 *     order that depends on the shingle alone: any two texts with Jaccard >= t share a shingle among the
 *     first s - ceil(t s) + 1 of each (their prefixes). A text indexes its prefix's slots when kept; a
 *     later text probes its prefix's slots, and verifies the anchors found in anchor order (length filter,
 *     then the exact intersection by a set of the text's keys, divided as rule.jaccard divides): the first that
 *     matches is its partner.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if PY_VERSION_HEX < 0x030C0000
#include <structmember.h>
#define Py_T_OBJECT T_OBJECT
#define Py_T_OBJECT_EX T_OBJECT_EX
#endif

#define K0 0x9E3779B97F4A7C15ULL
#define K1 0xC2B2AE3D27D4EB4FULL
#define K2 0x165667B19E3779F9ULL
#define K3 0xD6E8FEB86659FD93ULL
#define K4 0xFF51AFD7ED558CCDULL
#define K5 0xC4CEB9FE1A85EC53ULL
#ifdef JACCARD_TIMING
#include <time.h>
static double now_(void) { struct timespec ts; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); return ts.tv_sec + ts.tv_nsec * 1e-9; }
static double unicode_seconds;
#define STAMP(name) do { double t_ = now_(); fprintf(stderr, "%s %.2f ms\n", name, (t_ - stamp_) * 1e3); stamp_ = t_; } while (0)
#else
#define STAMP(name) do { } while (0)
#endif
#define ID_BITS 21
/* The counting filter: up to DIRECT_ENTRIES hashes in one table of at most 2^DIRECT_BITS bytes (in L2); more in
 * radix partitions of about PARTITION_ENTRIES, each counted in 2^LOCAL_BITS bytes (an entry keeps 16 bits of its
 * hash). */
#define DIRECT_ENTRIES 131072
#define DIRECT_BITS 19
#define PARTITION_ENTRIES 16384
#define LOCAL_BITS 16

/* The radix bits for `total` hashes: 0 (one table) up to DIRECT_ENTRIES, else partitions of at most about
 * PARTITION_ENTRIES. */
static int partition_bits(size_t total) {
    int pb = 0;
    if (total <= DIRECT_ENTRIES) return 0;
    while ((total >> pb) > PARTITION_ENTRIES && pb < 32 - LOCAL_BITS) pb++;
    return pb < 1 ? 1 : pb;
}
#define MAX_IDS (1u << ID_BITS)

static uint8_t WORD_BYTE[256]; /* 1 for a word byte */
static uint8_t ASCII_WORD[128]; /* an ASCII word character lower-cased, 0 for the others */

static inline uint64_t finish(uint64_t h) {
    h ^= h >> 29; h *= K4; h ^= h >> 32; h *= K5; h ^= h >> 29;
    return h;
}

static inline uint64_t load_word(const uint8_t *p, Py_ssize_t n, int fold) {
    /* The word's bytes, little endian, lower-cased (ASCII letters only: fold is for ASCII texts). */
    uint64_t v = 0;
    memcpy(&v, p, (size_t)n);
    if (fold) v |= 0x2020202020202020ULL >> (8 * (8 - n));
    return v;
}

static inline uint64_t hash_bytes(const uint8_t *p, Py_ssize_t n, int fold) {
    uint64_t h = (uint64_t)n * K2, v;
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&v, p + i, 8);
        if (fold) v |= 0x2020202020202020ULL;
        h = (h ^ v) * K0;
        h ^= h >> 31;
    }
    if (i < n) h = (h ^ load_word(p + i, n - i, fold)) * K1;
    return finish(h);
}

/* A growable array. */
typedef struct { void *p; size_t n, cap, size; } vec;

/* Large arrays on huge pages where the kernel gives them on request (Linux, transparent huge pages in
 * "madvise" mode): fresh memory costs a page fault per 4 KiB otherwise, a fifth of the join's time at
 * 10^5 texts. Freed with free(). */
#define HUGE_MIN ((size_t)4 << 20)
static void *big_alloc(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= HUGE_MIN) {
        void *p = NULL;
        size_t rounded = (bytes + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
        if (posix_memalign(&p, (size_t)2 << 20, rounded)) return NULL;
        madvise(p, rounded, MADV_HUGEPAGE);
        return p;
    }
#endif
    return malloc(bytes ? bytes : 1);
}

static int vec_reserve(vec *v, size_t need) {
    if (need <= v->cap) return 0;
    size_t cap = v->cap ? v->cap : 1024;
    while (cap < need) cap *= 2;
    void *p = v->p ? realloc(v->p, cap * v->size) : big_alloc(cap * v->size);
    if (!p) return -1;
    v->p = p; v->cap = cap;
    return 0;
}


/* ---- the counting filter's radix partitions ----
 * Each shingle hash goes, as it is made, to the partition of its top `pb` bits as two fields: its text and its
 * next 16 bits. A partition's entries gather in a 64-byte line of a small buffer (96 KiB for 512 partitions,
 * in L2) and are written out a whole line at a time with streaming stores: the scattered stores'
 * read-for-ownership cost more than the hashing itself. A partition is a linked list of chunks from one pool
 * (partitions are uneven: a shingle common in the batch puts all its occurrences in one); the pool doubles
 * when it runs out. */
#define LINE_ENTRIES 32
#define CHUNK_ENTRIES 2048  /* a partition's entries are in chunks of this many, linked */
typedef struct {
    int pb;
    size_t parts, *fill;        /* fill[q]: entries put in partition q (written out or buffered) */
    int32_t *head, *tail, *next;  /* per partition its first and last chunk; per chunk the next one (-1) */
    size_t chunks, room;        /* chunks used, and the pool's room */
    uint32_t *tid, *wt;         /* per entry its text (chunk c's at c * CHUNK_ENTRIES); the lines' buffer */
    uint16_t *lh, *wl;          /* per entry its next 16 bits; the lines' buffer */
} scatter;

static int scatter_open(scatter *sc, int pb, size_t expected) {
    memset(sc, 0, sizeof *sc);
    sc->pb = pb;
    sc->parts = (size_t)1 << pb;
    sc->room = expected / CHUNK_ENTRIES + expected / CHUNK_ENTRIES / 8 + sc->parts + 16;
    sc->fill = calloc(sc->parts, sizeof(size_t));
    sc->head = malloc(sc->parts * sizeof(int32_t));
    sc->tail = malloc(sc->parts * sizeof(int32_t));
    sc->next = malloc(sc->room * sizeof(int32_t));
    sc->wt = malloc(sc->parts * LINE_ENTRIES * sizeof(uint32_t));
    sc->wl = malloc(sc->parts * LINE_ENTRIES * sizeof(uint16_t));
    sc->tid = big_alloc(sc->room * CHUNK_ENTRIES * sizeof(uint32_t));
    sc->lh = big_alloc(sc->room * CHUNK_ENTRIES * sizeof(uint16_t));
    if (!sc->fill || !sc->head || !sc->tail || !sc->next || !sc->wt || !sc->wl || !sc->tid || !sc->lh) return -1;
    for (size_t q = 0; q < sc->parts; q++) sc->head[q] = sc->tail[q] = -1;
    return 0;
}

static void scatter_free(scatter *sc) {
    free(sc->fill); free(sc->head); free(sc->tail); free(sc->next);
    free(sc->wt); free(sc->wl); free(sc->tid); free(sc->lh);
    memset(sc, 0, sizeof *sc);
}

/* Where partition q's entries from position f on (a multiple of LINE_ENTRIES) go: a new chunk at a chunk's
 * start. Sets *failed on memory failure. */
static size_t scatter_at(scatter *sc, size_t q, size_t f, int *failed) {
    if (f % CHUNK_ENTRIES == 0) {
        if (sc->chunks == sc->room) {
            size_t room = sc->room * 2;
            int32_t *next = realloc(sc->next, room * sizeof(int32_t));
            if (next) sc->next = next;
            uint32_t *tid = next ? realloc(sc->tid, room * CHUNK_ENTRIES * sizeof(uint32_t)) : NULL;
            if (tid) sc->tid = tid;
            uint16_t *lh = tid ? realloc(sc->lh, room * CHUNK_ENTRIES * sizeof(uint16_t)) : NULL;
            if (!lh) { *failed = 1; return 0; }
            sc->lh = lh;
            sc->room = room;
        }
        int32_t c = (int32_t)sc->chunks++;
        sc->next[c] = -1;
        if (sc->tail[q] >= 0) sc->next[sc->tail[q]] = c;
        else sc->head[q] = c;
        sc->tail[q] = c;
    }
    return (size_t)sc->tail[q] * CHUNK_ENTRIES + f % CHUNK_ENTRIES;
}

static inline void copy_line(void *dst, const void *src, size_t bytes) {  /* bytes 64 or 128 */
#ifdef __SSE2__
    /* (a pool from an allocator that aligns to less than 16 bytes takes ordinary stores) */
    if ((uintptr_t)dst & 15) { memcpy(dst, src, bytes); return; }
    for (size_t k = 0; k < bytes; k += 16)
        _mm_stream_si128((__m128i *)((char *)dst + k), _mm_loadu_si128((const __m128i *)((const char *)src + k)));
#else
    memcpy(dst, src, bytes);
#endif
}

/* Puts text t's hash h; -1 on memory failure. */
static inline int scatter_put(scatter *sc, uint32_t t, uint32_t h) {
    size_t q = h >> (32 - sc->pb), f = sc->fill[q]++, k = f & (LINE_ENTRIES - 1);
    sc->wt[q * LINE_ENTRIES + k] = t;
    sc->wl[q * LINE_ENTRIES + k] = (uint16_t)(h >> (16 - sc->pb));
    if (k == LINE_ENTRIES - 1) {
        int failed = 0;
        size_t at = scatter_at(sc, q, f - k, &failed);
        if (failed) return -1;
        copy_line(sc->tid + at, sc->wt + q * LINE_ENTRIES, LINE_ENTRIES * sizeof(uint32_t));
        copy_line(sc->lh + at, sc->wl + q * LINE_ENTRIES, LINE_ENTRIES * sizeof(uint16_t));
    }
    return 0;
}

/* Writes out the partly filled lines. */
static int scatter_flush(scatter *sc) {
    for (size_t q = 0; q < sc->parts; q++) {
        size_t f = sc->fill[q], k = f & (LINE_ENTRIES - 1);
        if (!k) continue;
        int failed = 0;
        size_t at = scatter_at(sc, q, f - k, &failed);
        if (failed) return -1;
        memcpy(sc->tid + at, sc->wt + q * LINE_ENTRIES, k * sizeof(uint32_t));
        memcpy(sc->lh + at, sc->wl + q * LINE_ENTRIES, k * sizeof(uint16_t));
    }
#ifdef __SSE2__
    _mm_sfence();
#endif
    return 0;
}

/* A non-ASCII character's case folding (1-3 characters) and their classes in the word rule. */
typedef struct { Py_UCS4 key, ch[3]; uint8_t n; char cls[3]; } folding;

/* What stage A/C read of a text: its bytes, whether they need folding. */
typedef struct {
    PyObject **forms;   /* per text: NULL (ASCII, read in place), or the bytes read instead (owned) */
    uint8_t *empty;     /* per text: 1 if the text has no words (forms holds its signature key) */
    PyObject *nfkc, *char_class;  /* NFKC (tokenise.nfkc), and a character's class in the word rule */
    folding *folds;     /* open addressing by character (key 0: free), filled on first sight */
    size_t fold_mask, fold_used;
} sources;

static char ascii_class(Py_UCS4 ch) {  /* tokenise._char_class on ASCII: letters and digits are W */
    return ((ch | 0x20) - 'a' < 26u || ch - '0' < 10u) ? 'W' : ' ';
}

static int ask_class(sources *src, Py_UCS4 ch, char *out) {
    if (ch < 0x80) { *out = ascii_class(ch); return 0; }
    PyObject *u = PyUnicode_FromOrdinal((int)ch);
    if (!u) return -1;
    PyObject *r = PyObject_CallOneArg(src->char_class, u);
    Py_DECREF(u);
    if (!r) return -1;
    if (!PyUnicode_Check(r) || PyUnicode_GET_LENGTH(r) != 1) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_TypeError, "char_class must return one character");
        return -1;
    }
    *out = (char)PyUnicode_READ_CHAR(r, 0);
    Py_DECREF(r);
    return 0;
}

static int folds_grow(sources *src) {
    size_t slots = src->folds ? (src->fold_mask + 1) * 2 : 256;
    folding *t = calloc(slots, sizeof(folding));
    if (!t) return -1;
    if (src->folds)
        for (size_t j = 0; j <= src->fold_mask; j++) {
            if (!src->folds[j].key) continue;
            size_t k = (size_t)(finish(src->folds[j].key) & (slots - 1));
            while (t[k].key) k = (k + 1) & (slots - 1);
            t[k] = src->folds[j];
        }
    free(src->folds);
    src->folds = t;
    src->fold_mask = slots - 1;
    return 0;
}

/* The folding of a character >= 0x80: str.casefold is a per-character map (no context), so it is asked of
 * Python once per character and call, with the classes of what it gives. */
static const folding *fold_of(sources *src, Py_UCS4 ch) {
    if ((!src->folds || (src->fold_used + 1) * 2 > src->fold_mask) && folds_grow(src)) {
        PyErr_NoMemory();
        return NULL;
    }
    size_t j = (size_t)(finish(ch) & src->fold_mask);
    while (src->folds[j].key) {
        if (src->folds[j].key == ch) return &src->folds[j];
        j = (j + 1) & src->fold_mask;
    }
    folding f = {0};
    PyObject *u = PyUnicode_FromOrdinal((int)ch);
    if (!u) return NULL;
    PyObject *r = PyObject_CallMethod(u, "casefold", NULL);
    Py_DECREF(u);
    if (!r) return NULL;
    Py_ssize_t k = PyUnicode_GET_LENGTH(r);
    if (k < 1 || k > 3) {  /* Unicode's full case folding maps a character to 1-3 */
        Py_DECREF(r);
        PyErr_SetString(PyExc_ValueError, "casefold gave an unexpected length");
        return NULL;
    }
    f.key = ch;
    f.n = (uint8_t)k;
    for (Py_ssize_t q = 0; q < k; q++) {
        f.ch[q] = PyUnicode_READ_CHAR(r, q);
        if (ask_class(src, f.ch[q], &f.cls[q])) { Py_DECREF(r); return NULL; }
    }
    Py_DECREF(r);
    src->folds[j] = f;
    src->fold_used++;
    return &src->folds[j];
}

/* Appends a character as UTF-8 (surrogates as three bytes, as "surrogatepass"); out has room for 4. */
static inline Py_ssize_t put_utf8(uint8_t *out, Py_ssize_t o, Py_UCS4 ch) {
    if (ch < 0x80) out[o++] = (uint8_t)ch;
    else if (ch < 0x800) { out[o++] = (uint8_t)(0xC0 | ch >> 6); out[o++] = (uint8_t)(0x80 | (ch & 0x3F)); }
    else if (ch < 0x10000) {
        out[o++] = (uint8_t)(0xE0 | ch >> 12); out[o++] = (uint8_t)(0x80 | (ch >> 6 & 0x3F));
        out[o++] = (uint8_t)(0x80 | (ch & 0x3F));
    } else {
        out[o++] = (uint8_t)(0xF0 | ch >> 18); out[o++] = (uint8_t)(0x80 | (ch >> 12 & 0x3F));
        out[o++] = (uint8_t)(0x80 | (ch >> 6 & 0x3F)); out[o++] = (uint8_t)(0x80 | (ch & 0x3F));
    }
    return o;
}

/* A non-ASCII text's words joined by spaces, UTF-8: the characters of its NFKC form, case folded, classed
 * W (letter/digit), M (combining mark), S (a word by itself) or a space, and the words the runs "SM*" and
 * "W[WM]*" (tokenise._TOKEN: leftmost, so a run ends where its class rule breaks). */
static PyObject *unicode_words(sources *src, PyObject *text) {
    PyObject *norm = PyObject_CallOneArg(src->nfkc, text);
    if (!norm) return NULL;
    if (!PyUnicode_Check(norm)) {
        Py_DECREF(norm);
        PyErr_SetString(PyExc_TypeError, "nfkc must return a str");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(norm), o = 0;
    int kind = PyUnicode_KIND(norm);
    const void *data = PyUnicode_DATA(norm);
    /* per character of the NFKC form: at most 3 folded ones, each at most 4 bytes and a separator */
    if ((size_t)n > ((size_t)PY_SSIZE_T_MAX - 1) / 15) { Py_DECREF(norm); return PyErr_NoMemory(); }
    uint8_t *out = malloc((size_t)n * 15 + 1);
    if (!out) { Py_DECREF(norm); return PyErr_NoMemory(); }
    char run = ' ';  /* the class the current word started with (W or S), or ' ' outside a word */
    /* ASCII characters (most, even in these texts) without a branch on the character: a word character is
     * written, after a space where it starts a word */
#define UNICODE_WORDS_(TYPE)                                                                   \
    for (Py_ssize_t i = 0; i < n; i++) {                                                       \
        Py_UCS4 c0 = ((const TYPE *)data)[i];                                                  \
        if (c0 < 0x80) {                                                                       \
            uint8_t l = ASCII_WORD[c0];                                                        \
            Py_ssize_t w = l != 0;                                                             \
            out[o] = ' ';                                                                      \
            o += w & (run != 'W') & (o != 0);                                                  \
            out[o] = l;                                                                        \
            o += w;                                                                            \
            run = w ? 'W' : ' ';                                                               \
            continue;                                                                          \
        }                                                                                      \
        const folding *f = fold_of(src, c0);                                                   \
        if (!f) { free(out); Py_DECREF(norm); return NULL; }                                   \
        for (int q = 0; q < f->n; q++) {                                                       \
            char k = f->cls[q];                                                                \
            if (k == 'M' && run != ' ') { o = put_utf8(out, o, f->ch[q]); continue; } /* joins its run */ \
            if (k == 'W' && run == 'W') { o = put_utf8(out, o, f->ch[q]); continue; }         \
            if (k == 'W' || k == 'S') {  /* a new word */                                      \
                if (o) out[o++] = ' ';                                                         \
                o = put_utf8(out, o, f->ch[q]);                                                \
                run = k;                                                                       \
            } else {                                                                           \
                run = ' ';  /* a space, or a mark outside a word */                            \
            }                                                                                  \
        }                                                                                      \
    }
    if (kind == PyUnicode_1BYTE_KIND) UNICODE_WORDS_(Py_UCS1)
    else if (kind == PyUnicode_2BYTE_KIND) UNICODE_WORDS_(Py_UCS2)
    else UNICODE_WORDS_(Py_UCS4)
#undef UNICODE_WORDS_
    Py_DECREF(norm);
    PyObject *b = PyBytes_FromStringAndSize((const char *)out, o);
    free(out);
    return b;
}

/* How an item's attribute is read: straight from its slot when the item is of exactly the type whose
 * __slots__ member the generic getattr would find first (as the interpreter's specialised attribute load
 * does: a member is a data descriptor, so the instance has no say), else by getattr. */
typedef struct { PyTypeObject *type; Py_ssize_t offset; PyObject *name; } attr_reader;

static void attr_reader_init(attr_reader *r, PyObject *item, PyObject *name) {
    PyTypeObject *tp = Py_TYPE(item);
    r->type = NULL;
    r->offset = 0;
    r->name = name;
    if (tp->tp_getattro != PyObject_GenericGetAttr) return;
    PyObject *d = _PyType_Lookup(tp, name);  /* borrowed */
    if (!d || !Py_IS_TYPE(d, &PyMemberDescr_Type)) return;
    PyMemberDescrObject *md = (PyMemberDescrObject *)d;
    const PyMemberDef *m = md->d_member;
    if ((m->type != Py_T_OBJECT_EX && m->type != Py_T_OBJECT) || !PyType_IsSubtype(tp, PyDescr_TYPE(md))
        || m->offset < (Py_ssize_t)sizeof(PyObject) || (size_t)m->offset + sizeof(PyObject *) > (size_t)tp->tp_basicsize)
        return;
    r->type = tp;
    r->offset = m->offset;
}

static inline PyObject *read_attr(const attr_reader *r, PyObject *item) {  /* a new reference, or NULL */
    if (Py_TYPE(item) == r->type) {
        PyObject *v = *(PyObject **)((char *)item + r->offset);
        if (v) { Py_INCREF(v); return v; }
    }
    return PyObject_GetAttr(item, r->name);  /* other types, and an unset slot (its AttributeError) */
}

/* A text a few ahead is fetched while this one is read: its header and first bytes are a cache miss each
 * once the batch outgrows the cache, and the hardware prefetcher only follows the bytes within a text. */
#define PREFETCH_AHEAD 4
#define GUESS_TEXTS 64  /* the texts whose mean length sizes the shingle hashes' room */
static inline void prefetch_text(PyObject *s) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(s);
    __builtin_prefetch((const char *)s + 64);
    __builtin_prefetch((const char *)s + 128);
#else
    (void)s;
#endif
}

/* The rest of an ASCII text whose header is in cache (prefetch_text fetched it and its first lines a few
 * texts ago): the hardware prefetcher starts only after a miss or two within each text. */
static inline void prefetch_rest(PyObject *s) {
#if defined(__GNUC__) || defined(__clang__)
    if (!s || !PyUnicode_Check(s) || !PyUnicode_IS_COMPACT_ASCII(s)) return;
    const char *d = (const char *)PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    for (Py_ssize_t o = 192 - (d - (const char *)s); o < n; o += 64) __builtin_prefetch(d + o);
#else
    (void)s;
#endif
}

/* Every line of p[0:bytes): stage C reads the active texts' keys and slots in join order, which jumps about
 * arrays larger than L2 at 10^5 texts. */
static inline void prefetch_span(const void *p, size_t bytes) {
#if defined(__GNUC__) || defined(__clang__)
    for (size_t o = 0; o < bytes; o += 64) __builtin_prefetch((const char *)p + o);
#else
    (void)p; (void)bytes;
#endif
}

static int text_bytes(PyObject *const *texts, sources *src, Py_ssize_t t,
                      const uint8_t **p, Py_ssize_t *n, int *fold) {
    if (src->forms[t]) {
        *p = (const uint8_t *)PyBytes_AS_STRING(src->forms[t]);
        *n = PyBytes_GET_SIZE(src->forms[t]);
        *fold = 0;
        return 0;
    }
    PyObject *s = texts[t];
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "text %zd is not a str", t);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) return -1;  /* a legacy string's canonical form (always there from 3.12) */
#endif
    if (PyUnicode_IS_ASCII(s)) {
        *p = (const uint8_t *)PyUnicode_DATA(s);
        *n = PyUnicode_GET_LENGTH(s);
        *fold = 1;
        return 0;
    }
#ifdef JACCARD_TIMING
    double t0_ = now_();
#endif
    PyObject *b = unicode_words(src, s);
#ifdef JACCARD_TIMING
    unicode_seconds += now_() - t0_;
#endif
    if (!b) return -1;
    src->forms[t] = b;
    *p = (const uint8_t *)PyBytes_AS_STRING(b);
    *n = PyBytes_GET_SIZE(b);
    *fold = 0;
    return 0;
}

static int set_empty(PyObject *const *texts, sources *src, Py_ssize_t t, PyObject *empty_key) {
    PyObject *key = PyObject_CallOneArg(empty_key, texts[t]);
    if (!key) return -1;
    if (!PyBytes_Check(key)) {
        Py_DECREF(key);
        PyErr_SetString(PyExc_TypeError, "empty_key must return bytes");
        return -1;
    }
    Py_XDECREF(src->forms[t]);
    src->forms[t] = key;
    src->empty[t] = 1;
    return 0;
}

static inline int ctz64(uint64_t x) {
#if defined(_MSC_VER)
    unsigned long k;
    _BitScanForward64(&k, x);
    return (int)k;
#else
    return __builtin_ctzll(x);
#endif
}

/* One bit per byte of the 64 readable bytes at p: set for a word byte (as WORD_BYTE says). */
static inline uint64_t word_mask64(const uint8_t *p) {
#ifdef __SSE2__
    uint64_t m = 0;
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));
        /* ASCII letters: (v | 0x20) - 'a' below 26; digits: v - '0' below 10; bytes >= 0x80 */
        __m128i x = _mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
        __m128i alpha = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(25)), x);
        __m128i y = _mm_sub_epi8(v, _mm_set1_epi8('0'));
        __m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(y, _mm_set1_epi8(9)), y);
        __m128i high = _mm_cmplt_epi8(v, _mm_setzero_si128());
        m |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(alpha, digit), high)) << (16 * k);
    }
    return m;
#else
    uint64_t m = 0;
    for (int k = 0; k < 64; k++) m |= (uint64_t)WORD_BYTE[p[k]] << k;
    return m;
#endif
}

/* The mask of p[b:n), fewer than 64 bytes, read from a zeroed copy (a zero byte is never a word byte). */
static inline uint64_t tail_mask64(const uint8_t *p, Py_ssize_t b, Py_ssize_t n) {
    uint8_t block[64] = {0};
    memcpy(block, p + b, (size_t)(n - b));
    return word_mask64(block);
}

/* Runs BODY for every word of bytes p[0:n), with START and LEN its span. Each 64-byte block's mask gives
 * the words' starts and ends as bits; a start is paired with the next end (a word left open at the block's
 * end is finished in a later block), so the branches are per word and per block, not per byte. */
#define FOR_EACH_WORD(p, n, START, LEN, BODY)                                          \
    do {                                                                               \
        Py_ssize_t open_ = -1;                                                         \
        uint64_t carry_ = 0;                                                           \
        for (Py_ssize_t b_ = 0; b_ < (n); b_ += 64) {                                  \
            uint64_t m_ = b_ + 64 <= (n) ? word_mask64((p) + b_) : tail_mask64((p), b_, (n)); \
            uint64_t sh_ = (m_ << 1) | carry_;                                         \
            uint64_t st_ = m_ & ~sh_, en_ = ~m_ & sh_;                                 \
            carry_ = m_ >> 63;                                                         \
            if (open_ >= 0) {                                                          \
                if (!en_) continue; /* the block is inside the open word */            \
                Py_ssize_t START = open_, LEN = b_ + ctz64(en_) - open_;               \
                en_ &= en_ - 1;                                                        \
                open_ = -1;                                                            \
                BODY                                                                   \
            }                                                                          \
            while (st_) {                                                              \
                Py_ssize_t s_ = b_ + ctz64(st_);                                       \
                st_ &= st_ - 1;                                                        \
                if (!en_) { open_ = s_; break; }                                       \
                Py_ssize_t START = s_, LEN = b_ + ctz64(en_) - s_;                     \
                en_ &= en_ - 1;                                                        \
                BODY                                                                   \
            }                                                                          \
        }                                                                              \
        if (open_ >= 0) { Py_ssize_t START = open_, LEN = (n) - open_; BODY }          \
    } while (0)

/* A short word's code where 8 bytes can be read from its start (p[0:n) the text). */
static inline uint64_t short_code(const uint8_t *p, Py_ssize_t start, Py_ssize_t len, Py_ssize_t n, int fold) {
    if (start + 8 > n) return load_word(p + start, len, fold);
    uint64_t v;
    memcpy(&v, p + start, 8);
    v &= ~0ULL >> (8 * (8 - len));
    if (fold) v |= 0x2020202020202020ULL >> (8 * (8 - len));
    return v;
}

/* LOW_BYTES[k] keeps the first k bytes of a little-endian load. */
static const uint64_t LOW_BYTES[9] = {0, 0xFFULL, 0xFFFFULL, 0xFFFFFFULL, 0xFFFFFFFFULL, 0xFFFFFFFFFFULL,
                                      0xFFFFFFFFFFFFULL, 0xFFFFFFFFFFFFFFULL, ~0ULL};

/* The counting filter's code of the word p[s:s+len) (p readable on [0, readable), readable >= 8): a function
 * of the word's bytes with bit 5 set (ASCII lower case; the word forms of other texts are folded already, so
 * the same word gets the same code in both), not one-to-one (long words: first and last 8 bytes and length),
 * which is all the filter needs. Two loads and no branch on the word. */
static inline uint64_t filter_code(const uint8_t *p, Py_ssize_t s, Py_ssize_t len, Py_ssize_t readable) {
    Py_ssize_t at = s + 8 <= readable ? s : readable - 8, end = s + len - 8;
    uint64_t v, w;
    memcpy(&v, p + at, 8);
    v >>= 8 * (s - at);
    memcpy(&w, p + (end > 0 ? end : 0), 8);
    v |= 0x2020202020202020ULL;
    uint64_t short_code = v & LOW_BYTES[len < 8 ? len : 8];
    uint64_t long_code = (v * K0 ^ (w | 0x2020202020202020ULL) * K1 ^ (uint64_t)len * K2) | 1ULL;
    return len <= 8 ? short_code : long_code;
}

static inline int64_t prefix_length(int64_t size, double threshold, double slack) {
    double need = ceil(threshold * (double)size * (1.0 - slack));
    if (need < 1.0) need = 1.0;
    int64_t k = (int64_t)need;
    return size - (k < size ? k : size) + 1;
}

/* ---- exact word ids: an open-addressing table per kind (short words by code, long ones by bytes) ---- */
/* A slot's key and id (and a long word's length) share 16 bytes: one cache line per probe. */
typedef struct { uint64_t key; uint32_t id, len; } islot;
typedef struct {
    islot *slots; size_t mask, used;
    size_t *at; vec arena;  /* long words: their bytes, kept in an arena */
} intern;

static int intern_init(intern *tb, size_t slots, int with_bytes) {
    memset(tb, 0, sizeof *tb);
    tb->slots = calloc(slots, sizeof(islot));
    tb->mask = slots - 1;
    tb->arena.size = 1;
    if (with_bytes) tb->at = malloc(slots * sizeof(size_t));
    return (tb->slots && (!with_bytes || tb->at)) ? 0 : -1;
}

static void intern_free(intern *tb) {
    free(tb->slots); free(tb->at); free(tb->arena.p);
}

static int intern_grow(intern *tb) {
    size_t old = tb->mask + 1, slots = old * 2;
    islot *ns = calloc(slots, sizeof(islot));
    size_t *at = tb->at ? malloc(slots * sizeof(size_t)) : NULL;
    if (!ns || (tb->at && !at)) { free(ns); free(at); return -1; }
    for (size_t s = 0; s < old; s++) {
        if (!tb->slots[s].key) continue;
        size_t j = (size_t)(finish(tb->slots[s].key) & (slots - 1));
        while (ns[j].key) j = (j + 1) & (slots - 1);
        ns[j] = tb->slots[s];
        if (at) at[j] = tb->at[s];
    }
    free(tb->slots); free(tb->at);
    tb->slots = ns; tb->at = at; tb->mask = slots - 1;
    return 0;
}

/* Short word: its nonzero code is the key. Returns the id, or UINT32_MAX on memory failure. */
static inline uint32_t intern_short(intern *tb, uint64_t code, uint32_t *next_id) {
    size_t j = (size_t)(finish(code) & tb->mask);
    for (;;) {
        uint64_t k = tb->slots[j].key;
        if (k == code) return tb->slots[j].id;
        if (!k) break;
        j = (j + 1) & tb->mask;
    }
    uint32_t id = (*next_id)++;
    tb->slots[j].key = code; tb->slots[j].id = id;
    if (++tb->used * 2 > tb->mask && intern_grow(tb)) return UINT32_MAX;
    return id;
}

/* Long word (bytes already folded): the key is a nonzero hash, verified against the kept bytes. */
static uint32_t intern_long(intern *tb, const uint8_t *w, Py_ssize_t n, uint32_t *next_id) {
    uint64_t h = hash_bytes(w, n, 0) | 1ULL;
    size_t j = (size_t)(finish(h) & tb->mask);
    for (;;) {
        uint64_t k = tb->slots[j].key;
        if (!k) break;
        if (k == h && tb->slots[j].len == (uint32_t)n && !memcmp((uint8_t *)tb->arena.p + tb->at[j], w, (size_t)n))
            return tb->slots[j].id;
        j = (j + 1) & tb->mask;
    }
    if ((uint64_t)n > UINT32_MAX || vec_reserve(&tb->arena, tb->arena.n + (size_t)n)) return UINT32_MAX;
    memcpy((uint8_t *)tb->arena.p + tb->arena.n, w, (size_t)n);
    uint32_t id = (*next_id)++;
    tb->slots[j].key = h; tb->slots[j].id = id; tb->slots[j].len = (uint32_t)n; tb->at[j] = tb->arena.n;
    tb->arena.n += (size_t)n;
    if (++tb->used * 2 > tb->mask && intern_grow(tb)) return UINT32_MAX;
    return id;
}

static size_t pow2_at_least(size_t n) {
    size_t p = 1024;
    while (p < n) p *= 2;
    return p;
}

/* A scratch set of 64-bit keys, emptied in O(1) by a generation stamp (one text's shingles at a time). */
typedef struct { uint64_t *keys; uint32_t *gen; size_t mask; uint32_t now; } keyset;

static int keyset_open(keyset *ks, Py_ssize_t n) {  /* an empty set with room for n keys */
    size_t want = pow2_at_least((size_t)n * 2 + 2);
    if (want > ks->mask + 1 || !ks->keys) {
        free(ks->keys); free(ks->gen);
        ks->keys = malloc(want * sizeof(uint64_t));
        ks->gen = calloc(want, sizeof(uint32_t));
        ks->mask = want - 1;
        ks->now = 0;
        if (!ks->keys || !ks->gen) return -1;
    }
    ks->now++;
    return 0;
}

static inline int keyset_add_h(keyset *ks, uint64_t key, uint64_t hash) {  /* 1 if added, 0 if there */
    size_t j = (size_t)(hash & ks->mask);
    while (ks->gen[j] == ks->now) {
        if (ks->keys[j] == key) return 0;
        j = (j + 1) & ks->mask;
    }
    ks->gen[j] = ks->now;
    ks->keys[j] = key;
    return 1;
}

static inline int keyset_add(keyset *ks, uint64_t key) { return keyset_add_h(ks, key, finish(key)); }

static inline int keyset_has(const keyset *ks, uint64_t key) {
    size_t j = (size_t)(finish(key) & ks->mask);
    while (ks->gen[j] == ks->now) {
        if (ks->keys[j] == key) return 1;
        j = (j + 1) & ks->mask;
    }
    return 0;
}

/* ---- small sorts ---- */
/* Writes the k smallest of a[0:n) (k <= n) to out as their low 32 bits, in no particular order; a and tmp
 * (room for n each) are overwritten. Quickselect whose three-way partition is written without a branch on a
 * key (keys are random: a branch on them mispredicts every other time). */
static void smallest_keys(uint64_t *a, Py_ssize_t n, Py_ssize_t k, uint32_t *out, uint64_t *tmp) {
    while (k > 0) {
        if (n <= 8) {
            for (Py_ssize_t i = 1; i < n; i++) {
                uint64_t v = a[i]; Py_ssize_t j = i;
                while (j > 0 && a[j - 1] > v) { a[j] = a[j - 1]; j--; }
                a[j] = v;
            }
            for (Py_ssize_t i = 0; i < k; i++) *out++ = (uint32_t)a[i];
            return;
        }
        uint64_t x = a[0], y = a[n / 2], z = a[n - 1];
        uint64_t piv = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        Py_ssize_t l = 0, h = n;  /* tmp[0:l) below the pivot, tmp[h:n) above it */
        for (Py_ssize_t i = 0; i < n; i++) {
            uint64_t v = a[i];
            tmp[l] = v;
            tmp[h - 1] = v;
            l += v < piv;
            h -= v > piv;
        }
        uint64_t *spare = a;
        if (k <= l) { a = tmp; n = l; tmp = spare; continue; }
        for (Py_ssize_t i = 0; i < l; i++) *out++ = (uint32_t)tmp[i];
        k -= l;
        Py_ssize_t eq = h - l, e = k < eq ? k : eq;
        for (Py_ssize_t i = 0; i < e; i++) *out++ = (uint32_t)piv;
        k -= e;
        a = tmp + h; n -= h; tmp = spare;
    }
}

static void sort_i32(int32_t *a, Py_ssize_t n) {
    if (n > 32) {
        /* few candidates is the rule: a shell sort otherwise */
        for (Py_ssize_t gap = n / 2; gap > 0; gap /= 2)
            for (Py_ssize_t i = gap; i < n; i++) {
                int32_t v = a[i]; Py_ssize_t j = i;
                while (j >= gap && a[j - gap] > v) { a[j] = a[j - gap]; j -= gap; }
                a[j] = v;
            }
        return;
    }
    for (Py_ssize_t i = 1; i < n; i++) {
        int32_t v = a[i]; Py_ssize_t j = i;
        while (j > 0 && a[j - 1] > v) { a[j] = a[j - 1]; j--; }
        a[j] = v;
    }
}


/* ---- the join ---- */
static PyObject *jaccard_join(PyObject *self, PyObject *args) {
    PyObject *items, *nfkc, *char_class, *empty_key, *join_order;
    Py_ssize_t n_pinned;
    double threshold, slack;
    if (!PyArg_ParseTuple(args, "O!nddOOOO", &PyList_Type, &items, &n_pinned, &threshold, &slack, &nfkc,
                          &char_class, &empty_key, &join_order))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(items);
    if (n_pinned < 0 || n_pinned > n) {
        PyErr_SetString(PyExc_ValueError, "n_pinned must be in [0, len(items)]");
        return NULL;
    }
    PyObject **texts = calloc((size_t)n + 1, sizeof(PyObject *));  /* owned references */
    double *scores = calloc((size_t)n + 1, sizeof(double));
    PyObject *text_name = PyUnicode_InternFromString("text"), *score_name = PyUnicode_InternFromString("score");
    attr_reader text_reader = {NULL, 0, text_name};
    PyObject *result = NULL, *order_obj = NULL;
    Py_buffer order_view = {0};
    sources src = {calloc((size_t)n + 1, sizeof(PyObject *)), calloc((size_t)n + 1, 1), nfkc, char_class,
                   NULL, 0, 0};
    vec hs = {0}, keys = {0}, ids = {0}, fold_buf = {0}, okeys = {0};
    hs.size = 4; keys.size = 8; ids.size = 4; fold_buf.size = 1; okeys.size = 8;
    int64_t *occ = malloc(((size_t)n + 1) * sizeof(int64_t));
    int64_t *hs_end = malloc(((size_t)n + 1) * sizeof(int64_t));
    uint8_t *table = NULL, *active = NULL;
    uint32_t *once = NULL;
    scatter sc = {0};
    intern shorts = {0}, longs = {0};
    keyset kset = {0};
    int interned = 0;
    int64_t *koff = NULL, *size = NULL, *pk = NULL, *poff = NULL, *partner = NULL, *seq = NULL, *jpos = NULL;
    int32_t *head = NULL, *ent = NULL, *nxt = NULL, *seen = NULL, *cands = NULL;
    uint32_t *pslot = NULL, *kslot = NULL;
    uint8_t *cnt = NULL;
    size_t cslots = 0;
    int cbits = 0;
    if (!src.forms || !src.empty || !occ || !hs_end || !texts || !scores) { PyErr_NoMemory(); goto done; }
    if (!text_name || !score_name) goto done;
    if (n >= INT32_MAX) { result = Py_None; Py_INCREF(result); goto done; }  /* text ids are 32-bit here */
#ifdef JACCARD_TIMING
    double stamp_ = now_();
#endif

    /* A. tokenise every text, hash its shingles, keep the hashes. The items are read in the same pass: each
     * text is read from its item PREFETCH_AHEAD texts before its turn (and fetched), the item itself fetched
     * twice as far ahead. */
    Py_ssize_t first = n < GUESS_TEXTS ? n : GUESS_TEXTS;  /* the texts read before the pass */
    {
        size_t chars = 0;
        for (Py_ssize_t t = 0; t < first; t++) {
            PyObject *item = PyList_GET_ITEM(items, t);
            if (!t) attr_reader_init(&text_reader, item, text_name);
            if (!(texts[t] = read_attr(&text_reader, item))) goto done;
            chars += (size_t)(PyUnicode_Check(texts[t]) ? PyUnicode_GET_LENGTH(texts[t]) : 0);
        }
        /* A guess of the total sizes the partitions (or, for a small batch, the one table's hashes): the first
         * texts' mean length, about six characters a shingle. Partitions grow if the guess was short; a small
         * batch's hashes that turn out too many for one table are partitioned after the pass. Either way only
         * the speed depends on it. */
        size_t guess = first ? (size_t)((double)(chars / 6 + (size_t)first) / (double)first * (double)n) : 0;
        int pb = partition_bits(guess);
        if (pb) {  /* (text numbers fit 32 bits: n < INT32_MAX above) */
            /* (a guess too large to reserve, from a few huge texts first, only starts them smaller) */
            if (scatter_open(&sc, pb, guess)) {
                scatter_free(&sc);
                if (scatter_open(&sc, pb, 0)) { PyErr_NoMemory(); goto done; }
            }
        } else if (vec_reserve(&hs, guess + guess / 4 + 1) && vec_reserve(&hs, 1024)) {
            PyErr_NoMemory(); goto done;
        }
    }
    STAMP("A bound pass");
    for (Py_ssize_t t = 0; t < n; t++) {
        const uint8_t *p; Py_ssize_t len; int fold;
        if (t + 2 * PREFETCH_AHEAD < n) prefetch_text(PyList_GET_ITEM(items, t + 2 * PREFETCH_AHEAD));
        if (t + PREFETCH_AHEAD < n && t + PREFETCH_AHEAD >= first) {
            Py_ssize_t ahead = t + PREFETCH_AHEAD;
            if (!(texts[ahead] = read_attr(&text_reader, PyList_GET_ITEM(items, ahead)))) goto done;
            prefetch_text(texts[ahead]);
        }
        if (t + PREFETCH_AHEAD / 2 < n) prefetch_rest(texts[t + PREFETCH_AHEAD / 2]);
        if (text_bytes(texts, &src, t, &p, &len, &fold)) goto done;
        /* Each trigram's hash is put (or, for a small batch, kept in h) as its last word is read; a text's words
         * are at most (bytes + 1) / 2 (a word form can be longer than its text: NFKC expands some characters). */
        uint32_t *h = NULL;
        int failed = 0;
        if (!sc.pb) {
            if (vec_reserve(&hs, hs.n + (size_t)len / 2 + 2)) { PyErr_NoMemory(); goto done; }
            h = (uint32_t *)hs.p + hs.n;
        }
        uint64_t first = 0, second = 0, prev2 = 0, prev1 = 0;  /* the first two codes; the last two */
        Py_ssize_t nw = 0;
        /* filter_code reads 8 bytes anywhere in [0, readable): a text shorter than 8 bytes is read from a
         * zeroed copy */
        uint8_t pad[8] = {0};
        const uint8_t *q = p;
        Py_ssize_t readable = len;
        if (len < 8) { memcpy(pad, p, (size_t)len); q = pad; readable = 8; }
        FOR_EACH_WORD(q, len, s, wl, {
            uint64_t c = filter_code(q, s, wl, readable);
            if (nw >= 2) {
                uint32_t v = (uint32_t)(((prev2 * K0 ^ prev1 * K1 ^ c * K2) * K4) >> 32);
                if (h) h[nw - 2] = v;
                else failed |= scatter_put(&sc, (uint32_t)t, v);
            } else if (nw == 0) first = c;
            else second = c;
            prev2 = prev1;
            prev1 = c;
            nw++;
        });
        if (nw == 0) {
            if (set_empty(texts, &src, t, empty_key)) goto done;
            first = hash_bytes((const uint8_t *)PyBytes_AS_STRING(src.forms[t]),
                               PyBytes_GET_SIZE(src.forms[t]), 0) | 1ULL;
            nw = 1;
        }
        Py_ssize_t m = nw >= 3 ? nw - 2 : 1;
        if (nw < 3) {
            uint32_t v = (uint32_t)(finish(first * K3 ^ (nw == 2 ? second : 0) * K1 ^ (uint64_t)(nw + 1) * K2) >> 32);
            if (h) h[0] = v;
            else failed |= scatter_put(&sc, (uint32_t)t, v);
        }
        if (failed) { PyErr_NoMemory(); goto done; }
        if (h) hs.n += (size_t)m;
        occ[t] = m;
        hs_end[t] = (int64_t)hs.n;
    }
#ifdef JACCARD_TIMING
    fprintf(stderr, "A of which unicode_words %.2f ms\n", unicode_seconds * 1e3);
    unicode_seconds = 0;
#endif
    STAMP("A tokenise+hash");
    /* Counted in a table that stays in cache: in one table of about two one-byte slots a hash while the batch
     * is small; otherwise partition by partition, each in a 64 KiB table, a text's occurrences seen once in
     * its partition then added to its count. No access goes to a table the size of the batch. */
    active = malloc((size_t)n + 1);
    once = calloc((size_t)n + 1, sizeof(uint32_t));
    if (!active || !once) { PyErr_NoMemory(); goto done; }
    if (!sc.pb && hs.n > DIRECT_ENTRIES) {  /* the guess was far short: the kept hashes are partitioned now */
        const uint32_t *h = hs.p;
        if (scatter_open(&sc, partition_bits(hs.n), hs.n)) { PyErr_NoMemory(); goto done; }
        for (Py_ssize_t t = 0, j = 0; t < n; t++)
            for (; j < hs_end[t]; j++)
                if (scatter_put(&sc, (uint32_t)t, h[j])) { PyErr_NoMemory(); goto done; }
        free(hs.p); hs.p = NULL; hs.n = 0;
    }
    if (!sc.pb) {
        size_t total = hs.n;
        int lb;
        /* fresh pages cost more than the collisions of a small table */
        for (lb = 12; lb < DIRECT_BITS && ((size_t)1 << lb) < 2 * total; lb++) {}
        const uint32_t *h = hs.p;
        table = malloc((size_t)1 << lb);
        if (!table) { PyErr_NoMemory(); goto done; }
        memset(table, 0, (size_t)1 << lb);
        for (size_t j = 0; j < total; j++) {
            uint32_t v = h[j] >> (32 - lb);
            table[v] += table[v] < 2;
        }
        size_t j = 0;
        for (Py_ssize_t t = 0; t < n; t++) {
            uint32_t c = 0;
            for (; j < (size_t)hs_end[t]; j++) c += table[h[j] >> (32 - lb)] == 1;
            once[t] = c;
        }
    } else {
        if (scatter_flush(&sc)) { PyErr_NoMemory(); goto done; }
        STAMP("A count: flush");
        table = malloc((size_t)1 << LOCAL_BITS);
        if (!table) { PyErr_NoMemory(); goto done; }
        for (size_t q = 0; q < sc.parts; q++) {
            memset(table, 0, (size_t)1 << LOCAL_BITS);
            size_t left = sc.fill[q];
            for (int32_t c = sc.head[q]; c >= 0; c = sc.next[c]) {
                const uint16_t *lh = sc.lh + (size_t)c * CHUNK_ENTRIES;
                size_t f = left < CHUNK_ENTRIES ? left : CHUNK_ENTRIES;
                for (size_t j = 0; j < f; j++) table[lh[j]] += table[lh[j]] < 2;
                left -= f;
            }
            left = sc.fill[q];
            for (int32_t c = sc.head[q]; c >= 0; c = sc.next[c]) {
                const uint16_t *lh = sc.lh + (size_t)c * CHUNK_ENTRIES;
                const uint32_t *tid = sc.tid + (size_t)c * CHUNK_ENTRIES;
                size_t f = left < CHUNK_ENTRIES ? left : CHUNK_ENTRIES;
                for (size_t j = 0; j < f; j++) once[tid[j]] += table[lh[j]] == 1;
                left -= f;
            }
        }
        scatter_free(&sc);
    }
    /* B. the texts proven unable to match anything */
    for (Py_ssize_t t = 0; t < n; t++) active[t] = (int64_t)once[t] < prefix_length(occ[t], threshold, slack);
    STAMP("A count + B once");
    free(table); table = NULL;
    free(hs.p); hs.p = NULL;

    /* the join order, from the caller */
    {
        /* the scores of the active candidates only (the others are never ordered) */
        if (PyList_GET_SIZE(items) != n) {  /* read again below: a list changed under us is refused */
            PyErr_SetString(PyExc_RuntimeError, "items changed size during the join");
            goto done;
        }
        attr_reader score_reader = {NULL, 0, score_name};
        if (n > n_pinned) attr_reader_init(&score_reader, PyList_GET_ITEM(items, n_pinned), score_name);
        for (Py_ssize_t t = n_pinned; t < n; t++) {
            if (!active[t]) continue;
            PyObject *sc = read_attr(&score_reader, PyList_GET_ITEM(items, t));
            if (!sc) goto done;
            scores[t] = PyFloat_CheckExact(sc) ? PyFloat_AS_DOUBLE(sc) : PyFloat_AsDouble(sc);
            Py_DECREF(sc);
            if (scores[t] == -1.0 && PyErr_Occurred()) goto done;
        }
        PyObject *mask = PyBytes_FromStringAndSize((const char *)active, n);
        PyObject *sc = PyBytes_FromStringAndSize((const char *)scores, n * (Py_ssize_t)sizeof(double));
        if (mask && sc) order_obj = PyObject_CallFunctionObjArgs(join_order, mask, sc, NULL);
        Py_XDECREF(mask);
        Py_XDECREF(sc);
        if (!order_obj || PyObject_GetBuffer(order_obj, &order_view, PyBUF_C_CONTIGUOUS)) goto done;
    }
    if (order_view.itemsize != 8 || order_view.len % 8) {
        PyErr_SetString(PyExc_TypeError, "join_order must return an int64 array");
        goto done;
    }
    Py_ssize_t na = order_view.len / 8, npa = 0;
    const int64_t *order = order_view.buf;
    for (Py_ssize_t a = 0; a < na; a++) {
        if (order[a] < 0 || order[a] >= n || !active[order[a]]) {
            PyErr_SetString(PyExc_ValueError, "join_order returned a position that is not an active text");
            goto done;
        }
        npa += order[a] < n_pinned;
    }

    STAMP("join order (Python)");
    /* C. exact keys of the active texts (read in input order, then put in join order) */
    koff = malloc(((size_t)na + 1) * sizeof(int64_t));
    size = malloc(((size_t)na + 1) * sizeof(int64_t));
    partner = malloc(((size_t)na + 1) * sizeof(int64_t));
    if (!koff || !size || !partner) { PyErr_NoMemory(); goto done; }
    {
        size_t bound = 0;  /* the active texts' shingle occurrences */
        for (Py_ssize_t a = 0; a < na; a++) bound += (size_t)occ[order[a]];
        if (vec_reserve(&keys, bound)) { PyErr_NoMemory(); goto done; }
        /* sized for a vocabulary of a thirty-second of the words (grown past that): texts repeat their words
         * (26,000 distinct among the 1.6 million of the realistic workload's active texts at 10^5), and a table
         * sized for more falls out of L2 with no fewer probes */
        interned = 1;
        if (intern_init(&shorts, pow2_at_least(bound / 32), 0) || intern_init(&longs, 1 << 10, 1)) {
            PyErr_NoMemory(); goto done;
        }
        /* The active texts' distinct shingles are counted as they are found, by slot: a table of about one
         * byte per two shingle occurrences (most shared shingles are held by two texts), saturating. */
        cslots = pow2_at_least(bound / 2);
        while (((size_t)1 << cbits) < cslots) cbits++;
        cnt = big_alloc(cslots);
        kslot = big_alloc((bound + 1) * sizeof(uint32_t));
        if (!cnt || !kslot) { PyErr_NoMemory(); goto done; }
        memset(cnt, 0, cslots);
    }
    /* The active texts are read in input order, where they lie in memory (the join order jumps about the
     * batch: past the cache's size, a miss or more per text); text a's keys are then at koff[a], size[a] of
     * them, wherever its text is in that order (moving them into join order costs more than it saves). Word
     * ids depend on the order words are first seen, which changes no answer (keys are one-to-one with the
     * shingles whatever the ids). */
    seq = malloc(((size_t)na + 1) * sizeof(int64_t));
    jpos = malloc(((size_t)n + 1) * sizeof(int64_t));
    if (!seq || !jpos) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t t = 0; t < n; t++) jpos[t] = -1;
    for (Py_ssize_t a = 0; a < na; a++) jpos[order[a]] = a;
    {
        Py_ssize_t i = 0;
        for (Py_ssize_t t = 0; t < n; t++) if (jpos[t] >= 0) seq[i++] = t;
    }
    uint32_t next_id = 0;
    for (Py_ssize_t i = 0; i < na; i++) {
        Py_ssize_t t = (Py_ssize_t)seq[i], a = (Py_ssize_t)jpos[t];
        const uint8_t *p; Py_ssize_t len; int fold;
        if (i + PREFETCH_AHEAD < na) {
            Py_ssize_t ahead = (Py_ssize_t)seq[i + PREFETCH_AHEAD];
            prefetch_text(src.forms[ahead] ? src.forms[ahead] : texts[ahead]);
        }
        if (i + PREFETCH_AHEAD / 2 < na) {
            Py_ssize_t ahead = (Py_ssize_t)seq[i + PREFETCH_AHEAD / 2];
            if (!src.forms[ahead]) prefetch_rest(texts[ahead]);
        }
        if (text_bytes(texts, &src, t, &p, &len, &fold)) goto done;
        if (vec_reserve(&ids, (size_t)len / 2 + 2) || vec_reserve(&fold_buf, (size_t)len + 8)) {
            PyErr_NoMemory(); goto done;
        }
        uint32_t *wid = ids.p;
        Py_ssize_t nw = 0;
        if (src.empty[t]) {
            wid[nw++] = intern_long(&longs, p, len, &next_id);
        } else {
            uint8_t *fb = fold_buf.p;
            FOR_EACH_WORD(p, len, s, wl, {
                uint32_t id;
                if (wl <= 8) {
                    id = intern_short(&shorts, short_code(p, s, wl, len, fold), &next_id);
                } else {
                    for (Py_ssize_t q = 0; q < wl; q++) fb[q] = fold ? (uint8_t)(p[s + q] | 0x20) : p[s + q];
                    id = intern_long(&longs, fb, wl, &next_id);
                }
                wid[nw++] = id;
            });
        }
        for (Py_ssize_t j = 0; j < nw; j++)
            if (wid[j] == UINT32_MAX) { PyErr_NoMemory(); goto done; }
        if (next_id > MAX_IDS) { result = Py_None; Py_INCREF(result); goto done; }
        Py_ssize_t m = nw >= 3 ? nw - 2 : 1;
        if (vec_reserve(&keys, keys.n + (size_t)m)) { PyErr_NoMemory(); goto done; }
        uint64_t *k = (uint64_t *)keys.p + keys.n;
        if (nw >= 3) {
            for (Py_ssize_t j = 0; j < m; j++)
                k[j] = (uint64_t)wid[j] << (2 * ID_BITS) | (uint64_t)wid[j + 1] << ID_BITS | wid[j + 2];
        } else {  /* the whole tuple: above every trigram key, its length in bit 62 */
            k[0] = 1ULL << 63 | (uint64_t)(nw - 1) << 62 | (uint64_t)wid[0] << ID_BITS | (nw == 2 ? wid[1] : 0);
        }
        if (keyset_open(&kset, m)) { PyErr_NoMemory(); goto done; }
        Py_ssize_t d = 0;
        uint32_t *ks = kslot + keys.n;
        for (Py_ssize_t j = 0; j < m; j++) {
            uint64_t f = finish(k[j]);
            if (!keyset_add_h(&kset, k[j], f)) continue;
            uint32_t c = (uint32_t)(f >> (64 - cbits));
            ks[d] = c;
            k[d++] = k[j];
        }
        koff[a] = (int64_t)keys.n;
        keys.n += (size_t)d;
        size[a] = d;
    }
    intern_free(&shorts); intern_free(&longs); interned = 0;
    /* the counts, in a pass of their own: its random accesses are known ahead, so they are fetched ahead */
    for (size_t j = 0; j < keys.n; j++) {
#if defined(__GNUC__) || defined(__clang__)
        if (j + 16 < keys.n) __builtin_prefetch(cnt + kslot[j + 16], 1);
#endif
        cnt[kslot[j]] += cnt[kslot[j]] < UINT8_MAX;
    }
    STAMP("C exact keys");
    /* counts of the active texts' shingles (saturating), the prefixes' order and slots */
    pk = malloc(((size_t)na + 1) * sizeof(int64_t));
    poff = malloc(((size_t)na + 1) * sizeof(int64_t));
    pslot = big_alloc((keys.n + 1) * sizeof(uint32_t));  /* a prefix is never longer than its set */
    if (!pk || !poff || !pslot) { PyErr_NoMemory(); goto done; }
    const uint64_t *K = keys.p;
    int64_t total = 0;
    for (Py_ssize_t a = 0; a < na; a++) {
        /* The text's shingles in (count, slot) order: those counted once (in no other active text) first;
         * its prefix's others are the first p - u of the rest. Shingles tied on (count, slot) share the
         * slot, so where the cut falls among them does not change the slots indexed. */
        poff[a] = total;
        if (a + 2 < na) prefetch_span(kslot + koff[a + 2], (size_t)size[a + 2] * sizeof(uint32_t));
        int64_t p = prefix_length(size[a], threshold, slack), u = 0;
        if (vec_reserve(&okeys, 2 * (size_t)size[a] + 1)) { PyErr_NoMemory(); goto done; }
        uint64_t *o = okeys.p;
        Py_ssize_t m = 0;
        for (int64_t j = koff[a]; j < koff[a] + size[a]; j++) {
            uint32_t c = cnt[kslot[j]];
            if (c == 1) u++;
            else o[m++] = (uint64_t)c << 32 | kslot[j];
        }
        pk[a] = u >= p ? 0 : p - u;
        if (!pk[a]) continue;
        smallest_keys(o, m, (Py_ssize_t)pk[a], pslot + total, o + m);
        total += pk[a];
    }
    free(kslot); kslot = NULL;
    free(cnt); cnt = NULL;

    STAMP("C prefixes");
    /* the anchor loop */
    head = big_alloc(cslots * sizeof(int32_t));
    ent = malloc(((size_t)total + 1) * sizeof(int32_t));
    nxt = malloc(((size_t)total + 1) * sizeof(int32_t));
    seen = malloc(((size_t)na + 1) * sizeof(int32_t));
    cands = malloc(((size_t)na + 1) * sizeof(int32_t));
    if (!head || !ent || !nxt || !seen || !cands) { PyErr_NoMemory(); goto done; }
    memset(head, 0xFF, cslots * sizeof(int32_t));
    memset(seen, 0xFF, ((size_t)na + 1) * sizeof(int32_t));
    int32_t ne = 0;
    for (Py_ssize_t a = 0; a < na; a++) {
        partner[a] = -1;
        if (a + 1 < na) {  /* the next text's keys and index heads */
            prefetch_span(K + koff[a + 1], (size_t)size[a + 1] * sizeof(uint64_t));
#if defined(__GNUC__) || defined(__clang__)
            for (int64_t i = 0; i < pk[a + 1]; i++) __builtin_prefetch(head + pslot[poff[a + 1] + i]);
#endif
        }
        if (!pk[a]) continue;
        const uint32_t *ps = pslot + poff[a];
        if (a >= npa) {
            Py_ssize_t f = 0;
            for (int64_t i = 0; i < pk[a]; i++)
                for (int32_t e = head[ps[i]]; e >= 0; e = nxt[e]) {
                    int32_t b = ent[e];
                    if (seen[b] != (int32_t)a) { seen[b] = (int32_t)a; cands[f++] = b; }
                }
            for (Py_ssize_t c = 0; c < f; c++) prefetch_span(K + koff[cands[c]], (size_t)size[cands[c]] * sizeof(uint64_t));
            sort_i32(cands, f);
            int64_t sa = size[a];
            int filled = 0;
            for (Py_ssize_t c = 0; c < f; c++) {
                int32_t b = cands[c];
                int64_t sb = size[b];
                if ((double)(sa < sb ? sa : sb) / (double)(sa < sb ? sb : sa) < threshold) continue;
                if (!filled) {  /* the probing text's shingles, once it has a candidate past the length filter */
                    if (keyset_open(&kset, sa)) { PyErr_NoMemory(); goto done; }
                    for (int64_t i = koff[a]; i < koff[a] + sa; i++) keyset_add(&kset, K[i]);
                    filled = 1;
                }
                int64_t inter = 0;
                for (int64_t j = koff[b]; j < koff[b] + sb; j++) inter += keyset_has(&kset, K[j]);
                if ((double)inter / (double)(sa + sb - inter) >= threshold) { partner[a] = b; break; }
            }
            if (partner[a] >= 0) continue;
        }
        for (int64_t i = 0; i < pk[a]; i++) { ent[ne] = (int32_t)a; nxt[ne] = head[ps[i]]; head[ps[i]] = ne++; }
    }
    STAMP("C anchor loop");
#ifdef JACCARD_TIMING
    fprintf(stderr, "texts %zd active %zd keys %zu prefix entries %lld\n", n, na, keys.n, (long long)total);
#endif
    result = PyBytes_FromStringAndSize((const char *)partner, na * 8);

done:
    if (order_view.obj) PyBuffer_Release(&order_view);
    Py_XDECREF(order_obj);
    if (src.forms) for (Py_ssize_t t = 0; t < n; t++) Py_XDECREF(src.forms[t]);
    if (texts) for (Py_ssize_t t = 0; t < n; t++) Py_XDECREF(texts[t]);
    free(texts); free(scores);
    Py_XDECREF(text_name); Py_XDECREF(score_name);
    free(src.forms); free(src.empty); free(src.folds);
    free(hs.p); free(keys.p); free(ids.p); free(fold_buf.p); free(okeys.p);
    free(occ); free(hs_end); free(table); free(active); free(once);
    scatter_free(&sc);
    if (interned) { intern_free(&shorts); intern_free(&longs); }
    free(koff); free(size); free(pk); free(poff); free(partner); free(head); free(ent); free(nxt);
    free(seen); free(cands); free(pslot); free(kslot); free(cnt); free(seq); free(jpos);
    free(kset.keys); free(kset.gen);
    return result;
}

static PyMethodDef METHODS[] = {
    {"jaccard_join", jaccard_join, METH_VARARGS,
     "jaccard_join(items, n_pinned, threshold, slack, nfkc, char_class, empty_key, join_order) -> bytes | None"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef MODULE = {PyModuleDef_HEAD_INIT, "_jaccard_native",
                                    "The \"jaccard\" join in C (see jaccard.c).", -1, METHODS};

PyMODINIT_FUNC PyInit__jaccard_native(void) {
    for (int c = 0; c < 256; c++)
        WORD_BYTE[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
    for (int c = 0; c < 128; c++)
        ASCII_WORD[c] = (uint8_t)(ascii_class((Py_UCS4)c) == 'W' ? (c >= 'A' && c <= 'Z' ? c | 0x20 : c) : 0);
    return PyModule_Create(&MODULE);
}
