"""What dyl record and dyl report share of reading their command lines."""


class Problem(Exception):
    """A usage problem: one line on stderr, exit 2."""


def take(opts, key, name, argv, i, inline):
    """Stores option NAME's value in OPTS[KEY] (appended where it is a list): INLINE
    (--opt=V, -oV) or else ARGV[i + 1].  Returns the index of the last argument used."""
    if inline is None:
        i += 1
        if i == len(argv):
            raise Problem(f"a value must follow '{name}' (see --help)")
        inline = argv[i]
    if isinstance(opts[key], list):
        opts[key].append(inline)
    else:
        opts[key] = inline
    return i
