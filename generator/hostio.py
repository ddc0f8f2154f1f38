"""std.flow:host_reads=on interposes C library functions from the wrapper itself
(runtime/include/dyl_hostio.h: read, write, open, sigaction...: the kernel does not
fault on a protected page, and SIGSEGV must stay the runtime's).  A wrapper of the C
library built with it leaves those functions out: its own wrapper of read would be the
definition the program reaches, the interposer would never run, and a read into a
protected page would fail with EFAULT.

The names are read from that header's DYL_HOSTIO_NAMES, the one list of what it
defines (tests/microgens' test_host_reads checks the list against a built wrapper)."""
import os
import re

HEADER = 'dyl_hostio.h'
REASON = ('std.flow:host_reads=on interposes it itself (runtime/include/dyl_hostio.h): '
          'a wrapper would hide the interposer')
_LIST = re.compile(r'#define\s+DYL_HOSTIO_NAMES\(X\)((?:[^\n]*\\\n)*[^\n]*)')


def interposed(include_dir):
    """The names DYL_HOSTIO_NAMES lists, in INCLUDE_DIR's dyl_hostio.h."""
    path = os.path.join(include_dir, HEADER)
    with open(path, encoding='utf-8') as f:
        m = _LIST.search(f.read())
    if not m:
        raise RuntimeError(f'{path}: no DYL_HOSTIO_NAMES list')
    return set(re.findall(r'\bX\((\w+)\)', m.group(1)))


def host_reads_on(gens):
    """GENS: compose()'s [(Microgen, params)]."""
    return any(mg.name == 'std.flow' and params.get('host_reads') == 'on' for mg, params in gens)


def leave_out(sel, gens, include_dir):
    """With std.flow:host_reads=on, the interposed functions move from SEL.wrapped to
    SEL.skipped.  Returns the note to print, or None when none was to be wrapped."""
    if not host_reads_on(gens):
        return None
    names = interposed(include_dir)
    out = [c for c in sel.wrapped if c.name in names]
    if not out:
        return None
    sel.wrapped = [c for c in sel.wrapped if c.name not in names]
    for c in out:
        sel.skipped.append((c.name, c.lib.soname or c.lib.path, REASON))
    shown = ', '.join(sorted(c.name for c in out)[:8]) + (', ...' if len(out) > 8 else '')
    return (f'std.flow:host_reads=on: {len(out)} functions not wrapped ({shown}): the wrapper '
            'interposes them itself (runtime/include/dyl_hostio.h), and does not trace them')
