"""The generator's caches in OUT.d/ (headers.json, libraries.json): written whole, then
renamed, so that a reader never meets half a file; a cache that cannot be written is no
error (the next run reads the library or parses the headers again)."""
import json
import os


def write_json(folder, name, data):
    path = os.path.join(folder, name)
    try:
        with open(path + '.tmp', 'w') as f:
            json.dump(data, f)
        os.replace(path + '.tmp', path)
    except OSError:
        pass
