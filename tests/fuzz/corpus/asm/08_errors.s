FOO x=1
COMPUTE rows=0
LOAD push=load mem=dram
.tensor A dtype=int8 shape=[2,2] addr=0 role=input data=[1,2,3]
.arch default
