// compile.c: the back end's driver (compile.h). Runs the passes in order, dumps the one asked
// for, and fills the Program: constants (every op's weights tiled N tile by N tile, each row
// padded to array.cols bytes, or input-stationary transposed, one row of K bytes per output
// channel; parameter rows bias/multiplier/shift as int32), the network inputs
// with default data (the same seeded bytes `sacc ref` uses), the tensor map and the layer names.
#include "compile.h"

#include <stdlib.h>
#include <string.h>

#include "shape.h"

void compile_options_default(CompileOptions *o) {
  memset(o, 0, sizeof *o);
  o->double_buffer = 1;
  o->preload_overlap = 1;
  o->dataflow = DF_WS;
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
    uint64_t wb = memplan_weight_bytes(op, mp->arch, mp->dataflow), pb = memplan_param_bytes(op, mp->arch);
    if (wb) {   // the Program takes the buffer over (prog_add_data_owned): tens of MB not copied
      uint8_t *wbuf = calloc((size_t)wb + 1, 1);
      if (!wbuf) return -1;
      if (mp->dataflow == DF_IS) {   // W^T: channel n's K bytes, a K tile of it contiguous
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
    TensorInfo ti = tensor_info(t);
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

Program *compile_graph(const Graph *g, const Arch *a, const CompileOptions *o, CompileStats *st, Diag *d) {
  MachProg mp;
  Program *p = NULL;
  memset(st, 0, sizeof *st);
  FILE *f = o->dump_to ? o->dump_to : stdout;
  if (lower_graph(g, a, o->dataflow, &mp, d)) goto fail;
  mp.no_preload_overlap = !o->preload_overlap;
  if (wants(o, "layout") || wants(o, "fuse")) lower_dump_layout(&mp, f);
  if (wants(o, "lower") || wants(o, "fuse")) lower_dump_ops(&mp, f);
  if (tile_plan_all(&mp, o->double_buffer, d)) goto fail;
  if (wants(o, "tiling")) tile_dump(&mp, o->double_buffer, f);
  if (memplan_run(&mp, &st->mem, d)) goto fail;
  if (wants(o, "memplan")) memplan_dump(&mp, &st->mem, f);
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
  st->layer_names = calloc((size_t)mp.n_layers + 1, sizeof *st->layer_names);
  st->layer_est_cycles = calloc((size_t)mp.n_layers + 1, sizeof *st->layer_est_cycles);
  if (!st->layer_macs || !st->layer_names || !st->layer_est_cycles) goto oom;
  st->n_layer_macs = mp.n_layers;
  memcpy(st->layer_names, mp.layer_names, (size_t)mp.n_layers * sizeof *st->layer_names);
  for (int i = 0; i < mp.n_ops; i++) {
    st->macs += mp.ops[i].macs, st->est_cycles += mp.ops[i].plan.est_cycles;
    st->layer_macs[mp.ops[i].layer] += mp.ops[i].macs;
    st->layer_est_cycles[mp.ops[i].layer] += mp.ops[i].plan.est_cycles;
  }
  if (wants(o, "schedule")) {
    fprintf(f, "# schedule: %u instructions; load %llu, compute %llu, store %llu\n", p->n_insns,
            (unsigned long long)st->emit.insns[0], (unsigned long long)st->emit.insns[1],
            (unsigned long long)st->emit.insns[2]);
    static const char *un[3] = {"load", "compute", "store"};
    for (int u = 0; u < 3; u++)
      for (int v = 0; v < 3; v++)
        if (u != v) fprintf(f, "tokens %s -> %s: %llu\n", un[u], un[v], (unsigned long long)st->emit.tokens[u][v]);
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
  fprintf(f, "compiled: %d layers, %d machine ops, %llu MACs, estimated %.0f cycles\n", st->n_layers, st->n_ops,
          (unsigned long long)st->macs, st->est_cycles);
  fprintf(f, "instructions: load %llu, compute %llu, store %llu\n", (unsigned long long)st->emit.insns[0],
          (unsigned long long)st->emit.insns[1], (unsigned long long)st->emit.insns[2]);
  fprintf(f, "peak memory:\n");
  fprintf(f, "  DRAM    %12llu B  (constants %llu, inputs %llu, activations %llu at peak, %llu without reuse)\n",
          (unsigned long long)m->dram_top, (unsigned long long)m->const_bytes, (unsigned long long)m->input_bytes,
          (unsigned long long)m->act_peak_bytes, (unsigned long long)m->act_total_bytes);
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
          "{\"layers\": %d, \"ops\": %d, \"macs\": %llu, \"est_cycles\": %.0f, \"insns\": [%llu, %llu, %llu], "
          "\"dram\": {\"top\": %llu, \"constants\": %llu, \"inputs\": %llu, \"activations_peak\": %llu, "
          "\"activations_no_reuse\": %llu}, \"onchip_peak_rows\": {\"spad\": %u, \"wbuf\": %u, \"acc\": %u, "
          "\"param\": %u}, \"layers\": [",
          st->n_layers, st->n_ops, (unsigned long long)st->macs, st->est_cycles,
          (unsigned long long)st->emit.insns[0], (unsigned long long)st->emit.insns[1],
          (unsigned long long)st->emit.insns[2], (unsigned long long)m->dram_top, (unsigned long long)m->const_bytes,
          (unsigned long long)m->input_bytes, (unsigned long long)m->act_peak_bytes,
          (unsigned long long)m->act_total_bytes, m->onchip_peak[0], m->onchip_peak[1], m->onchip_peak[2],
          m->onchip_peak[3]);
  for (int i = 0; i < st->n_layer_macs; i++)
    fprintf(f, "%s{\"name\": \"%s\", \"macs\": %llu, \"est_cycles\": %.0f}", i ? ", " : "", st->layer_names[i],
            (unsigned long long)st->layer_macs[i], st->layer_est_cycles[i]);
  fprintf(f, "]}\n");
}

void compile_stats_free(CompileStats *st) {
  free(st->layer_macs);
  free(st->layer_names);
  free(st->layer_est_cycles);
  st->layer_macs = NULL, st->layer_names = NULL, st->layer_est_cycles = NULL;
}
