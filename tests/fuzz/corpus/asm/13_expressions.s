.set a, (1 + 2) * 3 - 4 / 2 % 3 << 1 >> 1
.equ b, a & 0xff | 0x10 ^ ~0 && !0 || 0
.set c, a < b ? min(a, b) : max(a, -b)
.set d, (a <= b) + (a >= b) + (a == b) + (a != b) + (a > b)
.layer x
.tensor T dtype=int8 shape=[a, 2] addr=0x40*2 role=scratch
.data T+d 01 02
CFG_LOAD mult=(c - 100) shift=d stride_inner=(T + 2) seg_stride=-(-3)
.if a > 5
  LAYER layer_id=0
.else
  LAYER layer_id=(b - b)
.endif
HALT
