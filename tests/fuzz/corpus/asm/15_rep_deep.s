.rep 2, a
.rep 2, b
.rep 2, c
.if (a + b + c) % 2
.rep 2, d
.rep 1, e
.rep 1, f
.rep 1, g
.layer "n"
.endr
.endr
.endr
.endr
.endif
.endr
.endr
.endr
.rep 8, l
LAYER layer_id=l
.endr
HALT
