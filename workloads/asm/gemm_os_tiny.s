; gemm_os_tiny.s -- a GEMM in the array's output-stationary mode (COMPUTE_OS, docs/TIMING.md §6)
; on the tiny arch (4x4 array), with a reduction length that is not a multiple of the array:
;
;   C[4,4] (int32) = A[4,6] (int8) x B[6,4] (int8)         C[m][n] = sum_k A[m][k] * B[k][n]
;
; computed twice: C in one COMPUTE_OS (KLEN = 6 = 4 + 2: two K blocks, the second half full),
; and D (= C) in two, KLEN = 4 overwriting then KLEN = 2 < R accumulating; the second waits for
; the first one's drain (rule (b): s + 2 >= s_prev + 4 + 4).
;
; Inputs: A = data=seed:5, B = data=seed:6 (splitmix64, docs/ASM.md), int8 in [-128, 127].
; Expected result: C == D == gemm_os_tiny_expected.npy, from an independent numpy model:
;   A = splitmix64 bytes (seed 5) as int8, reshaped (4, 6); B likewise (seed 6), (6, 4);
;   np.save("gemm_os_tiny_expected.npy", (A.astype(np.int32) @ B.astype(np.int32)).astype("<i4"))
;        752 -17431   5024 -15435
;     -11490 -10444 -18291 -16838
;      11617  10395   2500  -1095
;        -65 -11552  15079 -13991
;
; Layout (R = C = 4). The A operand of COMPUTE_OS is read in K blocks of R columns, block j's row
; m at SPAD[SRC + j*KSTRIDE + m]; B row k at WBUF[WSRC + k]:
;   SPAD  rows 0..3   A[m][0..3]     (block 0)
;         rows 4..7   A[m][4..5], bytes 2..3 zero (block 1, KSTRIDE = 4)
;   WBUF  rows 0..5   B[k][0..3]
;   ACC   rows 0..3   C[m][0..3]     rows 4..7   D[m][0..3]
; Tokens: load -> compute once (the last LOAD ends last, so its push covers all three);
; compute -> store after C and after D.

.arch "../arch/tiny.json"

.layer gemm_os

.tensor A dtype=int8  shape=[4,6] addr=0x100 role=input data=seed:5
.tensor B dtype=int8  shape=[6,4] addr=0x200 role=const data=seed:6
.tensor C dtype=int32 shape=[4,4] addr=0x300 role=output
.tensor D dtype=int32 shape=[4,4] addr=0x340 role=output

LAYER layer_id=0

CFG_LOAD stride_inner=6                   ; A rows are 6 bytes apart
LOAD mem=spad dst=0 dram_addr=A outer=1 inner=4 nseg=1 seglen=4     ; SPAD 0..3 := A[m][0..3]
LOAD mem=spad dst=4 dram_addr=A+4 outer=1 inner=4 nseg=1 seglen=2   ; SPAD 4..7 := A[m][4..5], 0, 0
CFG_LOAD stride_inner=4                   ; B rows are 4 bytes apart
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=6 nseg=1 seglen=4 push=compute   ; WBUF 0..5 := B

COMPUTE_OS src=0 kstride=4 wsrc=0 klen=6 acc_addr=0 rows=4 accum=0 pop=load push=store
                                          ; ACC 0..3 := A x B (k = 0..5)
COMPUTE_OS src=0 kstride=4 wsrc=0 klen=4 acc_addr=4 rows=4 accum=0
                                          ; ACC 4..7 := A[:, 0..3] x B[0..3]
COMPUTE_OS src=4 kstride=4 wsrc=4 klen=2 acc_addr=4 rows=4 accum=1 push=store
                                          ; ACC 4..7 += A[:, 4..5] x B[4..5]

CFG_STORE stride_inner=16                 ; C rows are 4 int32 = 16 bytes apart
STORE raw32=1 src=0 dram_addr=C outer=1 inner=4 cols=4 pop=compute  ; C[m] := ACC m
STORE raw32=1 src=4 dram_addr=D outer=1 inner=4 cols=4 pop=compute  ; D[m] := ACC 4+m
HALT
