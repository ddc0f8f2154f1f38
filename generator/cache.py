"""The generator's caches in OUT.d/ (headers.json, libraries.json): written whole, then
renamed, so that a reader never meets half a file; a cache that cannot be written is no
error (the next run reads the library or parses the headers again)."""
import json
import os

from . import text


def replace(path, data):
    """Writes the bytes DATA to PATH through a new file PATH.tmp renamed over it: a reader
    never meets half a file, and whatever stood at PATH.tmp (a symlink, a FIFO) is removed,
    never written through or waited on."""
    tmp = path + '.tmp'
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    with os.fdopen(fd, 'wb') as f:
        f.write(data)
    os.replace(tmp, path)


def read_json(folder, name):
    """FOLDER/NAME's JSON (a regular file only); OSError or ValueError if there is none."""
    return json.loads(text.read_regular(os.path.join(folder, name), limit=None))


def write_json(folder, name, data):
    try:
        # dumps, not dump: json.dump encodes in Python, dumps in C (libcrypto's 5 MB of
        # parse: 0.2 s instead of 2.5 s)
        replace(os.path.join(folder, name), json.dumps(data).encode())
    except OSError:
        pass
