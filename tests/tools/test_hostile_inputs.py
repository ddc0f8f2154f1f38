"""The tools on files an attacker planted or wrote (issue 33, items 10 and 11), each
with the attack's own reproduction.

- A FIFO where a trace's spool or its .flow should be hung dyl-trace, its summary,
  dyl-speedup and dyl-flow in open(); a FIFO named on the command line did too.  Now
  each says in one line which file is no regular file, exit 2.
- A spool that is a symbolic link (to /etc/shadow, as root) was followed.  Now a file
  found beside a trace is never read through a link; one the user names may be a link.
- A .flow whose head says nseq = 200,000,000, or a trace row with seq 4294967295 beside
  a .flow, made dyl-speedup take 5-17 GB.  Now arrays are sized by what was read: each
  runs under a 1 GiB address-space limit and gives the figures of the sane files."""
import json
import os
import resource
import subprocess
import sys

import pytest

from dyltest import ROOT, make

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flowfile as ff  # noqa: E402

BIN = os.path.join(ROOT, 'bin')
SPOOL = os.path.join(ROOT, 'tests', 'fuzz', 'corpus', 'spool', 'monotonic.spool')
LINK = 'func,work,t_ns\n@h2d,0,1000\n@h2d,1000000,1001000\n@d2h,0,2000\n@d2h,1000000,2002000\n'
KERNEL = 'func,work,t_ns\nk,1,1\nk,100,10\n'
GIB = 1 << 30


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-trace', 'bin/dyl-speedup', 'bin/dyl-flow', 'bin/dyl-model')


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))


def tool(*argv, cwd=None):
    """A tool's run: 30 s is far beyond what these files take; a hang fails the test."""
    return subprocess.run([os.path.join(BIN, argv[0]), *map(str, argv[1:])], cwd=cwd,
                          capture_output=True, text=True, timeout=30, preexec_fn=limit_memory)


def said_once(r, path, what):
    """Exit 2 and one line that names PATH and says WHAT."""
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2, r
    assert len(lines) == 1 and str(path) in lines[0] and what in lines[0], r.stderr


def unfinished_trace(tmp_path):
    """A trace whose process did not finish (no footer, no pid): its rows would be read
    from the spool beside it, DIR/.t.csv.dylspool."""
    t = tmp_path / 't.csv'
    t.write_text('# dyliberator trace 1\n')
    return t, tmp_path / '.t.csv.dylspool'


# --- FIFOs and links -------------------------------------------------------------------

@pytest.mark.parametrize('argv', [['dyl-trace', '{t}'], ['dyl-trace', 'summary', '{t}'],
                                  ['dyl-speedup', '{t}', '{k}']])
def test_spool_fifo_is_refused(tmp_path, argv):
    t, spool = unfinished_trace(tmp_path)
    os.mkfifo(spool)
    (tmp_path / 'k.csv').write_text(KERNEL)
    r = tool(*[a.format(t=t, k=tmp_path / 'k.csv') for a in argv], cwd=tmp_path)
    said_once(r, spool, 'is a FIFO')


@pytest.mark.parametrize('argv', [['dyl-trace', '{t}'], ['dyl-trace', 'convert', '{t}'],
                                  ['dyl-speedup', '{t}', '{k}']])
def test_spool_fifo_of_a_converted_later_trace_is_refused(tmp_path, argv):
    """DYL_CONVERT=later: the trace names its spool, where all its rows are."""
    t, spool = unfinished_trace(tmp_path)
    t.write_text('# dyliberator trace 1\n# pid=100\n# rows_in_spool=.t.csv.dylspool\n'
                 '# total_ns=10\n')
    os.mkfifo(spool)
    (tmp_path / 'k.csv').write_text(KERNEL)
    r = tool(*[a.format(t=t, k=tmp_path / 'k.csv') for a in argv], cwd=tmp_path)
    said_once(r, spool, 'not a regular file' if 'convert' in argv else 'is a FIFO')


def test_spool_symlink_is_not_followed(tmp_path):
    """The link leads to a good spool: read through it, dyl-trace gave its rows."""
    t, spool = unfinished_trace(tmp_path)
    os.symlink(SPOOL, spool)
    said_once(tool('dyl-trace', t), spool, 'is a symbolic link: not followed')
    # dyl-flow reads a killed run's flow from the spool when TRACE.flow is missing
    said_once(tool('dyl-flow', t), spool, 'is a symbolic link: not followed')
    # named on the command line, the same spool is read through a link of the user's
    os.symlink(SPOOL, tmp_path / 'mine.spool')
    r = tool('dyl-trace', tmp_path / 'mine.spool')
    assert r.returncode == 0 and 'tinyapp kill-me' in r.stdout, r.stderr


def flow_files(tmp_path, seqs=(0, 1), nseq=2):
    """A trace of calls to k at SEQS, its .flow (block 0, 64 bytes: call SEQS[0] reads
    it, SEQS[1] writes it) and the kernel and link models."""
    lines = ['# dyliberator trace 1', '# pid=100',
             'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args']
    lines += [f'{s},100,k,{i * 10},5,,,10,0,' for i, s in enumerate(seqs)]
    (tmp_path / 't.csv').write_text('\n'.join(lines + ['# total_ns=1000']) + '\n')
    recs = [ff.obj(0, ff.HEAP, 64), ff.access(seqs[0], 0, 0, 64, False),
            ff.access(seqs[1], 0, 0, 64, True)]
    (tmp_path / 't.csv.flow').write_bytes(ff.flow_file(recs, nseq=nseq))
    (tmp_path / 'k.csv').write_text(KERNEL)
    (tmp_path / 'link.csv').write_text(LINK)
    return tmp_path / 't.csv', tmp_path / 'k.csv', tmp_path / 'link.csv'


def test_flow_fifo_is_refused(tmp_path):
    t, k, link = flow_files(tmp_path)
    flow = tmp_path / 't.csv.flow'
    flow.unlink()
    os.mkfifo(flow)
    said_once(tool('dyl-speedup', t, k, link), flow, 'is a FIFO')
    said_once(tool('dyl-flow', t), flow, 'is a FIFO')


def test_flow_beside_a_trace_is_not_followed(tmp_path):
    """TRACE.flow found beside the trace may not be a link; named, it may."""
    t, k, link = flow_files(tmp_path)
    flow = tmp_path / 't.csv.flow'
    os.rename(flow, tmp_path / 'real.flow')
    os.symlink(tmp_path / 'real.flow', flow)
    said_once(tool('dyl-speedup', t, k, link), flow, 'is a symbolic link: not followed')
    said_once(tool('dyl-flow', t), flow, 'is a symbolic link: not followed')
    r = tool('dyl-flow', flow)
    assert r.returncode == 0 and r.stdout.startswith('producer,consumer'), r


@pytest.mark.parametrize('argv', [['dyl-trace', '{f}'], ['dyl-trace', 'summary', '{f}'],
                                  ['dyl-speedup', '{f}', '{f}'], ['dyl-model', '{f}']])
def test_fifo_named_on_the_command_line_is_refused(tmp_path, argv):
    fifo = tmp_path / 'fifo.csv'
    os.mkfifo(fifo)
    said_once(tool(*[a.format(f=fifo) for a in argv]), fifo, 'is a FIFO')


def test_device_named_on_the_command_line_is_refused():
    """/dev/zero never ends: read to its end it filled the memory."""
    said_once(tool('dyl-trace', '/dev/zero'), '/dev/zero', 'is no regular file')


def test_stdin_is_still_read():
    r = subprocess.run([os.path.join(BIN, 'dyl-trace'), '-'], input=open(SPOOL, 'rb').read()[:0]
                       + b'# dyliberator trace 1\nseq,tid,func,t_start_ns,t_ns,in_bytes,'
                       b'out_bytes,work\n0,1,k,0,5,,,10\n# total_ns=10\n',
                       capture_output=True, timeout=30)
    assert r.returncode == 0 and b'0,1,k,0,5' in r.stdout, r


# --- sizes from the input ----------------------------------------------------------------

def transfers(tmp_path, *args):
    r = tool('dyl-speedup', '--json', *args)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    return (j['h2d_bytes'], j['d2h_bytes'], j['h2d_transfers'], j['calls'],
            j['bounds']['pessimistic']['d2h_bytes'])


def test_huge_nseq_in_the_flow_head(tmp_path):
    """nseq = 200,000,000 for a trace of 2 calls: 5.2 GB before.  The figures are those
    of the true head (nseq 2): 64 B moved up once, 2 calls; pessimistic, 64 B back."""
    sane = transfers(tmp_path, *flow_files(tmp_path))
    assert sane == (64, 0, 1, 2, 64)
    assert transfers(tmp_path, *flow_files(tmp_path, nseq=200_000_000)) == sane
    r = tool('dyl-speedup', '--plan', *flow_files(tmp_path, nseq=200_000_000))
    assert r.returncode == 0 and 'Offload plans' in r.stdout, r.stderr


def test_row_with_seq_near_2_to_the_32(tmp_path):
    """A third call at seq 4294967295 beside a .flow: 16.8 GB before.  dyl-speedup
    counts it as a call (3) with the same transfers; dyl-flow, whose array by seq grows
    with the rows, says the seq is no call of a trace of 2 rows."""
    args = flow_files(tmp_path, seqs=(0, 1, 4294967295), nseq=3)
    assert transfers(tmp_path, *args) == (64, 0, 1, 3, 64)
    r = tool('dyl-flow', args[0])
    said_once(r, args[0], 'seq 4294967295 is far beyond the 2 rows before it')


def test_seqs_with_gaps_keep_their_order(tmp_path):
    """Calls at seqs 5 and 9 (a gap before, between and after): the read of call 5 and
    the write of call 9 are as for seqs 0 and 1."""
    assert transfers(tmp_path, *flow_files(tmp_path, seqs=(5, 9), nseq=12)) == (64, 0, 1, 2, 64)


def test_access_to_a_huge_block_id(tmp_path):
    """An ACCESS of block 4,000,000,000 (only block 0 defined) is an error naming the
    record; before, an array by block id grew to it first."""
    t, k, link = flow_files(tmp_path)
    recs = [ff.obj(0, ff.HEAP, 64), ff.access(0, 4_000_000_000, 0, 64, True)]
    (tmp_path / 't.csv.flow').write_bytes(ff.flow_file(recs, nseq=2))
    r = tool('dyl-speedup', t, k, link)
    said_once(r, tmp_path / 't.csv.flow', 'object 4000000000 not defined')


def test_summary_of_a_row_with_seq_near_2_to_the_30(tmp_path):
    """dyl-trace summary looks for a seq met twice: its bits grew to the largest seq
    (128 MiB for seq 2^30 - 1).  Now they grow with the rows read, the seqs beyond in a
    hash table: it runs in 96 MiB of address space, and still finds the far seq twice."""
    head = '# dyliberator trace 1\nseq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work\n'
    far = head + '0,1,k,0,5,,,10\n1073741823,1,k,20,5,,,10\n1,1,k,10,5,,,10\n'
    limit = 96 << 20

    def run(text):
        (tmp_path / 't.csv').write_text(text)
        return subprocess.run([os.path.join(BIN, 'dyl-trace'), 'summary', tmp_path / 't.csv'],
                              capture_output=True, text=True, timeout=30,
                              preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS,
                                                                    (limit, limit)))
    r = run(far + '# total_ns=100\n')
    assert r.returncode == 0 and 'k' in r.stdout, r
    r = run(far + '1073741823,1,k,30,5,,,10\n# total_ns=100\n')
    said_once(r, 't.csv:6', 'seq 1073741823 again (first on line 4)')
