// sacc_cli.c: sacc's commands and their options, one table each (see sacc_cli.h). The parser,
// the messages and --help come from these rows (isa/cliopt.c); the values of --dataflow, --emit
// and --dump-ir are listed here once, for both the check and the help.
#include "sacc_cli.h"

#include "compile.h"

#define CALIB_ROW(ID)                                                                                    \
  {.id = ID, .names = {"--calib"}, .metavar = "[NAME=]X.npy", .max_count = SACC_MAX_FILES,               \
   .help = "real (float32/float64) input values that calibrate the scales a network leaves\n"            \
           "out (float weights); without it, the generated input of `sacc ref` is used"}
#define ALLOW_LARGE_ROW(ID)                                                                              \
  {.id = ID, .names = {"--allow-large"},                                                                 \
   .help = "accept a network past the limits on work and memory (10^11 MACs, 2 GiB of\n"                  \
           "activations and weights; docs/NETJSON.md \"Limits\"): it may take hours"}

static const CliOpt check_opts[] = {
    {.id = CHECK_DUMP_IR, .names = {"--dump-ir"}, .help = "print one line per layer, and the error per layer"},
    CALIB_ROW(CHECK_CALIB),
    ALLOW_LARGE_ROW(CHECK_ALLOW_LARGE),
};

const CliCommand sacc_check = {
    .name = "check",
    .args = "NET.json",
    .summary = "load a network, infer shapes, quantize; report the int8 error",
    .about = "Loads the network (docs/NETJSON.md), infers shapes, computes the integer requantization\n"
             "parameters. Reports the int8 network's error against the float reference per output\n"
             "(per layer with --dump-ir) on the calibration input.",
    .opts = check_opts,
    .n_opts = sizeof check_opts / sizeof check_opts[0],
};

static const CliOpt ref_opts[] = {
    {.id = REF_INPUT, .names = {"--input"}, .metavar = "[NAME=]X.npy", .max_count = SACC_MAX_FILES,
     .help = "an int8 array of the input's shape: input NAME, or the next one not given"},
    {.id = REF_SEED, .names = {"--seed"}, .metavar = "N",
     .help = "inputs not given with --input are filled from splitmix64 with seed N+i\n"
             "for input i (default N = 1)"},
    {.id = REF_OUTPUT_DIR, .names = {"--output-dir"}, .metavar = "D",
     .help = "write D/NAME.npy (int8) for each network output"},
    {.id = REF_LAYER_STATS, .names = {"--layer-stats"},
     .help = "print min, max, mean, % zeros and % saturated of every layer's output"},
    CALIB_ROW(REF_CALIB),
    ALLOW_LARGE_ROW(REF_ALLOW_LARGE),
};

const CliCommand sacc_ref = {
    .name = "ref",
    .args = "NET.json",
    .summary = "run the reference interpreter; print each output's crc32",
    .about = "Runs the reference interpreter; prints name, shape and crc32 of each network output\n"
             "(the line `sasim run` prints), and writes them as .npy files with --output-dir.",
    .opts = ref_opts,
    .n_opts = sizeof ref_opts / sizeof ref_opts[0],
};

static const CliChoice emit_kinds[] = {{"bin", EMIT_BIN}, {"asm", EMIT_ASM}, {0, 0}};
static const CliChoice dataflows[] = {
    {"ws", DF_WS}, {"os", DF_OS}, {"is", DF_IS}, {"auto", COMPILE_DATAFLOW_AUTO}, {0, 0}};
// --dump-ir: compile.c prints after the pass of this name (all: after each); the value is the name.
static const CliChoice dump_passes[] = {{"graph", 0},  {"fuse", 0},    {"layout", 0},   {"lower", 0}, {"tiling", 0},
                                        {"memplan", 0}, {"schedule", 0}, {"all", 0}, {0, 0}};

static const CliOpt compile_opts[] = {
    {.id = COMPILE_OUT, .names = {"-o"}, .metavar = "OUT",
     .help = "the program file (default: NET.bin, or NET.s with --emit asm, in the current\n"
             "directory); - writes it to stdout (a binary only into a pipe or a file)"},
    {.id = COMPILE_ARCH, .names = {"--arch"}, .metavar = "ARCH",
     .help = "the machine to compile for: a file, or a shipped arch's name (tiny, small,\n"
             "large, ...; workloads/arch); default: the built-in one"},
    {.id = COMPILE_EMIT, .names = {"--emit"}, .metavar = "KIND", .choices = emit_kinds,
     .help = "bin: a program binary (default); asm: assembly that `sasim asm` turns into\n"
             "the identical binary"},
    {.id = COMPILE_NO_DOUBLE_BUFFER, .names = {"--no-double-buffer"},
     .help = "one buffer half: no load overlaps the compute of the previous tile"},
    {.id = COMPILE_NO_PRELOAD_OVERLAP, .names = {"--no-preload-overlap"},
     .help = "no COMPUTE carries OVERLAP: each PRELOAD waits for the stream before it\n"
             "(a pair costs M + R cycles instead of about max(M, R); docs/TIMING.md)"},
    {.id = COMPILE_NO_FUSE_LAYERS, .names = {"--no-fuse-layers"},
     .help = "every activation in DRAM: no layer's output stays in the global buffer for\n"
             "the layers that read it (docs/COMPILER.md \"Fusion\"; --dump-ir memplan shows\n"
             "the choice and the DRAM bytes it saves)"},
    {.id = COMPILE_NO_SHARED_TAPS, .names = {"--no-shared-taps"},
     .help = "every K tile gathers its own im2col rows: no kernel rows share one gather of\n"
             "the input (plain im2col, as docs/exercises/02-im2col.md derives it;\n"
             "docs/COMPILER.md \"shared taps\")"},
    {.id = COMPILE_DATAFLOW, .names = {"--dataflow"}, .metavar = "DF", .choices = dataflows,
     .help = "auto (default) gives each GEMM the dataflow of the plan the cost model\n"
             "estimates fastest, weight-stationary unless another is clearly faster\n"
             "(--dump-ir tiling shows the estimates); ws runs every GEMM weight-stationary\n"
             "(PRELOAD + COMPUTE), os output-stationary (COMPUTE_OS), is input-stationary (the\n"
             "inputs preloaded, the weights streamed: PRELOAD + COMPUTE_IS); the outputs are\n"
             "the same bytes (docs/DATAFLOWS.md)"},
    {.id = COMPILE_LAYER_DATAFLOW, .names = {"--layer-dataflow"}, .metavar = "LAYER=DF",
     .max_count = COMPILE_MAX_LAYER_DF,
     .help = "run this layer's GEMMs in DF (ws, os or is) whatever --dataflow gives the\n"
             "others (repeatable; with --dataflow auto, the others are the cost model's)"},
    {.id = COMPILE_DUMP_IR, .names = {"--dump-ir"}, .metavar = "PASS", .choices = dump_passes,
     .help = "print the IR after this pass (all: after every pass)"},
    {.id = COMPILE_STATS, .names = {"--stats"},
     .help = "print peak memory per level, instruction and token counts"},
    {.id = COMPILE_JSON, .names = {"--json"}, .metavar = "F", .help = "write those statistics as JSON (- for stdout)"},
    {.id = COMPILE_SEED, .names = {"--seed"}, .metavar = "N",
     .help = "the binary's default inputs are the bytes `sacc ref --seed N` uses (default N = 1)"},
    {.id = COMPILE_NO_COMPRESS, .names = {"--no-compress"}, .help = "store the data section without deflate"},
    CALIB_ROW(COMPILE_CALIB),
    ALLOW_LARGE_ROW(COMPILE_ALLOW_LARGE),
};

const CliCommand sacc_compile = {
    .name = "compile",
    .args = "NET.json",
    .summary = "lower the network onto the machine and write the program",
    .about = "Lowers the network onto the machine (docs/COMPILER.md) and writes the program: a binary\n"
             "or, with --emit asm, assembly text.",
    .notes = "NET.json - reads the network from stdin (its .npy paths are then relative to the\n"
             "current directory; -o is needed); -o - writes the program to stdout (a binary\n"
             "only into a pipe or a file, never a terminal).",
    .opts = compile_opts,
    .n_opts = sizeof compile_opts / sizeof compile_opts[0],
};

static const CliCommand *const sacc_cmds[] = {&sacc_check, &sacc_ref, &sacc_compile};

const CliTool sacc_cli = {
    .name = "sacc",
    .notes = "Exit status: 0 success, 1 error, 2 usage.",
    .cmds = sacc_cmds,
    .n_cmds = sizeof sacc_cmds / sizeof sacc_cmds[0],
};
