.arch default
.tensor a dtype=int8 shape=[3,5] addr=0 role=input data=seed:7
.tensor b dtype=int32 shape=[2,2,2] addr=0x40 role=const data=seed:0x10 scale=0.125
.tensor z dtype=int32 shape=[4] addr=0x80 role=scratch data=zeros
.tensor l dtype=int8 shape=[4] addr=0x90 role=const data=[-128, 127, 0, 1]
.tensor s dtype=int8 shape=[2,3] addr=0x100 role=output strides=[8,2]
.tensor "q uoted\x7f" dtype=int32 shape=[1] addr=0x200 role=output scale=3e-05
HALT
