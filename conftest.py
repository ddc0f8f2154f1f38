# Shared by tests/ and the micro-generators' own tests in microgens/*/.
import os
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, 'tests'))
sys.path.insert(0, ROOT)

# The tiers (pytest.ini registers the markers; tests/README.md, "Tiers"), by file or
# folder, paths from the repository's root.  make check runs -m quick; make test runs
# everything, in parallel (pytest-xdist, one file per worker), the serial files after.
QUICK = ('tests/unit/', 'tests/docs/', 'tests/runtime/test_layers.py', 'tests/test_smoke.py',
         'tests/generator/test_generator_units.py', 'tests/tools/test_device.py',
         'tests/tools/test_chrome_predicted.py',
         'tests/tools/test_conventions.py', 'microgens/std.callsite/',
         'tests/tools/test_trace_filter.py', 'tests/tools/test_gpu_sweep.py',
         'tests/tools/test_jobs_timeline.py', 'tests/tools/test_flow_packed.py',
         'tests/runtime/test_proc_events.py')
REAL = ('tests/libraries/', 'tests/tools/test_flow_real.py', 'tests/tools/test_resid_real.py',
        'microgens/profiles/', 'tests/tools/test_dyl_front_e2e.py')
FUZZ = ('tests/fuzz/',)
# timing-sensitive: bounds on times measured while the test runs
SERIAL = ('tests/tools/test_timeline_sleep.py', 'tests/runtime/test_threads_waits.py',
          'tests/runtime/test_clock.py', 'tests/tools/test_mpi_job.py',
          'tests/tools/test_jobs_sleep.py')
# more than about 10 s each, alone on 2 idle cores; longest first (measured serially): a
# parallel run starts them first, so that no long file is left alone at the end
SLOW = ('tests/runtime/test_sanitizers.py', 'tests/libraries/test_openssl.py',
        'tests/fuzz/test_fuzz.py', 'tests/generator/test_generator_safety.py',
        'tests/generator/test_build_units.py', 'tests/runtime/test_process.py',
        'tests/tools/test_flow_real.py', 'tests/libraries/test_blas.py',
        'tests/tools/test_report_html.py', 'tests/tools/test_readers.py',
        'tests/libraries/test_libc.py', 'tests/libraries/test_fftw.py',
        'microgens/profiles/blas/test_blas_profile.py',
        'microgens/profiles/lapack/test_lapack_profile.py',
        'tests/tools/test_dyl_front_e2e.py', 'microgens/std.mpi/test_std_mpi.py')


def _rel(item):
    return os.path.relpath(str(item.path), ROOT).replace(os.sep, '/')


def _under(path, prefixes):
    return any(path == p or (p.endswith('/') and path.startswith(p)) for p in prefixes)


def pytest_collection_modifyitems(config, items):
    """Marks each test by its file; puts the slow files first (a stable sort: a file's
    tests stay together and in order)."""
    import pytest
    for item in items:
        path = _rel(item)
        for name, prefixes in (('quick', QUICK), ('real', REAL), ('fuzz', FUZZ),
                               ('serial', SERIAL), ('slow', SLOW)):
            if _under(path, prefixes):
                item.add_marker(getattr(pytest.mark, name))
    rank = {p: i for i, p in enumerate(SLOW)}
    items.sort(key=lambda item: rank.get(_rel(item), len(SLOW)))

