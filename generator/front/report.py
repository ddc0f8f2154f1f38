"""dyl report: a record folder (or traces) to bin/dyl-speedup's report."""
import os
import subprocess
import sys

from .options import Problem, take
from .record import trace_names

HELP = """\
usage: dyl report [DIR | TRACE...] [--device NAME] [--model M]... [--link L]
                  [--html FILE] [--json] [-- DYL-SPEEDUP-OPTIONS...]

How much faster the program `dyl record` ran would run with its library calls on an
accelerator: S_G (the whole program's speedup) and T' (its predicted run time) first,
then the kernels, the transfers, the threads and the notes (bin/dyl-speedup --report).

  dyl report --device nvidia-h100-pcie                  ./dyl.data, a real GPU's figures
  dyl report run1.data --device nvidia-h100-pcie --html run1.html
  dyl report --model models/example-pcie-gpu-dgemm.csv --link pcie4-x16
  dyl report dyl.data/trace.1234.csv --device amd-mi300x --json

DIR is a folder `dyl record` wrote (default ./dyl.data): its traces, trace.PID.csv, one
per process, with their flow files beside them.  TRACE names traces one by one.

An accelerator must be named: --device NAME (models/devices/NAME.csv: nvidia-h100-pcie,
nvidia-h100-sxm, nvidia-h200, nvidia-gh200, nvidia-a100-sxm-80g, amd-mi300x,
intel-max-1550; doc/devices.md) or --model (the time of each function against its work
size, CSV; models/README.md).  No default: the answer depends on it.

options:
  --device NAME  a real accelerator's published figures (or a path to such a file)
  --model M      a model file: a path, or a name under models/ (example-pcie-gpu-dgemm)
                 (repeatable)
  --link L       a link model: a path, or a name under models/ (pcie4-x16 for
                 models/link-pcie4-x16.csv): the data's transfers are simulated
  --html FILE    also write the report as one HTML page that opens from disk
  --json         the report as one JSON object (dyl-speedup --json)
  --version      print the version
  --             what follows goes to dyl-speedup as it is (dyl speedup --help)

Exit status: dyl-speedup's (0 done, 1 no model matches a traced function, 3 nothing
predicted); 2 bad usage or a folder without traces.
"""


def parse(argv):
    """{'inputs', 'model', 'link', 'device', 'html', 'json', 'extra'}, or 'help'/'version'."""
    opts = {'inputs': [], 'model': [], 'link': None, 'device': None, 'html': None,
            'json': False, 'extra': []}
    takes = {'--model': 'model', '--link': 'link', '--device': 'device', '--html': 'html'}
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, val = a.partition('=')
        if a == '--':
            opts['extra'] = argv[i + 1:]
            break
        if name in takes:
            i = take(opts, takes[name], name, argv, i, val if eq else None)
        elif a in ('-h', '--help'):
            return 'help'
        elif a == '--version':
            return 'version'
        elif a == '--json':
            opts['json'] = True
        elif a.startswith('-') and a != '-':
            raise Problem(f"unknown option '{a}' (see --help)")
        else:
            opts['inputs'].append(a)
        i += 1
    return opts


def traces(inputs):
    """The trace files of INPUTS (folders expanded to their trace.*.csv), in order."""
    found = []
    for p in inputs or ['dyl.data']:
        if not os.path.isdir(p):
            if not os.path.exists(p):
                raise Problem(f'{p}: no such file or folder' +
                              (' (run dyl record first)' if not inputs else ''))
            found.append(p)
            continue
        names = trace_names(p)
        if not names:
            why = 'the program recorded no call of a wrapped library' \
                if os.path.isfile(os.path.join(p, 'record.json')) else 'no record folder'
            raise Problem(f'{p}: no trace (trace.*.csv) in it: {why}')
        found += [os.path.join(p, n) for n in names]
    return found


def _named(root, value, prefix=''):
    """VALUE as a path, else models/PREFIX+VALUE[.csv]."""
    if os.path.exists(value):
        return value
    for name in (prefix + value, prefix + value + '.csv', value + '.csv'):
        p = os.path.join(root, 'models', name)
        if os.path.isfile(p):
            return p
    raise Problem(f'{value}: no such file, nor models/{prefix}{value}.csv')


def speedup_options(tool):
    """The options dyl-speedup's --help names, of those dyl report may pass (one run: a
    dyl-speedup without --report or --html is told, not guessed)."""
    try:
        out = subprocess.run([tool, '--help'], capture_output=True, text=True).stdout
    except OSError:
        return set()
    return {o for o in ('--report', '--html', '--link') if o in out}


def command(root, bindir, opts):
    """dyl-speedup's command line for OPTS: --report unless --json, the link by --link
    where dyl-speedup has it (else as one more model file)."""
    tool = os.path.join(bindir, 'dyl-speedup')
    if not (opts['device'] or opts['model']):
        raise Problem('name an accelerator: --device NAME (e.g. --device nvidia-h100-pcie) '
                      'or --model FILE (see --help)')
    known = speedup_options(tool)
    models = [_named(root, m) for m in opts['model']]
    link = []
    if opts['link']:
        link = _named(root, opts['link'], 'link-')
        link = ['--link', link] if '--link' in known else [link]
    cmd = [tool] + traces(opts['inputs']) + models + link
    if opts['device']:
        cmd += ['--device', opts['device']]
    if opts['html']:
        if '--html' not in known:
            raise Problem('--html: this dyl-speedup writes no HTML yet (it has no --html)')
        cmd += ['--html', opts['html']]
    cmd.append('--json' if opts['json'] else '--report' if '--report' in known else None)
    return [c for c in cmd if c is not None] + opts['extra']


def main(root, bindir, opts):
    cmd = command(root, bindir, opts)
    sys.stdout.flush()
    os.execv(cmd[0], cmd)
