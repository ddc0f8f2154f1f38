"""Which libraries dyl record wraps: the shipped profiles (microgens/profiles/NAME/
profile.toml, their `libs` globs), the libraries a program links (its ldd closure), and
the installed libraries that have a profile (ldconfig -p).  re, fnmatch and subprocess
are imported where needed: a record with a cached wrapper needs none of them."""
import os
import sys

from . import elfnote
from .options import Problem

# programs that start others or load libraries at run time: their own closure says
# nothing of what they will call
RUNNERS = (r'(python[0-9.]*|pypy[0-9.]*|[bd]?a?sh|zsh|ksh|mksh|env|perl[0-9.]*|'
                     r'ruby[0-9.]*|node(js)?|julia|R|Rscript|octave[-a-z]*|lua[0-9.]*|'
                     r'tclsh[0-9.]*|php[0-9.]*|java|make|xargs|time|nice|nohup|timeout|'
                     r'taskset|numactl|mpirun|mpiexec|valgrind)$')


def profiles(folder):
    """[{'name', 'libs', 'functions', 'summary'}] of the profiles under FOLDER, by name."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    found = []
    for name in names:
        path = os.path.join(folder, name, 'profile.toml')
        if not os.path.isfile(path):
            continue
        import tomllib
        try:
            with open(path, 'rb') as f:
                data = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise Problem(f'{path}: {e}') from None
        libs = data.get('libs', [])
        found.append({'name': name, 'libs': [libs] if isinstance(libs, str) else list(libs),
                      'functions': list(data.get('functions', [])),
                      'summary': data.get('summary', '')})
    return found


def matching(profs, names):
    """The profiles whose `libs` globs match any of NAMES (a soname, a file name)."""
    import fnmatch
    return [p for p in profs
            if any(fnmatch.fnmatchcase(n, g) for n in names if n for g in p['libs'])]


def which(program):
    """PROGRAM's path as execvp finds it; None if none."""
    if '/' in program:
        return program if os.path.exists(program) else None
    for d in os.environ.get('PATH', '/usr/local/bin:/usr/bin:/bin').split(':'):
        p = os.path.join(d or '.', program)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def kind(path):
    """'elf', 'script' (#!), 'runner' (an ELF interpreter or shell) or 'other'."""
    try:
        with open(path, 'rb') as f:
            head = f.read(4)
    except OSError:
        return 'other'
    if head[:2] == b'#!':
        return 'script'
    if head != b'\x7fELF':
        return 'other'
    import re
    return 'runner' if re.match(RUNNERS, os.path.basename(os.path.realpath(path))) else 'elf'


def closure(path):
    """{soname: real path} of the libraries PATH loads at start: what ldd says, from the
    program's own dynamic linker (--list) without ldd's shell."""
    import re
    import subprocess
    try:
        e = elfnote.read(path)
        cmd = [e['interp'], '--list', path] if e and e['interp'] else ['ldd', path]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    libs = {}
    for line in out.splitlines():
        m = re.match(r'\s*(\S+) => (/\S+) \(', line)
        if m:
            libs[m.group(1)] = os.path.realpath(m.group(2))
    return libs


def installed(keep):
    """{soname: real path} of the libraries ldconfig knows that KEEP(soname, path)
    accepts, of this process's ELF class and machine."""
    import re
    import subprocess
    try:
        out = subprocess.run(['/sbin/ldconfig', '-p'], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    me = elfnote.read(sys.executable) or {}
    libs = {}
    for line in out.splitlines():
        m = re.match(r'\s*(\S+) \(([^)]*)\) => (/\S+)$', line)
        # libfoo.so is the link editor's (a -dev package's link), not what programs load
        if m and m.group(1) not in libs and not m.group(1).endswith('.so'):
            libs[m.group(1)] = m.group(3)
    same = {}
    for soname, p in libs.items():
        if not keep(soname, p):
            continue
        try:
            e = elfnote.read(p)
        except OSError:
            continue
        if e and (e['bits'], e['machine']) == (me.get('bits'), me.get('machine')):
            same[soname] = os.path.realpath(p)
    return same


def with_profiles(libs, profs):
    """The entries of LIBS ({soname: real path}) that a profile matches, one per real
    path (its longest soname: libblas.so.3 before libblas.so), as {soname: path}."""
    best = {}
    for soname, path in libs.items():
        if matching(profs, [soname, os.path.basename(path)]):
            if path not in best or len(soname) > len(best[path]):
                best[path] = soname
    return {soname: path for path, soname in sorted(best.items(), key=lambda kv: kv[1])}
