"""A small reader of TRACE.flow (runtime/format/dyl_flow.h, doc/specs/flow.md) for the
tests: every record as a dict, read with the struct module alone (no project code), so
that the tests check the file's bytes, not a reader written from the same misreading.
The process writes addresses, not names (head flag 16, MODULE records): the names of
sites, statics and stack objects are then the tool's (bin/dyl-flow --names), and stack
objects of one extent named alike are joined into the first, as the tools do."""
import csv
import io
import os
import struct
import subprocess

KINDS = {1: 'heap', 2: 'static', 3: 'stack', 4: 'mapping'}
NONE = 2**64 - 1
F_MODULES = 16
DYL_FLOW = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'bin', 'dyl-flow')


def read(path, names=True):
    """(head, records): head a dict (MODULE records in its 'modules'); records a list of dicts with 'type' (SITE, OBJECT,
    RESIZE, FREE, ACCESS, HOST_WRITE, HOST_READ) and the fields the spec names."""
    with open(path, 'rb') as f:
        data = f.read()
    assert data[:8] == b'DYLFLOW1', data[:8]
    version, flags, pid, zero, nseq = struct.unpack_from('<IIiIQ', data, 8)
    head = dict(version=version, flags=flags, pid=pid, nseq=nseq, modules=[])
    assert version in (1, 2), version
    out, off = [], 32
    acc = dict(seq=0, slots={})   # version 2's ACCESSES: the last ACCESS's seq, recent ones
    while off < len(data):
        typ, ln = struct.unpack_from('<II', data, off)
        assert ln % 8 == 0 and off + 8 + ln <= len(data), (off, typ, ln)
        b = data[off + 8:off + 8 + ln]
        if typ == 1:
            site_id, npc, tlen = struct.unpack_from('<QII', b)
            pcs = struct.unpack_from(f'<{npc}Q', b, 16)
            text = b[16 + 8 * npc:16 + 8 * npc + tlen].decode()
            out.append(dict(type='SITE', site_id=site_id, pcs=pcs, text=text))
        elif typ == 2:
            obj, kind, nlen, size, site, birth, addr = struct.unpack_from('<QIIQQQQ', b)
            r = dict(type='OBJECT', obj_id=obj, kind=KINDS[kind], size=size,
                     site_id=None if site == NONE else site, birth_seq=birth, addr=addr,
                     name=b[48:48 + nlen].decode())
            at = 48 + (nlen + 7) // 8 * 8
            if flags & F_MODULES and kind == 3:
                r['ip'], r['cfa'] = struct.unpack_from('<QQ', b, at)
            out.append(r)
        elif typ == 3:
            obj, size, seq, moved, _ = struct.unpack_from('<QQQII', b)
            out.append(dict(type='RESIZE', obj_id=obj, new_size=size, seq=seq, moved=moved))
        elif typ == 4:
            obj, seq = struct.unpack_from('<QQ', b)
            out.append(dict(type='FREE', obj_id=obj, seq=seq))
        elif typ == 5:
            seq, obj, lo, hi, rw, _ = struct.unpack_from('<QQQQII', b)
            out.append(dict(type='ACCESS', seq=seq, obj_id=obj, lo=lo, hi=hi, rw='RW'[rw]))
            acc['seq'] = seq
        elif typ == 9 and version >= 2:
            out.extend(accesses(b, acc))
        elif typ == 6:
            seq, obj, lo, hi = struct.unpack_from('<QQQQ', b)
            out.append(dict(type='HOST_WRITE', seq=seq, obj_id=obj, lo=lo, hi=hi))
        elif typ == 7:
            assert ln == 40, ln
            seq, obj, lo, hi, how = struct.unpack_from('<QQQQQ', b)
            out.append(dict(type='HOST_READ', seq=seq, obj_id=obj, lo=lo, hi=hi,
                            how={0: 'seen', 1: 'assumed'}[how]))
        elif typ == 8:
            mid, bias, lo, hi, plen, blen = struct.unpack_from('<QQQQII', b)
            head['modules'].append(dict(module_id=mid, bias=bias, lo=lo, hi=hi,
                                        path=b[40:40 + plen].decode(),
                                        build_id=b[40 + plen:40 + plen + blen]))
        off += 8 + ln
    if names and flags & F_MODULES:
        out = named(path, out)
    return head, out


def varint(b, at):
    v, shift = 0, 0
    while True:
        x = b[at]
        v |= (x & 0x7f) << shift
        at, shift = at + 1, shift + 7
        if not x & 0x80:
            return v, at


def slot(obj, lo, hi, rw):
    m = 2**64 - 1
    h = ((obj * 0x9E3779B97F4A7C15) & m) ^ ((lo * 0xC2B2AE3D27D4EB4F) & m) \
        ^ ((hi * 0x165667B19E3779F9) & m) ^ rw
    return h >> 59


def accesses(b, acc):
    """the ACCESS records of an ACCESSES record's body B (doc/specs/flow.md); ACC the
    reader's state over the file"""
    count, = struct.unpack_from('<I', b)
    at, out = 4, []
    for _ in range(count):
        tag = b[at]
        at += 1
        s = tag >> 5 & 3
        if s >= 2:
            v, at = varint(b, at)
        seq = [acc['seq'], acc['seq'] + 1, acc['seq'] + v if s == 2 else 0, v if s == 3 else 0][s]
        acc['seq'] = seq
        if tag & 0x80:
            rw = tag & 1
            obj, at = varint(b, at)
            lo, at = varint(b, at)
            n, at = varint(b, at)
            acc['slots'][slot(obj, lo, lo + n, rw)] = (obj, lo, lo + n, rw)
        else:
            obj, lo, hi_, rw = acc['slots'][tag & 31]
            n = hi_ - lo
        out.append(dict(type='ACCESS', seq=seq, obj_id=obj, lo=lo, hi=lo + n, rw='RW'[rw]))
    return out


def named(path, recs):
    """the tool's names for SITE and OBJECT records; stack objects joined by extent and
    name (the later ones' records name the first)"""
    got = subprocess.run([DYL_FLOW, '--names', path], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    name = {(r['record'], int(r['id'])): r['name'] for r in csv.DictReader(io.StringIO(got.stdout))}
    first, alias, kept = {}, {}, []
    for r in recs:
        if r['type'] == 'SITE':
            r['text'] = name[('site', r['site_id'])]
        elif r['type'] == 'OBJECT':
            if r['kind'] in ('static', 'stack'):
                r['name'] = name[('object', r['obj_id'])]
            if r['kind'] == 'stack':
                key = (r['addr'], r['size'], r['name'])
                if key in first:
                    alias[r['obj_id']] = first[key]
                    continue
                first[key] = r['obj_id']
        elif 'obj_id' in r:
            r['obj_id'] = alias.get(r['obj_id'], r['obj_id'])
        kept.append(r)
    return kept


def dump(path):
    head, recs = read(path)
    print(head)
    for r in recs:
        print(r)


if __name__ == '__main__':
    import sys
    dump(sys.argv[1])
