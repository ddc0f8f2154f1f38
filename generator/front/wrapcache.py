"""dyl record's wrappers, built once by bin/dyliberator and kept in
$XDG_CACHE_HOME/dyliberator/KEY/ (default ~/.cache/dyliberator).  KEY hashes what makes
a wrapper: each library's real path and GNU build ID, the options, and the tool itself
(the sources of generator/, microgens/ (profiles included) and runtime/, and
build/libdylrt.so), so that a changed library or tool builds anew.  A lock file per key:
two records at once build one wrapper once."""
import hashlib
import json
import os
import time

TOOL_DIRS = ('generator', 'microgens', 'runtime')


def cache_dir():
    base = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
    return os.path.join(base, 'dyliberator')


def tool_hash(root):
    """A hash of the generator's, micro-generators' and runtime's sources (not their tests,
    apps or docs) and of the built runtime: about 130 files, 5 ms."""
    h = hashlib.sha256()
    for top in TOOL_DIRS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if x not in ('__pycache__', 'apps', 'front'))
            for f in sorted(files):
                if f.startswith('test_') or f.endswith(('.md', '.pyc')):
                    continue
                p = os.path.join(d, f)
                h.update(os.path.relpath(p, root).encode() + b'\0')
                try:
                    with open(p, 'rb') as fh:
                        h.update(fh.read())
                except OSError:
                    h.update(b'?')
    try:
        with open(os.path.join(root, 'build', 'libdylrt.so'), 'rb') as fh:
            h.update(fh.read())
    except OSError:
        h.update(b'no runtime')
    return h.hexdigest()


def key(libraries, options, root, version):
    """The cache key of a wrapper of LIBRARIES ([{'path', 'build_id'}]) with OPTIONS."""
    what = {'libraries': [[lib['path'], lib['build_id']] for lib in libraries],
            'options': options, 'tool': tool_hash(root), 'version': version}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:24]


def _meta_path(entry):
    return os.path.join(entry, 'wrapper.json')


def lookup(k):
    """The cached wrapper's metadata ({'wrapper', ...}) for key K, or None."""
    entry = os.path.join(cache_dir(), k)
    try:
        with open(_meta_path(entry)) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return None
    return meta if os.path.isfile(meta.get('wrapper', '')) else None


def get(k, build, info):
    """The wrapper for key K: the cached one, else BUILD(out.so) under K's lock (a
    second record waits and finds it built).  INFO goes into wrapper.json.  Returns
    (metadata, built: bool).  BUILD returns True on success; OSError, RuntimeError on
    failure."""
    meta = lookup(k)
    if meta:
        return meta, False
    import fcntl
    base = cache_dir()
    os.makedirs(base, mode=0o700, exist_ok=True)
    lock = os.open(os.path.join(base, k + '.lock'), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        meta = lookup(k)
        if meta:
            return meta, False
        entry = os.path.join(base, k)
        os.makedirs(entry, mode=0o700, exist_ok=True)
        out = os.path.join(entry, 'wrap.so')
        if not build(out):
            raise RuntimeError('the wrapper was not built (the generator said why, above)')
        meta = dict(info, wrapper=out, key=k, built=time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()))
        tmp = _meta_path(entry) + '.tmp'
        with open(tmp, 'w') as f:
            json.dump(meta, f, indent=1)
        os.replace(tmp, _meta_path(entry))
        return meta, True
    finally:
        os.close(lock)


def file_id(path):
    """What tells a file's version apart cheaply: device, inode, size, mtime."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


def remembered(what):
    """The value remember() kept for WHAT (JSON data), or None."""
    name = 'choice-' + hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:24]
    try:
        with open(os.path.join(cache_dir(), name + '.json')) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def remember(what, value):
    """Keeps VALUE for WHAT (a new file renamed into place); a cache not written is no error."""
    name = 'choice-' + hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:24]
    try:
        os.makedirs(cache_dir(), mode=0o700, exist_ok=True)
        tmp = os.path.join(cache_dir(), f'{name}.{os.getpid()}.tmp')
        with open(tmp, 'w') as f:
            json.dump(value, f)
        os.replace(tmp, os.path.join(cache_dir(), name + '.json'))
    except OSError:
        pass
