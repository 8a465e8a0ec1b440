#!/usr/bin/python3
"""npy.py: writes a small .npy file, Python standard library only (the tests must not need numpy).

    python3 tests/grade/npy.py OUT.npy DTYPE SHAPE VALUE...
    python3 tests/grade/npy.py OUT.npy DTYPE SHAPE --range START STEP [MOD]

DTYPE is int8, int32, int64 or float64; SHAPE is comma-separated (4,4); the values are given
in C order, or made as START + STEP*i (wrapped into [-MOD/2, MOD/2) when MOD is given).
"""
import struct
import sys

CODES = {'int8': ('|i1', 'b'), 'int32': ('<i4', 'i'), 'int64': ('<i8', 'q'), 'float64': ('<f8', 'd')}


def write(path, dtype, shape, values):
    descr, fmt = CODES[dtype]
    dims = ''.join(f'{d}, ' for d in shape) if len(shape) > 1 else f'{shape[0]},'
    h = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims}), }}"
    h += ' ' * (63 - (10 + len(h)) % 64) + '\n'
    body = struct.pack(f'<{len(values)}{fmt}', *values)
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + body)


def main(argv):
    if len(argv) < 4 or argv[2] not in CODES:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    shape = [int(x) for x in argv[3].split(',')]
    n = 1
    for d in shape:
        n *= d
    if argv[4:5] == ['--range']:
        start, step = int(argv[5]), int(argv[6])
        mod = int(argv[7]) if len(argv) > 7 else 0
        values = [start + step * i for i in range(n)]
        if mod:
            values = [(v + mod // 2) % mod - mod // 2 for v in values]
    else:
        values = [float(v) if argv[2] == 'float64' else int(v) for v in argv[4:]]
    if len(values) != n:
        print(f'npy.py: {len(values)} values for shape {argv[3]}', file=sys.stderr)
        return 2
    write(argv[1], argv[2], shape, values)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
