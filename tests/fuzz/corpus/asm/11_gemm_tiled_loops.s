; gemm_tiled_loops.s -- gemm_tiled.s written with loops: the same tiled, double-buffered int8 GEMM
; with requantization and ReLU on the default arch, C[40,24] = relu(requant(A[40,20] x B[20,24])),
; and the same binary, byte for byte (tests/isa/asm_test.c checks it). gemm_tiled.s's header
; explains the tiling, the on-chip layout and every token; here each is an expression of the
; tile indices kt (K tile) and nt (N tile), so other shapes only change the .set lines
; (as long as the buffers hold them). Loops and expressions: docs/ASM.md.
.arch default

.set M, 40
.set K, 20
.set N, 24
.set R, 16                                ; array rows = cols
.set KT, (K + R - 1) / R                  ; K tiles: 2
.set NT, (N + R - 1) / R                  ; N tiles: 2

.layer gemm_tiled

.tensor A dtype=int8  shape=[40,20] addr=0x1000 role=input data=seed:1
.tensor B dtype=int8  shape=[20,24] addr=0x2000 role=const data=seed:2
.tensor P dtype=int32 shape=[3,24]  addr=0x3000 role=const data=[-12000,-11000,-10000,-9000,-8000,-7000,-6000,-5000,-4000,-3000,-2000,-1000,0,1000,2000,3000,4000,5000,6000,7000,8000,9000,10000,11000, 1,2,3,4,1,2,3,4,1,2,3,4,1,2,3,4,1,2,3,4,1,2,3,4, 10,10,10,10,10,10,10,10,10,10,10,10,11,11,11,11,11,11,11,11,11,11,11,11]
.tensor C dtype=int8  shape=[40,24] addr=0x4000 role=output

LAYER layer_id=0
.rep KT, kt
.rep NT, nt
  .set s, kt*NT + nt                      ; the step: 0 1 2 3
  .set kr, min(R, K - kt*R)               ; K rows of this tile: 16, then 4
  .set nc, min(R, N - nt*R)               ; N columns of this tile: 16, then 8
  CFG_LOAD stride_inner=N
  LOAD mem=wbuf dst=nt*R dram_addr=B+kt*R*N+nt*R outer=1 inner=kr nseg=1 seglen=nc pop=compute*(kt>0) push=compute
  .if nt == 0                             ; A's K tile, once per kt, into its own SPAD rows
    CFG_LOAD stride_inner=K
    LOAD mem=spad dst=kt*M dram_addr=A+kt*R outer=1 inner=M nseg=1 seglen=kr push=compute
  .endif
  .if s == 1                              ; the PARAM rows of both N tiles
    CFG_LOAD stride_inner=4*N
    .rep NT, n
      LOAD mem=param dst=3*n dram_addr=P+4*R*n outer=1 inner=3 nseg=1 seglen=4*min(R, N - n*R) push=store
    .endr
  .endif
  ; WBUF buffer nt is released (compute -> load) for step s+2: buffer 0 by PRELOAD 0, buffer 1 by COMPUTE 1
  PRELOAD src=nt*R rows=kr pop=load push=load*(s==0)
  COMPUTE src=kt*M acc_addr=nt*M rows=M accum=(kt>0) pop=load*(nt==0) push=load*(s==1)|store*(kt==KT-1)
.endr
.endr
.rep NT, nt                               ; post-process and store each N tile
  CFG_STORE act=relu params=1 prow=3*nt stride_inner=N
  STORE src=nt*M dram_addr=C+nt*R outer=1 inner=M cols=min(R, N - nt*R) pop=compute|load
.endr
HALT
