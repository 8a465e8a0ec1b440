; 09-attention.s -- exercise 9 (docs/exercises/09-attention.md): one attention head's scores
; and their softmax, P = softmax(Q K^T / sqrt(d)), for 8 tokens of dimension d = 4 on the tiny
; arch (4x4 array). Q and K are small integers so that every score fits int8.
;
; Q K^T is a GEMM whose B operand, K^T, was computed at run time: WBUF row k must hold
; column k of K. The transposed LOAD writes K's row j (token j) down WBUF column j mod 4, so
; WBUF rows 0..3 hold K^T for keys 0..3 and rows 4..7 for keys 4..7: one 4x4 weight tile per
; block of 4 keys. Q streams: SPAD row m = Q[m].
; The scores of keys 0..3 land in ACC rows 0..7, those of keys 4..7 in ACC rows 8..15: a row
; of 8 scores is two segments of C = 4 values, 8 ACC rows apart, which SFU_SOFTMAX takes with
; len=8 sstride=8. 1/sqrt(d) and the scores' scale are folded into SM_MULT / 2^SM_SHIFT.

.arch tiny
.layer scores
.layer softmax

.tensor Q dtype=int8 shape=[8,4] addr=0x100 role=input data=[1,0,-1,2, 0,1,1,0, 2,-1,0,1, -1,-1,2,0, 0,2,0,-2, 1,1,1,1, -2,0,1,1, 0,0,0,3]
.tensor K dtype=int8 shape=[8,4] addr=0x200 role=input data=[1,1,0,0, 0,1,-1,2, 2,0,1,-1, -1,2,0,1, 1,-1,1,1, 0,0,2,0, 3,1,0,-1, -1,0,-2,1]
.tensor P dtype=int8 shape=[8,8] addr=0x300 role=output

LAYER layer_id=0                          ; "scores": Q K^T on the array
CFG_LOAD stride_inner=4                   ; rows of Q and K are 4 bytes apart
LOAD mem=wbuf transpose=1 tstride=4 dst=0 dram_addr=K outer=1 inner=8 nseg=1 seglen=4 push=compute
                                          ; WBUF rows 0..7 := K^T, two 4x4 tiles
LOAD mem=spad dst=0 dram_addr=Q outer=1 inner=8 nseg=1 seglen=4 push=compute
                                          ; SPAD rows 0..7 := Q
PRELOAD src=0 rows=4 pop=load             ; keys 0..3 (waits for K)
COMPUTE src=0 acc_addr=0 rows=8 accum=0 pop=load
                                          ; ACC rows 0..7 := scores of keys 0..3 (waits for Q)
PRELOAD src=4 rows=4                      ; keys 4..7
COMPUTE src=0 acc_addr=8 rows=8 accum=0 push=sfu
                                          ; ACC rows 8..15 := scores of keys 4..7; then a token to the SFU

LAYER layer_id=1                          ; "softmax": on the special-function unit
SFU_SOFTMAX src=0 acc_addr=0 rows=8 len=8 sstride=8 sm_mult=1024 sm_shift=0 sm_j=0 pop=compute push=store
                                          ; logit scale 1/2 (1/sqrt(4), Q and K at scale 1): 2048/2 = 1024 = SM_MULT / 2^0
CFG_STORE stride_inner=8                  ; rows of P are 8 bytes apart; identity post-processing
STORE src=0 dram_addr=P outer=1 inner=8 cols=4 pop=sfu
                                          ; P[:, 0..3] := ACC rows 0..7 (int8)
STORE src=8 dram_addr=P+4 outer=1 inner=8 cols=4
                                          ; P[:, 4..7] := ACC rows 8..15
HALT
