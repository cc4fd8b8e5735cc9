#!/usr/bin/env python3
"""hostile_elf.py - an executable that still runs, with a symbol table made
to hurt whoever reads it (qa 032 and the ELF bounds test).

    hostile_elf.py SRC DST --sparse-gb N     DST = SRC + a .symtab claiming
                                             N GB at the end of a sparse file
    hostile_elf.py SRC DST --funcs N         DST = SRC + a real .symtab of N
                                             function symbols (at a bound)

SRC's program headers are untouched, so DST runs as SRC does; its section
headers are replaced by: null, .symtab, .strtab, .shstrtab (the old ones go:
only the symbolizer reads them).
"""
import struct
import sys

SHT_SYMTAB, SHT_STRTAB = 2, 3


def shdr(name, typ, off, size, link=0, info=0, entsize=0):
    return struct.pack('<IIQQQQIIQQ', name, typ, 0, 0, off, size, link, info, 8, entsize)


def main():
    src, dst, opt, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    data = bytearray(open(src, 'rb').read())
    assert data[:4] == b'\x7fELF' and data[4] == 2, 'a 64-bit ELF is needed'
    text_lo = 0x1000                     # st_value: inside the first pages
    end = (len(data) + 4095) & ~4095
    if opt == '--funcs':
        names = bytearray(b'\0')
        syms = bytearray(24)              # symbol 0 is null
        for i in range(n):
            off = len(names)
            names += b'hostile_function_%08d\0' % i
            # STB_GLOBAL << 4 | STT_FUNC, st_shndx 1 (any defined section)
            syms += struct.pack('<IBBHQQ', off, 0x12, 0, 1, text_lo + 16 * i, 16)
        sym_off = end
        str_off = sym_off + len(syms)
        body = syms + names
        sym_size, str_size = len(syms), len(names)
    elif opt == '--sparse-gb':
        sym_size = (n << 30) // 24 * 24    # whole symbols, or libelf refuses it itself
        sym_off = end
        str_off = sym_off + sym_size
        str_size = 1 << 20
        body = None
    else:
        sys.exit('usage: hostile_elf.py SRC DST --funcs N | --sparse-gb N')
    shstr = b'\0.symtab\0.strtab\0.shstrtab\0'
    shstr_off = str_off + str_size
    shoff = (shstr_off + len(shstr) + 7) & ~7
    headers = (shdr(0, 0, 0, 0) +
               shdr(1, SHT_SYMTAB, sym_off, sym_size, link=2, info=1, entsize=24) +
               shdr(9, SHT_STRTAB, str_off, str_size) +
               shdr(17, SHT_STRTAB, shstr_off, len(shstr)))
    # e_shoff, then e_shentsize, e_shnum, e_shstrndx
    struct.pack_into('<Q', data, 0x28, shoff)
    struct.pack_into('<HHH', data, 0x3a, 64, 4, 3)
    with open(dst, 'wb') as f:
        f.write(data)
        f.write(b'\0' * (end - len(data)))
        if body is not None:
            f.write(body)
        f.seek(shstr_off)
        f.write(shstr)
        f.write(b'\0' * (shoff - shstr_off - len(shstr)))
        f.write(headers)


main()
