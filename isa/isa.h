// isa.h: the instruction set, generated from the .def tables beside it.
// One 128-bit word per instruction, kept as two little-endian 64-bit halves.
// Field positions: isa_fields.def; formats: isa_formats.def; opcodes: isa_ops.def.
#ifndef SA_ISA_H
#define SA_ISA_H

#include <stdint.h>

#include "diag.h"

#define ISA_WORD_BYTES 16
#define ISA_NUM_OPCODES 64

typedef enum {
#define X(name, op, fmt, unit, timing, doc) OP_##name = op,
#include "isa_ops.def"
#undef X
} Opcode;

typedef enum {
#define F(name, lsb, width, kind, eset, doc) FLD_##name,
#include "isa_fields.def"
#undef F
  FLD_COUNT
} FieldId;

typedef enum {
#define FMT(name, bits) name,
#include "isa_formats.def"
#undef FMT
  FMT_COUNT
} FormatId;

// Enumerated field values: MEM_SPAD, ACT_RELU, POOL_MAX ...
typedef enum {
#define E(set, name, value, doc) set##_##name = value,
#include "isa_enums.def"
#undef E
} EnumValue;

// Field widths as constants (ISA_W_OUTER is 12), for limits that must be constant expressions.
enum {
#define F(name, lsb, width, kind, eset, doc) ISA_W_##name = width,
#include "isa_fields.def"
#undef F
};
// The largest value of an unsigned or count field (K_U, K_CNT, K_E, K_UNITS) as a constant
// expression: ISA_UMAX(OUTER) is 4095, ISA_UMAX(KH) 15, ISA_UMAX(TSTRIDE) 65535. isa_field_max()
// gives the same at run time, for every kind (signed ones too).
#define ISA_UMAX(name) ((1ull << ISA_W_##name) - 1)

typedef enum { ESET_NONE, ESET_MEM, ESET_ACT, ESET_POOL, ESET_FN, ESET_EWOP, ESET_RED, ESET_COUNT } EnumSet;
typedef enum { K_U, K_S, K_E, K_UNITS, K_CNT } FieldKind;
// Execution units, numbered as the bits of a decoded POP/PUSH set (K_UNITS fields: Insn.f holds
// one bit per unit; the word holds 3 bits, isa_units_decode) and as the token channels. The units
// come first: UNIT_ALL and UNIT_FETCH are routing classes, not units, and NUM_UNITS counts the
// units (static asserts in isa.c tie it to UNIT_ALL and the field widths).
typedef enum { UNIT_LOAD, UNIT_COMPUTE, UNIT_STORE, UNIT_SFU, UNIT_ALL, UNIT_FETCH } Unit;
#define NUM_UNITS 4
#define ISA_NUM_UNIT_CLASSES (UNIT_FETCH + 1)   // entries of isa_unit_names
typedef enum { T_DMA_READ, T_CONFIG, T_PRELOAD, T_STREAM, T_OS_STREAM, T_IS_STREAM, T_DMA_WRITE, T_SFU_ELEM, T_SFU_ROW,
              T_HALT } TimingClass;

typedef struct {
  const char *name;       // upper-case mnemonic, NULL for an illegal opcode
  FormatId fmt;           // operand format
  Unit unit;              // queue it is routed to
  TimingClass timing;     // timing rule (docs/TIMING.md)
  const char *doc;        // semantics, one line
} OpInfo;

typedef struct {
  const char *name;       // upper-case field name; lower-case in assembly
  unsigned lsb;           // first bit in the 128-bit word
  unsigned width;         // bits
  FieldKind kind;         // how the value is read
  EnumSet eset;           // symbolic values when kind == K_E
  const char *doc;        // one line
} FieldInfo;

typedef struct {
  const char *name;       // FMT_LOAD ...
  uint64_t fields;        // bit f set when field f is present
} FormatInfo;

typedef struct {
  EnumSet set;            // which enumeration
  const char *name;       // upper-case symbol
  unsigned value;         // encoding
  const char *doc;        // one line
} EnumInfo;

extern const OpInfo isa_ops[ISA_NUM_OPCODES];
extern const FieldInfo isa_fields[FLD_COUNT];
extern const FormatInfo isa_formats[FMT_COUNT];
extern const EnumInfo isa_enums[];
extern const int isa_num_enums;
extern const char *const isa_unit_names[ISA_NUM_UNIT_CLASSES];   // "load", "compute", "store", "sfu", "all", "fetch"
extern const char *const isa_enum_set_names[ESET_COUNT];

// A decoded instruction: every field's value, sign-extended for K_S fields. Fields the format
// does not carry are 0.
typedef struct {
  Opcode op;
  int64_t f[FLD_COUNT];
} Insn;

// An encoded instruction: the 16 bytes of the binary's CODE section (docs/BINARY.md 5.2).
// Programs keep their code in this form: 16 bytes instead of the 248 of a decoded Insn, which
// matters at half a million instructions (page faults and copies dominated compile and load).
typedef struct {
  uint8_t b[ISA_WORD_BYTES];   // little-endian halves: bits 0..63 in b[0..7], 64..127 in b[8..15]
} InsnWord;

// The smallest legal-looking instruction of an opcode: every count field (K_CNT) 1, all else 0.
Insn isa_insn(Opcode op);

// Encodes in into 16 bytes (little-endian halves). Values are masked to their field widths;
// isa_check_fields() says whether they fit.
void isa_encode(const Insn *in, uint8_t out[ISA_WORD_BYTES]);
// Decodes 16 bytes. Returns 0, or -1 with a message for an illegal opcode or bits set outside the
// format's fields. `where` prefixes messages (e.g. "prog.bin: +0x1c0 (insn 56)").
int isa_decode(const uint8_t word[ISA_WORD_BYTES], Insn *out, const char *where, Diag *d);
// Checks field values against widths, kinds and enumerations (counts >= 1, no own-unit tokens,
// LAYER carries none). Returns 0 or -1 with a message.
int isa_check_fields(const Insn *in, const char *where, Diag *d);

static inline int isa_has_field(Opcode op, FieldId f) {
  return (int)((isa_formats[isa_ops[op].fmt].fields >> f) & 1u);
}
// 1 when every field of in's format holds a value its field can encode (isa_check_fields() also
// checks enumerations and tokens, and says what is wrong); 0 otherwise or for an unknown opcode.
int isa_fields_fit(const Insn *in);

// Bits [lsb, lsb + width) of an encoded word; a field never crosses bit 64 (isa_fields.def).
static inline uint64_t isa_word_bits(const InsnWord *w, unsigned lsb, unsigned width) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | w->b[lsb / 64 * 8 + (unsigned)i];   // one load on x86
  v >>= lsb % 64;
  return width >= 64 ? v : v & ((1ull << width) - 1);
}
static inline Opcode isa_word_op(const InsnWord *w) {
  return (Opcode)isa_word_bits(w, isa_fields[FLD_OP].lsb, isa_fields[FLD_OP].width);
}
// One field of an encoded word, sign-extended for K_S fields (as isa_decode() gives it).
int64_t isa_word_field(const InsnWord *w, FieldId f);
// Overwrites one field of an encoded word with v masked to the field's width.
void isa_word_set(InsnWord *w, FieldId f, int64_t v);
// Decodes a word that is known to be legal (a Program's code: checked when it was added or
// loaded), without checks: what isa_decode() gives, every field of its format, the others 0.
void isa_unpack(const InsnWord *w, Insn *out);
// A K_UNITS field between its 3 encoded bits and the set of units it names (one bit per unit), for
// an instruction of unit u: bit i names unit i, except bit u (which could only name u itself) names
// UNIT_SFU; an SFU instruction's bits name units 0..2 directly. Every raw value decodes to a set
// without u; isa_units_encode() drops bits it cannot encode (u itself), which isa_check_fields()
// refuses first.
unsigned isa_units_decode(Unit u, unsigned raw);
unsigned isa_units_encode(Unit u, unsigned set);
// Symbol of an enumerated value, or NULL.
const char *isa_enum_name(EnumSet set, unsigned value);
// Value of a symbol (case-insensitive), or -1.
int isa_enum_value(EnumSet set, const char *name);
// Opcode of a mnemonic (case-insensitive), or -1.
int isa_op_by_name(const char *name);
// Field of a name (case-insensitive), or -1.
int isa_field_by_name(const char *name);
// Minimum and maximum value a field can hold (by kind and width).
int64_t isa_field_min(FieldId f);
int64_t isa_field_max(FieldId f);

#endif
