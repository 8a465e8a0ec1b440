// pe_trace.c: the text --pe-trace (format in pe_trace.h): one block of fixed-width grids per
// active cycle, so a 16x16 array stays readable (one line per PE row, each grid sized to its
// widest value). The stationary grid is printed only when it changes.
#include "pe_trace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct PeTrace {
  ArrayObserver obs;      // first: the observer the engine calls
  FILE *f;
  int8_t *last_w;         // the stationary grid printed last (R x C), NULL before the first
  uint8_t *last_bank;
  SnapMode last_mode;
};

enum { CELL = 24 };       // the longest cell: "-2147483648(4294967295)"
typedef char Cell[CELL];

static const char *mode_name(SnapMode m) {
  switch (m) {
  case SNAP_WS: return "weight-stationary";
  case SNAP_IS: return "input-stationary";
  case SNAP_OS: return "output-stationary";
  }
  return "?";
}

// One grid: the heading (name, c0 c1 ...) and a line per row, cells right-aligned.
static void print_grid(FILE *f, const char *name, const Cell *cells, uint32_t R, uint32_t C) {
  size_t w = 1;
  char head[16];
  snprintf(head, sizeof head, "c%u", C - 1);
  w = strlen(head);
  for (uint32_t i = 0; i < R * C; i++)
    if (strlen(cells[i]) > w) w = strlen(cells[i]);
  fprintf(f, "  %-7s", name);
  for (uint32_t c = 0; c < C; c++) {
    snprintf(head, sizeof head, "c%u", c);
    fprintf(f, " %*s", (int)w, head);
  }
  fputc('\n', f);
  for (uint32_t r = 0; r < R; r++) {
    snprintf(head, sizeof head, "r%u", r);
    fprintf(f, "  %-7s", head);
    for (uint32_t c = 0; c < C; c++) fprintf(f, " %*s", (int)w, cells[(size_t)r * C + c]);
    fputc('\n', f);
  }
}

// "ACC writes:" and the cycle's writes, continued on further lines past ACC_LINE characters.
enum { ACC_LINE = 120 };
static void acc_writes(FILE *f, const ArraySnap *sn) {
  static const char head[] = "  ACC writes:";
  fputs(head, f);
  size_t len = sizeof head - 1;
  for (uint32_t c = 0; c < sn->cols; c++) {
    const SnapAccWrite *w = &sn->acc[c];
    if (w->row == UINT64_MAX) continue;
    char item[96], col[16] = "";
    if (w->transposed) snprintf(col, sizeof col, "c%u>", c);   // through the rotator: name the column it came from
    int n = snprintf(item, sizeof item, " %s[%llu][%u]%s%d", col, (unsigned long long)w->row, w->bank,
                     w->accum ? "+=" : "=", w->sum);
    if (len + (size_t)n > ACC_LINE && len > sizeof head - 1) {
      fprintf(f, "\n%*s", (int)(sizeof head - 1), "");
      len = sizeof head - 1;
    }
    fputs(item, f);
    len += (size_t)n;
  }
  fputc('\n', f);
}

// WS/IS: the stationary grid when it changed, then the moving operand and the partial sums.
static void print_ws(PeTrace *t, const ArraySnap *sn, Cell *cells, uint32_t busy) {
  uint32_t n = sn->rows * sn->cols;
  int is = sn->mode == SNAP_IS, changed = t->last_mode != sn->mode;
  for (uint32_t i = 0; i < n && !changed; i++)
    changed = t->last_w[i] != sn->pe[i].weight || t->last_bank[i] != sn->pe[i].bank;
  if (changed) {
    for (uint32_t i = 0; i < n; i++) {
      t->last_w[i] = sn->pe[i].weight;
      t->last_bank[i] = sn->pe[i].bank;
    }
    t->last_mode = sn->mode;
    for (uint32_t i = 0; i < n; i++) snprintf(cells[i], CELL, "%d", sn->pe[i].weight);
    print_grid(t->f, is ? "input" : "weight", cells, sn->rows, sn->cols);
  }
  if (!busy) return;   // only the weight chain moved, or the array's last ACC writes
  for (uint32_t i = 0; i < n; i++)
    if (sn->pe[i].state == SNAP_PE_EMPTY) snprintf(cells[i], CELL, ".");
    else snprintf(cells[i], CELL, "%d", sn->pe[i].act);
  print_grid(t->f, is ? "weight" : "act", cells, sn->rows, sn->cols);
  for (uint32_t i = 0; i < n; i++)
    if (sn->pe[i].state == SNAP_PE_EMPTY) snprintf(cells[i], CELL, ".");
    else snprintf(cells[i], CELL, "%d", sn->pe[i].sum);
  print_grid(t->f, "psum", cells, sn->rows, sn->cols);
}

// OS: the operands of the PEs that multiplied, each PE's own sum, the drain registers.
static void print_os(PeTrace *t, const ArraySnap *sn, Cell *cells) {
  uint32_t n = sn->rows * sn->cols;
  for (uint32_t i = 0; i < n; i++)
    if (sn->pe[i].state == SNAP_PE_MAC) snprintf(cells[i], CELL, "%d", sn->pe[i].act);
    else snprintf(cells[i], CELL, ".");
  print_grid(t->f, "a", cells, sn->rows, sn->cols);
  for (uint32_t i = 0; i < n; i++)
    if (sn->pe[i].state == SNAP_PE_MAC) snprintf(cells[i], CELL, "%d", sn->pe[i].b);
    else snprintf(cells[i], CELL, ".");
  print_grid(t->f, "b", cells, sn->rows, sn->cols);
  int drains = 0;
  for (uint32_t i = 0; i < n; i++) {
    const SnapPe *p = &sn->pe[i];
    drains |= p->dr_valid;
    if (p->state == SNAP_PE_EMPTY) snprintf(cells[i], CELL, ".");
    else if (p->drained) snprintf(cells[i], CELL, "d");
    else snprintf(cells[i], CELL, "%d(%u)", p->sum, p->n);
  }
  print_grid(t->f, "sum", cells, sn->rows, sn->cols);
  if (!drains) return;
  for (uint32_t i = 0; i < n; i++)
    if (sn->pe[i].dr_valid) snprintf(cells[i], CELL, "%d", sn->pe[i].dr);
    else snprintf(cells[i], CELL, ".");
  print_grid(t->f, "drain", cells, sn->rows, sn->cols);
  t->last_mode = SNAP_OS;
}

static int trace_cycle(ArrayObserver *o, const ArraySnap *sn) {
  PeTrace *t = (PeTrace *)o;
  uint32_t n = sn->rows * sn->cols, busy = 0;
  if (!t->last_w) {   // the first cycle: the grids' sizes are known now
    t->last_w = malloc(n);
    t->last_bank = malloc(n);
    if (!t->last_w || !t->last_bank) return -1;
    memset(t->last_bank, 0xff, n);   // matches no bank: the first cycle prints the stationary grid
  }
  Cell *cells = malloc(n * sizeof *cells);
  if (!cells) return -1;
  int banks = 0;   // bit b: some PE uses bank b
  for (uint32_t i = 0; i < n; i++) {
    busy += sn->pe[i].state == SNAP_PE_MAC;
    banks |= 1 << (sn->pe[i].bank & 1);
  }
  fprintf(t->f, "cycle %llu: %s", (unsigned long long)sn->cycle, mode_name(sn->mode));
  if (sn->mode != SNAP_OS) fprintf(t->f, banks == 3 ? " (banks 0 and 1)" : " (bank %d)", banks == 2);
  fprintf(t->f, ", %u of %u PEs busy%s\n", busy, n, sn->chain ? ", PRELOAD shifting a row in" : "");
  if (sn->mode == SNAP_OS) print_os(t, sn, cells);
  else print_ws(t, sn, cells, busy);
  if (sn->writes) acc_writes(t->f, sn);
  free(cells);
  return 0;
}

PeTrace *pe_trace_new(FILE *f) {
  PeTrace *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->obs.cycle = trace_cycle;
  t->f = f;
  return t;
}

void pe_trace_free(PeTrace *t) {
  if (!t) return;
  free(t->last_w);
  free(t->last_bank);
  free(t);
}

ArrayObserver *pe_trace_observer(PeTrace *t) { return &t->obs; }
