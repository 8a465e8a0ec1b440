.data 0x10 01 02 03
.bytes ff fe
; a comment between
.bytes 00
.data 0x16 aa
.data 0x40
HALT
