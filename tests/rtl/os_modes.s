; os_modes.s -- COMPUTE_OS on the tiny arch (4x4 array): a full tile, a short one that waits
; for the drain rule, a partial K block that accumulates, and the mode switch both ways
; (docs/TIMING.md §6). tests/rtl/os.sh checks the outputs against os_modes_expected.npy and
; the compute unit's start/ready/end cycles against the numbers below, derived by hand from §6
; (R = C = 4; ready = s + max(K, (J-1)R + M), e = s + K + 2R + C - 3).
;
;   A [4,8], B [8,4] (int8); ACC rows (int32):
;     0..3   A x B (K = 8)  +  A[:, 0:5] x B[0:5]           (OS #1, then OS #3 with accum)
;     4..6   A[0:3, 0:2] x B[0:2]                           (OS #2, ROWS = 3 < R, K = 2 < R)
;     7      0 (never written: OS #2 spends the cycle of its PE row 3 writing nothing)
;     8..11  A[:, 0:4] x B[0:4]                             (PRELOAD + COMPUTE, weight-stationary)
;     12..15 A[:, 4:8] x B[4:8]                             (OS #4, from the second K block)
;
; SPAD holds A as two blocks of rows-of-R: rows 0..3 = A[m][0..3], rows 4..7 = A[m][4..7]
; (KSTRIDE = 4); WBUF row k = B[k].
;
; Cycles (the LOAD of A ends in 46, so its token is visible in 47):
;   OS #1    s = 47                      ready = 47 + max(8, 4 + 4) = 55   e = 47 + 8 + 13 = 68 - 4 = 64
;   OS #2    s >= 55, s + 2 >= 47 + 8 + 4 = 59 (rule b): s = 57, ready = 60, e = 57 + 2 + 9 = 68
;   OS #3    s >= 60, s + 5 >= 57 + 2 + 4 = 63: s = 60, ready = 60 + max(5, 8) = 68, e = 74
;   PRELOAD  s >= e(OS #3) + 1 = 75 (rule c): s = 75, ready = 76, e = 78
;   COMPUTE  s >= e(PRELOAD) + 1 = 79: s = 79, ready = 83, e = 79 + 3 + 7 = 89
;   OS #4    s >= e(COMPUTE) + 1 = 90 (rule a): s = 90, ready = 94, e = 90 + 4 + 9 = 103
;   STORE    pops OS #4's token: s = 104

.arch "../../workloads/arch/tiny.json"
.layer os_modes

.tensor A dtype=int8  shape=[4,8]  addr=0x100 role=input data=[43,78,-123,78,-8,3,33,-55, 122,-115,-57,-30,18,-24,-95,-117, -128,-116,-90,127,-80,39,64,-68, -56,-17,-61,121,-83,101,76,88]
.tensor B dtype=int8  shape=[8,4]  addr=0x200 role=const data=[-99,-28,32,-2, 42,45,41,-113, 117,14,103,-59, -36,97,-81,-112, -33,45,-97,94, -41,-70,11,101, 98,95,-50,-124, 71,53,69,-128]
.tensor C dtype=int32 shape=[16,4] addr=0x300 role=output

LAYER layer_id=0

; -- load unit: B, then A; A's LOAD ends after B's (one read channel, in order), so its token
;    alone says both have landed --
CFG_LOAD stride_inner=4
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=8 nseg=1 seglen=4
CFG_LOAD stride_outer=4 stride_inner=8
LOAD mem=spad dst=0 dram_addr=A outer=2 inner=4 nseg=1 seglen=4 push=compute

; -- compute unit --
COMPUTE_OS src=0 acc_addr=0 rows=4 wsrc=0 klen=8 kstride=4 pop=load
COMPUTE_OS src=0 acc_addr=4 rows=3 wsrc=0 klen=2 kstride=4
COMPUTE_OS src=0 acc_addr=0 rows=4 wsrc=0 klen=5 kstride=4 accum=1
PRELOAD src=0 rows=4
COMPUTE src=0 acc_addr=8 rows=4
COMPUTE_OS src=4 acc_addr=12 rows=4 wsrc=4 klen=4 kstride=4 push=store

; -- store unit --
CFG_STORE stride_inner=16
STORE raw32=1 src=0 dram_addr=C outer=1 inner=16 cols=4 pop=compute

HALT
