// program.h: a program in memory (code, tensors, DRAM data, layer names, the arch it targets),
// and the binary file format that stores it (docs/BINARY.md). The compiler writes it, sasim
// reads it; neither depends on the other, both depend on this module.
#ifndef SA_PROGRAM_H
#define SA_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "diag.h"
#include "isa.h"

#define PROG_MAGIC "SAPROG\r\n"       // 8 bytes; \r\n catches text-mode mangling
#define PROG_VERSION_MAJOR 1          // readers refuse a newer major version
#define PROG_VERSION_MINOR 4          // 1.1 added the MACS section, 1.2 the OVERLAP bit, 1.3 the SFU, 1.4 the GBUF (a file is written
                                      // in the oldest version that carries it: binfmt.c)
#define PROG_NAME_MAX 64              // tensor and layer names, including the NUL
#define PROG_MAX_DIMS 8

typedef enum { DT_INT8 = 1, DT_INT32 = 2 } DType;
typedef enum { ROLE_INPUT = 1, ROLE_OUTPUT = 2, ROLE_CONST = 3, ROLE_SCRATCH = 4 } TensorRole;

typedef struct {
  char name[PROG_NAME_MAX];       // unique within the program
  DType dtype;                    // element type in DRAM
  TensorRole role;                // input, output, const or scratch
  uint32_t ndim;                  // 1..PROG_MAX_DIMS
  uint32_t dims[PROG_MAX_DIMS];   // shape, each >= 1
  uint64_t strides[PROG_MAX_DIMS];// byte stride of each dimension in DRAM (padded layouts allowed)
  uint64_t addr;                  // DRAM byte address of element [0, 0, ...]
  double scale;                   // quantization: real = scale * q (symmetric); 0 when none
} TensorInfo;

typedef struct {
  uint64_t addr;                  // DRAM byte address
  uint64_t len;                   // bytes
  uint8_t *bytes;                 // owned by the Program: by the chunk, or inside p->data_store
  int in_store;                   // 1: bytes lie inside p->data_store (a loaded file or its DATA)
} DataChunk;

typedef struct {
  Arch arch;                      // the machine it was compiled for
  uint32_t n_insns;               // instructions, the last one HALT
  InsnWord *code;                 // encoded instructions (prog_insn() decodes one)
  uint32_t n_tensors;
  TensorInfo *tensors;
  uint32_t n_chunks;              // initial DRAM contents (constants, default inputs)
  DataChunk *chunks;
  uint32_t n_layers;              // names of LAYER ids 0..n_layers-1
  char (*layer_names)[PROG_NAME_MAX];
  uint64_t *layer_macs;           // useful MACs of each layer (n_layers of them: the network's own,
                                  // docs/BINARY.md 5.6), or NULL: the program declares none
  uint8_t *data_store;            // prog_load(): the buffer loaded chunks point into (no copies)
  size_t data_store_map;          // > 0: data_store is a file mapping of this many bytes
  uint32_t cap_insns, cap_tensors, cap_chunks, cap_layers;  // allocation bookkeeping
} Program;

Program *prog_new(const Arch *arch);
void prog_free(Program *p);   // prog_free(NULL) is a no-op
// Builders: copy their arguments. Return 0, or -1 on out of memory.
// prog_add_insn() encodes: it also returns -1 when a field value does not fit its field, so a
// Program never holds an instruction the format cannot carry (isa_check_fields() says why).
int prog_add_insn(Program *p, const Insn *in);
// Makes room for n instructions in all (a loader that knows the count avoids regrowing).
int prog_reserve_insns(Program *p, uint32_t n);
// Instruction i, decoded. i < n_insns.
static inline Insn prog_insn(const Program *p, uint32_t i) {
  Insn in;
  isa_unpack(&p->code[i], &in);
  return in;
}
static inline Opcode prog_op(const Program *p, uint32_t i) { return isa_word_op(&p->code[i]); }
// Replaces instruction i (tests that edit programs). Returns 0, or -1 when a field does not fit.
int prog_set_insn(Program *p, uint32_t i, const Insn *in);
int prog_add_tensor(Program *p, const TensorInfo *t);
int prog_add_data(Program *p, uint64_t addr, const void *bytes, uint64_t len);
int prog_add_layer(Program *p, const char *name);   // with useful MACs declared, the new layer's are 0
// Declares the useful MACs of the program's n_layers layers (copies them; NULL clears the
// declaration). Returns 0, or -1 on out of memory.
int prog_set_layer_macs(Program *p, const uint64_t *macs);
// Adds a chunk that takes over `bytes` (malloc'd, len of them; freed with the Program, or at
// once when this fails): no copy of a large constant the caller built for the Program.
int prog_add_data_owned(Program *p, uint64_t addr, uint8_t *bytes, uint64_t len);
// A chunk whose bytes lie inside p->data_store (set by the loader): not copied, not freed alone.
int prog_add_stored_data(Program *p, uint64_t addr, uint8_t *bytes, uint64_t len);
// Row-major (C-order) dense strides for t->dims, element size from t->dtype.
void prog_dense_strides(TensorInfo *t);
size_t prog_dtype_size(DType dt);
// Bytes spanned in DRAM by a tensor: 1 + the offset of its last element + element size - 1.
uint64_t prog_tensor_span(const TensorInfo *t);
const TensorInfo *prog_find_tensor(const Program *p, const char *name);

// Static checks of the whole program against its arch: every instruction legal, every on-chip
// row range and DRAM byte range an instruction can touch inside its memory (the per-unit
// configuration registers are tracked in program order; there is no control flow), HALT last
// and only there, layer ids named, tensors and data inside DRAM, names unique.
// Messages: "<file>: insn N: error: ..." or "<file>: tensor "x": error: ...".
int prog_check(const Program *p, const char *file, Diag *d);
// The same check for one instruction, with the configuration state carried in *st, so the
// assembler can point at the source line. Start from a zeroed ProgCheckState.
typedef struct {
  int64_t ld_stride_outer, ld_stride_inner, ld_seg_stride;   // CFG_LOAD registers
  int64_t st_stride_outer, st_stride_inner, st_prow, st_params, st_act, st_lo, st_hi;  // CFG_STORE
  int64_t pool, kh, kw, sh, sw, pad_t, pad_l, in_h, in_w;   // CFG_POOL
  int seen_preload;                                          // a PRELOAD came before (COMPUTE needs weights)
  int seen_halt;
} ProgCheckState;
int prog_check_insn(const Program *p, ProgCheckState *st, const Insn *in, const char *where, Diag *d);
// prog_check for a caller that ran prog_check_insn over every instruction in order, from a zeroed
// state, without an error (the loader, whose messages carry byte offsets): st is the final state.
int prog_check_rest(const Program *p, const ProgCheckState *st, const char *file, Diag *d);

// Serializes to a newly allocated buffer (*out, caller frees). compress: deflate the DATA section.
int prog_write(const Program *p, int compress, uint8_t **out, size_t *len, Diag *d);
// Writes to path through a temporary file and a rename: never a half-written file. "-" is
// stdout, refused when it is a terminal (file_out_open, isa/fileio.h). An existing file that is not a
// regular one (/dev/null, a FIFO) is written in place: renaming onto it would replace it.
int prog_save(const Program *p, const char *path, int compress, Diag *d);
// Parses and fully validates a binary (header, sections, CRCs, arch, code, tensors, data,
// prog_check). On error returns -1 and *out stays NULL; messages give the byte offset.
int prog_read(const uint8_t *buf, size_t len, const char *file, Program **out, Diag *d);
int prog_load(const char *path, Program **out, Diag *d);

#endif
