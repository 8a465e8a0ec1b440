; sfu_map.s -- every SFU_MAP function on one accumulator row each (issue 16): int8 values loaded
; into ACC with identity scaling (CFG_LOAD mult=1 shift=0), SFU_MAP, STORE raw32 of the results.
;
;   ACC[i] := X[i] (int8 as int32), i < 8
;   CFG_SFU mult=2^30 shift=23: v = round(x * 2^30 / 2^23) = 128 x, the Q4.11 value of x at scale 1/16
;   row 0 gelu, 1 sigmoid, 2 silu, 3 hsigmoid, 4 hswish, 5..6 exp (in place; exp takes x > 0 as 0)
;   CFG_SFU mult=-2^30 shift=20: v = sat16(-1024 x), row 8 := identity(row 7) (saturates for |x| > 32)
;   Y = ACC rows 0..8 (row 7 still the loaded int8 values)
;
; Expected values: sfu_map_expected.npy, written by tests/cli/sfu_ref.py (docs/SFU.md section 2
; re-implemented in Python integers, independently of isa/sfu_math.c); tests/cli/sfu_asm.sh runs
; the program on both engines with --expect.
;
; Arch: the tiny arch (4x4, B = 4, L = 10, F = 4, store FIFO 2, post-processor 3) with an SFU of
; L = 2 lanes and P = 3 stages: a row of C = 4 values takes k = ceil(4 / 2) = 2 cycles.
;
; Cycles, by hand (docs/TIMING.md): one fetch per cycle, f = index (no queue fills).
;   LAYER f=0: every copy starts at 1.    CFG_LOAD f=1: s=2.
;   LOAD f=2 (8 aligned rows of 4 B = 8 beats, F = 4 in flight, L = 10): s=3, beats at 3,4,5,6,
;     then 13,14,15,16 (each waits I(b-4) + 10); ready = 17, e = 16 + 10 = 26: token visible 27.
;   CFG_SFU f=3: s=4, e=4.
;   SFU_MAP gelu f=4 pop=load: s = 27; D = ROWS*k + P = 1*2 + 3 = 5: e = 31, ready = 32.
;   sigmoid 32..36, silu 37..41, hsigmoid 42..46, hswish 47..51 (each D = 5: the SFU starts an
;   instruction in the cycle after the previous one ended);
;   exp rows=2: D = 2*2 + 3 = 7: s = 52, e = 58. CFG_SFU f=10: s = 59, e = 59.
;   identity f=11 push=store: s = 60, D = 5, e = 64: token visible at 65.
;   CFG_STORE f=12: s=13.  STORE f=13 pop=sfu: s = 65. 9 rows of 16 B (RAW32), 4 beats each,
;     FIFO 2, F = 4, L = 10: row j's beats at s+3+10j .. s+6+10j (each row waits for the 4 beats
;     of the row before to be answered), last beat s + 3 + 80 + 3 = 151, e = 151 + 10 = 161.
;   cycles = 1 + 161 = 162.
;   SFU unit: busy 1 (LAYER) + 1 + 5*5 + 7 + 1 + 5 = 40; wait_token 5..26 = 22; idle 162 - 62 = 100.

.arch {"name":"tiny_sfu","clock_mhz":1000,"array":{"rows":4,"cols":4},"spad":{"rows":64},"wbuf":{"rows":32},"acc":{"rows":64},"param":{"rows":8},"dram":{"bytes":1048576,"bus_bytes":4,"latency":10,"max_inflight":4},"queues":{"load":4,"compute":4,"store":4,"sfu":16},"store":{"fifo_rows":2,"post_latency":3},"sfu":{"lanes":2,"latency":3},"tokens":{"max":255}}

.layer sfu_map

.tensor X dtype=int8  shape=[8,4] addr=0x100 role=input data=[57,112,118,17, 85,-12,100,-126, 81,4,-7,-15, -123,23,26,43, -56,30,-117,-16, 1,-118,-50,-114, 109,105,23,-14, 30,57,4,87]
.tensor Y dtype=int32 shape=[9,4] addr=0x200 role=output

LAYER layer_id=0
CFG_LOAD stride_inner=4 mult=1 shift=0
LOAD mem=acc dst=0 dram_addr=X outer=1 inner=8 nseg=1 seglen=4 push=sfu     ; ACC 0..7 := X
CFG_SFU mult=1073741824 shift=23                                             ; x * 128: Q4.11 at scale 1/16
SFU_MAP pop=load fn=gelu src=0 acc_addr=0 rows=1
SFU_MAP fn=sigmoid src=1 acc_addr=1 rows=1
SFU_MAP fn=silu src=2 acc_addr=2 rows=1
SFU_MAP fn=hsigmoid src=3 acc_addr=3 rows=1
SFU_MAP fn=hswish src=4 acc_addr=4 rows=1
SFU_MAP fn=exp src=5 acc_addr=5 rows=2
CFG_SFU mult=-1073741824 shift=20                                            ; -x * 1024
SFU_MAP push=store fn=identity src=7 acc_addr=8 rows=1
CFG_STORE stride_inner=16
STORE raw32=1 pop=sfu src=0 dram_addr=Y outer=1 inner=9 cols=4
HALT
