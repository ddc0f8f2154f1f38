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


def _varint(v):
    out = b''
    while v >= 0x80:
        out += bytes([v & 0x7f | 0x80])
        v >>= 7
    return out + bytes([v])


def accesses(entries, last_seq=0, slots=None):
    """a version 2 ACCESSES record (doc/specs/flow.md) of ENTRIES, (seq, obj_id, lo, hi,
    write) tuples, as the runtime writes it: LAST_SEQ the seq of the access before, SLOTS
    (a dict, kept over the file) its recent accesses"""
    slots = {} if slots is None else slots
    m = (1 << 64) - 1
    body = b''
    for seq, obj_id, lo, hi, write in entries:
        rw = 1 if write else 0
        s = 0 if seq == last_seq else 1 if seq == last_seq + 1 else 2 if seq > last_seq else 3
        k = (((obj_id * 0x9E3779B97F4A7C15) & m) ^ ((lo * 0xC2B2AE3D27D4EB4F) & m)
             ^ ((hi * 0x165667B19E3779F9) & m) ^ rw) >> 59
        hit = slots.get(k) == (obj_id, lo, hi, rw)
        body += bytes([s << 5 | (k if hit else 0x80 | rw)])
        if s >= 2:
            body += _varint(seq - last_seq if s == 2 else seq)
        if not hit:
            body += _varint(obj_id) + _varint(lo) + _varint(hi - lo)
            slots[k] = (obj_id, lo, hi, rw)
        last_seq = seq
    return _rec(9, struct.pack('<I', len(entries)) + body)


def flow_file(records, pid=100, nseq=0, flags=0, version=1):
    head = b'DYLFLOW1' + struct.pack('<IIiIQ', version, flags, pid, 0, nseq)
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
