.layer conv1
.layer "conv 2"
.layer ""
LAYER layer_id=0
LAYER layer_id=2
LAYER layer_id=1
HALT
