; 08-gemm-skeleton.s -- exercise 8: write this tiled GEMM with loops.
;   C[16,14] (int32) = A[16,10] (int8) x B[10,14] (int8), on the tiny arch (4x4 array).
; The tensors, the constants and the store configuration are given; write the tiles below
; with .rep loops (docs/ASM.md, "Loops, conditions and constants"), then check it:
;   build/bin/sasim check YOUR.s && build/bin/sasim asm YOUR.s -o /tmp/g.bin && build/bin/sasim run /tmp/g.bin
; The right C has crc32 50d45a81 (any schedule without races gives it; the cycles are yours).
.arch tiny

.set M, 16                ; rows of A and C
.set K, 10                ; columns of A = rows of B
.set N, 14                ; columns of B and C
.set R, 4                 ; the array: 4x4
.set KT, (K + R - 1) / R  ; K tiles
.set NT, (N + R - 1) / R  ; N tiles

.layer gemm
.tensor A dtype=int8  shape=[M,K] addr=0x1000 role=input data=seed:81
.tensor B dtype=int8  shape=[K,N] addr=0x2000 role=const data=seed:82
.tensor C dtype=int32 shape=[M,N] addr=0x3000 role=output

LAYER layer_id=0
CFG_STORE stride_inner=4*N              ; rows of C are 4*N bytes apart

; your loops here: for each N tile, for each K tile, a B tile into WBUF, (once per K tile) an A
; tile into SPAD, a PRELOAD and a COMPUTE; when an N tile is complete, its STORE.

HALT
