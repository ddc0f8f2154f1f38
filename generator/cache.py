"""The generator's caches in OUT.d/ (headers.json, libraries.json): written whole, then
renamed, so that a reader never meets half a file; a cache that cannot be written is no
error (the next run reads the library or parses the headers again)."""
import json
import os


def write_json(folder, name, data):
    path = os.path.join(folder, name)
    try:
        # dumps, not dump: json.dump encodes in Python, dumps in C (libcrypto's 5 MB of
        # parse: 0.2 s instead of 2.5 s)
        text = json.dumps(data)
        with open(path + '.tmp', 'w') as f:
            f.write(text)
        os.replace(path + '.tmp', path)
    except OSError:
        pass
