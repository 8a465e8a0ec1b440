; overlap_chain.s -- weights preloaded behind compute (docs/TIMING.md §6 and §11's chain) on
; the tiny arch (4x4 array, B = 4, L = 10, F = 4). tests/rtl/overlap.sh checks the output against
; overlap_chain_expected.npy (numpy: C rows 8k..8k+7 = X rows 8k..8k+7 x W rows 4k..4k+3) and
; the start/ready/end cycles against the numbers below, derived by hand from docs/TIMING.md:
;   CFG_LOAD     s = 1
;   LOAD W       s = 2, 16 beats, 4 in flight, L = 10: 2..5, 12..15, 22..25, 32..35
;                                                       ready 36   e = 35 + 10 = 45
;   LOAD X       s = 36, 32 beats: 42..45, 52..55, ..., 112..115 (each slot frees 10 after)
;                                                       ready 116  e = 125  (push=compute)
; TIMING §11's chain, 125 cycles later (PRELOAD 0 pops the load token, visible from 126):
;   PRELOAD 0    s = 126                                ready 127  e = 129   (bank 0)
;   COMPUTE 0    bank complete: s = 130, rows 130..137, OVERLAP: ready 131, e = 130 + 7 + 7 = 144
;   PRELOAD 1    s = 131 under the stream               ready 132  e = 134   (bank 1)
;   COMPUTE 1    stream sequencer free at 138           ready 139  e = 152
;   PRELOAD 2    bank 0: COMPUTE 0's last row in 137, free from 137 + 4 = 141
;                                                       ready 142  e = 144
;   COMPUTE 2    stream free at 146 (bank 0 since 145)  ready 147  e = 160
;   PRELOAD 3    bank 1: COMPUTE 1's last row in 145: s = 149, ready 150, e = 152
;   COMPUTE 3    stream free at 154, no OVERLAP         ready 162  e = 168   (push=store)
; The four streams run back to back (8 cycles a pair; 12 without OVERLAP). The compute queue
; (4 entries) stalls fetch until PRELOAD 0 starts; no start waits for it.

.arch "../../workloads/arch/tiny.json"

.tensor W dtype=int8  shape=[16,4] addr=0x100 role=const data=[110,49,52,80,-67,-40,-77,-117,-15,18,119,-91,123,56,-9,-40,50,-12,-60,121,-73,72,-103,88,-92,14,5,113,99,-124,111,99,-45,-29,-18,-69,-71,8,41,113,111,-44,-70,104,-104,-9,22,119,-21,67,105,72,74,-36,114,22,-9,-65,-110,76,-108,-62,-100,44]
.tensor X dtype=int8  shape=[32,4] addr=0x200 role=input data=[73,-109,-63,-65,73,-37,31,-84,-79,-62,-125,-77,42,-118,40,-41,-111,-9,-104,-22,88,102,-32,-106,70,31,30,-39,17,-122,87,69,111,-20,-116,121,108,70,-87,94,10,16,26,-42,-4,90,-96,-23,-7,95,24,105,112,-38,-114,57,57,80,-93,127,3,-11,-44,-77,48,-62,12,-31,-12,-110,-111,49,-69,-114,104,-9,58,127,74,-25,-115,-75,5,-24,98,-62,4,-77,-47,-62,61,-50,-81,-11,3,-56,-101,35,-15,91,98,-122,-19,-9,-94,29,82,-7,-30,41,-44,-76,65,111,-38,126,49,84,29,21,107,85,28,44,-91,93,119,-1]
.tensor C dtype=int32 shape=[32,4] addr=0x400 role=output

CFG_LOAD stride_inner=4
LOAD mem=wbuf dst=0 dram_addr=W outer=1 inner=16 nseg=1 seglen=4
LOAD mem=spad dst=0 dram_addr=X outer=1 inner=32 nseg=1 seglen=4 push=compute

PRELOAD src=0 rows=4 pop=load
COMPUTE src=0 acc_addr=0 rows=8 overlap=1
PRELOAD src=4 rows=4
COMPUTE src=8 acc_addr=8 rows=8 overlap=1
PRELOAD src=8 rows=4
COMPUTE src=16 acc_addr=16 rows=8 overlap=1
PRELOAD src=12 rows=4
COMPUTE src=24 acc_addr=24 rows=8 push=store

CFG_STORE stride_inner=16
STORE raw32=1 src=0 dram_addr=C outer=1 inner=32 cols=4 pop=compute

HALT
