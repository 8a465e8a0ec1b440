// isa.c: the instruction tables and the encoder/decoder, all expanded from the .def files.
// Semantics and timing of each instruction are in docs/ISA.md and docs/TIMING.md.
#include "isa.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

const OpInfo isa_ops[ISA_NUM_OPCODES] = {
#define X(name, op, fmt, unit, timing, doc) [op] = {#name, fmt, unit, timing, doc},
#include "isa_ops.def"
#undef X
};

const FieldInfo isa_fields[FLD_COUNT] = {
#define F(name, lsb, width, kind, eset, doc) [FLD_##name] = {#name, lsb, width, kind, ESET_##eset, doc},
#include "isa_fields.def"
#undef F
};

#define FB(x) (1ull << FLD_##x)
const FormatInfo isa_formats[FMT_COUNT] = {
#define FMT(name, bits) [name] = {#name, (bits) | FB(OP)},
#include "isa_formats.def"
#undef FMT
};
#undef FB

const EnumInfo isa_enums[] = {
#define E(set, name, value, doc) {ESET_##set, #name, value, doc},
#include "isa_enums.def"
#undef E
};
const int isa_num_enums = (int)(sizeof isa_enums / sizeof isa_enums[0]);

const char *const isa_unit_names[ISA_NUM_UNIT_CLASSES] = {
    [UNIT_LOAD] = "load", [UNIT_COMPUTE] = "compute", [UNIT_STORE] = "store", [UNIT_SFU] = "sfu", [UNIT_ALL] = "all", [UNIT_FETCH] = "fetch",
};
const char *const isa_enum_set_names[ESET_COUNT] = {
    [ESET_NONE] = "none", [ESET_MEM] = "mem", [ESET_ACT] = "act", [ESET_POOL] = "pool", [ESET_FN] = "fn", [ESET_EWOP] = "ewop", [ESET_RED] = "red",
};

// Facts stated twice, tied here so that a change to one side breaks the build.
_Static_assert(NUM_UNITS == UNIT_ALL, "the units precede the routing classes UNIT_ALL and UNIT_FETCH");
_Static_assert(ISA_W_POP == NUM_UNITS - 1 && ISA_W_PUSH == NUM_UNITS - 1,
               "POP and PUSH carry a bit per unit other than the instruction's own (isa_units_decode)");
_Static_assert(UNIT_SFU == NUM_UNITS - 1, "the SFU is the unit a 3-bit unit set names by the own-unit bit");
_Static_assert(ISA_NUM_OPCODES == 1 << ISA_W_OP, "isa_ops[] has one entry per OP value");
_Static_assert(FLD_COUNT <= 64, "FormatInfo.fields is a 64-bit mask of fields");

static uint64_t field_mask(unsigned width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }

// The values a field can hold, by kind and width: [*lo, *hi].
static inline void field_range(const FieldInfo *fi, int64_t *lo, int64_t *hi) {
  switch (fi->kind) {
  case K_S:
    *lo = -(int64_t)(1ull << (fi->width - 1));
    *hi = (int64_t)(1ull << (fi->width - 1)) - 1;
    return;
  case K_CNT:
    *lo = 1;
    *hi = (int64_t)field_mask(fi->width);
    return;
  case K_UNITS:   // decoded: a set of units (isa_units_decode)
    *lo = 0;
    *hi = (1 << NUM_UNITS) - 1;
    return;
  case K_U:
  case K_E:
    *lo = 0;
    *hi = (int64_t)field_mask(fi->width);
    return;
  }
  *lo = *hi = 0;
}

static uint64_t get_bits(const uint8_t w[ISA_WORD_BYTES], unsigned lsb, unsigned width) {
  unsigned half = lsb / 64, off = lsb % 64;
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | w[half * 8 + (unsigned)i];
  return (v >> off) & field_mask(width);
}

static void put_bits(uint8_t w[ISA_WORD_BYTES], unsigned lsb, unsigned width, uint64_t val) {
  unsigned half = lsb / 64, off = lsb % 64;
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | w[half * 8 + (unsigned)i];
  uint64_t m = field_mask(width) << off;
  v = (v & ~m) | ((val << off) & m);
  for (unsigned i = 0; i < 8; i++) w[half * 8 + i] = (uint8_t)(v >> (8 * i));
}

static int64_t sign_extend(const FieldInfo *fi, uint64_t v) {
  if (fi->kind == K_S && fi->width < 64 && (v >> (fi->width - 1)) & 1u) v |= ~field_mask(fi->width);
  return (int64_t)v;
}

unsigned isa_units_decode(Unit u, unsigned raw) {
  raw &= (1u << ISA_W_POP) - 1;
  if (u >= UNIT_SFU) return raw;   // the SFU's bits name units 0..2 (routing classes carry none)
  return (raw & ~(1u << u)) | ((raw >> u) & 1u) << UNIT_SFU;
}

unsigned isa_units_encode(Unit u, unsigned set) {
  if (u >= UNIT_SFU) return set & ((1u << ISA_W_POP) - 1);
  return (set & ((1u << ISA_W_POP) - 1) & ~(1u << u)) | ((set >> UNIT_SFU) & 1u) << u;
}

// A field's value as the word holds it (K_UNITS: 3 bits) and back.
static uint64_t to_raw(const FieldInfo *fi, Opcode op, int64_t v) {
  if (fi->kind == K_UNITS) return isa_units_encode(isa_ops[op].unit, (unsigned)v);
  return (uint64_t)v & field_mask(fi->width);
}

static int64_t from_raw(const FieldInfo *fi, Opcode op, uint64_t raw) {
  if (fi->kind == K_UNITS) return isa_units_decode(isa_ops[op].unit, (unsigned)raw);
  return sign_extend(fi, raw);
}

Insn isa_insn(Opcode op) {
  Insn in;
  memset(&in, 0, sizeof in);
  in.op = op;
  for (int f = 0; f < FLD_COUNT; f++)
    if (isa_has_field(op, (FieldId)f) && isa_fields[f].kind == K_CNT) in.f[f] = 1;
  return in;
}

void isa_encode(const Insn *in, uint8_t out[ISA_WORD_BYTES]) {
  // Both halves are assembled in registers and stored once (the compiler encodes every word).
  uint64_t h[2] = {0, 0};
  for (uint64_t fields = isa_formats[isa_ops[in->op].fmt].fields & ~(1ull << FLD_OP); fields; fields &= fields - 1) {
    const FieldInfo *fi = &isa_fields[__builtin_ctzll(fields)];
    h[fi->lsb / 64] |= to_raw(fi, in->op, in->f[fi - isa_fields]) << (fi->lsb % 64);
  }
  const FieldInfo *op = &isa_fields[FLD_OP];
  h[op->lsb / 64] |= ((uint64_t)in->op & field_mask(op->width)) << (op->lsb % 64);
  for (int i = 0; i < ISA_WORD_BYTES; i++) out[i] = (uint8_t)(h[i / 8] >> (8 * (i % 8)));
}

int isa_decode(const uint8_t word[ISA_WORD_BYTES], Insn *out, const char *where, Diag *d) {
  unsigned op = (unsigned)get_bits(word, isa_fields[FLD_OP].lsb, isa_fields[FLD_OP].width);
  for (int f = 0; f < FLD_COUNT; f++) out->f[f] = 0;
  out->op = (Opcode)op;
  if (!isa_ops[op].name) return diag_error(d, "%s: error: unknown opcode 0x%02x", where, op);
  // The loader decodes every word of a program: halves and masks in registers, fields by set bit.
  uint64_t h[2] = {get_bits(word, 0, 64), get_bits(word, 64, 64)}, used[2] = {0, 0};
  for (uint64_t fields = isa_formats[isa_ops[op].fmt].fields; fields; fields &= fields - 1) {
    int f = __builtin_ctzll(fields);
    const FieldInfo *fi = &isa_fields[f];
    out->f[f] = from_raw(fi, out->op, (h[fi->lsb / 64] >> (fi->lsb % 64)) & field_mask(fi->width));
    used[fi->lsb / 64] |= field_mask(fi->width) << (fi->lsb % 64);
  }
  for (int i = 0; i < ISA_WORD_BYTES; i++) {
    unsigned extra = (unsigned)((h[i / 8] & ~used[i / 8]) >> (8 * (i % 8))) & 0xffu;
    if (extra)
      return diag_error(d, "%s: error: %s has reserved bits set (byte %d: 0x%02x)", where, isa_ops[op].name, i, extra);
  }
  return isa_check_fields(out, where, d);
}

int64_t isa_word_field(const InsnWord *w, FieldId f) {
  return from_raw(&isa_fields[f], isa_word_op(w), isa_word_bits(w, isa_fields[f].lsb, isa_fields[f].width));
}

void isa_word_set(InsnWord *w, FieldId f, int64_t v) {
  put_bits(w->b, isa_fields[f].lsb, isa_fields[f].width, to_raw(&isa_fields[f], isa_word_op(w), v));
}

void isa_unpack(const InsnWord *w, Insn *out) {
  memset(out, 0, sizeof *out);
  out->op = isa_word_op(w);
  // Only the format's fields: a loop over set bits rather than over all FLD_COUNT fields.
  uint64_t h[2] = {get_bits(w->b, 0, 64), get_bits(w->b, 64, 64)};
  for (uint64_t fields = isa_formats[isa_ops[out->op].fmt].fields; fields; fields &= fields - 1) {   // OP too
    const FieldInfo *fi = &isa_fields[__builtin_ctzll(fields)];
    out->f[fi - isa_fields] = from_raw(fi, out->op, (h[fi->lsb / 64] >> (fi->lsb % 64)) & field_mask(fi->width));
  }
}

int isa_fields_fit(const Insn *in) {
  if ((unsigned)in->op >= ISA_NUM_OPCODES || !isa_ops[in->op].name) return 0;
  for (uint64_t fields = isa_formats[isa_ops[in->op].fmt].fields & ~(1ull << FLD_OP); fields; fields &= fields - 1) {
    int f = __builtin_ctzll(fields);
    int64_t lo, hi;
    field_range(&isa_fields[f], &lo, &hi);
    if (in->f[f] < lo || in->f[f] > hi) return 0;
  }
  return 1;
}

int64_t isa_field_min(FieldId f) {
  int64_t lo, hi;
  field_range(&isa_fields[f], &lo, &hi);
  return lo;
}

int64_t isa_field_max(FieldId f) {
  int64_t lo, hi;
  field_range(&isa_fields[f], &lo, &hi);
  return hi;
}

int isa_check_fields(const Insn *in, const char *where, Diag *d) {
  if ((unsigned)in->op >= ISA_NUM_OPCODES || !isa_ops[in->op].name)
    return diag_error(d, "%s: error: unknown opcode 0x%02x", where, (unsigned)in->op);
  const OpInfo *oi = &isa_ops[in->op];
  for (uint64_t fields = isa_formats[oi->fmt].fields; fields; fields &= fields - 1) {
    int f = __builtin_ctzll(fields);
    const FieldInfo *fi = &isa_fields[f];
    int64_t v = in->f[f], lo, hi;
    field_range(fi, &lo, &hi);
    if (v < lo || v > hi)
      return diag_error(d, "%s: error: %s %s=%lld out of range [%lld, %lld]", where, oi->name, fi->name, (long long)v,
                        (long long)lo, (long long)hi);
    if (fi->kind == K_E && !isa_enum_name(fi->eset, (unsigned)v))
      return diag_error(d, "%s: error: %s %s=%lld is not a valid %s", where, oi->name, fi->name, (long long)v,
                        isa_enum_set_names[fi->eset]);
    if (fi->kind == K_UNITS && oi->unit < NUM_UNITS && ((v >> oi->unit) & 1))
      return diag_error(d, "%s: error: %s %s names its own unit (%s)", where, oi->name, fi->name,
                        isa_unit_names[oi->unit]);
  }
  return 0;
}

const char *isa_enum_name(EnumSet set, unsigned value) {
  for (int i = 0; i < isa_num_enums; i++)
    if (isa_enums[i].set == set && isa_enums[i].value == value) return isa_enums[i].name;
  return NULL;
}

int isa_enum_value(EnumSet set, const char *name) {
  for (int i = 0; i < isa_num_enums; i++)
    if (isa_enums[i].set == set && !strcasecmp(isa_enums[i].name, name)) return (int)isa_enums[i].value;
  return -1;
}

int isa_op_by_name(const char *name) {
  for (int i = 0; i < ISA_NUM_OPCODES; i++)
    if (isa_ops[i].name && !strcasecmp(isa_ops[i].name, name)) return i;
  return -1;
}

int isa_field_by_name(const char *name) {
  for (int i = 0; i < FLD_COUNT; i++)
    if (!strcasecmp(isa_fields[i].name, name)) return i;
  return -1;
}
