// isa_test.c: walks the ISA tables (isa/isa_*.def through isa.h) and checks that they are
// consistent, that encode and decode are inverse for every opcode, and that decode rejects every
// illegal word: unknown opcodes, reserved bits, own-unit tokens, zero counts, bad enum values.
// Masks and positions are recomputed here from isa_fields[] (not taken from the decoder).
#include "../../isa/isa.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../common/check.h"

typedef struct {
  uint64_t half[2];   // bits 0..63 and 64..127
} Mask128;

static uint64_t rng_next(uint64_t *x) {   // xorshift64*, seeded per test: runs are reproducible
  *x ^= *x >> 12;
  *x ^= *x << 25;
  *x ^= *x >> 27;
  return *x * 0x2545F4914F6CDD1Dull;
}

static Mask128 field_mask128(int f) {
  Mask128 m = {{0, 0}};
  const FieldInfo *fi = &isa_fields[f];
  uint64_t bits = fi->width >= 64 ? ~0ull : (1ull << fi->width) - 1;
  m.half[fi->lsb / 64] = bits << (fi->lsb % 64);
  return m;
}

// Bits a format uses, OP included.
static Mask128 format_mask(FormatId fmt) {
  Mask128 m = {{0, 0}};
  for (int f = 0; f < FLD_COUNT; f++) {
    if (!((isa_formats[fmt].fields >> f) & 1u)) continue;
    Mask128 fm = field_mask128(f);
    m.half[0] |= fm.half[0];
    m.half[1] |= fm.half[1];
  }
  return m;
}

static int word_bit(const uint8_t w[ISA_WORD_BYTES], unsigned b) { return (w[b / 8] >> (b % 8)) & 1; }
static void set_word_bit(uint8_t w[ISA_WORD_BYTES], unsigned b) { w[b / 8] |= (uint8_t)(1u << (b % 8)); }

// The first symbol's value of an enumeration.
static int64_t first_enum(EnumSet set) {
  for (int i = 0; i < isa_num_enums; i++)
    if (isa_enums[i].set == set) return isa_enums[i].value;
  return -1;
}

// A legal instruction with every field at its smallest legal value (no tokens).
static Insn minimal_insn(int op) {
  Insn in;
  memset(&in, 0, sizeof in);
  in.op = (Opcode)op;
  for (int f = 0; f < FLD_COUNT; f++)
    if (isa_has_field(in.op, (FieldId)f) && f != FLD_OP)
      in.f[f] = isa_fields[f].kind == K_E ? first_enum(isa_fields[f].eset) : isa_field_min((FieldId)f);
  return in;
}

// A random legal value of field f for opcode op; min and max come up often.
static int64_t random_value(int op, int f, uint64_t *rng) {
  const FieldInfo *fi = &isa_fields[f];
  uint64_t r = rng_next(rng);
  if (fi->kind == K_E) {
    int n = 0, pick;
    for (int i = 0; i < isa_num_enums; i++) n += isa_enums[i].set == fi->eset;
    pick = (int)(r % (uint64_t)n);
    for (int i = 0; i < isa_num_enums; i++)
      if (isa_enums[i].set == fi->eset && pick-- == 0) return isa_enums[i].value;
  }
  if (fi->kind == K_UNITS) {
    int64_t v = (int64_t)(r & ((1u << fi->width) - 1));
    if (isa_ops[op].unit < NUM_UNITS) v &= ~((int64_t)1 << isa_ops[op].unit);
    return v;
  }
  int64_t lo = isa_field_min((FieldId)f), hi = isa_field_max((FieldId)f);
  switch (r % 8) {
  case 0: return lo;
  case 1: return hi;
  default: return lo + (int64_t)((r >> 3) % ((uint64_t)(hi - lo) + 1));
  }
}

// ---------------------------------------------------------------------------------------------
// The tables themselves

static void test_fields_sane(void) {
  for (int f = 0; f < FLD_COUNT; f++) {
    const FieldInfo *fi = &isa_fields[f];
    CHECK(fi->name && fi->doc && fi->doc[0], "field %d has no name or doc", f);
    if (!fi->name) continue;
    CHECK(fi->width >= 1 && fi->width <= 63, "%s: width %u outside 1..63", fi->name, fi->width);
    CHECK(fi->lsb + fi->width <= 128, "%s: bits %u..%u pass bit 127", fi->name, fi->lsb, fi->lsb + fi->width - 1);
    CHECK(fi->lsb / 64 == (fi->lsb + fi->width - 1) / 64, "%s: bits %u..%u cross bit 64", fi->name, fi->lsb,
          fi->lsb + fi->width - 1);
    CHECK(fi->kind != K_S || fi->width >= 2, "%s: a signed field needs 2 bits at least", fi->name);
    CHECK((fi->kind == K_E) == (fi->eset != ESET_NONE), "%s: enum set given iff kind is K_E", fi->name);
    CHECK(fi->kind != K_UNITS || fi->width == NUM_UNITS - 1,
          "%s: a unit set has one bit per unit other than the instruction's own", fi->name);
    for (int g = 0; g < f; g++)
      CHECK(strcasecmp(fi->name, isa_fields[g].name), "field name %s appears twice", fi->name);
    int used = 0;
    for (int fmt = 0; fmt < FMT_COUNT; fmt++) used |= (int)((isa_formats[fmt].fields >> f) & 1u);
    CHECK(used, "field %s is in no format", fi->name);
  }
  CHECK(isa_fields[FLD_OP].lsb == 0 && (1u << isa_fields[FLD_OP].width) == ISA_NUM_OPCODES,
        "OP must be bits 0.. and cover exactly ISA_NUM_OPCODES values");
  CHECK(isa_field_min(FLD_OP) == 0 && isa_field_max(FLD_OP) == ISA_NUM_OPCODES - 1, "OP range");
  check_case("isa-fields-sane");
}

static void test_formats_no_overlap(void) {
  for (int fmt = 0; fmt < FMT_COUNT; fmt++) {
    const FormatInfo *fo = &isa_formats[fmt];
    CHECK(fo->name != NULL, "format %d has no name", fmt);
    CHECK((fo->fields >> FLD_OP) & 1u, "%s lacks OP", fo->name);
    CHECK((fo->fields >> FLD_COUNT) == 0, "%s names fields past FLD_COUNT", fo->name);
    Mask128 seen = {{0, 0}};
    for (int f = 0; f < FLD_COUNT; f++) {
      if (!((fo->fields >> f) & 1u)) continue;
      Mask128 m = field_mask128(f);
      CHECK(!(seen.half[0] & m.half[0]) && !(seen.half[1] & m.half[1]), "%s: field %s overlaps another field",
            fo->name, isa_fields[f].name);
      seen.half[0] |= m.half[0];
      seen.half[1] |= m.half[1];
    }
    for (int g = 0; g < fmt; g++) CHECK(strcmp(fo->name, isa_formats[g].name), "format %s twice", fo->name);
  }
  check_case("isa-formats-no-overlap");
}

static void test_ops_sane(void) {
  int n = 0;
  CHECK(isa_ops[0].name == NULL, "opcode 0 must be illegal (zeroed memory is not a program)");
  for (int op = 0; op < ISA_NUM_OPCODES; op++) {
    const OpInfo *oi = &isa_ops[op];
    if (!oi->name) continue;
    n++;
    CHECK(oi->fmt >= 0 && oi->fmt < FMT_COUNT, "%s: format %d does not exist", oi->name, (int)oi->fmt);
    CHECK(oi->unit <= UNIT_FETCH, "%s: unit %d does not exist", oi->name, (int)oi->unit);
    CHECK(oi->timing <= T_HALT, "%s: timing class %d does not exist", oi->name, (int)oi->timing);
    CHECK(oi->doc && oi->doc[0], "%s has no semantics string", oi->name);
    for (int o = 0; o < op; o++)
      CHECK(!isa_ops[o].name || strcasecmp(oi->name, isa_ops[o].name), "mnemonic %s twice", oi->name);
    // Units take part in the token protocol; LAYER and HALT cannot carry tokens.
    int tokens = isa_has_field((Opcode)op, FLD_POP) && isa_has_field((Opcode)op, FLD_PUSH);
    CHECK(tokens == (oi->unit < NUM_UNITS), "%s: POP/PUSH present iff it runs on one unit", oi->name);
  }
  CHECK(n >= 2, "only %d opcodes", n);
  check_case("isa-ops-sane");
}

static void test_enums_sane(void) {
  for (int i = 0; i < isa_num_enums; i++) {
    const EnumInfo *e = &isa_enums[i];
    CHECK(e->set > ESET_NONE && e->set < ESET_COUNT, "%s: bad set", e->name);
    CHECK(e->doc && e->doc[0], "%s has no doc", e->name);
    int fields = 0;
    for (int f = 0; f < FLD_COUNT; f++) {
      if (isa_fields[f].kind != K_E || isa_fields[f].eset != e->set) continue;
      fields++;
      CHECK(e->value <= (unsigned)isa_field_max((FieldId)f), "%s=%u does not fit field %s (%u bits)", e->name,
            e->value, isa_fields[f].name, isa_fields[f].width);
    }
    CHECK(fields > 0, "enum %s belongs to no field", e->name);
    for (int j = 0; j < i; j++) {
      if (isa_enums[j].set != e->set) continue;
      CHECK(strcasecmp(e->name, isa_enums[j].name), "%s twice in set %s", e->name, isa_enum_set_names[e->set]);
      CHECK(e->value != isa_enums[j].value, "%s and %s share value %u", e->name, isa_enums[j].name, e->value);
    }
  }
  check_case("isa-enums-sane");
}

// ---------------------------------------------------------------------------------------------
// Encoding and decoding

// Value 1 in one field sets exactly bit lsb of the word: byte lsb/8, bit lsb%8 (the two
// 64-bit halves are little-endian). The opcode sits in bits 0..5.
static void test_encode_positions(void) {
  for (int op = 0; op < ISA_NUM_OPCODES; op++) {
    if (!isa_ops[op].name) continue;
    for (int f = 0; f < FLD_COUNT; f++) {
      if (f == FLD_OP || !isa_has_field((Opcode)op, (FieldId)f)) continue;
      Insn in;
      memset(&in, 0, sizeof in);
      in.op = (Opcode)op;
      // A unit set's field bit 0 names unit 0, or the SFU on a LOAD (its own bit).
      in.f[f] = isa_fields[f].kind == K_UNITS ? (int64_t)isa_units_decode(isa_ops[op].unit, 1) : 1;
      uint8_t w[ISA_WORD_BYTES];
      isa_encode(&in, w);
      for (unsigned b = 0; b < 128; b++) {
        int want = b == isa_fields[f].lsb || (b < 6 && ((unsigned)op >> b) & 1u);
        if (word_bit(w, b) != want) {
          CHECK(0, "%s %s=1: bit %u is %d", isa_ops[op].name, isa_fields[f].name, b, word_bit(w, b));
          break;
        }
      }
    }
  }
  check_case("isa-encode-bit-positions");
}

static void test_round_trip(void) {
  uint64_t rng = 0x5A5A1234DEADBEEFull;
  int iters = 0;
  Diag d;
  for (int round = 0; round < 2000; round++) {
    for (int op = 0; op < ISA_NUM_OPCODES; op++) {
      if (!isa_ops[op].name) continue;
      Insn in;
      memset(&in, 0, sizeof in);
      in.op = (Opcode)op;
      for (int f = 0; f < FLD_COUNT; f++) {
        if (f == FLD_OP || !isa_has_field(in.op, (FieldId)f)) continue;
        // round 0: all minimum; round 1: all maximum; then random
        if (round == 0 && isa_fields[f].kind != K_E && isa_fields[f].kind != K_UNITS)
          in.f[f] = isa_field_min((FieldId)f);
        else if (round == 1 && isa_fields[f].kind != K_E && isa_fields[f].kind != K_UNITS)
          in.f[f] = isa_field_max((FieldId)f);
        else
          in.f[f] = random_value(op, f, &rng);
      }
      diag_init(&d);
      CHECK(isa_check_fields(&in, "t", &d) == 0, "%s: legal fields rejected: %s", isa_ops[op].name, diag_first(&d));
      uint8_t w[ISA_WORD_BYTES], w2[ISA_WORD_BYTES];
      isa_encode(&in, w);
      Insn out;
      diag_init(&d);
      int rc = isa_decode(w, &out, "t", &d);
      CHECK(rc == 0, "%s: decode failed: %s", isa_ops[op].name, diag_first(&d));
      CHECK(out.op == in.op, "%s: opcode came back as %d", isa_ops[op].name, (int)out.op);
      for (int f = 0; f < FLD_COUNT; f++) {
        int64_t want = f == FLD_OP || !isa_has_field(in.op, (FieldId)f) ? 0 : in.f[f];
        if (f == FLD_OP) continue;
        CHECK(out.f[f] == want, "%s %s: wrote %lld, read %lld", isa_ops[op].name, isa_fields[f].name,
              (long long)want, (long long)out.f[f]);
      }
      isa_encode(&out, w2);
      CHECK(!memcmp(w, w2, ISA_WORD_BYTES), "%s: re-encoding changed the word", isa_ops[op].name);
      iters++;
      if (check_case_failures()) break;
    }
    if (check_case_failures()) break;
  }
  CHECK(iters > 10000, "only %d round trips", iters);
  check_case("isa-encode-decode-round-trip");
}

// Negative values of signed fields come back negative, and use two's complement in the word.
static void test_signed_fields(void) {
  Diag d;
  for (int op = 0; op < ISA_NUM_OPCODES; op++) {
    if (!isa_ops[op].name) continue;
    for (int f = 0; f < FLD_COUNT; f++) {
      if (!isa_has_field((Opcode)op, (FieldId)f) || isa_fields[f].kind != K_S) continue;
      const int64_t vals[] = {-1, isa_field_min((FieldId)f), isa_field_min((FieldId)f) + 1, isa_field_max((FieldId)f)};
      for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        Insn in = minimal_insn(op), out;
        in.f[f] = vals[i];
        uint8_t w[ISA_WORD_BYTES];
        isa_encode(&in, w);
        int top = word_bit(w, isa_fields[f].lsb + isa_fields[f].width - 1);
        CHECK(top == (vals[i] < 0), "%s %s=%lld: sign bit %d", isa_ops[op].name, isa_fields[f].name,
              (long long)vals[i], top);
        diag_init(&d);
        CHECK(isa_decode(w, &out, "t", &d) == 0 && out.f[f] == vals[i], "%s %s=%lld came back as %lld (%s)",
              isa_ops[op].name, isa_fields[f].name, (long long)vals[i], (long long)out.f[f], diag_first(&d));
      }
      Insn in = minimal_insn(op);
      in.f[f] = isa_field_max((FieldId)f) + 1;
      diag_init(&d);
      CHECK(isa_check_fields(&in, "t", &d) < 0, "%s %s: max+1 accepted", isa_ops[op].name, isa_fields[f].name);
      in.f[f] = isa_field_min((FieldId)f) - 1;
      CHECK(isa_check_fields(&in, "t", &d) < 0, "%s %s: min-1 accepted", isa_ops[op].name, isa_fields[f].name);
    }
  }
  check_case("isa-signed-fields");
}

static void test_reject_unknown_opcodes(void) {
  Diag d;
  for (int op = 0; op < ISA_NUM_OPCODES; op++) {
    if (isa_ops[op].name) continue;
    uint8_t w[ISA_WORD_BYTES] = {0};
    w[0] = (uint8_t)op;
    Insn out;
    diag_init(&d);
    char want[64];
    snprintf(want, sizeof want, "prog.bin: +0x10 (insn 1): error: unknown opcode 0x%02x", op);
    CHECK(isa_decode(w, &out, "prog.bin: +0x10 (insn 1)", &d) < 0, "opcode 0x%02x accepted", op);
    CHECK(!strcmp(diag_first(&d), want), "opcode 0x%02x: message '%s', want '%s'", op, diag_first(&d), want);
  }
  check_case("isa-reject-unknown-opcodes");
}

static void test_reject_reserved_bits(void) {
  Diag d;
  int tried = 0;
  for (int op = 0; op < ISA_NUM_OPCODES; op++) {
    if (!isa_ops[op].name) continue;
    Insn in = minimal_insn(op), out;
    uint8_t base[ISA_WORD_BYTES];
    isa_encode(&in, base);
    diag_init(&d);
    CHECK(isa_decode(base, &out, "t", &d) == 0, "%s: minimal word rejected: %s", isa_ops[op].name, diag_first(&d));
    Mask128 used = format_mask(isa_ops[op].fmt);
    for (unsigned b = 0; b < 128; b++) {
      if ((used.half[b / 64] >> (b % 64)) & 1u) continue;
      uint8_t w[ISA_WORD_BYTES];
      memcpy(w, base, sizeof w);
      set_word_bit(w, b);
      diag_init(&d);
      int rc = isa_decode(w, &out, "t", &d);
      CHECK(rc < 0, "%s: reserved bit %u accepted", isa_ops[op].name, b);
      CHECK(rc == 0 || strstr(diag_first(&d), "reserved bits"), "%s bit %u: message '%s'", isa_ops[op].name, b,
            diag_first(&d));
      tried++;
    }
  }
  CHECK(tried > 0, "no reserved bits tried");
  check_case("isa-reject-reserved-bits");
}

static void test_reject_bad_values(void) {
  Diag d;
  for (int op = 0; op < ISA_NUM_OPCODES; op++) {
    if (!isa_ops[op].name) continue;
    const OpInfo *oi = &isa_ops[op];
    for (int f = 0; f < FLD_COUNT; f++) {
      if (f == FLD_OP || !isa_has_field((Opcode)op, (FieldId)f)) continue;
      const FieldInfo *fi = &isa_fields[f];
      Insn in = minimal_insn(op), out;
      uint8_t w[ISA_WORD_BYTES];
      if (fi->kind == K_UNITS && oi->unit < NUM_UNITS) {   // a unit naming itself: not encodable
        in.f[f] = (int64_t)1 << oi->unit;
        diag_init(&d);
        CHECK(isa_check_fields(&in, "t", &d) < 0, "%s %s names its own unit and is accepted", oi->name, fi->name);
        CHECK(strstr(diag_first(&d), "own unit") != NULL, "%s %s: message '%s'", oi->name, fi->name, diag_first(&d));
        for (int u = 0; u < NUM_UNITS; u++) {   // the others are fine, and survive the word
          if ((unsigned)u == oi->unit) continue;
          in.f[f] = (int64_t)1 << u;
          isa_encode(&in, w);
          diag_init(&d);
          CHECK(isa_decode(w, &out, "t", &d) == 0 && out.f[f] == in.f[f], "%s %s=%s rejected or changed: %s", oi->name,
                fi->name, isa_unit_names[u], diag_first(&d));
        }
      }
      if (fi->kind == K_CNT) {   // counts are at least 1
        in = minimal_insn(op);
        in.f[f] = 0;
        isa_encode(&in, w);
        diag_init(&d);
        CHECK(isa_decode(w, &out, "t", &d) < 0, "%s %s=0 accepted", oi->name, fi->name);
        CHECK(strstr(diag_first(&d), fi->name) && strstr(diag_first(&d), "out of range"), "%s %s=0: message '%s'",
              oi->name, fi->name, diag_first(&d));
      }
      if (fi->kind == K_E) {   // every value of the field's width that names no symbol
        for (int64_t v = 0; v <= isa_field_max((FieldId)f); v++) {
          if (isa_enum_name(fi->eset, (unsigned)v)) continue;
          in = minimal_insn(op);
          in.f[f] = v;
          isa_encode(&in, w);
          diag_init(&d);
          CHECK(isa_decode(w, &out, "t", &d) < 0, "%s %s=%lld accepted", oi->name, fi->name, (long long)v);
          CHECK(strstr(diag_first(&d), "not a valid") != NULL, "%s %s=%lld: message '%s'", oi->name, fi->name,
                (long long)v, diag_first(&d));
        }
      }
    }
  }
  check_case("isa-reject-bad-field-values");
}

// ---------------------------------------------------------------------------------------------
// Name look-ups

static void test_names(void) {
  char low[64];
  for (int op = 0; op < ISA_NUM_OPCODES; op++) {
    if (!isa_ops[op].name) continue;
    CHECK(isa_op_by_name(isa_ops[op].name) == op, "op %s", isa_ops[op].name);
    snprintf(low, sizeof low, "%s", isa_ops[op].name);
    for (char *p = low; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    CHECK(isa_op_by_name(low) == op, "op %s in lower case", low);
  }
  CHECK(isa_op_by_name("") == -1 && isa_op_by_name("NOPE") == -1 && isa_op_by_name("LOADX") == -1,
        "unknown mnemonics must give -1");
  for (int f = 0; f < FLD_COUNT; f++) {
    CHECK(isa_field_by_name(isa_fields[f].name) == f, "field %s", isa_fields[f].name);
    snprintf(low, sizeof low, "%s", isa_fields[f].name);
    for (char *p = low; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    CHECK(isa_field_by_name(low) == f, "field %s in lower case", low);
  }
  CHECK(isa_field_by_name("") == -1 && isa_field_by_name("colsx") == -1, "unknown field names must give -1");
  for (int i = 0; i < isa_num_enums; i++) {
    const EnumInfo *e = &isa_enums[i];
    CHECK(isa_enum_value(e->set, e->name) == (int)e->value, "enum %s", e->name);
    const char *name = isa_enum_name(e->set, e->value);
    CHECK(name && !strcmp(name, e->name), "enum value %u of %s", e->value, isa_enum_set_names[e->set]);
    snprintf(low, sizeof low, "%s", e->name);
    for (char *p = low; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    CHECK(isa_enum_value(e->set, low) == (int)e->value, "enum %s in lower case", low);
    for (int set = ESET_NONE + 1; set < ESET_COUNT; set++) {   // a symbol is unknown in sets lacking it
      int in_set = 0;
      for (int j = 0; j < isa_num_enums; j++) in_set |= (int)isa_enums[j].set == set && !strcmp(isa_enums[j].name, e->name);
      if (!in_set)
        CHECK(isa_enum_value((EnumSet)set, e->name) == -1, "%s leaks into set %s", e->name, isa_enum_set_names[set]);
    }
  }
  CHECK(isa_enum_value(ESET_MEM, "") == -1 && isa_enum_name(ESET_MEM, 1000) == NULL, "unknown enum look-ups");
  check_case("isa-name-lookups");
}

// The constant-expression limits (ISA_W_*, ISA_UMAX) agree with the table and isa_field_max().
static void test_constant_limits(void) {
#define F(name, lsb_, width_, kind_, eset_, doc_)                                                               \
  CHECK(ISA_W_##name == isa_fields[FLD_##name].width, "%s: ISA_W_ %d", #name, (int)ISA_W_##name);            \
  CHECK(kind_ == K_S || kind_ == K_UNITS || (int64_t)ISA_UMAX(name) == isa_field_max(FLD_##name),              \
        "%s: ISA_UMAX %llu", #name, (unsigned long long)ISA_UMAX(name));                                         \
  CHECK(kind_ != K_UNITS || (ISA_UMAX(name) == 7 && isa_field_max(FLD_##name) == (1 << NUM_UNITS) - 1),         \
        "%s: 3 bits in the word, a set of 4 units decoded", #name);
#include "../../isa/isa_fields.def"
#undef F
  CHECK(ISA_UMAX(OUTER) == 4095 && ISA_UMAX(KH) == 15 && ISA_UMAX(TSTRIDE) == 65535, "the compiler's limits");
  for (int u = 0; u < ISA_NUM_UNIT_CLASSES; u++) CHECK(isa_unit_names[u] != NULL, "unit %d has no name", u);
  check_case("isa-constant-limits");
}

// A unit set's 3 bits (docs/ISA.md section 3): bit i names unit i, except the instruction's own bit,
// which names the SFU; an SFU instruction's bits name units 0..2. Every raw value decodes to a set
// without the own unit, and every such set survives encoding.
static void test_unit_sets(void) {
  for (int u = 0; u < NUM_UNITS; u++) {
    for (int v = 0; v < NUM_UNITS; v++) {
      if (v == u) continue;
      unsigned raw = isa_units_encode((Unit)u, 1u << v);
      unsigned want = u == UNIT_SFU ? 1u << v : v == UNIT_SFU ? 1u << u : 1u << v;
      CHECK(raw == want, "%s unit: {%s} encodes as %u, want %u", isa_unit_names[u], isa_unit_names[v], raw, want);
    }
    for (unsigned raw = 0; raw < 8; raw++) {
      unsigned set = isa_units_decode((Unit)u, raw);
      CHECK(!((set >> u) & 1) && set < (1u << NUM_UNITS), "%s unit: raw %u decodes to %u, naming itself", isa_unit_names[u],
            raw, set);
      CHECK(isa_units_encode((Unit)u, set) == raw, "%s unit: raw %u does not survive a round trip", isa_unit_names[u], raw);
    }
  }
  // The own bit of a LOAD is bit 6 of the word (POP's lsb), of a STORE bit 8; an SFU_MAP's pop=store is bit 8.
  Insn in = isa_insn(OP_LOAD);
  in.f[FLD_POP] = 1 << UNIT_SFU;
  InsnWord w;
  isa_encode(&in, w.b);
  CHECK(isa_word_bits(&w, isa_fields[FLD_POP].lsb, 3) == 1, "LOAD pop=sfu is not the load bit");
  in = isa_insn(OP_STORE);
  in.f[FLD_PUSH] = 1 << UNIT_SFU | 1 << UNIT_LOAD;
  isa_encode(&in, w.b);
  CHECK(isa_word_bits(&w, isa_fields[FLD_PUSH].lsb, 3) == 5, "STORE push=sfu,load is not bits 0 and 2");
  in = isa_insn(OP_SFU_MAP);
  in.f[FLD_POP] = 1 << UNIT_STORE;
  isa_encode(&in, w.b);
  CHECK(isa_word_bits(&w, isa_fields[FLD_POP].lsb, 3) == 4, "SFU_MAP pop=store is not bit 2");
  CHECK(isa_word_field(&w, FLD_POP) == 1 << UNIT_STORE, "SFU_MAP pop=store does not read back");
  check_case("isa-unit-set-encoding");
}

int main(void) {
  test_unit_sets();
  test_fields_sane();
  test_formats_no_overlap();
  test_ops_sane();
  test_enums_sane();
  test_encode_positions();
  test_round_trip();
  test_signed_fields();
  test_reject_unknown_opcodes();
  test_reject_reserved_bits();
  test_reject_bad_values();
  test_names();
  test_constant_limits();
  return check_status();
}
