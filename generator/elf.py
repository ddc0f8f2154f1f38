"""Reading shared objects: exported symbols with their versions, sonames, imports."""
import hashlib
import os
import re
import struct
import subprocess
from dataclasses import dataclass, field

from elftools.elf.elffile import ELFFile

from . import cache
from . import text


class ElfProblem(Exception):
    pass


@dataclass
class Export:
    name: str
    kind: str            # 'func', 'ifunc', 'data', 'other'
    address: int
    version: str = None  # version name of the default (or only) definition
    hidden_versions: list = field(default_factory=list)  # non-default foo@V
    aliases: list = field(default_factory=list)          # other names, same address


@dataclass
class Library:
    path: str
    soname: str
    exports: dict        # name -> Export
    build_id: str = None  # NT_GNU_BUILD_ID, hex: the wrapper checks it at run time


_KIND = {'STT_FUNC': 'func', 'STT_LOOS': 'ifunc', 'STT_GNU_IFUNC': 'ifunc',
         'STT_OBJECT': 'data', 'STT_TLS': 'data', 'STT_COMMON': 'data'}


def _default_search_dirs():
    dirs = [d for d in os.environ.get('LD_LIBRARY_PATH', '').split(':') if d]
    dirs += ['/lib/x86_64-linux-gnu', '/usr/lib/x86_64-linux-gnu', '/lib64', '/usr/lib64',
             '/lib', '/usr/lib', '/usr/local/lib']
    return dirs


def find_library(name):
    """A path, or a soname looked up as the dynamic linker does (LD_LIBRARY_PATH, the
    ldconfig cache, the default directories)."""
    if '/' in name:
        if not os.path.exists(name):
            raise ElfProblem(f'{name}: no such file')
        return os.path.abspath(name)
    for d in [d for d in os.environ.get('LD_LIBRARY_PATH', '').split(':') if d]:
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    try:
        cache = subprocess.run(['/sbin/ldconfig', '-p'], capture_output=True, text=True,
                               check=False).stdout
        for line in cache.splitlines():
            m = re.match(r'\s*(\S+) \(([^)]*)\) => (\S+)', line)
            if m and m.group(1) == name and ('x86-64' in m.group(2) or 'libc6' in m.group(2)):
                return m.group(3)
    except OSError:
        pass
    for d in _default_search_dirs():
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    raise ElfProblem(f'{name}: library not found (give a path, or set LD_LIBRARY_PATH)')


def _damaged(path, e):
    """One line for a file pyelftools cannot read: a truncated or damaged object makes it
    raise nearly anything (ELFError, struct.error, KeyError, ValueError...)."""
    why = ' '.join(str(e).split())[:160] or type(e).__name__
    return ElfProblem(f'{path}: not a readable ELF file ({why})')


def _open(path):
    try:
        f = text.open_regular(path)   # (a FIFO there would hang a plain open)
    except (OSError, ValueError) as e:
        raise ElfProblem(text.problem(path, e)) from None
    try:
        return f, ELFFile(f)
    except Exception as e:
        f.close()
        raise _damaged(path, e) from None


def _guarded(read):
    """READ(path) with any exception of the ELF parser turned into one ElfProblem that
    names the file: the data is untrusted, the parser's errors are not ours to show."""
    def guarded(path):
        try:
            return read(path)
        except ElfProblem:
            raise
        except Exception as e:
            raise _damaged(path, e) from None
    guarded.__doc__ = read.__doc__
    return guarded


def _versions(elf):
    """index -> version name, from .gnu.version_d (definitions) and _r (needs)."""
    names = {}
    vd = elf.get_section_by_name('.gnu.version_d')
    if vd is not None:
        for verdef, aux in vd.iter_versions():
            first = next(iter(aux), None)
            if first is not None and not verdef['vd_flags'] & 0x1:  # VER_FLG_BASE
                names[verdef['vd_ndx']] = first.name
    vr = elf.get_section_by_name('.gnu.version_r')
    if vr is not None:
        for _, auxes in vr.iter_versions():
            for a in auxes:
                names[a['vna_other']] = a.name
    return names


def _dynsym(elf):
    sec = elf.get_section_by_name('.dynsym')
    if sec is None:
        return [], None
    vs = elf.get_section_by_name('.gnu.version')
    return list(sec.iter_symbols()), vs


def _build_id(elf):
    for seg in elf.iter_segments():
        if seg['p_type'] == 'PT_NOTE':
            for note in seg.iter_notes():
                if note['n_type'] == 'NT_GNU_BUILD_ID' and isinstance(note['n_desc'], str):
                    return note['n_desc']
    return None


def _soname(elf):
    dyn = elf.get_section_by_name('.dynamic')
    if dyn is not None:
        for tag in dyn.iter_tags():
            if tag.entry.d_tag == 'DT_SONAME':
                return tag.soname
    return None


_SYM64 = struct.Struct('<IBBHQQ')   # Elf64_Sym: name, info, other, shndx, value, size
_SYM_KIND = {2: 'func', 10: 'ifunc', 1: 'data', 6: 'data', 5: 'data'}   # STT_*: as _KIND


def _exported_symbols(elf):
    """(name, kind, value, versym index or None) of .dynsym's definitions that other objects
    can link against: defined (not SHN_UNDEF or SHN_ABS), global or weak, default or
    protected visibility.  Read with struct from the sections' bytes for 64-bit
    little-endian files (libcrypto's 10,874 symbols: 0.05 s, where pyelftools' symbol
    objects take 1 s); through pyelftools for others, with the same result."""
    sec = elf.get_section_by_name('.dynsym')
    if sec is None:
        return []
    vs = elf.get_section_by_name('.gnu.version')
    out = []
    if elf.elfclass == 64 and elf.little_endian and sec['sh_entsize'] == _SYM64.size:
        data = sec.data()
        strtab = elf.get_section(sec['sh_link']).data()
        vdata = vs.data() if vs is not None else None
        for i in range(len(data) // _SYM64.size):
            st_name, info, other, shndx, value, _ = _SYM64.unpack_from(data, i * _SYM64.size)
            # STB_GLOBAL, STB_WEAK (STB_GNU_UNIQUE, 10, never passed: pyelftools names it
            # STB_LOOS); STV_DEFAULT, STV_PROTECTED
            if shndx in (0, 0xfff1) or info >> 4 not in (1, 2) or other & 3 not in (0, 3):
                continue
            end = strtab.index(b'\0', st_name)
            name = strtab[st_name:end].decode('utf-8', errors='replace')
            if not name:
                continue
            ndx = None
            if vdata is not None:
                ndx = struct.unpack_from('<H', vdata, 2 * i)[0]
            out.append((name, _SYM_KIND.get(info & 0xf, 'other'), value, ndx))
        return out
    for i, s in enumerate(sec.iter_symbols()):
        if not s.name or s['st_shndx'] in ('SHN_UNDEF', 'SHN_ABS'):
            continue  # imports, and version definitions (OPENSSL_3.0.0 as a symbol)
        if s['st_info']['bind'] not in ('STB_GLOBAL', 'STB_WEAK', 'STB_GNU_UNIQUE'):
            continue
        if s['st_other']['visibility'] not in ('STV_DEFAULT', 'STV_PROTECTED'):
            continue
        ndx = vs.get_symbol(i)['ndx'] if vs is not None else None
        if ndx == 'VER_NDX_LOCAL':
            ndx = 0
        elif ndx == 'VER_NDX_GLOBAL':
            ndx = 1
        out.append((s.name, _KIND.get(s['st_info']['type'], 'other'), s['st_value'], ndx))
    return out


@_guarded
def read_library(path):
    f, elf = _open(path)
    with f:
        vnames = _versions(elf)
        exports = {}
        for name, kind, value, ndx in _exported_symbols(elf):
            version, hidden = None, False
            if ndx is not None and ndx not in (0, 1):   # VER_NDX_LOCAL, VER_NDX_GLOBAL
                hidden = bool(ndx & 0x8000)
                version = vnames.get(ndx & 0x7fff)
            e = exports.get(name)
            if e is None:
                e = exports[name] = Export(name, kind, value)
            if hidden:
                e.hidden_versions.append(version)
            else:
                e.version, e.kind, e.address = version, kind, value
        # names that exist only as hidden versions (foo@OLD) cannot be linked against now
        for name in [n for n, e in exports.items() if e.version is None and e.hidden_versions]:
            del exports[name]
        by_addr = {}
        for e in exports.values():
            if e.kind in ('func', 'ifunc'):
                by_addr.setdefault(e.address, []).append(e.name)
        for names in by_addr.values():
            if len(names) > 1:
                for n in names:
                    exports[n].aliases = sorted(x for x in names if x != n)
        return Library(path=os.path.realpath(path), soname=_soname(elf), exports=exports,
                       build_id=_build_id(elf))


@_guarded
def read_imports(path):
    """Names of the functions an executable (or library) takes from other objects."""
    f, elf = _open(path)
    with f:
        syms, _ = _dynsym(elf)
        return {s.name for s in syms
                if s.name and s['st_shndx'] == 'SHN_UNDEF'
                and s['st_info']['type'] in ('STT_FUNC', 'STT_NOTYPE', 'STT_GNU_IFUNC')}


CACHE_NAME = 'libraries.json'


def _stamp(path):
    """What a cached read of PATH is valid for: its real path, mtime and size, and this
    file's text (None when it cannot be read: read_library says why)."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
        with open(os.path.abspath(__file__), 'rb') as f:
            code = hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None
    return [real, st.st_mtime_ns, st.st_size, code]


def read_library_cached(path, cache_dir):
    """read_library(PATH), from CACHE_DIR/libraries.json (None: no cache) when it holds
    the read of the same file, unchanged (_stamp), as headers.parse_headers_cached keeps
    a parse: a wrapper generated again reads the same libraries.  The caller checks that
    only this user can write CACHE_DIR (the file is JSON: data, never code)."""
    stamp = _stamp(path)
    if cache_dir is not None and stamp is not None:
        try:
            entry = cache.read_json(cache_dir, CACHE_NAME)[stamp[0]]
            if entry['stamp'] == stamp:
                lib = entry['lib']
                return Library(path=lib['path'], soname=lib['soname'], build_id=lib['build_id'],
                               exports={n: Export(**e) for n, e in lib['exports'].items()})
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass   # none yet, or another file's: read it
    return read_library(path)


def _as_dict(lib):
    """asdict(LIB), without its deep copy of every field (libcrypto's 5,300 exports:
    0.3 s): the same JSON."""
    return {'path': lib.path, 'soname': lib.soname, 'build_id': lib.build_id,
            'exports': {n: dict(vars(e), hidden_versions=list(e.hidden_versions),
                                aliases=list(e.aliases)) for n, e in lib.exports.items()}}


def save_libraries(cache_dir, libs):
    """Writes the reads of LIBS (read_library's) to CACHE_DIR/libraries.json."""
    stamps = {lib.path: _stamp(lib.path) for lib in libs}
    try:   # the same reads there already (a wrapper generated again): nothing to write
        old = cache.read_json(cache_dir, CACHE_NAME)
        if sorted(old) == sorted(s[0] for s in stamps.values() if s is not None) and \
                all(old[s[0]]['stamp'] == s for s in stamps.values() if s is not None):
            return
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    data = {}
    for lib in libs:
        stamp = stamps[lib.path]
        if stamp is not None:
            data[stamp[0]] = {'stamp': stamp, 'lib': _as_dict(lib)}
    cache.write_json(cache_dir, CACHE_NAME, data)
