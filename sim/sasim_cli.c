// sasim_cli.c: sasim's commands and their options, one table each (see sasim_cli.h). The parser,
// the messages and --help come from these rows (isa/cliopt.c); the values of --mode, --engine and
// --vcd-units are listed here once, for both the check and the help.
#include "sasim_cli.h"

#include "run_cmd.h"
#include "timeline.h"
#include "view.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define VIEW_MAX_MB_TEXT STR(VIEW_MAX_MB)

static const CliChoice modes[] = {{"fast", SIM_FAST}, {"detailed", SIM_DETAILED}, {0, 0}};
static const CliChoice engines[] = {{"c", RUN_ENGINE_C}, {"rtl", RUN_ENGINE_RTL}, {"both", RUN_ENGINE_BOTH}, {0, 0}};
static const CliChoice tl_formats[] = {{"text", TL_FMT_TEXT}, {"csv", TL_FMT_CSV}, {"json", TL_FMT_JSON}, {0, 0}};
static const CliChoice vcd_units[] = {{"fetch", RUN_VCD_FETCH}, {"load", RUN_VCD_LOAD},   {"compute", RUN_VCD_COMPUTE},
                                      {"store", RUN_VCD_STORE}, {"array", RUN_VCD_ARRAY}, {0, 0}};

static const CliOpt run_opts[] = {
    {.id = RUNOPT_STATS, .names = {"--stats"},
     .help = "print the statistics table (cycles, units, traffic, energy, area, layers)"},
    {.id = RUNOPT_JSON, .names = {"--json"}, .metavar = "FILE", .help = "write the statistics as JSON (- for stdout; the text then goes to stderr)"},
    {.id = RUNOPT_CSV, .names = {"--csv"}, .metavar = "FILE",
     .help = "write per-layer statistics as CSV (- for stdout; the text then goes to stderr)"},
    {.id = RUNOPT_TRACE, .names = {"--trace"}, .metavar = "FILE",
     .help = "write a Chrome/Perfetto trace (a track per unit; 1 us = 1 cycle; - for stdout,\n"
             "the text then going to stderr)"},
    {.id = RUNOPT_TIMELINE, .names = {"--timeline"}, .metavar = "FILE",
     .help = "write one row per instruction: fetch, avail, start, ready and end cycles and\n"
             "what it waited for (docs/STATS.md \"Timeline\"); FILE.csv and FILE.json give\n"
             "CSV and JSON, other names an aligned table; - for stdout (the text then goes\n"
             "to stderr)"},
    {.id = RUNOPT_TIMELINE_FORMAT, .names = {"--timeline-format"}, .metavar = "FORMAT", .choices = tl_formats,
     .help = "the --timeline format whatever its name says: text, csv or json"},
    {.id = RUNOPT_ENERGY, .names = {"--energy"}, .metavar = "FILE.json",
     .help = "price energy and area with this table (default: the built-in one,\n"
             "workloads/energy/default.json; docs/PPA.md)"},
    {.id = RUNOPT_MODE, .names = {"--mode"}, .metavar = "MODE", .choices = modes,
     .help = "fast: per-instruction timing (default); detailed: cycle by cycle, PE by PE"},
    {.id = RUNOPT_PE_TRACE, .names = {"--pe-trace"},
     .help = "(detailed) print the array every active cycle of [--from, --to): stationary\n"
             "operands, moving operands, partial sums, ACC writes (docs/VIEW.md); to stdout\n"
             "(stderr when a report goes to stdout)"},
    {.id = RUNOPT_VIEW, .names = {"--view"}, .metavar = "FILE.html",
     .help = "(detailed) write one self-contained HTML page animating the array and the\n"
             "units' instructions over cycles [--from, --to) (docs/VIEW.md); the recorded\n"
             "cycles are capped at --view-max-mb (a warning says where it stopped)"},
    {.id = RUNOPT_VIEW_MAX_MB, .names = {"--view-max-mb"}, .metavar = "N",
     .help = "(--view) stop recording cycles once their data reaches N MB (1 to 4096;\n"
             "default " VIEW_MAX_MB_TEXT "); a browser opens a page of some tens of MB slowly"},
    {.id = RUNOPT_FROM, .names = {"--from", "--vcd-from"}, .metavar = "N",
     .help = "the first cycle --pe-trace, --view and --vcd show (default 0)"},
    {.id = RUNOPT_TO, .names = {"--to", "--vcd-to"}, .metavar = "M",
     .help = "the cycle --pe-trace, --view and --vcd stop before (default: the end of the\n"
             "run)"},
    {.id = RUNOPT_ENGINE, .names = {"--engine"}, .metavar = "ENGINE", .choices = engines,
     .help = "c: the C simulator (default); rtl: the Verilator model of rtl/ (sasim-rtl,\n"
             "built by `make rtl`); both: the RTL and the detailed engine in lockstep,\n"
             "stopping at the first difference"},
    {.id = RUNOPT_VCD, .names = {"--vcd"}, .metavar = "FILE",
     .help = "(rtl) write a waveform (VCD, for GTKWave) of cycles [--from N, --to M)"},
    {.id = RUNOPT_VCD_UNITS, .names = {"--vcd-units"}, .metavar = "LIST", .choices = vcd_units, .flags = CLI_LIST,
     .help = "(rtl) trace only these scopes, comma-separated (docs/RTL.md)"},
    {.id = RUNOPT_MAX_CYCLES, .names = {"--max-cycles"}, .metavar = "N",
     .help = "stop with an error instead of simulating past N cycles"},
    {.id = RUNOPT_THREADS, .names = {"--threads"}, .metavar = "N",
     .help = "(fast mode) host threads computing the values, 1 or 2 (default 2 when the host\n"
             "has two processors online); cycles, stats and outputs do not depend on it"},
    {.id = RUNOPT_ARCH, .names = {"--arch"}, .metavar = "ARCH",
     .help = "refuse to run unless the program was compiled for this arch (a file, or a\n"
             "shipped arch's name: tiny, small, ...)"},
    {.id = RUNOPT_INPUT, .names = {"--input"}, .metavar = "[NAME=]X.npy", .max_count = RUN_MAX_INPUTS,
     .help = "replace input tensor NAME (shape and dtype must match; NAME= may be left out\n"
             "when the program has one input)"},
    {.id = RUNOPT_OUTPUT_DIR, .names = {"--output-dir"}, .metavar = "DIR",
     .help = "write every output tensor as DIR/NAME.npy"},
    {.id = RUNOPT_EXPECT, .names = {"--expect"}, .metavar = "[NAME=]REF.npy", .max_count = RUN_MAX_INPUTS,
     .help = "compare tensor NAME after the run with REF.npy (dtype, shape, every value);\n"
             "on a difference list the first elements that differ and exit with status 3.\n"
             "NAME= may be left out when the program has one output"},
    {.id = RUNOPT_PRINT, .names = {"--print"}, .metavar = "NAME|all", .max_count = RUN_MAX_INPUTS,
     .help = "print tensor NAME after the run as text (numpy-like; big tensors show the\n"
             "ends of each axis); all: every output tensor"},
    {.id = RUNOPT_ALLOW_RACES, .names = {"--allow-races"},
     .help = "run a program the race check refuses (sasim check), warning on stderr;\n"
             "its results may then differ between engines"},
    {.id = RUNOPT_FLIP_WRITE_BIT, .names = {"--flip-write-bit"}, .metavar = "N",
     .help = "(rtl, tests only) flip bit 0 of the Nth DRAM write beat"},
    {.id = RUNOPT_FLIP_ACC_BIT, .names = {"--flip-acc-bit"}, .metavar = "N",
     .help = "(both, tests only) flip bit 0 of the Nth ACC write of the array as the\n"
             "lockstep sees it from the RTL"},
};

const CliCommand sasim_run = {
    .name = "run",
    .args = "PROG.bin",
    .summary = "simulate a program and report cycles, utilization, traffic",
    .about = "Simulates the program; prints its cycles (or the --stats table) and each output tensor.",
    .notes = "Output tensors are listed with their CRC32 either way. PROG.bin - reads the program from stdin.\n"
             "Exit status: 0 success, 1 error, 2 usage, 3 a tensor differs from its --expect reference.",
    .opts = run_opts,
    .n_opts = sizeof run_opts / sizeof run_opts[0],
};

static const CliOpt asm_opts[] = {
    {.id = ASMOPT_OUT, .names = {"-o"}, .metavar = "PROG.bin", .help = "the program binary to write (required)"},
    {.id = ASMOPT_COMPRESS, .names = {"--compress"}, .help = "deflate the data section"},
};

const CliCommand sasim_asm = {
    .name = "asm",
    .args = "PROG.s",
    .summary = "assemble text into a program binary",
    .about = "Assembles the text (syntax: docs/ASM.md, with its loops, conditions, constants and\n"
             "expressions) into a checked program binary (docs/BINARY.md). Errors name the line, and the\n"
             "iteration inside a .rep.",
    .opts = asm_opts,
    .n_opts = sizeof asm_opts / sizeof asm_opts[0],
};

static const CliOpt disasm_opts[] = {
    {.id = DISASMOPT_OUT, .names = {"-o"}, .metavar = "PROG.s", .help = "write the text here (default: stdout)"},
};

const CliCommand sasim_disasm = {
    .name = "disasm",
    .args = "PROG.bin",
    .summary = "print a program binary as assembly text",
    .about = "Prints the program as assembly; `sasim asm` turns it back into the identical binary.",
    .opts = disasm_opts,
    .n_opts = sizeof disasm_opts / sizeof disasm_opts[0],
};

static const CliOpt check_opts[] = {
    {.id = CHECKOPT_JSON, .names = {"--json"}, .metavar = "FILE",
     .help = "also write the reports as JSON (- for stdout, instead of the text)"},
};

const CliCommand sasim_check = {
    .name = "check",
    .args = "PROG.bin|PROG.s",
    .summary = "find races and token misuse without running the program",
    .about = "Checks that tokens order every pair of instructions of different units that touch the same\n"
             "on-chip rows or DRAM bytes, one of them writing (RAW, WAR, WAW), and that no pop goes\n"
             "unmatched, no push comes from an instruction that may end early, and no channel can pass\n"
             "tokens.max. Prints one report per problem with both instructions and a fix (docs/ISA.md,\n"
             "\"Races\"). The check is exact for this ISA: addresses never depend on data.",
    .notes = "A file ending in .s is assembled first, and reports carry its line numbers. Exit status: 0\n"
             "clean, 1 races or token errors (or a program that does not load), 2 usage.",
    .opts = check_opts,
    .n_opts = sizeof check_opts / sizeof check_opts[0],
};

static const CliCommand *const sasim_cmds[] = {&sasim_run, &sasim_check, &sasim_asm, &sasim_disasm};

const CliTool sasim_cli = {
    .name = "sasim",
    .notes = "Exit status: 0 success, 1 error, 2 usage (run: 3 when --expect finds a difference).",
    .cmds = sasim_cmds,
    .n_cmds = sizeof sasim_cmds / sizeof sasim_cmds[0],
};
