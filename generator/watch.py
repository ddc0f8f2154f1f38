"""A watch on what libclang opens while it parses the headers.

libclang reads every file a header #includes, wherever it is: `#include "/dev/zero"`
grew the generator to 24 GB, and a FIFO there hung it in open().  Those files are not
known before the parse (an #include may be a macro), and a call into libclang cannot be
interrupted from Python.  So a thread looks, every INTERVAL seconds while the parse runs,
at the files the process has open and maps (/proc/self/fd, /proc/self/maps) and at the
paths its other threads are blocked opening (/proc/self/task/*/syscall).  On a file that
is not a regular one, or is larger than a header may be, it prints one line naming the
file and ends the process with exit 2: nothing has been written yet."""
import os
import stat
import sys
import threading

from . import text

INTERVAL = 0.02           # seconds between two looks: /dev/zero is read at ~2 GB/s
_OPEN_CALLS = {'2': 1, '257': 2}   # x86-64 open(path), openat(dirfd, path): the path's argument
_AT_FDCWD = 0xffffff9c   # -100, an int: the kernel shows its low 32 bits


class Watch:
    """with Watch(what): ... runs the watch around the block; WHAT says, in the line
    printed, what was being read (e.g. 'included while parsing the headers')."""

    def __init__(self, what, limit=text.TEXT_LIMIT, interval=INTERVAL, out=None):
        self.what, self.limit, self.interval = what, limit, interval
        self.out = out or sys.stderr
        self.done = threading.Event()
        self.before, self.before_maps = {}, set()
        self.me = None

    def __enter__(self):
        # what was open and mapped before (Python's, libclang's own): by identity, as a
        # descriptor's number may be reused (listing /proc/self/fd opens one itself)
        self.before = {fd: (t, (st.st_dev, st.st_ino)) for fd, (t, st) in _open_files().items()}
        self.before_maps = _mapped()
        self.thread = threading.Thread(target=self._run, daemon=True, name='dyl-watch')
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()
        return False

    def _run(self):
        self.me = str(threading.get_native_id())
        while not self.done.wait(self.interval):
            found = self.look()
            if found:
                path, why = found
                print(f'dyliberator: {text.shown(path)}: {why} ({self.what})', file=self.out,
                      flush=True)
                os._exit(2)

    def look(self):
        """(path, why) of the first file that should not be read, or None."""
        for fd, (target, st) in _open_files().items():
            if self.before.get(fd, (None, None))[1] == (st.st_dev, st.st_ino):
                continue
            found = self._judge(target, st)
            if found:
                return found
        for path in _mapped() - self.before_maps:
            try:
                found = self._judge(path, os.stat(path))
            except OSError:
                continue
            if found:
                return found
        for path in _being_opened(self.me):
            try:
                st = os.stat(path)
            except OSError:
                continue
            if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
                return path, f'{text.kind(st.st_mode)}, not a regular file'
        return None

    def _judge(self, path, st):
        if stat.S_ISDIR(st.st_mode):
            return None
        what = text.kind(st.st_mode)
        if what:
            return path, f'{what}, not a regular file'
        if st.st_size > self.limit:
            return path, f'{st.st_size:,} bytes, more than the {self.limit:,} a header may have'
        return None


def _open_files():
    """{descriptor: (what it names, its stat)} of this process's open files."""
    try:
        fds = os.listdir('/proc/self/fd')
    except OSError:
        return {}
    found = {}
    for fd in fds:
        try:
            found[fd] = (os.readlink(f'/proc/self/fd/{fd}'), os.stat(f'/proc/self/fd/{fd}'))
        except OSError:
            continue   # closed meanwhile (the listing's own)
    return found


def _mapped():
    """The files mapped into this process (libclang maps the headers it reads)."""
    try:
        with open('/proc/self/maps', 'rb') as f:
            lines = f.read().split(b'\n')
    except OSError:
        return []
    paths = set()
    for line in lines:
        parts = line.split(None, 5)
        if len(parts) == 6 and parts[5].startswith(b'/') and not parts[5].endswith(b' (deleted)'):
            paths.add(os.fsdecode(parts[5]))
    return paths


def _being_opened(me):
    """The paths other threads of this process are in open() or openat() of now (a FIFO's
    open waits for a writer: it never shows among the open files)."""
    try:
        tasks = os.listdir('/proc/self/task')
    except OSError:
        return []
    paths = []
    for tid in tasks:
        if tid == me:
            continue
        try:
            with open(f'/proc/self/task/{tid}/syscall') as f:
                parts = f.read().split()
        except OSError:
            continue
        arg = _OPEN_CALLS.get(parts[0]) if parts else None
        if arg is None or len(parts) <= arg:
            continue
        if parts[0] == '257' and int(parts[1], 16) & 0xffffffff != _AT_FDCWD:
            continue   # relative to another folder: not a name to look at from here
        path = _string_at(int(parts[arg], 16))
        if path:
            paths.append(path)
    return paths


def _string_at(address, most=4096):
    """The NUL-terminated string at ADDRESS in this process's memory (None if unreadable)."""
    try:
        with open('/proc/self/mem', 'rb', buffering=0) as mem:
            data = b''
            while len(data) < most:
                mem.seek(address + len(data))
                chunk = mem.read(min(most - len(data), 4096 - (address + len(data)) % 4096))
                if not chunk:
                    break
                data += chunk
                if b'\0' in chunk:
                    break
    except (OSError, ValueError, OverflowError):
        return None
    end = data.find(b'\0')
    return os.fsdecode(data[:end]) if end > 0 else None
