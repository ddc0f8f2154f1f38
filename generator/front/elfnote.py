"""What dyl record reads of an ELF file itself, cheaply: whether it is ELF, its class and
machine, and its GNU build ID (the note NT_GNU_BUILD_ID in a PT_NOTE segment)."""
import struct

NT_GNU_BUILD_ID = 3


def _notes(data, off, size, endian):
    """(name, type, desc) of each note in DATA[off:off+size]."""
    end = min(off + size, len(data))
    while off + 12 <= end:
        namesz, descsz, ntype = struct.unpack_from(endian + 'III', data, off)
        name_at = off + 12
        desc_at = name_at + ((namesz + 3) & ~3)
        yield data[name_at:name_at + namesz].rstrip(b'\0'), ntype, data[desc_at:desc_at + descsz]
        off = desc_at + ((descsz + 3) & ~3)


def _headers(f):
    """(class 32/64, endian '<'/'>', machine, program headers' bytes and layout) or None."""
    ident = f.read(64)
    if len(ident) < 52 or ident[:4] != b'\x7fELF' or ident[4] not in (1, 2) or ident[5] not in (1, 2):
        return None
    bits = 64 if ident[4] == 2 else 32
    endian = '<' if ident[5] == 1 else '>'
    machine = struct.unpack_from(endian + 'H', ident, 18)[0]
    if bits == 64:
        phoff, = struct.unpack_from(endian + 'Q', ident, 32)
        phentsize, phnum = struct.unpack_from(endian + 'HH', ident, 54)
    else:
        phoff, = struct.unpack_from(endian + 'I', ident, 28)
        phentsize, phnum = struct.unpack_from(endian + 'HH', ident, 42)
    f.seek(phoff)
    return bits, endian, machine, f.read(phentsize * min(phnum, 256)), phentsize


def read(path):
    """{'bits', 'machine', 'build_id', 'interp'} of the ELF file PATH (build_id None when
    it has none; interp, the PT_INTERP dynamic linker, None in a library); None when PATH
    is no ELF file.  OSError when it cannot be read."""
    with open(path, 'rb') as f:
        head = _headers(f)
        if head is None:
            return None
        bits, endian, machine, phdrs, phentsize = head
        build_id = interp = None
        for at in range(0, len(phdrs) - phentsize + 1, phentsize):
            if bits == 64:
                ptype, _, off, _, _, size = struct.unpack_from(endian + 'IIQQQQ', phdrs, at)
            else:
                ptype, off, _, _, size = struct.unpack_from(endian + 'IIIII', phdrs, at)
            if ptype == 3 and size < 4096:     # PT_INTERP
                f.seek(off)
                interp = f.read(size).rstrip(b'\0').decode(errors='replace')
            if ptype != 4 or size > 1 << 20:   # PT_NOTE; a sane size
                continue
            f.seek(off)
            for name, ntype, desc in _notes(f.read(size), 0, size, endian):
                if name == b'GNU' and ntype == NT_GNU_BUILD_ID:
                    build_id = desc.hex()
        return {'bits': bits, 'machine': machine, 'build_id': build_id, 'interp': interp}
