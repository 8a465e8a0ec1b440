; sfu_layernorm.s -- layer norm of rows longer than the array, with its per-channel affine from
; PARAM (issue 16): two rows of LEN = 6 int8 values, each over S = 2 accumulator rows SSTRIDE = 2
; apart, as sfu_softmax.s. PARAM rows PBASE + 3s .. + 2 hold, for segment s, beta, gamma's
; multiplier and its shift per column (a shift word is taken mod 64: 69 is 5).
;
;   ACC[i] := X[i], i < 4;  PARAM[0..5] := P
;   CFG_SFU eps=0,    SFU_LAYERNORM into ACC 4..7
;   CFG_SFU eps=5000, SFU_LAYERNORM in place on ACC 0..3 (EPS added to n^2 var = n S2 - S1^2)
;   y_j = sat8(sat32(round_shift(z_j * gamma, shift mod 64) + beta)), z_j the Q4.11 normalised value
;   Y = ACC rows 0..7 (columns 2..3 of rows 2..3 and 6..7: not part of a row, left as they are)
;
; Expected values: sfu_layernorm_expected.npy, by tests/cli/sfu_ref.py
; (independent model of docs/SFU.md 2.1, 2.7, docs/ISA.md 6.8).
; Arch: tiny with an SFU of L = 2 lanes, P = 3 (k = 2), as sfu_map.s.
;
; Cycles, by hand (docs/TIMING.md), f = index:
;   LAYER f=0: copies at 1. CFG_LOAD f=1: s=2. LOAD acc f=2 (4 beats, the first of the read
;     channel): s=3, beats 3..6, ready 7. CFG_LOAD f=3: s = 7 (the unit is ready at 7).
;   LOAD param f=4 (6 rows of 16 B = 24 beats): s = 8; read-channel beats b = 4..27, at most 4 in
;     flight (L = 10): beat b at 3 + (b mod 4) + 10 (b div 4), last b = 27 at 3 + 3 + 60 = 66;
;     e = 66 + 10 = 76: token visible 77.
;   CFG_SFU f=5: s=6.  SFU_LAYERNORM f=6 pop=load: s = 77. Per row 2 S k + 33 = 2*2*2 + 33 = 41
;     (sums pass, 33 steps of the inverse square root, normalising pass); D = 2*41 + 3 = 85: e = 161.
;   CFG_SFU f=7: s = 162.  SFU_LAYERNORM f=8 push=store: s = 163, e = 247: token visible 248.
;   CFG_STORE f=9: s=10. STORE f=10 pop=sfu: s = 248, 8 rows: e = s + 86 = 334. cycles = 335.
;   SFU unit: busy 1 + 1 + 85 + 1 + 85 = 173; wait_token 7..76 = 70; idle 335 - 243 = 92.

.arch {"name":"tiny_sfu","clock_mhz":1000,"array":{"rows":4,"cols":4},"spad":{"rows":64},"wbuf":{"rows":32},"acc":{"rows":64},"param":{"rows":8},"dram":{"bytes":1048576,"bus_bytes":4,"latency":10,"max_inflight":4},"queues":{"load":4,"compute":4,"store":4,"sfu":16},"store":{"fifo_rows":2,"post_latency":3},"sfu":{"lanes":2,"latency":3},"tokens":{"max":255}}

.layer layernorm

.tensor X dtype=int8  shape=[4,4] addr=0x100 role=input data=[-125,63,-8,122, -49,30,27,34, 107,104,-95,-44, 118,-122,99,123]
.tensor P dtype=int32 shape=[6,4] addr=0x200 role=const data=[1,-2,3,0, 24,32,40,-16, 9,9,10,8, -5,7,0,0, 48,3,0,0, 10,69,0,0]
.tensor Y dtype=int32 shape=[8,4] addr=0x300 role=output

LAYER layer_id=0
CFG_LOAD stride_inner=4 mult=1 shift=0
LOAD mem=acc dst=0 dram_addr=X outer=1 inner=4 nseg=1 seglen=4
CFG_LOAD stride_inner=16
LOAD mem=param dst=0 dram_addr=P outer=1 inner=6 nseg=1 seglen=16 push=sfu
CFG_SFU eps=0
SFU_LAYERNORM pop=load src=0 acc_addr=4 rows=2 len=6 sstride=2 pbase=0
CFG_SFU eps=5000
SFU_LAYERNORM push=store src=0 acc_addr=0 rows=2 len=6 sstride=2 pbase=0
CFG_STORE stride_inner=16
STORE raw32=1 pop=sfu src=0 dram_addr=Y outer=1 inner=8 cols=4
HALT
