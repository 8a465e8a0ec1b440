; sfu_softmax.s -- softmax of rows longer than the array (issue 16): two rows of LEN = 6 int8
; logits, each spread over S = ceil(6 / 4) = 2 accumulator rows SSTRIDE = 2 apart (a tile of 2
; pixels whose 6 channels span two blocks of C = 4), loaded into ACC with identity scaling.
;
;   ACC[i] := X[i], i < 4: row r of the softmax is ACC[r][0..3] then ACC[r+2][0..1]
;   SFU_SOFTMAX into ACC 4..7 (SM_MULT=128, SM_SHIFT=0: logits at scale 1/16; SM_J=0: out at 1/128)
;   SFU_SOFTMAX in place on ACC 0..3 (SM_MULT=300, SM_SHIFT=2: scale 75/2048; SM_J=1: out at 1/256)
;   Y = ACC rows 0..7. Columns 2..3 of ACC rows 2..3 and 6..7 are not part of a row: left as they
;   are (the loaded logits, and zeros).
;
; Expected values: sfu_softmax_expected.npy, by tests/cli/sfu_ref.py
; (independent model of docs/SFU.md 2.6 and docs/ISA.md 6.8).
; Arch: tiny with an SFU of L = 2 lanes, P = 3 (k = ceil(4 / 2) = 2), as sfu_map.s.
;
; Cycles, by hand (docs/TIMING.md), f = index:
;   LAYER f=0: copies at 1. CFG_LOAD f=1: s=2. LOAD f=2 (4 beats): s=3, beats 3..6, e = 6 + 10 = 16:
;     token visible 17.
;   SFU_SOFTMAX f=3 pop=load: s = 17. Per row 3 S k + 17 = 3*2*2 + 17 = 29 (max pass, exp-and-sum
;     pass, 17 reciprocal steps, normalising pass); D = ROWS*29 + P = 2*29 + 3 = 61: e = 77.
;   SFU_SOFTMAX f=4 push=store: s = 78, e = 138: token visible 139.
;   CFG_STORE f=5: s=6. STORE f=6 pop=sfu: s = 139; 8 rows of 4 beats, FIFO 2, F = 4: row j's beats
;     at s+3+10j .. s+6+10j, last s + 76, e = s + 86 = 225. cycles = 226.
;   SFU unit: busy 1 + 61 + 61 = 123; wait_token 4..16 = 13; idle 226 - 136 = 90.

.arch {"name":"tiny_sfu","clock_mhz":1000,"array":{"rows":4,"cols":4},"spad":{"rows":64},"wbuf":{"rows":32},"acc":{"rows":64},"param":{"rows":8},"dram":{"bytes":1048576,"bus_bytes":4,"latency":10,"max_inflight":4},"queues":{"load":4,"compute":4,"store":4,"sfu":16},"store":{"fifo_rows":2,"post_latency":3},"sfu":{"lanes":2,"latency":3},"tokens":{"max":255}}

.layer softmax

.tensor X dtype=int8  shape=[4,4] addr=0x100 role=input data=[40,-49,-16,3, -6,6,22,-38, 12,-23,14,-55, -24,-50,46,41]
.tensor Y dtype=int32 shape=[8,4] addr=0x200 role=output

LAYER layer_id=0
CFG_LOAD stride_inner=4 mult=1 shift=0
LOAD mem=acc dst=0 dram_addr=X outer=1 inner=4 nseg=1 seglen=4 push=sfu
SFU_SOFTMAX pop=load src=0 acc_addr=4 rows=2 len=6 sstride=2 sm_mult=128 sm_shift=0 sm_j=0
SFU_SOFTMAX push=store src=0 acc_addr=0 rows=2 len=6 sstride=2 sm_mult=300 sm_shift=2 sm_j=1
CFG_STORE stride_inner=16
STORE raw32=1 pop=sfu src=0 dram_addr=Y outer=1 inner=8 cols=4
HALT
