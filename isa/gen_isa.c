// gen_isa.c: prints what other tools and people need to know about the ISA, from the tables in
// isa/isa_*.def (through isa_ops[], isa_fields[], isa_formats[], isa_enums[]):
//   gen_isa doc HEAD.md   docs/ISA.md: the hand-written HEAD.md verbatim, then the generated
//                         reference (opcode table, bit diagrams and field tables per format,
//                         enumerations, assembly syntax)
//   gen_isa sv            rtl/sa_isa_pkg.sv: the SystemVerilog package sa_isa_pkg
// Output goes to stdout (`make docs` redirects it). Nothing here restates an opcode, a field
// position or a width: every number printed comes from the tables. The prose in HEAD.md is the
// authority on semantics; this file only lays the tables out.
#include "isa.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DIAGRAM_MAX_COLS 100   // a box row wider than this is split into several rows
#define MAX_SEGS 64            // segments (fields and reserved runs) in one 64-bit half

static const char *const kind_names[] = {
    [K_U] = "unsigned", [K_S] = "signed", [K_E] = "enum", [K_UNITS] = "unit set", [K_CNT] = "count",
};

// Timing classes, named as in docs/TIMING.md.
static const char *const timing_names[] = {
    [T_DMA_READ] = "dma read", [T_CONFIG] = "configuration", [T_PRELOAD] = "preload",
    [T_STREAM] = "stream",     [T_OS_STREAM] = "output-stationary stream", [T_IS_STREAM] = "input-stationary stream",
    [T_DMA_WRITE] = "dma write",  [T_SFU_ELEM] = "sfu element", [T_SFU_ROW] = "sfu row",  [T_HALT] = "halt",
};
_Static_assert(sizeof timing_names / sizeof timing_names[0] == T_HALT + 1, "a timing class has no name");
_Static_assert(sizeof kind_names / sizeof kind_names[0] == K_CNT + 1, "a field kind has no name");

// ---------------------------------------------------------------------------------------------
// Small helpers

static void to_lower(char *dst, size_t n, const char *src) {
  size_t i = 0;
  for (; src[i] && i + 1 < n; i++) dst[i] = (char)(src[i] >= 'A' && src[i] <= 'Z' ? src[i] - 'A' + 'a' : src[i]);
  dst[i] = 0;
}

static void to_upper(char *dst, size_t n, const char *src) {
  size_t i = 0;
  for (; src[i] && i + 1 < n; i++) dst[i] = (char)(src[i] >= 'a' && src[i] <= 'z' ? src[i] - 'a' + 'A' : src[i]);
  dst[i] = 0;
}

static int has_field(FormatId fmt, int f) { return (int)((isa_formats[fmt].fields >> f) & 1u); }

// "FMT_LOAD" -> "LOAD"
static const char *format_short(FormatId fmt) {
  const char *n = isa_formats[fmt].name;
  return strncmp(n, "FMT_", 4) ? n : n + 4;
}

// Writes a Markdown table cell: '|' escaped so it cannot end the cell.
static void md_cell(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '|') fputc('\\', out);
    fputc(*s, out);
  }
}

// "msb:lsb", or "b" for a one-bit field.
static void bit_range(char *buf, size_t n, unsigned lsb, unsigned width) {
  if (width == 1)
    snprintf(buf, n, "%u", lsb);
  else
    snprintf(buf, n, "%u:%u", lsb + width - 1, lsb);
}

// The values a field takes, for tables and the syntax lines: "0..65535", "spad|wbuf|acc|param".
// `unit` excludes that unit from a unit set (an instruction never names its own unit).
static void field_values(char *buf, size_t n, FieldId f, Unit unit) {
  const FieldInfo *fi = &isa_fields[f];
  size_t len = 0;
  buf[0] = 0;
  switch (fi->kind) {
    case K_E:
      for (int i = 0; i < isa_num_enums; i++) {
        if (isa_enums[i].set != fi->eset) continue;
        char low[32];
        to_lower(low, sizeof low, isa_enums[i].name);
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? "|" : "", low);
      }
      break;
    case K_UNITS:
      for (int u = 0; u < NUM_UNITS; u++) {
        if ((unsigned)u == unit) continue;
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? "," : "", isa_unit_names[u]);
      }
      break;
    case K_U:
    case K_S:
    case K_CNT:
      snprintf(buf, n, "%lld..%lld", (long long)isa_field_min(f), (long long)isa_field_max(f));
      break;
  }
}

// ---------------------------------------------------------------------------------------------
// Bit diagrams: each 64-bit half of a format's word as a row of boxes, most significant bit on
// the left (after Lua's lopcodes.h), the bit range of each box above it:
//    63           32 31     16   15       14     13    12 11      9 8      6 5     0
//   +---------------+---------+------+----------+--------+---------+--------+-------+
//   | DRAM_ADDR(32) | DST(16) | 0(1) | ACCUM(1) | MEM(2) | PUSH(3) | POP(3) | OP(6) |
//   +---------------+---------+------+----------+--------+---------+--------+-------+

typedef struct {
  unsigned msb, lsb;   // bit range in the 128-bit word
  char label[40];      // "DST(16)", or "0(2)" for reserved bits
  unsigned cols;       // inner width of its box
} Seg;

// The field of fmt that holds bit b, or -1 for a reserved bit.
static int field_at(FormatId fmt, int b) {
  for (int f = 0; f < FLD_COUNT; f++)
    if (has_field(fmt, f) && (unsigned)b >= isa_fields[f].lsb && (unsigned)b < isa_fields[f].lsb + isa_fields[f].width)
      return f;
  return -1;
}

// Splits half h of fmt into fields and reserved runs, most significant first. Returns the count.
static int half_segments(FormatId fmt, unsigned h, Seg *segs) {
  int n = 0, low = (int)(h * 64);
  for (int bit = low + 63; bit >= low; n++) {
    Seg *s = &segs[n];
    int f = field_at(fmt, bit);
    s->msb = (unsigned)bit;
    if (f >= 0) {
      s->lsb = isa_fields[f].lsb;
      snprintf(s->label, sizeof s->label, "%s(%u)", isa_fields[f].name, isa_fields[f].width);
    } else {
      int lo = bit;
      while (lo > low && field_at(fmt, lo - 1) < 0) lo--;
      s->lsb = (unsigned)lo;
      snprintf(s->label, sizeof s->label, "0(%u)", s->msb - s->lsb + 1);
    }
    char msb[8], lsb[8];
    snprintf(msb, sizeof msb, "%u", s->msb);
    snprintf(lsb, sizeof lsb, "%u", s->lsb);
    unsigned nums = s->msb == s->lsb ? (unsigned)strlen(msb) + 2 : (unsigned)(strlen(msb) + strlen(lsb)) + 3;
    unsigned text = (unsigned)strlen(s->label) + 2;
    s->cols = nums > text ? nums : text;
    bit = (int)s->lsb - 1;
  }
  return n;
}

// Appends n copies of c to the line buffer.
static size_t put_chars(char *line, size_t len, char c, unsigned n) {
  while (n--) line[len++] = c;
  return len;
}

static size_t put_str(char *line, size_t len, const char *s) {
  while (*s) line[len++] = *s++;
  return len;
}

// Writes a line without trailing blanks.
static void put_line(FILE *out, char *line, size_t len) {
  while (len && line[len - 1] == ' ') len--;
  line[len] = 0;
  fprintf(out, "%s\n", line);
}

// One box row of segments [a, b): bit numbers, top border, labels, bottom border.
static void draw_row(FILE *out, const Seg *segs, int a, int b) {
  char line[MAX_SEGS * 48];
  size_t len = put_chars(line, 0, ' ', 1);
  for (int i = a; i < b; i++) {   // msb at the left of each box, lsb at its right
    char msb[8], lsb[8];
    snprintf(msb, sizeof msb, "%u", segs[i].msb);
    snprintf(lsb, sizeof lsb, "%u", segs[i].lsb);
    if (segs[i].msb == segs[i].lsb) {
      unsigned pad = segs[i].cols - (unsigned)strlen(msb);
      len = put_chars(line, len, ' ', pad / 2);
      len = put_str(line, len, msb);
      len = put_chars(line, len, ' ', pad - pad / 2 + 1);
    } else {
      len = put_str(line, len, msb);
      len = put_chars(line, len, ' ', segs[i].cols - (unsigned)(strlen(msb) + strlen(lsb)));
      len = put_str(line, len, lsb);
      len = put_chars(line, len, ' ', 1);
    }
  }
  put_line(out, line, len);
  for (int row = 0; row < 3; row++) {
    len = 0;
    for (int i = a; i < b; i++) {
      len = put_chars(line, len, row == 1 ? '|' : '+', 1);
      if (row != 1) {
        len = put_chars(line, len, '-', segs[i].cols);
        continue;
      }
      unsigned pad = segs[i].cols - (unsigned)strlen(segs[i].label);
      len = put_chars(line, len, ' ', pad / 2);
      len = put_str(line, len, segs[i].label);
      len = put_chars(line, len, ' ', pad - pad / 2);
    }
    len = put_chars(line, len, row == 1 ? '|' : '+', 1);
    put_line(out, line, len);
  }
}

// Greedy split of segs[0, n) into box rows no wider than max_cols; returns the row count and
// fills ends[] with each row's end index.
static int split_rows(const Seg *segs, int n, unsigned max_cols, int *ends) {
  int rows = 0, a = 0;
  while (a < n) {
    unsigned width = 1;
    int b = a;
    while (b < n && (b == a || width + segs[b].cols + 1 <= max_cols)) width += segs[b++].cols + 1;
    ends[rows++] = b;
    a = b;
  }
  return rows;
}

// Half h of a format. A half too wide for one row is split into the fewest rows of about
// equal width.
static void draw_half(FILE *out, FormatId fmt, unsigned h) {
  Seg segs[MAX_SEGS];
  int ends[MAX_SEGS];
  int n = half_segments(fmt, h, segs);
  int rows = split_rows(segs, n, DIAGRAM_MAX_COLS, ends);
  if (rows > 1) {
    unsigned target = 1;
    for (int i = 0; i < n; i++) target += segs[i].cols + 1;
    target /= (unsigned)rows;
    while (split_rows(segs, n, target, ends) > rows) target++;
  }
  for (int r = 0, a = 0; r < rows; a = ends[r++]) draw_row(out, segs, a, ends[r]);
}

// ---------------------------------------------------------------------------------------------
// docs/ISA.md

static void doc_opcodes(FILE *out) {
  fprintf(out, "### Opcodes\n\n");
  fprintf(out, "The opcode is field `OP`, bits %u:%u. Every opcode not listed is illegal; the loader "
               "rejects it.\n\n",
          isa_fields[FLD_OP].lsb + isa_fields[FLD_OP].width - 1, isa_fields[FLD_OP].lsb);
  fprintf(out, "| Mnemonic | Opcode | Queue | Timing class | Format | Semantics |\n");
  fprintf(out, "|---|---|---|---|---|---|\n");
  for (int op = 0; op < ISA_NUM_OPCODES; op++) {
    const OpInfo *oi = &isa_ops[op];
    if (!oi->name) continue;
    const char *queue = "";
    switch (oi->unit) {
      case UNIT_LOAD:
      case UNIT_COMPUTE:
      case UNIT_STORE:
      case UNIT_SFU: queue = isa_unit_names[oi->unit]; break;
      case UNIT_ALL: queue = "all four"; break;
      case UNIT_FETCH: queue = "none (fetch)"; break;
    }
    char anchor[32];
    to_lower(anchor, sizeof anchor, format_short(oi->fmt));
    fprintf(out, "| `%s` | 0x%02x | %s | %s | [%s](#format-%s) | `", oi->name, op, queue, timing_names[oi->timing],
            isa_formats[oi->fmt].name, anchor);
    md_cell(out, oi->doc);
    fprintf(out, "` |\n");
  }
  fprintf(out, "\n");
}

static void doc_format(FILE *out, FormatId fmt) {
  char anchor[32];
  to_lower(anchor, sizeof anchor, format_short(fmt));
  fprintf(out, "<a id=\"format-%s\"></a>\n\n#### %s\n\nUsed by:", anchor, isa_formats[fmt].name);
  for (int op = 0; op < ISA_NUM_OPCODES; op++)
    if (isa_ops[op].name && isa_ops[op].fmt == fmt) fprintf(out, " `%s`", isa_ops[op].name);
  fprintf(out, ".\n\n```\n");
  for (int h = 1; h >= 0; h--) {
    fprintf(out, "bits %d..%d%s\n", h * 64 + 63, h * 64, h ? " (second 64-bit half, bytes 8..15)" : " (first 64-bit half, bytes 0..7)");
    draw_half(out, fmt, (unsigned)h);
    if (h) fprintf(out, "\n");
  }
  fprintf(out, "```\n\n");
  fprintf(out, "| Field | Bits | Width | Kind | Values | Meaning |\n|---|---|---|---|---|---|\n");
  for (unsigned bit = 0; bit < 128; bit++) {
    for (int f = 0; f < FLD_COUNT; f++) {
      const FieldInfo *fi = &isa_fields[f];
      if (!has_field(fmt, f) || fi->lsb != bit) continue;
      char range[16], vals[128];
      bit_range(range, sizeof range, fi->lsb, fi->width);
      if (fi->kind == K_UNITS) {
        size_t len = 0;
        for (int u = 0; u < NUM_UNITS; u++)
          len += (size_t)snprintf(vals + len, sizeof vals - len, "%sbit %d: %s", u ? ", " : "", u, isa_unit_names[u]);
        snprintf(vals + len, sizeof vals - len, " (never the own unit)");
      } else {
        field_values(vals, sizeof vals, (FieldId)f, UNIT_ALL);
      }
      const char *kind = fi->kind == K_E ? isa_enum_set_names[fi->eset] : kind_names[fi->kind];
      fprintf(out, "| `%s` | %s | %u | %s%s | ", fi->name, range, fi->width, kind, fi->kind == K_E ? " (enum)" : "");
      if (fi->kind == K_E) fputc('`', out);
      md_cell(out, vals);
      if (fi->kind == K_E) fputc('`', out);
      fprintf(out, " | ");
      md_cell(out, fi->doc);
      fprintf(out, " |\n");
    }
  }
  fprintf(out, "\nAll other bits are reserved and must be 0.\n\n");
}

static void doc_enums(FILE *out) {
  fprintf(out, "### Enumerations\n\n");
  fprintf(out, "| Set | Symbol | Value | Field(s) | Meaning |\n|---|---|---|---|---|\n");
  for (int i = 0; i < isa_num_enums; i++) {
    const EnumInfo *e = &isa_enums[i];
    char low[32];
    to_lower(low, sizeof low, e->name);
    fprintf(out, "| %s | `%s` | %u |", isa_enum_set_names[e->set], low, e->value);
    for (int f = 0; f < FLD_COUNT; f++)
      if (isa_fields[f].kind == K_E && isa_fields[f].eset == e->set) fprintf(out, " `%s`", isa_fields[f].name);
    fprintf(out, " | ");
    md_cell(out, e->doc);
    fprintf(out, " |\n");
  }
  fprintf(out, "\n");
}

static void doc_syntax(FILE *out) {
  fprintf(out, "### Assembly syntax\n\n");
  fprintf(out, "Each instruction is its mnemonic followed by `field=value` operands, one per field of its "
               "format (shown in the order of `isa/isa_fields.def`). Mnemonics, field names and symbols are "
               "case-insensitive. Below, `a..b` is an integer range, `x|y` the symbols of an "
               "enumeration, and `{a,b}` the units a unit set may name: `-` for none, or unit names "
               "joined by `|`, never the instruction's own unit. The assembler's own rules (operand "
               "order, omitted operands, tensor names as addresses, directives) are in docs/ASM.md.\n\n```\n");
  for (int op = 0; op < ISA_NUM_OPCODES; op++) {
    const OpInfo *oi = &isa_ops[op];
    if (!oi->name) continue;
    fputs(oi->name, out);
    for (int f = 0; f < FLD_COUNT; f++) {
      if (f == FLD_OP || !has_field(oi->fmt, f)) continue;
      char name[32], vals[128];
      to_lower(name, sizeof name, isa_fields[f].name);
      field_values(vals, sizeof vals, (FieldId)f, oi->unit);
      fprintf(out, isa_fields[f].kind == K_UNITS ? " %s={%s}" : " %s=%s", name, vals);
    }
    fputc('\n', out);
  }
  fprintf(out, "```\n");
}

static int doc_print(const char *head_path) {
  FILE *in = fopen(head_path, "rb");
  if (!in) {
    fprintf(stderr, "gen_isa: %s: error: cannot open: %s\n", head_path, strerror(errno));
    return 1;
  }
  char buf[4096];
  size_t n, total = 0;
  int last = '\n';
  while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
    fwrite(buf, 1, n, stdout);
    last = buf[n - 1];
    total += n;
  }
  int bad = ferror(in);
  fclose(in);
  if (bad) {
    fprintf(stderr, "gen_isa: %s: error: read failed\n", head_path);
    return 1;
  }
  if (total && last != '\n') fputc('\n', stdout);

  FILE *out = stdout;
  fprintf(out, "\n---\n\n## Reference (generated)\n\n");
  fprintf(out, "*Everything below is generated from `isa/isa_*.def` by `gen_isa` (`make docs`); do not edit it "
               "here. Change the tables, or the prose in `docs/ISA.head.md`.*\n\n");
  doc_opcodes(out);
  fprintf(out, "### Formats\n\n");
  fprintf(out, "Each format's 128-bit word, drawn as its two 64-bit halves, most significant bit on the left. "
               "A box is a field, `NAME(width)`; `0(n)` marks n reserved bits, which must be 0. A field has "
               "one position whatever the format (fields with different names may share bits across "
               "formats). Bit b of the word is bit b%%64 of the little-endian 64-bit half b/64.\n\n");
  for (int fmt = 0; fmt < FMT_COUNT; fmt++) doc_format(out, (FormatId)fmt);
  doc_enums(out);
  doc_syntax(out);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// rtl/sa_isa_pkg.sv

// Width of an enumeration: that of the widest field using it.
static unsigned eset_width(EnumSet set) {
  unsigned w = 0;
  for (int f = 0; f < FLD_COUNT; f++)
    if (isa_fields[f].kind == K_E && isa_fields[f].eset == set && isa_fields[f].width > w) w = isa_fields[f].width;
  return w;
}

// Whether the fetch unit hands opcode op to unit u's queue (u < NUM_UNITS), or, for u ==
// UNIT_FETCH, consumes it itself: isa_ops.def's unit column.
static int routed_to(int op, Unit u) {
  switch (isa_ops[op].unit) {
    case UNIT_LOAD:
    case UNIT_COMPUTE:
    case UNIT_STORE:
    case UNIT_SFU: return isa_ops[op].unit == u;
    case UNIT_ALL: return u != UNIT_FETCH;   // a copy into each of the four queues
    case UNIT_FETCH: return u == UNIT_FETCH;
  }
  return 0;
}

// The opcodes routed to u as a NUM_OPCODES-bit SystemVerilog literal (bit op), then a comment
// naming them.
static void sv_route_set(FILE *out, const char *name, Unit u) {
  uint64_t set = 0;
  _Static_assert(ISA_NUM_OPCODES == 64, "an opcode set is one 64-bit word");
  for (int op = 0; op < ISA_NUM_OPCODES; op++)
    if (isa_ops[op].name && routed_to(op, u)) set |= 1ull << op;
  fprintf(out, "  localparam logic [NUM_OPCODES-1:0] %s = %d'h%016llx;  //", name, ISA_NUM_OPCODES, (unsigned long long)set);
  for (int op = 0; op < ISA_NUM_OPCODES; op++)
    if (set >> op & 1) fprintf(out, " %s", isa_ops[op].name);
  fprintf(out, "\n");
}

// The 128-bit mask of the bits a format uses, as a SystemVerilog literal.
static void sv_format_mask(FILE *out, FormatId fmt) {
  uint64_t half[2] = {0, 0};
  for (int f = 0; f < FLD_COUNT; f++) {
    if (!has_field(fmt, f)) continue;
    const FieldInfo *fi = &isa_fields[f];
    uint64_t m = fi->width >= 64 ? ~0ull : (1ull << fi->width) - 1;
    half[fi->lsb / 64] |= m << (fi->lsb % 64);
  }
  fprintf(out, "128'h%016llx_%016llx", (unsigned long long)half[1], (unsigned long long)half[0]);
}

static int sv_print(void) {
  FILE *out = stdout;
  unsigned op_w = isa_fields[FLD_OP].width;
  fprintf(out, "// sa_isa_pkg.sv: generated from isa/isa_*.def by gen_isa; do not edit.\n");
  fprintf(out, "// Regenerate with `make docs`. The instruction set is described in docs/ISA.md.\n\n");
  fprintf(out, "package sa_isa_pkg;\n\n");
  fprintf(out, "  // One instruction: %d bytes, two little-endian 64-bit halves.\n", ISA_WORD_BYTES);
  fprintf(out, "  localparam int unsigned INSN_W = %d;\n\n", ISA_WORD_BYTES * 8);

  fprintf(out, "  // Opcodes (field OP). Any other value is illegal.\n");
  fprintf(out, "  typedef enum logic [%u:0] {\n", op_w - 1);
  int first = 1;
  for (int op = 0; op < ISA_NUM_OPCODES; op++) {
    if (!isa_ops[op].name) continue;
    fprintf(out, "%s    OP_%s = %u'h%02x", first ? "" : ",\n", isa_ops[op].name, op_w, op);
    first = 0;
  }
  fprintf(out, "\n  } opcode_e;\n\n");

  fprintf(out, "  // Execution units: bit u of a decoded unit set names unit u (units_of).\n");
  fprintf(out, "  localparam int unsigned NUM_UNITS = %d;\n", NUM_UNITS);
  unsigned unit_w = 1;
  while ((1u << unit_w) < NUM_UNITS) unit_w++;
  fprintf(out, "  typedef enum logic [%u:0] {\n", unit_w - 1);
  for (int u = 0; u < NUM_UNITS; u++) {
    char up[32];
    to_upper(up, sizeof up, isa_unit_names[u]);
    fprintf(out, "    UNIT_%s = %u'd%d%s\n", up, unit_w, u, u + 1 < NUM_UNITS ? "," : "");
  }
  fprintf(out, "  } unit_e;\n\n");
  fprintf(out, "  // A POP or PUSH field of an instruction of unit u as the set of units it names: bit i names\n"
               "  // unit i, except bit u (which could only name u itself) names the SFU (isa_units_decode).\n");
  fprintf(out, "  function automatic logic [NUM_UNITS-1:0] units_of(unit_e u, logic [%u:0] raw);\n", ISA_W_POP - 1);
  fprintf(out, "    units_of = {1'b0, raw};\n"
               "    if (u != UNIT_SFU && raw[u]) begin\n"
               "      units_of[u] = 1'b0;\n"
               "      units_of[UNIT_SFU] = 1'b1;\n"
               "    end\n"
               "  endfunction\n\n");

  fprintf(out, "  // Routing (the unit column of isa/isa_ops.def): bit op of UNIT_<NAME>_OPS is set when the\n"
               "  // fetch unit hands opcode op to that unit's queue (UNIT_ALL opcodes: to each queue); FETCH_OPS\n"
               "  // are the opcodes fetch consumes itself. Illegal opcodes are in none (the loader rejects them).\n"
               "  // Each unit checks at elaboration that it decodes exactly the opcodes routed to it.\n");
  fprintf(out, "  localparam int unsigned NUM_OPCODES = %d;\n", ISA_NUM_OPCODES);
  for (int u = 0; u < NUM_UNITS; u++) {
    char up[32], name[64];
    to_upper(up, sizeof up, isa_unit_names[u]);
    snprintf(name, sizeof name, "UNIT_%s_OPS", up);
    sv_route_set(out, name, (Unit)u);
  }
  sv_route_set(out, "FETCH_OPS", UNIT_FETCH);
  // Functions assign their name rather than `return`: yosys 0.23 parses only that form.
  fprintf(out, "  // The queues opcode op enters: bit u for unit u.\n");
  fprintf(out, "  function automatic logic [NUM_UNITS-1:0] op_queues(opcode_e op);\n    op_queues = {");
  for (int u = NUM_UNITS - 1; u >= 0; u--) {
    char up[32];
    to_upper(up, sizeof up, isa_unit_names[u]);
    fprintf(out, "UNIT_%s_OPS[op]%s", up, u ? ", " : "};\n");
  }
  fprintf(out, "  endfunction\n");
  fprintf(out, "  // The one-opcode set {op}, to write a unit's decoded set.\n");
  fprintf(out, "  function automatic logic [NUM_OPCODES-1:0] op_bit(opcode_e op);\n"
               "    op_bit = NUM_OPCODES'(1) << op;\n"
               "  endfunction\n\n");

  fprintf(out, "  // Instruction fields: <NAME>_LSB is the first bit in the 128-bit word, <NAME>_W the width.\n");
  for (int f = 0; f < FLD_COUNT; f++) {
    const FieldInfo *fi = &isa_fields[f];
    fprintf(out, "  localparam int unsigned %s_LSB = %u;  // %s\n", fi->name, fi->lsb, fi->doc);
    fprintf(out, "  localparam int unsigned %s_W = %u;\n", fi->name, fi->width);
  }
  fprintf(out, "\n");

  fprintf(out, "  // Bits each format uses (OP included); every other bit must be 0.\n");
  for (int fmt = 0; fmt < FMT_COUNT; fmt++) {
    fprintf(out, "  localparam logic [INSN_W-1:0] %s_MASK = ", isa_formats[fmt].name);
    sv_format_mask(out, (FormatId)fmt);
    fprintf(out, ";\n");
  }
  fprintf(out, "\n");

  for (int set = 1; set < ESET_COUNT; set++) {
    unsigned w = eset_width((EnumSet)set);
    char up[32];
    to_upper(up, sizeof up, isa_enum_set_names[set]);
    fprintf(out, "  // Values of the %s field.\n  typedef enum logic [%u:0] {\n", isa_enum_set_names[set], w - 1);
    first = 1;
    for (int i = 0; i < isa_num_enums; i++) {
      const EnumInfo *e = &isa_enums[i];
      if (e->set != (EnumSet)set) continue;
      fprintf(out, "%s    %s_%s = %u'd%u", first ? "" : ",\n", up, e->name, w, e->value);
      first = 0;
    }
    fprintf(out, "\n  } %s_e;\n\n", isa_enum_set_names[set]);
  }
  fprintf(out, "endpackage\n");
  return 0;
}

// ---------------------------------------------------------------------------------------------

static void usage(FILE *f) {
  fprintf(f, "usage: gen_isa doc HEAD.md   print docs/ISA.md (HEAD.md, then the generated reference)\n"
             "       gen_isa sv            print rtl/sa_isa_pkg.sv\n");
}

int main(int argc, char **argv) {
  int rc;
  if (argc == 3 && !strcmp(argv[1], "doc")) {
    rc = doc_print(argv[2]);
  } else if (argc == 2 && !strcmp(argv[1], "sv")) {
    rc = sv_print();
  } else if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    usage(stdout);
    return 0;
  } else {
    usage(stderr);
    return 2;
  }
  if (fflush(stdout) || ferror(stdout)) {
    fprintf(stderr, "gen_isa: error: writing the output failed\n");
    return 1;
  }
  return rc;
}
