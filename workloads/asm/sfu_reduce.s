; sfu_reduce.s -- row reductions (issue 16): max, sum and sum of squares of rows of LEN = 10
; int32 values over S = ceil(10 / 4) = 3 accumulator rows SSTRIDE = 2 apart (the last segment's
; columns 0..1), each result in column 0 of one row (columns 1..3 set to 0). X's first 24 int8
; values go into ACC 0..5 scaled by 2^20 (sums stay in int32, squares saturate), its last 8 into
; ACC 6..7 with identity scaling.
;
;   ACC 8..9   := max   of row r = ACC[r][0..3], ACC[r+2][0..3], ACC[r+4][0..1], r < 2
;   ACC 10..11 := sum   (sat32 of the exact sum)
;   ACC 12..13 := sumsq (sat32 of the exact sum of squares)
;   ACC 14..15 := sumsq of ACC 6..7 (LEN = 4: one segment; SSTRIDE is then unused, 0)
;   ACC 6..7   := sum of ACC[6..7][0..2] in place (LEN = 3)
;   Y = ACC rows 0..15
;
; Expected values: sfu_reduce_expected.npy, by tests/cli/sfu_ref.py
; (independent model of docs/ISA.md 6.8).
; Arch: tiny with an SFU of L = 2 lanes, P = 3 (k = 2), as sfu_map.s.
;
; Cycles, by hand (docs/TIMING.md), f = index:
;   LAYER f=0: copies at 1. CFG_LOAD f=1: s=2. LOAD f=2 (6 beats): s=3, beats 3,4,5,6 then 13,14
;     (F = 4 in flight, L = 10): ready 15. CFG_LOAD f=3: s=15.
;   LOAD f=4 (2 beats): s=16; beat 6 at max(14 + 1, 5 + 10, 16) = 16, beat 7 at max(17, 16) = 17;
;     e = 17 + 10 = 27: token visible 28.
;   SFU_REDUCE f=5 pop=load: s = 28; per row S k = 3*2 = 6, D = 2*6 + 3 = 15: e = 42; then sum
;     43..57, sumsq 58..72; the one-segment ones D = 2*1*2 + 3 = 7: 73..79 and 80..86 (push=store):
;     token visible 87.
;   CFG_STORE f=10: s=11. STORE f=11 pop=sfu: s = 87, 16 rows: e = s + 10*16 + 6 = 253. cycles = 254.
;   SFU unit: busy 1 + 3*15 + 7 + 7 = 60; wait_token 6..27 = 22; idle 254 - 82 = 172.

.arch {"name":"tiny_sfu","clock_mhz":1000,"array":{"rows":4,"cols":4},"spad":{"rows":64},"wbuf":{"rows":32},"acc":{"rows":64},"param":{"rows":8},"dram":{"bytes":1048576,"bus_bytes":4,"latency":10,"max_inflight":4},"queues":{"load":4,"compute":4,"store":4,"sfu":16},"store":{"fifo_rows":2,"post_latency":3},"sfu":{"lanes":2,"latency":3},"tokens":{"max":255}}

.layer reduce

.tensor X dtype=int8  shape=[8,4] addr=0x100 role=input data=[-37,-123,-6,-3, -69,-75,-53,9, 70,80,-109,79, 109,110,107,5, -109,-98,-113,-27, 90,2,68,-76, -18,-70,84,-73, 17,-69,105,94]
.tensor Y dtype=int32 shape=[16,4] addr=0x200 role=output

LAYER layer_id=0
CFG_LOAD stride_inner=4 mult=1048576 shift=0
LOAD mem=acc dst=0 dram_addr=X outer=1 inner=6 nseg=1 seglen=4
CFG_LOAD stride_inner=4 mult=1 shift=0
LOAD mem=acc dst=6 dram_addr=X+24 outer=1 inner=2 nseg=1 seglen=4 push=sfu
SFU_REDUCE pop=load red=max src=0 acc_addr=8 rows=2 len=10 sstride=2
SFU_REDUCE red=sum src=0 acc_addr=10 rows=2 len=10 sstride=2
SFU_REDUCE red=sumsq src=0 acc_addr=12 rows=2 len=10 sstride=2
SFU_REDUCE red=sumsq src=6 acc_addr=14 rows=2 len=4 sstride=0
SFU_REDUCE push=store red=sum src=6 acc_addr=6 rows=2 len=3 sstride=0
CFG_STORE stride_inner=16
STORE raw32=1 pop=sfu src=0 dram_addr=Y outer=1 inner=16 cols=4
HALT
