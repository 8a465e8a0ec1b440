.ARCH default   # comment
  .tensor T   dtype=int8 shape=[ 4 ] addr=64 role=input
	load  seglen=4 nseg=1 inner=2 outer=1 dram_addr=T+4 DST=0x3 mem=WBUF push=STORE,compute
cfg_load shift=0x7 mult=-0x5
Preload rows=1 pop=-
compute rows=3 src=1 acc_addr=0
halt
