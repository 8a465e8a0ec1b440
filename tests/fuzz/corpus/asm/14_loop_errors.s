.rep 3, i
PRELOAD src=0 rows=i*8+1
.endr
.set z, 1/0
.set big, 0x7fffffffffffffff + 1
.rep 4000000000
.endr
.rep 2, i
.rep 2, i
.endr
.endr
COMPUTE rows=undefined_name
.if 1
.else
.else
.endif
.endr
HALT
