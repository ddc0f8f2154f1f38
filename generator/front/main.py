"""dyl: one command, git-style: dyl record, dyl report, and dyl speedup|trace|flow|model
for bin/dyl-speedup etc. (their arguments passed on as they are)."""
import os
import sys

HELP = """\
usage: dyl record [options] [--] PROGRAM [ARGS]     run PROGRAM, traced
       dyl report [DIR | TRACE...] --device NAME     how much faster it would run
       dyl speedup ARGS...                           bin/dyl-speedup, as it is
       dyl trace ARGS...                             bin/dyl-trace
       dyl flow ARGS...                              bin/dyl-flow
       dyl model ARGS...                             bin/dyl-model
       dyl --version | dyl COMMAND --help

How much faster would a program run if some of its library calls (BLAS, LAPACK,
FFTW, zlib, libjpeg, OpenSSL...) went to an accelerator?  Two commands:

  dyl record -- ./app 2000
      Runs ./app unchanged under a wrapper of the libraries it links (built once,
      then cached); its output and exit status are its own.  Leaves ./dyl.data/:
      one trace per process, their flow files, and record.json.
  dyl report --device nvidia-h100-pcie --html report.html
      The answer from ./dyl.data: S_G (how much faster the whole program gets) and
      T' (its predicted run time), the kernels, the transfers, the plan; --html
      writes one page that opens from disk.

More:
  dyl record python3 examples/numpy_power.py 2000 50    python, sh -c: every process
  dyl record --lib libz.so.1 -o gz.data pigz -k big.file
  dyl report gz.data --model my-model.csv --link pcie4-x16
  dyl trace summary dyl.data/trace.*.csv                the calls, per function
  dyl speedup --help                                    the model, in full

Devices: models/devices/*.csv (doc/devices.md).  Guide: doc/guide.md.
"""

TOOLS = ('speedup', 'trace', 'flow', 'model')


def root_of_package():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(bindir, argv):
    root = root_of_package()
    if not argv or argv[0] in ('-h', '--help', 'help'):
        (sys.stdout if argv else sys.stderr).write(HELP)
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == '--version':
        from .record import version
        print(f'dyl (dyliberator) {version(root)}')
        return 0
    if cmd in TOOLS:
        tool = os.path.join(bindir, 'dyl-' + cmd)
        try:
            os.execv(tool, [tool] + rest)
        except OSError as e:
            sys.stderr.write(f'dyl: {tool}: {e.strerror} (run make?)\n')
            return 2
    if cmd == 'record':
        return _command('record', root, bindir, rest)
    if cmd == 'report':
        return _command('report', root, bindir, rest)
    what = 'option' if cmd.startswith('-') else 'command'
    sys.stderr.write(f"dyl: unknown {what} '{cmd}' (see dyl --help)\n")
    return 2


def _command(name, root, bindir, argv):
    from .options import Problem
    from . import record as recmod
    mod = recmod
    if name == 'report':
        from . import report as mod
    try:
        opts = mod.parse(argv)
        if opts == 'help':
            sys.stdout.write(mod.HELP)
            return 0
        if opts == 'version':
            print(f'dyl {name} (dyliberator) {recmod.version(root)}')
            return 0
        return mod.main(root, bindir, opts)
    except Problem as e:   # one wording with the other commands: (see dyl NAME --help)
        sys.stderr.write(f'dyl {name}: ' + str(e).replace('(see --help)', f'(see dyl {name} --help)')
                         + '\n')
        return 2
