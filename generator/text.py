"""Reading the user's text files (--defs, microgen.toml, templates): bytes to text, with
a file that is not UTF-8 named by the line and column of its first bad byte."""


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
