"""TRACE.flow files made by hand (runtime/format/dyl_flow.h, doc/specs/flow.md), for
dyl-flow's tests: a head, then records in the order given.  Each helper returns one
record's bytes; flow_file() joins them after the head."""
import struct

HEAP, STATIC, STACK, MAPPING = 1, 2, 3, 4
NONE = (1 << 64) - 1


def _pad(b):
    return b + b'\0' * (-len(b) % 8)


def _rec(kind, body):
    body = _pad(body)
    return struct.pack('<II', kind, len(body)) + body


def site(site_id, text, pcs=()):
    t = text.encode()
    return _rec(1, struct.pack('<QII', site_id, len(pcs), len(t))
                + b''.join(struct.pack('<Q', p) for p in pcs) + t)


def obj(obj_id, kind, size, site_id=NONE, name='', birth_seq=0, addr=0):
    n = name.encode()
    return _rec(2, struct.pack('<QIIQQQQ', obj_id, kind, len(n), size, site_id, birth_seq,
                               addr) + n)


def resize(obj_id, new_size, seq, moved):
    return _rec(3, struct.pack('<QQQII', obj_id, new_size, seq, moved, 0))


def free(obj_id, seq):
    return _rec(4, struct.pack('<QQ', obj_id, seq))


def access(seq, obj_id, lo, hi, write):
    return _rec(5, struct.pack('<QQQQII', seq, obj_id, lo, hi, 1 if write else 0, 0))


def host_write(seq, obj_id, lo, hi):
    return _rec(6, struct.pack('<QQQQ', seq, obj_id, lo, hi))


def stack_obj(obj_id, size, name, addr, ip, cfa, birth_seq=0):
    """a stack OBJECT of a file with modules (flag 16): its frame after its name"""
    n = _pad(name.encode())
    return _rec(2, struct.pack('<QIIQQQQ', obj_id, STACK, len(name.encode()), size, NONE,
                               birth_seq, addr) + n + struct.pack('<QQ', ip, cfa))


def module(module_id, path, build_id, bias, lo, hi):
    p = path.encode()
    return _rec(8, struct.pack('<QQQQII', module_id, bias, lo, hi, len(p), len(build_id))
                + p + build_id)


def flow_file(records, pid=100, nseq=0, flags=0):
    head = b'DYLFLOW1' + struct.pack('<IIiIQ', 1, flags, pid, 0, nseq)
    return head + b''.join(records)


def trace_csv(calls, pid=100, total_ns=None):
    """CALLS: (seq, func, t_start, t_ns[, depth[, tid]]) tuples."""
    lines = [f'# pid={pid}', 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args']
    for c in calls:
        seq, func, t0, t = c[:4]
        depth = c[4] if len(c) > 4 else 0
        tid = c[5] if len(c) > 5 else 1
        lines.append(f'{seq},{tid},{func},{t0},{t},,,,{depth},')
    if total_ns is None:
        total_ns = max((c[2] + c[3] for c in calls), default=0)
    lines.append(f'# total_ns={total_ns}')
    return '\n'.join(lines) + '\n'
