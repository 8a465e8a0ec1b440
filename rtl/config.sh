#!/bin/sh
# config.sh KEY: the Verilator -G options of an RTL model configuration. KEY is what
# `sasim-rtl --config-key ARCH.json` prints (harness/dispatch.cpp config_key), e.g.
# R4_C4_SP64_WB32_AC64_PA8_B4_F4_QL4_QC4_QS4_QF4_D2_S3_T255_L4_P6_G4096_GB4_GL2_DL10.
set -eu
for f in $(echo "$1" | tr '_' ' '); do
  v=${f#"${f%%[0-9]*}"}; n=${f%"$v"}
  case $n in
    R) p=ArrayRows ;; C) p=ArrayCols ;; SP) p=SpadRows ;; WB) p=WbufRows ;; AC) p=AccRows ;;
    PA) p=ParamRows ;; B) p=BusBytes ;; F) p=MaxInflight ;; QL) p=LoadQueue ;; QC) p=ComputeQueue ;;
    QS) p=StoreQueue ;; QF) p=SfuQueue ;; D) p=FifoRows ;; S) p=PostLatency ;; T) p=TokenMax ;;
    L) p=SfuLanes ;; P) p=SfuLatency ;; G) p=GbufBytes ;; GB) p=GbufBusBytes ;; GL) p=GbufLatency ;; DL) p=DramLatency ;;
    *) echo "config.sh: error: bad field '$f' in config '$1'" >&2; exit 1 ;;
  esac
  printf -- '-G%s=%s ' "$p" "$v"
done
echo
