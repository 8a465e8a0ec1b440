; preloading behind compute: OVERLAP on COMPUTE and COMPUTE_IS (docs/ISA.md)
.arch tiny
PRELOAD src=0 rows=4
COMPUTE src=0 acc_addr=0 rows=8 overlap=1
PRELOAD src=4 rows=4
COMPUTE_IS src=8 acc_addr=8 rows=5 astride=4 cols=3 overlap=1
PRELOAD src=8 rows=2
COMPUTE src=16 acc_addr=16 rows=1 overlap=0 accum=1
HALT
