; gemm_is_tiny.s -- a GEMM in the input-stationary dataflow (COMPUTE_IS and the transposed LOAD,
; docs/TIMING.md §5-§6) on the tiny arch (4x4 array), checked against the same GEMM done
; weight-stationary:
;
;   Y[6,5] (int32) = X[6,3] (int8) x W[3,5] (int8)           Y[p][n] = sum_k X[p][k] * W[k][n]
;
; Input-stationary is the weight-stationary array run on Y^T = W^T X^T: the stationary operand
; (a weight bank) holds a block of 4 pixels, bank row k = X[p0..p0+3][k], and the scratchpad
; streams W^T, one output channel per row (SPAD row n = W[0..2][n]). Streamed row n, column c
; is Y[p0+c][n]; COMPUTE_IS writes it to ACC[ACC_ADDR + (n div 4)*ASTRIDE + c][n mod 4], which is
; where a COMPUTE puts Y: pixel rows, channels n mod 4 across, the channels >= 4 ASTRIDE rows
; further down. So C (input-stationary) and D (weight-stationary) are stored the same way.
; The shape is off the array on purpose: 6 pixels = 4 + 2 (the second block has COLS = 2), 5
; channels = 4 + 1 (ROWS = 5, two column blocks), K = 3 < R.
;
; Inputs: X = data=seed:7, W = data=seed:8 (splitmix64, docs/ASM.md), int8 in [-128, 127].
; Expected result: C == D == gemm_is_tiny_expected.npy, from an independent numpy model:
;   X = splitmix64 bytes (seed 7) as int8, reshaped (6, 3); W likewise (seed 8), (3, 5);
;   np.save("gemm_is_tiny_expected.npy", (X.astype(np.int32) @ W.astype(np.int32)).astype("<i4"))
;      -1536   1363  -2807   3404   5186
;      -1515     13   4588   5648  -1684
;      10583   9604   4559  10648  -2198
;      10394   3602   4227  -3555  -9082
;       1990   -458  -5988  -8436   1648
;      -8283  -9191   5689  -5449  -6834
;
; Layout (R = C = 4):
;   WBUF  rows 0..2   X^T of pixels 0..3 (transposed LOAD: pixel p down column p mod 4, from row
;                     (p div 4)*4); rows 4..6 columns 0..1: pixels 4..5 (columns 2..3 stay zero)
;   SPAD  rows 0..4   W^T: row n = W[0..2][n] (a gather: 3 segments of 1 byte, 5 bytes apart)
;   ACC   rows 0..5   C[p][0..3]     rows 8..13   C[p][4] (column 0)          (input-stationary)
;   --- the weight-stationary reference ---
;   SPAD  rows 8..13  X[p][0..2]
;   WBUF  rows 8..10  W[k][0..3]     rows 12..14  W[k][4]
;   ACC   rows 16..21 D[p][0..3]     rows 24..29  D[p][4] (column 0)
; Tokens: load -> compute once (the last LOAD ends last); compute -> store after each half.
; The second COMPUTE_IS waits for stream alignment with the first (or its end): TIMING §6 (d).

.arch "../arch/tiny.json"

.layer gemm_is

.tensor X dtype=int8  shape=[6,3] addr=0x100 role=input data=seed:7
.tensor W dtype=int8  shape=[3,5] addr=0x200 role=const data=seed:8
.tensor C dtype=int32 shape=[6,5] addr=0x300 role=output
.tensor D dtype=int32 shape=[6,5] addr=0x380 role=output

LAYER layer_id=0

CFG_LOAD stride_inner=3                   ; X rows are 3 bytes apart
LOAD mem=wbuf transpose=1 tstride=4 dst=0 dram_addr=X outer=1 inner=6 nseg=1 seglen=3
                                          ; WBUF[(p div 4)*4 + k][p mod 4] := X[p][k]
LOAD mem=spad dst=8 dram_addr=X outer=1 inner=6 nseg=1 seglen=3      ; SPAD 8..13 := X (WS)
CFG_LOAD stride_inner=1 seg_stride=5      ; column n of W: bytes n, n+5, n+10
LOAD mem=spad dst=0 dram_addr=W outer=1 inner=5 nseg=3 seglen=1      ; SPAD 0..4 := W^T
CFG_LOAD stride_inner=5                   ; W rows are 5 bytes apart
LOAD mem=wbuf dst=8 dram_addr=W outer=1 inner=3 nseg=1 seglen=4      ; WBUF 8..10 := W[k][0..3] (WS)
LOAD mem=wbuf dst=12 dram_addr=W+4 outer=1 inner=3 nseg=1 seglen=1 push=compute
                                          ; WBUF 12..14 := W[k][4], 0, 0, 0 (WS)

; input-stationary: pixels 0..3, then 4..5
PRELOAD src=0 rows=3 pop=load             ; bank row k = X[0..3][k]
COMPUTE_IS src=0 acc_addr=0 rows=5 astride=8 cols=4 accum=0
                                          ; ACC[(n div 4)*8 + c][n mod 4] := Y[c][n]
PRELOAD src=4 rows=3                      ; bank row k = X[4..5][k], 0, 0
COMPUTE_IS src=0 acc_addr=4 rows=5 astride=8 cols=2 accum=0 push=store
                                          ; ACC[4 + (n div 4)*8 + c][n mod 4] := Y[4+c][n]
; weight-stationary: channels 0..3, then 4 (waits for the last COMPUTE_IS to leave the array)
PRELOAD src=8 rows=3                      ; bank row k = W[k][0..3]
COMPUTE src=8 acc_addr=16 rows=6 accum=0  ; ACC 16+p := Y[p][0..3]
PRELOAD src=12 rows=3                     ; bank row k = W[k][4], 0, 0, 0
COMPUTE src=8 acc_addr=24 rows=6 accum=0 push=store
                                          ; ACC 24+p := Y[p][4], 0, 0, 0

CFG_STORE stride_inner=20                 ; Y rows are 5 int32 = 20 bytes apart
STORE raw32=1 src=0 dram_addr=C outer=1 inner=6 cols=4 pop=compute   ; C[p][0..3] := ACC p
STORE raw32=1 src=8 dram_addr=C+16 outer=1 inner=6 cols=1            ; C[p][4] := ACC 8+p
STORE raw32=1 src=16 dram_addr=D outer=1 inner=6 cols=4 pop=compute  ; D[p][0..3] := ACC 16+p
STORE raw32=1 src=24 dram_addr=D+16 outer=1 inner=6 cols=1           ; D[p][4] := ACC 24+p
HALT
