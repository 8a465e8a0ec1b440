; sfu_ew.s -- element-wise add, sub and mul of accumulator rows, with per-channel broadcast
; (squeeze-excitation) and the int32 edges (issue 16): X's first 16 int8 values into ACC 0..3 with
; identity scaling, its last 16 into ACC 4..7 scaled by 2^24 (CFG_LOAD mult=16777216), so that
; sums wrap and products saturate.
;
;   ACC 8..9   := ACC 4..5 + ACC 6..7          wrap32
;   ACC 10..11 := ACC 4..5 - ACC 6..7          wrap32
;   ACC 12..13 := ACC 0..1 * ACC 4..5          sat32 of the 64-bit product
;   ACC 14..15 := ACC 0..1 * ACC 3 (BCAST=1)   one row for every row: a per-channel scale
;   ACC 0      := ACC 0 + ACC 1                in place (a source that is the destination)
;   Y = ACC rows 0..15
;
; Expected values: sfu_ew_expected.npy, by tests/cli/sfu_ref.py
; (independent model of docs/ISA.md 6.8).
; Arch: tiny with an SFU of L = 2 lanes, P = 3 (k = 2), as sfu_map.s.
;
; Cycles, by hand (docs/TIMING.md), f = index:
;   LAYER f=0: copies at 1. CFG_LOAD f=1: s=2. LOAD f=2 (4 beats): s=3, beats 3..6, ready 7.
;   CFG_LOAD f=3: s=7. LOAD f=4 (4 beats): s=8, beats b = 4..7 wait for b - 4 + L: 13..16;
;     e = 16 + 10 = 26: token visible 27.
;   SFU_EW f=5 pop=load: s = 27, D = ROWS*k + P = 2*2 + 3 = 7: e = 33; then 34..40, 41..47,
;     48..54; the in-place add (ROWS=1, D = 5) 55..59, push=store: token visible 60.
;   CFG_STORE f=10: s=11. STORE f=11 pop=sfu: s = 60, 16 rows of 4 beats: row j's beats at
;     s+3+10j .. s+6+10j, e = s + 10*16 + 6 = 226. cycles = 227.
;   SFU unit: busy 1 + 4*7 + 5 = 34; wait_token 6..26 = 21; idle 227 - 55 = 172.

.arch {"name":"tiny_sfu","clock_mhz":1000,"array":{"rows":4,"cols":4},"spad":{"rows":64},"wbuf":{"rows":32},"acc":{"rows":64},"param":{"rows":8},"dram":{"bytes":1048576,"bus_bytes":4,"latency":10,"max_inflight":4},"queues":{"load":4,"compute":4,"store":4,"sfu":16},"store":{"fifo_rows":2,"post_latency":3},"sfu":{"lanes":2,"latency":3},"tokens":{"max":255}}

.layer ew

.tensor X dtype=int8  shape=[8,4] addr=0x100 role=input data=[-121,115,-66,104, -88,127,-117,-55, -10,79,61,-112, -106,76,35,116, -92,-12,35,-77, -81,-66,-4,-124, 73,-105,-70,-104, 73,-50,2,-6]
.tensor Y dtype=int32 shape=[16,4] addr=0x200 role=output

LAYER layer_id=0
CFG_LOAD stride_inner=4 mult=1 shift=0
LOAD mem=acc dst=0 dram_addr=X outer=1 inner=4 nseg=1 seglen=4
CFG_LOAD stride_inner=4 mult=16777216 shift=0
LOAD mem=acc dst=4 dram_addr=X+16 outer=1 inner=4 nseg=1 seglen=4 push=sfu
SFU_EW pop=load ewop=add src=4 src2=6 acc_addr=8 rows=2
SFU_EW ewop=sub src=4 src2=6 acc_addr=10 rows=2
SFU_EW ewop=mul src=0 src2=4 acc_addr=12 rows=2
SFU_EW ewop=mul bcast=1 src=0 src2=3 acc_addr=14 rows=2
SFU_EW push=store ewop=add src=0 src2=1 acc_addr=0 rows=1
CFG_STORE stride_inner=16
STORE raw32=1 pop=sfu src=0 dram_addr=Y outer=1 inner=16 cols=4
HALT
