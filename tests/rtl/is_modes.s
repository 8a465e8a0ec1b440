; is_modes.s -- COMPUTE_IS and the transposed LOAD on the tiny arch (4x4 array, B = 4, L = 10).
; tests/rtl/is.sh checks the output against is_modes_expected.npy and the compute unit's
; start/ready/end cycles against the numbers below, derived by hand from docs/TIMING.md §6
; (R = C = 4; COMPUTE and COMPUTE_IS: ready = s + ROWS, e = s + ROWS - 1 + R + C - 1).
;
; Part 1 (instructions 0..9) is the worked example of TIMING §11 and the mode rules, on zeros
; (nothing is loaded yet; the results land in ACC rows >= 32, which are not stored):
;   PRELOAD #1   s = 1 (fetched in 0)                       ready 2    e = 1 + 4 - 1 = 4
;   IS #1        bank complete: s = 5, ROWS 6               ready 11   e = 5 + 5 + 7 = 17
;   IS #2        s >= 11, (s - 5) mod 4 = 0 (rule d): 13    ready 17   e = 13 + 3 + 7 = 23
;   COMPUTE      s >= 17, e(IS #2) + 1 = 24                 ready 28   e = 24 + 3 + 7 = 34
;   IS #3        s >= 28, e(COMPUTE) + 1 = 35 (rule c)      ready 40   e = 35 + 4 + 7 = 46
;   COMPUTE_OS   s >= 40, e(IS #3) + 1 = 47 (rule a)        ready 51   e = 47 + 4 + 8 + 4 - 3 = 60
;   PRELOAD #2   s >= 51, e(OS) + 1 = 61 (rule c)           ready 62   e = 64      (bank 1)
;   IS #4        bank complete: s = 65, ROWS 1              ready 66   e = 65 + 0 + 7 = 72
;   PRELOAD #3   s = 66 (chain free: 61 + 4 = 65)           ready 67   e = 69      (bank 0)
;   PRELOAD #4   s >= 67, chain 66 + 4 = 70; bank 1 was read by IS #4 (rule b counts
;                COMPUTE_IS streams): its last row in 65, free from 65 + C = 69: s = 70
;                                                           ready 71   e = 73
;
; Part 2 is C[6,6] = X[6,6] x W[6,6] input-stationary, K = 6 in two chunks (4 + 2), pixels in
; two blocks (0..3, then 4..5 in columns 0 and 1 only):
;   - a transposed LOAD puts pixel p's six bytes down WBUF column p mod 4, from row
;     16 + (p div 4)*8 (TSTRIDE = 8): WBUF rows 16..21 hold pixels 0..3, rows 24..29 pixels 4, 5
;     (columns 2, 3 of those rows are never written: zero). Its beats are unaligned (6-byte rows
;     on a 4-byte bus), so a beat lands in two, three or four WBUF rows of one column.
;   - SPAD row 16 + j = W[0..3][j], row 24 + j = W[4..5][j] (one output channel per row).
;   - PRELOAD (pixels, K chunk), then COMPUTE_IS over the six channels: channel j of pixel c goes
;     to ACC[ACC_ADDR + (j div 4)*8 + c][j mod 4], so ACC rows 0..5 hold channels 0..3 of pixels
;     0..5 and rows 8..13 channels 4, 5 (columns 0, 1), the second K chunk added (ACCUM = 1).
;   - PRELOAD #5 refills the bank IS #4 read, long after rule (b) released it.
;   - ROWS = 6 is not a multiple of C: each COMPUTE_IS waits for the alignment or the previous
;     one's end.

.arch "../../workloads/arch/tiny.json"

.tensor X  dtype=int8  shape=[6,6]  addr=0x100 role=input data=[113,32,47,101,20,70, 85,-71,-114,-52,-56,95, 105,-127,-1,82,-95,76, -98,-9,81,-51,-41,-57, 56,-63,125,-15,-6,1, 21,13,2,126,78,74]
.tensor WT dtype=int8  shape=[6,6]  addr=0x200 role=const data=[51,88,-15,78,-60,-104, 31,-87,-119,106,-1,-79, -41,91,-92,82,-31,120, 125,28,3,33,-65,49, -9,-99,120,-16,126,97, -73,-117,-9,3,-125,-77]
.tensor C  dtype=int32 shape=[14,4] addr=0x300 role=output

; -- part 1 (compute unit only) --
PRELOAD src=0 rows=3
COMPUTE_IS src=0 acc_addr=32 rows=6 astride=8 cols=3
COMPUTE_IS src=0 acc_addr=32 rows=4 astride=0 cols=4
COMPUTE src=0 acc_addr=44 rows=4
COMPUTE_IS src=0 acc_addr=48 rows=5 astride=4 cols=2
COMPUTE_OS src=0 acc_addr=56 rows=4 wsrc=0 klen=4 kstride=4
PRELOAD src=0 rows=4
COMPUTE_IS src=0 acc_addr=60 rows=1 astride=0 cols=4
PRELOAD src=0 rows=4
PRELOAD src=0 rows=4

; -- part 2: load unit --
CFG_LOAD stride_inner=6
LOAD mem=wbuf transpose=1 tstride=8 dst=16 dram_addr=X outer=1 inner=6 nseg=1 seglen=6
LOAD mem=spad dst=16 dram_addr=WT outer=1 inner=6 nseg=1 seglen=4
LOAD mem=spad dst=24 dram_addr=WT+4 outer=1 inner=6 nseg=1 seglen=2 push=compute

; -- part 2: compute unit --
PRELOAD src=16 rows=4 pop=load
COMPUTE_IS src=16 acc_addr=0 rows=6 astride=8 cols=4
PRELOAD src=20 rows=2
COMPUTE_IS src=24 acc_addr=0 rows=6 astride=8 cols=4 accum=1
PRELOAD src=24 rows=4
COMPUTE_IS src=16 acc_addr=4 rows=6 astride=8 cols=2
PRELOAD src=28 rows=2
COMPUTE_IS src=24 acc_addr=4 rows=6 astride=8 cols=2 accum=1 push=store

; -- part 2: store unit --
CFG_STORE stride_inner=16
STORE raw32=1 src=0 dram_addr=C outer=1 inner=14 cols=4 pop=compute

HALT
