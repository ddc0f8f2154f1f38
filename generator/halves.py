"""halves.py - a map made by two processes: the second half in a forked child.

The generator's two long loops over a whole library's functions (libclang's prototypes,
Jinja's wrappers) each take about a second for libcrypto; on two CPUs the halves overlap.
"""
import os
import pickle


def cpus():
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def map_in_two(fn, items, jobs, least):
    """[fn(x) for x in ITEMS], the second half in a forked child when JOBS > 1 and there
    are LEAST items or more.  The child has this process's memory (a parse, templates) and
    sends its results back pickled through a pipe.  The same list, in the same order, as
    one process makes.  An exception FN raises in the child is raised here; if the child
    dies, this process makes its half too."""
    if jobs < 2 or len(items) < least:
        return [fn(x) for x in items]
    half = len(items) // 2
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: makes its half, writes it, exits without the parent's code
        code = 0
        try:
            os.close(r)
            try:
                data = pickle.dumps((True, [fn(x) for x in items[half:]]))
            except Exception as e:   # (raised again in the parent)
                data = pickle.dumps((False, e))
            with os.fdopen(w, 'wb') as out:
                out.write(data)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    try:
        first = [fn(x) for x in items[:half]]
    finally:
        with os.fdopen(r, 'rb') as inp:
            data = inp.read()
        _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return first + [fn(x) for x in items[half:]]   # the child failed: here
    ok, rest = pickle.loads(data)
    if not ok:
        raise rest
    return first + rest
