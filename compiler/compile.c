// compile.c: the back end's driver (compile.h). Runs the passes in order, dumps the one asked
// for, and fills the Program: constants (every op's weights tiled N tile by N tile, each row
// padded to array.cols bytes, or input-stationary transposed, one row of K bytes per output
// channel; parameter rows bias/multiplier/shift as int32), the network inputs
// with default data (the same seeded bytes `sacc ref` uses), the tensor map and the layer names.
#include "compile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shape.h"

void compile_options_default(CompileOptions *o) {
  memset(o, 0, sizeof *o);
  o->double_buffer = 1;
  o->preload_overlap = 1;
  o->fuse_layers = 1;
  o->shared_taps = 1;
  o->dataflow = DF_WS;   // what --layer-dataflow's others and a failed auto fall back to
  o->dataflow_auto = 1;  // --dataflow auto: never slower than ws on the shipped nets (bench/auto)
  o->input_seed = 1;
}

static int wants(const CompileOptions *o, const char *pass) {
  return o->dump && (!strcmp(o->dump, pass) || !strcmp(o->dump, "all"));
}

static void put32(uint8_t *p, int32_t v) {
  for (int k = 0; k < 4; k++) p[k] = (uint8_t)((uint32_t)v >> (8 * k));
}

static int add_constants(const MachProg *mp, Program *p) {
  uint32_t C = mp->arch->cols;
  for (int i = 0; i < mp->n_ops; i++) {
    const MachOp *op = &mp->ops[i];
    int64_t nN = (op->N + C - 1) / C;
    uint64_t wb = memplan_weight_bytes(op, mp->arch, op->df), pb = memplan_param_bytes(op, mp->arch);
    if (wb) {   // the Program takes the buffer over (prog_add_data_owned): tens of MB not copied
      uint8_t *wbuf = calloc((size_t)wb + 1, 1);
      if (!wbuf) return -1;
      if (op->df == DF_IS) {   // W^T: channel n's K bytes, a K tile of it contiguous
        for (int64_t k = 0; k < op->K; k++)
          for (int64_t n = 0; n < op->N; n++) wbuf[n * op->K + k] = (uint8_t)op->wmat[k * op->N + n];
      } else {
        for (int64_t j = 0; j < nN; j++)
          for (int64_t k = 0; k < op->K; k++)
            for (int64_t c = 0; c < C && j * C + c < op->N; c++)
              wbuf[(j * op->K + k) * C + c] = (uint8_t)op->wmat[k * op->N + j * C + c];
      }
      if (prog_add_data_owned(p, op->w_addr, wbuf, wb)) return -1;
    }
    uint8_t *buf = calloc((size_t)pb + 1, 1);
    if (!buf) return -1;
    for (int64_t j = 0; j < nN; j++)
      for (int64_t c = 0; c < C && j * C + c < op->N; c++) {
        int64_t n = j * C + c;
        put32(buf + ((j * 3 + 0) * C + c) * 4, op->bias[n]);
        put32(buf + ((j * 3 + 1) * C + c) * 4, op->mult[n]);
        put32(buf + ((j * 3 + 2) * C + c) * 4, op->shift[n]);
      }
    if (prog_add_data_owned(p, op->p_addr, buf, pb)) return -1;
  }
  return 0;
}

static TensorInfo tensor_info(const DTensor *t) {
  TensorInfo ti;
  memset(&ti, 0, sizeof ti);
  snprintf(ti.name, sizeof ti.name, "%s", t->name);
  ti.dtype = DT_INT8;
  ti.role = t->role;
  ti.addr = t->addr;
  ti.scale = t->scale;
  if (t->rank == 4) {
    ti.ndim = 4;
    ti.dims[0] = (uint32_t)t->n, ti.dims[1] = (uint32_t)t->h, ti.dims[2] = (uint32_t)t->w, ti.dims[3] = (uint32_t)t->c;
    if (t->alias >= 0) {   // flatten/reshape: its owner's bytes, which stay dense, in its own shape
      ti.strides[0] = (uint64_t)(t->h * t->w * t->c), ti.strides[1] = (uint64_t)(t->w * t->c);
    } else {               // its own layout, halo and all
      ti.strides[0] = (uint64_t)dt_img_stride(t), ti.strides[1] = (uint64_t)dt_row_stride(t);
    }
    ti.strides[2] = (uint64_t)t->c, ti.strides[3] = 1;
  } else {
    ti.ndim = 2;
    ti.dims[0] = (uint32_t)t->n, ti.dims[1] = (uint32_t)t->c;
    ti.strides[0] = (uint64_t)(t->c), ti.strides[1] = 1;   // rank-2 tensors are dense
  }
  return ti;
}

// The tensor map, and the network inputs' default data (their whole padded images: zero halo).
static int add_tensors(const MachProg *mp, const Graph *g, const CompileOptions *o, Program *p) {
  for (int i = 0; i < mp->n_tensors; i++) {
    const DTensor *t = &mp->tensors[i];
    if (mp->tensors[dt_owner(mp, i)].gbuf) continue;   // on chip (fusion): not in DRAM, not in the map
    TensorInfo ti = tensor_info(t);
    if (t->permuted) {   // a transpose folded into matmuls: its owner's bytes, axes permuted
      int64_t st[4];
      lower_mm_strides(mp, i, st);
      for (uint32_t k = 0; k < ti.ndim; k++) ti.strides[k] = (uint64_t)st[ti.ndim == 4 ? k : 3 * k];
    }
    if (prog_add_tensor(p, &ti)) return -1;
    if (t->role != ROLE_INPUT) continue;
    int index = 0;
    while (index < g->n_inputs && g->inputs[index] != t->graph_tensor) index++;
    uint64_t state = o->input_seed + (uint64_t)index, bytes = dt_bytes(t);
    uint8_t *buf = calloc((size_t)bytes + 1, 1);
    if (!buf) return -1;
    for (int64_t n = 0; n < t->n; n++)
      for (int64_t y = 0; y < t->h; y++)
        for (int64_t x = 0; x < t->w; x++)
          for (int64_t c = 0; c < t->c; c++)
            buf[(uint64_t)((int64_t)(t->addr - t->base) + n * dt_img_stride(t) + y * dt_row_stride(t) + x * t->c + c)] =
                (uint8_t)shape_seed_next(&state);
    if (prog_add_data_owned(p, t->base, buf, bytes)) return -1;
  }
  return 0;
}

// The array slots the program occupies, per layer (docs/TIMING.md §10: R x C for every row a
// COMPUTE or COMPUTE_IS streams, and for every reduction step of a COMPUTE_OS), as sasim counts
// them (its `array_slots`; tests/cli/compile.sh checks that the two agree).
static void count_array_slots(const Program *p, CompileStats *st) {
  uint64_t rc = (uint64_t)p->arch.rows * p->arch.cols;
  uint32_t layer = (uint32_t)st->n_layer_macs;   // before any LAYER: the extra entry
  for (uint32_t k = 0; k < p->n_insns; k++) {
    Insn in = prog_insn(p, k);
    uint64_t slots = 0;
    switch (in.op) {
    case OP_LAYER: layer = (uint32_t)in.f[FLD_LAYER_ID] < (uint32_t)st->n_layer_macs ? (uint32_t)in.f[FLD_LAYER_ID] : layer; break;
    case OP_COMPUTE:
    case OP_COMPUTE_IS: slots = (uint64_t)in.f[FLD_ROWS] * rc; break;
    case OP_COMPUTE_OS: slots = (uint64_t)in.f[FLD_KLEN] * rc; break;
    case OP_LOAD:
    case OP_STORE:
    case OP_PRELOAD:
    case OP_CFG_LOAD:
    case OP_CFG_STORE:
    case OP_CFG_POOL:
    case OP_CFG_SFU:
    case OP_SFU_MAP:
    case OP_SFU_EW:
    case OP_SFU_SOFTMAX:
    case OP_SFU_LAYERNORM:
    case OP_SFU_REDUCE:
    case OP_HALT: break;   // no array slots
    }
    st->layer_slots[layer] += slots;
    st->array_slots += slots;
  }
}

// --dataflow auto (the default): each GEMM's dataflow, chosen on the cost model's estimates of
// the plans the compiler would emit, fusion included (the compiler never runs the simulator):
//  1. The network is planned in each uniform dataflow as compile_graph plans it (lowered, tiled,
//     fused by memplan_fuse, tiled again), giving each op's fused estimate in each dataflow (its
//     est_cycles and the hand-over it waits for after the op before) and the whole network's.
//  2. A per-op mix: the dataflows that minimise the sum of the ops' estimates plus R + C cycles
//     (array rows and columns) per change of dataflow between consecutive GEMMs (a dynamic
//     programme over the ops; element-wise ops run alike in every dataflow). A GEMM's OS or IS
//     estimate counts AUTO_OP_BIAS (5%) more in this choice: the model is within 3% per layer, so
//     two estimates closer than that do not say which plan runs faster (with the plain estimates
//     ResNet-18 and -50 on the 256x256 arch took mixes that ran 0.5% slower than WS). The switch cost is
//     what the per-op estimates do not see at a change: within one mode the next GEMM's first
//     PRELOAD or stream starts under the end of the one before; across modes the array's skew
//     fills again.
//  3. The mix is planned whole like the uniform ones, and the cheapest of the four whole-network
//     estimates wins; anything but weight-stationary must beat WS's by AUTO_MARGIN of it, and by
//     at least AUTO_MARGIN_CYCLES. The whole-network estimates of the large networks are within
//     0.5% of the simulator (ResNet-18 on the default arch: 7,313,557 estimated, 7,317,137
//     simulated; a VGG-16 mix 67,842,356 and 67,854,242). Those of networks of a few thousand
//     cycles are not (edge_channels' WS: 3,225 against 2,657), and neither are their differences:
//     the mixes of edge_channels and edge_odd on the default arch, estimated 279 and 324 cycles
//     under WS, run 101 and 332 cycles over it; the smallest gain kept is LeNet-5's IS on the
//     256x256 arch, 577 estimated, 187 run. Measured over every shipped network and arch
//     (bench/auto, docs/DATAFLOWS.md "auto"), auto is then never slower than ws.
// A dataflow that cannot lower or tile the graph takes no part. *op_df (n ops) is malloc'ed; *est
// holds each op's fused estimates (-1: not available); *ch the four whole-network estimates and
// which plan won. -1 when no dataflow can (the caller then compiles in WS to report why) or out
// of memory.
#define AUTO_MARGIN 0.005
#define AUTO_MARGIN_CYCLES 500.0
#define AUTO_OP_BIAS 1.05

// The whole-network estimate of mp's plans, as compile_graph counts it in the stats (each op's
// est_cycles, the hand-overs, the run's fill and drain); op_cost[i] (when not NULL) gets op i's
// share without the fill and drain.
static double network_estimate(const MachProg *mp, double *op_cost) {
  double total = 0;
  for (int i = 0; i < mp->n_ops; i++) {
    double c = mp->ops[i].plan.est_cycles + (i ? tile_handover(mp, i) : 0);
    if (op_cost) op_cost[i] = c;
    total += c;
  }
  if (mp->n_ops) total += mp->ops[0].plan.est_start + mp->ops[mp->n_ops - 1].plan.est_end;
  return total;
}

// The options a lowered program's planning follows.
static void set_plan_options(MachProg *mp, const CompileOptions *o) {
  mp->no_preload_overlap = !o->preload_overlap;
  for (int i = 0; i < mp->n_ops; i++) mp->ops[i].no_shared_taps = !o->shared_taps;
  mp->fuse_layers = o->fuse_layers;
}

// Tiles a lowered program; fusion then chooses the activations kept in the global buffer on the
// plans' traffic, and the ops that touch them are tiled again with their GBUF beats (the buffer's
// beat, latency and no DRAM channel). -1 with a message in d when no plan fits.
static int tile_and_fuse(MachProg *mp, const CompileOptions *o, Diag *d) {
  if (tile_plan_all(mp, o->double_buffer, d)) return -1;
  int fused = memplan_fuse(mp, d);
  return fused < 0 || (fused && tile_plan_all(mp, o->double_buffer, d)) ? -1 : 0;
}

// Plans the graph in dataflow df, or per op (op_df, n ops), as compile_graph does: 0 with *mp
// planned (the caller frees it), -1 (mp freed) when it cannot be planned.
static int plan_whole(const Graph *g, const Arch *a, const CompileOptions *o, Dataflow df, const Dataflow *op_df,
                      int n, MachProg *mp) {
  Diag quiet;
  diag_init(&quiet);
  int rc = lower_graph(g, a, df, op_df, n, mp, &quiet);
  if (!rc) set_plan_options(mp, o);
  if (rc || (op_df && mp->n_ops != n) || tile_and_fuse(mp, o, &quiet)) {
    machprog_free(mp);
    return -1;
  }
  return 0;
}

typedef struct {
  double uniform[4];   // the whole-network estimates: each Dataflow's uniform plan, [3] the mix (-1: none)
  int pick;            // the plan chosen: a Dataflow, or 3 for the mix
  int kept;            // 1: plan holds the chosen plan, planned as compile_graph would plan it again
  MachProg plan;
} AutoChoice;

static int choose_dataflows(const Graph *g, const Arch *a, const CompileOptions *o, Dataflow **op_df,
                            double (**est)[3], int *n, AutoChoice *ch) {
  static const Dataflow all[3] = {DF_WS, DF_OS, DF_IS};
  double *uniform = ch->uniform, *cost = NULL;
  int *is_gemm = NULL, (*from)[3] = NULL;
  *op_df = NULL, *est = NULL, *n = -1;
  ch->uniform[0] = ch->uniform[1] = ch->uniform[2] = ch->uniform[3] = -1, ch->pick = DF_WS;
  MachProg plans[4];   // each plan made, until the choice: the chosen one is kept for the emission
  int planned[4] = {0, 0, 0, 0};
  ch->kept = 0;
  for (int k = 0; k < 3; k++) {
    MachProg mp;
    if (plan_whole(g, a, o, all[k], NULL, 0, &mp)) continue;
    if (*n < 0) {   // the first dataflow that plans sizes the tables
      *n = mp.n_ops;
      is_gemm = calloc((size_t)*n + 1, sizeof *is_gemm);
      *op_df = calloc((size_t)*n + 1, sizeof **op_df);
      *est = calloc((size_t)*n + 1, sizeof **est);
      cost = calloc((size_t)*n + 1, sizeof *cost);
      from = calloc((size_t)*n + 1, sizeof *from);
      if (!is_gemm || !*op_df || !*est || !cost || !from) {
        machprog_free(&mp);
        goto fail;
      }
      for (int i = 0; i < *n; i++) (*est)[i][0] = (*est)[i][1] = (*est)[i][2] = -1, is_gemm[i] = mp.ops[i].kind == MOP_GEMM;
    }
    if (mp.n_ops == *n) {   // the same ops in every dataflow (checked, not assumed)
      uniform[all[k]] = network_estimate(&mp, cost);
      for (int i = 0; i < *n; i++) (*est)[i][all[k]] = cost[i];
      plans[all[k]] = mp, planned[all[k]] = 1;
    } else
      machprog_free(&mp);
  }
  if (*n < 0 || uniform[DF_WS] < 0) goto fail;   // WS plans whatever any other does: it reports why not
  // The mix: best[d] = the cheapest plan of ops 0..i whose last GEMM runs in d.
  double best[3] = {0, 0, 0}, sw = (double)a->rows + a->cols;
  for (int i = 0; i < *n; i++) {
    double next[3];
    for (int d = 0; d < 3; d++) {
      from[i][d] = d, next[d] = -1;
      if (best[d] >= 0 && !is_gemm[i])   // element-wise: as in the uniform plan of d, else of WS
        next[d] = best[d] + ((*est)[i][d] >= 0 ? (*est)[i][d] : (*est)[i][DF_WS]);
      for (int p = 0; p < 3 && is_gemm[i] && (*est)[i][d] >= 0; p++) {
        double c = best[p] + (*est)[i][d] * (d != DF_WS ? AUTO_OP_BIAS : 1.0) + (p != d ? sw : 0);
        if (best[p] >= 0 && (next[d] < 0 || c < next[d])) next[d] = c, from[i][d] = p;
      }
    }
    memcpy(best, next, sizeof best);
  }
  int d = DF_WS;
  for (int k = 0; k < 3; k++)
    if (best[k] >= 0 && best[k] < best[d]) d = k;
  for (int i = *n - 1; i >= 0; i--) {
    (*op_df)[i] = (Dataflow)d;
    d = from[i][d];
  }
  // A mix that runs every GEMM in one dataflow is that uniform plan: its estimate is known.
  int first = -1, same = 1;
  for (int i = 0; i < *n; i++)
    if (is_gemm[i]) {
      if (first < 0) first = i;
      same &= (*op_df)[i] == (*op_df)[first];
    }
  double mixed = -1;
  if (first >= 0 && same && uniform[(*op_df)[first]] >= 0)
    mixed = uniform[3] = uniform[(*op_df)[first]];
  else if (!plan_whole(g, a, o, DF_WS, *op_df, *n, &plans[3]))
    mixed = uniform[3] = network_estimate(&plans[3], NULL), planned[3] = 1;
  // The cheapest whole-network estimate; WS unless another beats it by the margin.
  double bar = uniform[DF_WS] - fmax(AUTO_MARGIN * uniform[DF_WS], AUTO_MARGIN_CYCLES);
  int pick = DF_WS;   // a Dataflow: uniform; 3: the mix
  double pick_est = uniform[DF_WS];
  for (int k = 1; k < 3; k++)
    if (uniform[all[k]] >= 0 && uniform[all[k]] < bar && uniform[all[k]] < pick_est) pick = all[k], pick_est = uniform[all[k]];
  if (mixed >= 0 && mixed < bar && mixed < pick_est) pick = 3, pick_est = mixed;
  if (pick < 3)
    for (int i = 0; i < *n; i++) (*op_df)[i] = (Dataflow)pick;
  ch->pick = pick;
  for (int k = 0; k < 4; k++)
    if (planned[k] && k == pick) ch->plan = plans[k], ch->kept = 1;
    else if (planned[k]) machprog_free(&plans[k]);
  free(is_gemm), free(cost), free(from);
  return 0;
fail:
  for (int k = 0; k < 4; k++)
    if (planned[k]) machprog_free(&plans[k]);
  free(is_gemm), free(cost), free(from), free(*op_df), free(*est);
  *op_df = NULL, *est = NULL, *n = -1;
  return -1;
}

// --layer-dataflow NAME=DF: the GEMMs of layer NAME run in DF. Lowers the graph once to learn
// which ops each layer has (the same in every dataflow), allocates *op_df (filled with
// --dataflow's) when auto did not, and overrides. -1 with a message for a layer that has no GEMM.
static int apply_layer_dataflows(const Graph *g, const Arch *a, const CompileOptions *o, Dataflow **op_df, int *n,
                                 Diag *d) {
  MachProg mp;
  if (lower_graph(g, a, o->dataflow, NULL, 0, &mp, d)) return -1;
  int rc = 0;
  if (!*op_df) {
    *n = mp.n_ops;
    *op_df = calloc((size_t)mp.n_ops + 1, sizeof **op_df);
    if (!*op_df) rc = diag_error(d, "sacc: error: out of memory");
    for (int i = 0; i < *n && !rc; i++) (*op_df)[i] = o->dataflow;
  }
  for (int k = 0; k < o->n_layer_df && !rc; k++) {
    const char *spec = o->layer_df[k], *eq = strrchr(spec, '=');
    size_t len = (size_t)(eq - spec);
    Dataflow df = !strcmp(eq + 1, "os") ? DF_OS : !strcmp(eq + 1, "is") ? DF_IS : DF_WS;
    int hits = 0;
    for (int i = 0; i < mp.n_ops && i < *n; i++) {
      const char *name = mp.layer_names[mp.ops[i].layer];
      if (mp.ops[i].kind == MOP_GEMM && strlen(name) == len && !strncmp(name, spec, len)) (*op_df)[i] = df, hits++;
    }
    if (!hits)
      rc = diag_error(d, "sacc: error: --layer-dataflow %s: no layer named \"%.*s\" runs a GEMM (a conv2d or fc, "
                         "or a layer fused into one: --dump-ir tiling names them)", spec, (int)len, spec);
  }
  machprog_free(&mp);
  return rc;
}

Program *compile_graph(const Graph *g, const Arch *a, const CompileOptions *o, CompileStats *st, Diag *d) {
  MachProg mp;
  Program *p = NULL;
  memset(st, 0, sizeof *st);
  memset(&mp, 0, sizeof mp);
  FILE *f = o->dump_to ? o->dump_to : stdout;
  Dataflow *op_df = NULL;
  double(*df_est)[3] = NULL;
  int n_op_df = 0, chose = 0;
  AutoChoice ch;
  if (o->dataflow_auto)   // none works: WS says why
    chose = !choose_dataflows(g, a, o, &op_df, &df_est, &n_op_df, &ch);
  if (o->n_layer_df && apply_layer_dataflows(g, a, o, &op_df, &n_op_df, d)) {
    free(op_df), free(df_est);
    goto fail;
  }
  // auto's chosen plan was made exactly as below (plan_whole); it is used as it is unless
  // --layer-dataflow overrides it or a dump of the stages before tiling is asked for.
  int reuse = chose && ch.kept && !o->n_layer_df && !wants(o, "layout") && !wants(o, "lower") && !wants(o, "fuse");
  if (chose && ch.kept && !reuse) machprog_free(&ch.plan);
  int lowered = reuse ? (mp = ch.plan, 0) : lower_graph(g, a, op_df ? DF_WS : o->dataflow, op_df, n_op_df, &mp, d);
  if (reuse) mp.dataflow = DF_WS, mp.per_op = 1;   // as lower_graph sets them for a per-op plan
  if (!lowered && df_est)
    for (int i = 0; i < mp.n_ops && i < n_op_df; i++) memcpy(mp.ops[i].df_est, df_est[i], sizeof df_est[i]);
  free(op_df), free(df_est);
  if (lowered) goto fail;
  if (!reuse) {
    set_plan_options(&mp, o);
    if (wants(o, "layout") || wants(o, "fuse")) lower_dump_layout(&mp, f);
    if (wants(o, "lower") || wants(o, "fuse")) lower_dump_ops(&mp, f);
    if (tile_and_fuse(&mp, o, d)) goto fail;
  }
  if (wants(o, "tiling")) {
    if (chose) {   // auto's whole-network estimates, the plan it kept first
      static const char *names[4] = {"ws", "os", "is", "mix"};
      fprintf(f, "# auto: %s (network estimates", names[ch.pick]);
      for (int k = 0; k < 4; k++)
        if (ch.uniform[k] >= 0) fprintf(f, " %s %.0f", names[k], ch.uniform[k]);
        else fprintf(f, " %s -", names[k]);
      fprintf(f, "; not ws unless %.1f%% or %.0f cycles below ws)\n", 100 * AUTO_MARGIN, AUTO_MARGIN_CYCLES);
    }
    tile_dump(&mp, o->double_buffer, f);
  }
  if (memplan_run(&mp, &st->mem, d)) goto fail;
  if (wants(o, "memplan")) {
    memplan_dump(&mp, &st->mem, f);
    memplan_fuse_dump(&mp, f);
  }
  if (!(p = prog_new(a))) {
    diag_error(d, "sacc: error: out of memory");
    goto fail;
  }
  for (int i = 0; i < mp.n_layers; i++)
    if (prog_add_layer(p, mp.layer_names[i])) goto oom;
  if (add_constants(&mp, p) || add_tensors(&mp, g, o, p)) goto oom;
  double guess = 16;   // the instruction count the plans expect: one allocation instead of regrowing
  for (int i = 0; i < mp.n_ops; i++) guess += mp.ops[i].plan.est_insns + 8;
  if (prog_reserve_insns(p, guess * 1.25 < 1e9 ? (uint32_t)(guess * 1.25) : 1000000000u)) goto oom;
  if (emit_program(&mp, p, &st->emit, d)) goto fail;
  st->n_ops = mp.n_ops, st->n_layers = mp.n_layers;
  st->layer_macs = calloc((size_t)mp.n_layers + 1, sizeof *st->layer_macs);
  st->layer_slots = calloc((size_t)mp.n_layers + 1, sizeof *st->layer_slots);
  st->layer_names = calloc((size_t)mp.n_layers + 1, sizeof *st->layer_names);
  st->layer_est_cycles = calloc((size_t)mp.n_layers + 1, sizeof *st->layer_est_cycles);
  st->layer_dataflows = calloc((size_t)mp.n_layers + 1, sizeof *st->layer_dataflows);
  st->layer_fuse_saved = calloc((size_t)mp.n_layers + 1, sizeof *st->layer_fuse_saved);
  if (!st->layer_macs || !st->layer_slots || !st->layer_names || !st->layer_est_cycles || !st->layer_dataflows ||
      !st->layer_fuse_saved)
    goto oom;
  st->n_layer_macs = mp.n_layers;
  memcpy(st->layer_names, mp.layer_names, (size_t)mp.n_layers * sizeof *st->layer_names);
  for (int i = 0; i < mp.n_ops; i++) {
    st->macs += mp.ops[i].macs, st->est_cycles += mp.ops[i].plan.est_cycles;
    st->layer_macs[mp.ops[i].layer] += mp.ops[i].macs;
    st->layer_est_cycles[mp.ops[i].layer] += mp.ops[i].plan.est_cycles;
    if (mp.ops[i].kind == MOP_GEMM) st->layer_dataflows[mp.ops[i].layer] |= 1u << mp.ops[i].df;
    st->layer_fuse_saved[mp.ops[i].layer][0] += mp.ops[i].fuse_rd;
    st->layer_fuse_saved[mp.ops[i].layer][1] += mp.ops[i].fuse_wr;
  }
  for (int i = 1; i < mp.n_ops; i++) {   // an op that waits for the whole output of the one before
    double h = tile_handover(&mp, i);
    st->layer_est_cycles[mp.ops[i].layer] += h, st->est_cycles += h;
  }
  if (mp.n_ops) {   // the run's fill and drain, once: before the first op's array starts, after the last's stores
    const MachOp *first = &mp.ops[0], *last = &mp.ops[mp.n_ops - 1];
    st->layer_est_cycles[first->layer] += first->plan.est_start, st->est_cycles += first->plan.est_start;
    st->layer_est_cycles[last->layer] += last->plan.est_end, st->est_cycles += last->plan.est_end;
  }
  if (prog_set_layer_macs(p, st->layer_macs)) goto oom;   // the simulator's useful MACs (BINARY.md 5.6)
  count_array_slots(p, st);
  if (wants(o, "schedule")) {
    fprintf(f, "# schedule: %u instructions; load %llu, compute %llu, store %llu, sfu %llu\n", p->n_insns,
            (unsigned long long)st->emit.insns[0], (unsigned long long)st->emit.insns[1],
            (unsigned long long)st->emit.insns[2], (unsigned long long)st->emit.insns[3]);
    for (int u = 0; u < NUM_UNITS; u++)
      for (int v = 0; v < NUM_UNITS; v++)
        if (u != v)
          fprintf(f, "tokens %s -> %s: %llu\n", isa_unit_names[u], isa_unit_names[v],
                  (unsigned long long)st->emit.tokens[u][v]);
  }
  if (prog_check(p, "sacc", d)) goto fail;
  machprog_free(&mp);
  return p;
oom:
  diag_error(d, "sacc: error: out of memory");
fail:
  compile_stats_free(st);
  prog_free(p);
  machprog_free(&mp);
  return NULL;
}

void compile_stats_print(const CompileStats *st, const Arch *a, FILE *f) {
  const MemPlan *m = &st->mem;
  fprintf(f, "compiled: %d layers, %d machine ops, estimated %.0f cycles\n", st->n_layers, st->n_ops, st->est_cycles);
  fprintf(f, "MACs: %llu useful (the network's), %llu array slots (what the mapping occupies, padding "
             "included), mapping efficiency %.1f%%\n",
          (unsigned long long)st->macs, (unsigned long long)st->array_slots,
          st->array_slots ? 100.0 * (double)st->macs / (double)st->array_slots : 0.0);
  fprintf(f, "instructions: load %llu, compute %llu, store %llu\n", (unsigned long long)st->emit.insns[0],
          (unsigned long long)st->emit.insns[1], (unsigned long long)st->emit.insns[2]);
  fprintf(f, "peak memory:\n");
  fprintf(f, "  DRAM    %12llu B  (constants %llu, inputs %llu, activations %llu at peak, %llu without reuse)\n",
          (unsigned long long)m->dram_top, (unsigned long long)m->const_bytes, (unsigned long long)m->input_bytes,
          (unsigned long long)m->act_peak_bytes, (unsigned long long)m->act_total_bytes);
  if (m->gbuf_tensors)
    fprintf(f, "  GBUF    %12llu B  (%u activations kept on chip by fusion, of gbuf.bytes %u; DRAM saved %llu B read, "
               "%llu B written)\n",
            (unsigned long long)m->gbuf_top, m->gbuf_tensors, a->gbuf_bytes, (unsigned long long)m->gbuf_saved_rd,
            (unsigned long long)m->gbuf_saved_wr);
  static const char *names[4] = {"SPAD", "WBUF", "ACC", "PARAM"};
  uint32_t rows[4] = {a->spad_rows, a->wbuf_rows, a->acc_rows, a->param_rows};
  uint32_t row_bytes[4] = {a->rows, a->cols, 4 * a->cols, 4 * a->cols};
  for (int k = 0; k < 4; k++)
    fprintf(f, "  %-6s  %12llu B  (%u of %u rows)\n", names[k], (unsigned long long)m->onchip_peak[k] * row_bytes[k],
            m->onchip_peak[k], rows[k]);
}

void compile_stats_json(const CompileStats *st, FILE *f) {
  const MemPlan *m = &st->mem;
  fprintf(f,
          "{\"layers\": %d, \"ops\": %d, \"macs\": %llu, \"useful_macs\": %llu, \"array_slots\": %llu, "
          "\"mapping_efficiency\": %.6f, \"est_cycles\": %.0f, \"insns\": [%llu, %llu, %llu], "
          "\"dram\": {\"top\": %llu, \"constants\": %llu, \"inputs\": %llu, \"activations_peak\": %llu, "
          "\"activations_no_reuse\": %llu}, \"gbuf\": {\"tensors\": %u, \"top\": %llu, \"saved_read_bytes\": %llu, "
          "\"saved_write_bytes\": %llu}, \"onchip_peak_rows\": {\"spad\": %u, \"wbuf\": %u, \"acc\": %u, "
          "\"param\": %u}, \"layers\": [",
          st->n_layers, st->n_ops, (unsigned long long)st->macs, (unsigned long long)st->macs,
          (unsigned long long)st->array_slots, st->array_slots ? (double)st->macs / (double)st->array_slots : 0.0,
          st->est_cycles,
          (unsigned long long)st->emit.insns[0], (unsigned long long)st->emit.insns[1],
          (unsigned long long)st->emit.insns[2], (unsigned long long)m->dram_top, (unsigned long long)m->const_bytes,
          (unsigned long long)m->input_bytes, (unsigned long long)m->act_peak_bytes,
          (unsigned long long)m->act_total_bytes, m->gbuf_tensors, (unsigned long long)m->gbuf_top,
          (unsigned long long)m->gbuf_saved_rd, (unsigned long long)m->gbuf_saved_wr, m->onchip_peak[0], m->onchip_peak[1], m->onchip_peak[2],
          m->onchip_peak[3]);
  for (int i = 0; i < st->n_layer_macs; i++) {
    fprintf(f, "%s{\"name\": \"%s\", \"macs\": %llu, \"useful_macs\": %llu, \"array_slots\": %llu, "
               "\"est_cycles\": %.0f, \"fuse_saved_read_bytes\": %llu, \"fuse_saved_write_bytes\": %llu, \"dataflow\": ",
            i ? ", " : "", st->layer_names[i], (unsigned long long)st->layer_macs[i],
            (unsigned long long)st->layer_macs[i], (unsigned long long)st->layer_slots[i], st->layer_est_cycles[i],
            (unsigned long long)(st->layer_fuse_saved ? st->layer_fuse_saved[i][0] : 0),
            (unsigned long long)(st->layer_fuse_saved ? st->layer_fuse_saved[i][1] : 0));
    // The dataflow of the layer's GEMMs ("ws", or "ws,is" when they differ), null for a layer without one.
    unsigned set = st->layer_dataflows ? st->layer_dataflows[i] : 0;
    if (!set) fprintf(f, "null}");
    else {
      const char *sep = "\"";
      for (Dataflow df = DF_WS; df <= DF_IS; df++)
        if (set & 1u << df) fprintf(f, "%s%s", sep, lower_dataflow_name(df)), sep = ",";
      fprintf(f, "\"}");
    }
  }
  fprintf(f, "]}\n");
}

void compile_stats_free(CompileStats *st) {
  free(st->layer_macs);
  free(st->layer_slots);
  free(st->layer_names);
  free(st->layer_est_cycles);
  free(st->layer_dataflows);
  free(st->layer_fuse_saved);
  st->layer_fuse_saved = NULL;
  st->layer_macs = NULL, st->layer_slots = NULL, st->layer_names = NULL, st->layer_est_cycles = NULL;
  st->layer_dataflows = NULL;
}
