; gemm_raw_tiny_odd.s -- a GEMM whose sizes divide nothing, on the tiny arch (4x4 array):
; every tile is a partial one somewhere. Output raw int32 (no post-processing).
;
;   C[7,6] (int32) = A[7,5] (int8) x B[5,6] (int8)         C[m][n] = sum_k A[m][k] * B[k][n]
;
; Inputs: A = data=seed:3, B = data=seed:4 (splitmix64, docs/ASM.md), int8 in [-128, 127].
; Expected result: C == gemm_raw_tiny_odd_expected.npy (an independent numpy model):
;        838 -17970    983   8589 -17764   5837
;     -28998  12030  15433 -14744  22521  -4345
;      18588   1000 -17817   9966   8628  -3936
;       8068 -13955  -8638  10138  -5953  -1911
;      10178 -15598   -153  -6966 -27031   6467
;       2176 -11850  -5056  -1378  -2142  -1686
;       -556 -15571   7544   5601 -27160  -2891
;
; Tiling (R = C = 4): K = 5 = 4 + 1, N = 6 = 4 + 2, M = 7 in one COMPUTE (rows=7).
; Steps (kt, nt) in the order (0,0) (0,1) (1,0) (1,1); kt0 overwrites ACC, kt1 adds.
; Every tile has its own on-chip rows, so nothing is overwritten and no WAR token is needed:
;   SPAD  rows 0..6   A[m][0..3]              rows 7..13  A[m][4], rest 0
;   WBUF  rows 0..3   B[0..3][0..3]           rows 4..7   B[0..3][4..5], rest 0
;         row  8      B[4][0..3]              row  12     B[4][4..5], rest 0
;   ACC   rows 0..6   C[m][0..3]              rows 7..13  C[m][4..5] (columns 2, 3 unused)
; Tokens: load -> compute, one per tile (load order B00 A0 B01 B10 A1 B11 = the order of the
; compute unit's pops: PRELOAD COMPUTE PRELOAD PRELOAD COMPUTE PRELOAD); compute -> store, one
; per N tile when its last K tile is accumulated.

.arch "../arch/tiny.json"

.layer gemm_odd

.tensor A dtype=int8  shape=[7,5] addr=0x100 role=input data=seed:3
.tensor B dtype=int8  shape=[5,6] addr=0x200 role=const data=seed:4
.tensor C dtype=int32 shape=[7,6] addr=0x300 role=output

LAYER layer_id=0

; ---- kt0 (k = 0..3) ----
CFG_LOAD stride_inner=6                   ; B rows are 6 bytes apart
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=4 nseg=1 seglen=4 push=compute      ; WBUF 0..3 := B[0..3][0..3]
CFG_LOAD stride_inner=5                   ; A rows are 5 bytes apart
LOAD mem=spad dst=0 dram_addr=A outer=1 inner=7 nseg=1 seglen=4 push=compute      ; SPAD 0..6 := A[0..6][0..3]
CFG_LOAD stride_inner=6
LOAD mem=wbuf dst=4 dram_addr=B+4 outer=1 inner=4 nseg=1 seglen=2 push=compute    ; WBUF 4..7 := B[0..3][4..5]
PRELOAD src=0 rows=4 pop=load             ; bank 0 := B[0..3][0..3]
COMPUTE src=0 acc_addr=0 rows=7 accum=0 pop=load    ; ACC 0..6 := A[:, 0..3] x B[0..3][0..3]
PRELOAD src=4 rows=4 pop=load             ; bank 1 := B[0..3][4..5]
COMPUTE src=0 acc_addr=7 rows=7 accum=0   ; ACC 7..13 := A[:, 0..3] x B[0..3][4..5]

; ---- kt1 (k = 4) ----
LOAD mem=wbuf dst=8 dram_addr=B+24 outer=1 inner=1 nseg=1 seglen=4 push=compute   ; WBUF 8 := B[4][0..3]
CFG_LOAD stride_inner=5
LOAD mem=spad dst=7 dram_addr=A+4 outer=1 inner=7 nseg=1 seglen=1 push=compute    ; SPAD 7..13 := A[0..6][4]
LOAD mem=wbuf dst=12 dram_addr=B+28 outer=1 inner=1 nseg=1 seglen=2 push=compute  ; WBUF 12 := B[4][4..5]
PRELOAD src=8 rows=1 pop=load             ; bank 0 := B[4][0..3] (array rows 1..3 zero)
COMPUTE src=7 acc_addr=0 rows=7 accum=1 pop=load push=store
                                          ; ACC 0..6 += A[:, 4] x B[4][0..3]: columns 0..3 done
PRELOAD src=12 rows=1 pop=load            ; bank 1 := B[4][4..5]
COMPUTE src=7 acc_addr=7 rows=7 accum=1 push=store
                                          ; ACC 7..13 += A[:, 4] x B[4][4..5]: columns 4..5 done

; ---- output ----
CFG_STORE stride_inner=24                 ; C rows are 6 int32 = 24 bytes apart
STORE raw32=1 src=0 dram_addr=C outer=1 inner=7 cols=4 pop=compute      ; C[m][0..3] := ACC m
STORE raw32=1 src=7 dram_addr=C+16 outer=1 inner=7 cols=2 pop=compute   ; C[m][4..5] := ACC 7+m
HALT
