#!/usr/bin/python3
"""gen.py N DIR: a test library of N functions of varied prototypes, for bench/wrapsize.

Writes DIR/libwide.c (the library), DIR/wide.h (its header) and DIR/floor.c (the
hand-written floor: each function resolves the original once with dlsym(RTLD_NEXT) and
forwards the call).  The same N gives the same files (the prototypes cycle, no randomness).
"""
import os
import sys

# the parameter and result types the prototypes cycle through
TYPES = ['int', 'unsigned', 'long', 'size_t', 'double', 'float', 'const double *',
         'double *', 'int *', 'const char *', 'void *', 'char']
RESULTS = ['void', 'int', 'double', 'void *', 'size_t', 'long', 'float']


def prototype(i):
    """The result type and the parameter types of function I: 0 to 6 parameters."""
    n = i % 7
    params = [TYPES[(i * 5 + k * 3 + i // 7) % len(TYPES)] for k in range(n)]
    return RESULTS[(i + i // 11) % len(RESULTS)], params


def decl(i):
    res, params = prototype(i)
    ps = ', '.join(f'{t}{"" if t.endswith("*") else " "}a{k}' for k, t in enumerate(params))
    return res, params, f'{res}{"" if res.endswith("*") else " "}wide_{i:04d}({ps or "void"})'


def body(res):
    return {'void': '', 'void *': 'return 0;'}.get(res, 'return 1;')


def main():
    n, d = int(sys.argv[1]), sys.argv[2]
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'wide.h'), 'w') as h, open(os.path.join(d, 'libwide.c'), 'w') as c, \
            open(os.path.join(d, 'floor.c'), 'w') as fl:
        h.write('/* bench/wrapsize: a library of varied prototypes */\n#include <stddef.h>\n')
        c.write('#include "wide.h"\n')
        fl.write('#define _GNU_SOURCE\n#include <dlfcn.h>\n#include "wide.h"\n')
        for i in range(n):
            res, params, d_ = decl(i)
            h.write(d_ + ';\n')
            c.write(f'{d_} {{ {body(res)} }}\n')
            args = ', '.join(f'a{k}' for k in range(len(params)))
            types = ', '.join(params) or 'void'
            ret = '' if res == 'void' else 'return '
            fl.write(f'{d_}\n{{\n\tstatic {res} (*real)({types});\n'
                     f'\tif (!real)\n\t\treal = dlsym(RTLD_NEXT, "wide_{i:04d}");\n'
                     f'\t{ret}real({args});\n}}\n')


main()
