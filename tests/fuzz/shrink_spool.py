#!/usr/bin/python3
"""Makes a spool small enough for the fuzz corpus: its windows keep only the bytes
their records fill (256 KiB each otherwise, mostly zeros), its blocks their first
RECORDS bytes (whole records), and the padding before windows goes (the reader needs
no page alignment).  Usage: shrink_spool.py IN OUT [RECORDS_BYTES]"""
import struct
import sys

WINDOW, BLOCK, PAD = 0x4e495757, 0x4b4c4242, 0x44415050


def records_end(data, at, end, limit):
    """The end of the whole records from AT, at most LIMIT bytes of them."""
    p = at
    while p + 16 <= end:
        meta = struct.unpack_from('<I', data, p + 12)[0]
        size = 16 + (8 * (data[p + 16]) if meta >> 28 & 2 else 0)
        if p + size > end or p + size - at > limit:
            break
        p += size
    return p


def shrink(data, limit):
    out, off = bytearray(data[:16]), 16
    while off + 8 <= len(data):
        kind, length = struct.unpack_from('<II', data, off)
        if kind == 0 or length > len(data) - off - 8:
            break
        body = data[off + 8:off + 8 + length]
        if kind == PAD:
            body = None
        elif kind == WINDOW:
            tid, wid, gen, used, size = struct.unpack_from('<iIIII', body)
            used = records_end(data, off + 64, off + 64 + used, limit) - off - 64
            keep = (used + 7) & ~7
            body = bytearray(body[:56 + keep])
            struct.pack_into('<iIIII', body, 0, tid, wid, gen, used, keep)
        elif kind == BLOCK:
            tid, win, gen, frm, to, nopen, min_start = struct.unpack_from('<iIIIIIQ', body)
            at = off + 40 + 16 * nopen
            n = records_end(data, at, at + (to - frm), limit) - at
            body = bytearray(body[:32 + 16 * nopen + n])
            struct.pack_into('<iIIIIIQ', body, 0, tid, win, gen, frm, frm + n, nopen, min_start)
        if body is not None:
            out += struct.pack('<II', kind, len(body)) + body
        off += 8 + length
    return bytes(out)


if __name__ == '__main__':
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
    with open(sys.argv[1], 'rb') as f:
        data = f.read()
    with open(sys.argv[2], 'wb') as f:
        f.write(shrink(data, limit))
