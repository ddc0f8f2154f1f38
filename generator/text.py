"""Reading the user's files (--defs, --header, microgen.toml, templates, libraries): only
regular files, of a sane size, opened without blocking (a FIFO planted by another user
would hang the open; /dev/zero would fill memory); bytes to text, with a file that is not
UTF-8 named by the line and column of its first bad byte."""
import os
import stat

TEXT_LIMIT = 64 << 20   # bytes: a --defs file, a header, a template; /usr/include's largest is < 2 MiB

_KINDS = ((stat.S_ISFIFO, 'a FIFO'), (stat.S_ISCHR, 'a character device'),
          (stat.S_ISBLK, 'a block device'), (stat.S_ISSOCK, 'a socket'),
          (stat.S_ISDIR, 'a folder'))


def kind(mode):
    """What a file of MODE is, in words, when it is not a regular file (None when it is)."""
    if stat.S_ISREG(mode):
        return None
    return next((w for test, w in _KINDS if test(mode)), 'not a regular file')


def open_regular(path, limit=None):
    """PATH opened for reading in binary, when it is a regular file (a symlink to one is
    followed) of at most LIMIT bytes (None: any size).  OSError, or ValueError with a
    one-line message naming PATH.  O_NONBLOCK: opening a FIFO returns at once, and the
    file's type is then checked on the open file itself, not on its name."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        what = kind(st.st_mode)
        if what:
            raise ValueError(f'{path}: {what}, not a regular file')
        if limit is not None and st.st_size > limit:
            raise ValueError(f'{path}: {st.st_size:,} bytes, more than the {limit:,} a file '
                             'of this kind may have')
        os.set_blocking(fd, True)
        return os.fdopen(fd, 'rb')
    except BaseException:
        os.close(fd)
        raise


def read_regular(path, limit=TEXT_LIMIT):
    """The bytes of PATH (open_regular's checks); reads at most LIMIT + 1 bytes even if
    the file grows while it is read."""
    with open_regular(path, limit) as f:
        data = f.read(limit + 1 if limit is not None else -1)
    if limit is not None and len(data) > limit:
        raise ValueError(f'{path}: more than the {limit:,} bytes a file of this kind may have')
    return data


def problem(path, e):
    """The one-line message of an error open_regular or read_regular raised."""
    return str(e) if isinstance(e, ValueError) else f'{path}: {e.strerror or e}'


def decode(data, path):
    """DATA (the bytes of PATH) as text; ValueError with a one-line message if it is not
    UTF-8.  Each reader raises its own problem with that message."""
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError as e:
        line = data.count(b'\n', 0, e.start) + 1
        col = e.start - (data.rfind(b'\n', 0, e.start) + 1) + 1
        raise ValueError(f'{path}:{line}: not UTF-8 text (byte 0x{data[e.start]:02x} '
                         f'at column {col})') from None


def shown(s):
    """S for a one-line message: control characters and bytes that are not UTF-8 (a path
    may hold both) as \\xHH escapes."""
    return ''.join(f'\\x{ord(c) - 0xdc00:02x}' if 0xdc80 <= ord(c) <= 0xdcff else
                   f'\\x{ord(c):02x}' if ord(c) < 0x20 or ord(c) == 0x7f else c for c in s)
