"""Libraries whose headers are GCC's own (libgomp: omp.h under /usr/lib/gcc/.../include,
with GCC 11's __malloc__(deallocator) attribute, which libclang 14 refuses).  Without
--header the generator finds omp.h there, not a C++ header that names omp_* calls."""
from dyltest import DYLIBERATOR, run


def test_libgomp_without_header(tmp_path):
    r = run([DYLIBERATOR, '--list', '--lib', 'libgomp.so.1', '-f', 'omp_*alloc',
             '-f', 'omp_get_max_threads', '-o', str(tmp_path / 'w.so')], check=False)
    assert r.returncode == 0, r.stderr
    wrapped = {line.split()[1]: line.split()[2] for line in r.stdout.splitlines()
               if line.startswith('wrap ')}
    # omp_alloc carries __attribute__((__malloc__, __malloc__ (omp_free), ...))
    assert wrapped.get('omp_alloc', '').startswith('omp.h:'), r.stdout
    assert wrapped.get('omp_get_max_threads', '').startswith('omp.h:')
    assert 'c++' not in r.stderr and 'skipped:' not in r.stderr, r.stderr
