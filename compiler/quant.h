// quant.h: the integer requantization parameters of every layer (quant.c).
#ifndef SACC_QUANT_H
#define SACC_QUANT_H

#include "graph.h"

// The machine's (mult, shift) for a real factor f > 0: mult in [2^30, 2^31), shift 0..63,
// mult / 2^shift = f within a relative error of 2^-31. Returns -1 when f is not finite, not
// positive, or outside [2^-33, 2^31) (no such pair exists).
int quant_factor(double f, Requant *out);
// The real factor a Requant stands for.
double quant_value(Requant r);
// Quantizes the float weights of every conv2d/fc that has them (Layer.wf) into Layer.w with
// per-channel scales max|w_c| / 127 (Layer.wscale); wf stays for the float reference.
int quant_weights(Graph *g, Diag *d);
// Fills rq, out_rq, bias_q, mach_act and act_lo/hi of every layer (after shape_infer).
int quant_graph(Graph *g, Diag *d);

// Exponent of the common int32 domain of an add: s_acc = max(s_in) / 2^QUANT_ADD_BITS.
#define QUANT_ADD_BITS 20

#endif
