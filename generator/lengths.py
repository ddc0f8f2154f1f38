"""Pointer-length pairing: which parameter passed by value is a data pointer's length.

std.regions and std.diff charge a pointer from itself to the end of its region (a heap
block, a mapping, a static object, a stack frame).  A call that gets a pointer into
the middle of a big buffer and a length (EVP_DecryptUpdate's `in`, `inl`) uses only
`inl` bytes of it; the length bounds the buffer.  Nothing in C says which integer is
whose length, so the rule reads the names, and is conservative: a wrong cap makes the
estimate undercount, a missed pair only leaves the region's end as the bound.

The rule.  A parameter P is bounded by the parameter L right after it when
  1. P points to data: char, an integer, a floating type or void; or P is an array of
     pointers to such data (char **, libjpeg's JSAMPARRAY): its elements are rows.  Not
     a pointer named as a length itself (lfind's `size_t *nmemb, size_t size`);
  2. L is an integer passed by value (not _Bool, not an enum);
  3. L's name says it is a length (case-insensitive, leading underscores dropped: glibc's
     __n is n): P's own name with a length suffix or prefix (P + len, l, _len, size,
     _size, cnt, _count...; n + P, num_ + P: in/inl, key/keylen, data/data_len, x/nx),
     or a word of LENGTH_WORDS, COUNT_WORDS or BYTE_WORDS (n, len, size, cnt, nbytes,
     num_lines...);
  4. the unit is clear.  L counts elements of P's pointee (sizeof(*P); a byte for
     void).  So a void pointer takes no element count (qsort's nmemb); and when L is a
     word, not P's own, and the parameter after it is another integer named as a length
     or a stride (fread's size, nmemb; a vector's n, incx), the extent is their
     product, not L: no pair;
  5. an array of pointers is no out parameter: `char **buf, int num` (BIO_nread) hands
     back one pointer and num sizes what it points to.  So an array of pointers takes
     only a count of rows: a name that says so (num_lines, max_lines, nrows, nitems,
     P + count, n + P: COUNT_WORDS), or n, num, count, cnt when its elements are const
     (`const char *const *lines, int n`: the call cannot write them); never a byte size.
Only the adjacent integer counts: memcpy's src is bounded by n, its dest is not.

Names can mislead: truncate(const char *file, off_t length) and ngettext's msgid2, n
pair by this rule though length and n are no string's length, and strxfrm's n sizes its
dest, not the src it follows (these undercount a string's bytes).  `--list` shows every
pair a wrapper uses (lengths: in/inl); `-g std.diff:lengths=off` turns them off.
"""
import re

# lengths in any unit (elements of the pointee)
LENGTH_WORDS = r'(?-i:n)|cnt|count|num'      # (N, upper case, is scrypt's cost)
# counts of elements of some size: not a void pointer's bytes
COUNT_WORDS = r'nmemb|nelems?|nitems|nlines|nrows|(?:num|max|n)_?(?:lines|rows|elem(?:ent)?s|items|samples)'
# byte sizes: not an array of pointers' rows
BYTE_WORDS = r'len|length|size|sz|nbytes|bytes|(?:num|n)_?bytes'
# a stride or a second length after the length: the extent is a product
STRIDE_WORDS = r'inc\w*|stride\w*|ld\w*'

_DATA = {'char', 'signed', 'unsigned', 'float', 'void'}
_OWN_SUFFIXES = ('len', 'l', '_len', 'length', '_length', 'size', '_size', 'sz', '_sz',
                 'cnt', '_cnt', 'count', '_count')
_OWN_PREFIXES = ('n', 'n_', 'num_')


def _full(pattern, name):
    return re.fullmatch(pattern, name, re.IGNORECASE) is not None


def _names_length(ptr, name):
    """Does NAME say it is the length of the pointer named PTR?  (the kind of length:
    'bytes', 'count' or 'any', and whether it is PTR's own name; None: not a length)"""
    ptr, name = ptr.lstrip('_'), name.lstrip('_')
    low = name.lower()
    if low in [(ptr + s).lower() for s in _OWN_SUFFIXES] + [(p + ptr).lower() for p in _OWN_PREFIXES]:
        return ('bytes' if low.endswith(('len', 'l', 'length', 'size', 'sz')) else 'count'), True
    for kind, words in (('bytes', BYTE_WORDS), ('count', COUNT_WORDS), ('any', LENGTH_WORDS)):
        if _full(words, name):
            return kind, False
    return None


def _names_word(name, words=(LENGTH_WORDS, COUNT_WORDS, BYTE_WORDS)):
    name = name.lstrip('_')
    return any(_full(w, name) for w in words)


def _is_length_or_stride(p):
    return p.integer and _names_word(p.name, (STRIDE_WORDS, LENGTH_WORDS, COUNT_WORDS, BYTE_WORDS))


def pairs(params):
    """{index of a pointer parameter: index of its length parameter} for PARAMS
    (headers.Param), by the rule above."""
    found = {}
    for i, (p, l) in enumerate(zip(params, params[1:])):
        if not (p.pointer and l.integer) or _names_word(p.name):
            continue
        rows = p.pointee_kind == 'pointer'
        if not (p.pointee_kind in _DATA or (rows and p.inner_kind in _DATA - {'void'})):
            continue
        named = _names_length(p.name, l.name)
        if named is None:
            continue
        kind, own = named
        if p.pointee_kind == 'void' and kind == 'count':
            continue
        if rows and not (kind == 'count' or (kind == 'any' and p.const_pointee)):
            continue
        if not own and i + 2 < len(params) and _is_length_or_stride(params[i + 2]):
            continue
        found[i] = i + 1
    return found
