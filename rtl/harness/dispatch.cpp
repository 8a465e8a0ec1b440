// dispatch.cpp: sasim-rtl, the RTL engine's entry point. A Verilated model has its array and
// memory sizes built in, so there is one model per arch configuration, in
// $(BUILD)/rtl/<config>/sasim-rtl-model; sasim-rtl reads the program's arch, names its config
// (config_key) and runs its model with the same arguments. It never builds one: a missing model
// is an error that names the command (make rtl-model ARCH=..., which has a size guard and a
// lock, docs/RTL.md). `sasim-rtl --config-key ARCH.json` prints a config's name.
// --vcd needs the model built with Verilator --trace, a separate variant in
// $(BUILD)/rtl-vcd/<config>/ (make rtl-model-vcd), so the untraced models stay small and fast.
// Installed (make install), sasim-rtl is PREFIX/bin/sasim-rtl and the models it was installed
// with are in PREFIX/libexec/sacc/rtl[-vcd]/<config>/: a tree with that directory looks there
// only, and names no build tree or make target of its own (it has none).
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "c_api.h"

#ifndef SA_REPO_ROOT
#define SA_REPO_ROOT "."
#endif

// Everything the RTL is built with (docs/RTL.md): DRAM size stays in the C model; its latency
// sizes the DMA units' reorder buffers (DL).
static std::string config_key(const Arch *a) {
  char b[256];
  snprintf(b, sizeof b, "R%u_C%u_SP%u_WB%u_AC%u_PA%u_B%u_F%u_QL%u_QC%u_QS%u_QF%u_D%u_S%u_T%u_L%u_P%u_G%u_GB%u_GL%u_DL%u",
           a->rows, a->cols, a->spad_rows, a->wbuf_rows, a->acc_rows, a->param_rows, a->bus_bytes, a->dram_inflight,
           a->queue_depth[UNIT_LOAD], a->queue_depth[UNIT_COMPUTE], a->queue_depth[UNIT_STORE],
           a->queue_depth[UNIT_SFU], a->store_fifo_rows, a->post_latency, a->token_max, a->sfu_lanes, a->sfu_latency,
           a->gbuf_bytes, a->gbuf_bus_bytes, a->gbuf_latency, a->dram_latency);
  return b;
}

static std::string self_dir() {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return ".";
  self[n] = 0;
  std::string s(self);
  size_t k = s.rfind('/');
  return k == std::string::npos ? "." : s.substr(0, k);
}

static bool is_dir(const std::string &path) {
  struct stat st;
  return !stat(path.c_str(), &st) && S_ISDIR(st.st_mode);
}

// The configs of the models in dir (one subdirectory each), sorted: "R4_C4_..., R8_C8_...".
static std::string models_in(const std::string &dir) {
  std::string out;
  DIR *dp = opendir(dir.c_str());
  if (!dp) return out;
  std::string names[64];
  int k = 0;
  for (struct dirent *e; (e = readdir(dp)) != nullptr && k < 64;)
    if (e->d_name[0] != '.' && !access((dir + "/" + e->d_name + "/sasim-rtl-model").c_str(), X_OK)) names[k++] = e->d_name;
  closedir(dp);
  for (int i = 1; i < k; i++)
    for (int j = i; j > 0 && names[j] < names[j - 1]; j--) names[j].swap(names[j - 1]);
  for (int i = 0; i < k; i++) out += (i ? ", " : "") + names[i];
  return out;
}

int main(int argc, char **argv) {
  Diag d;
  diag_init(&d);
  if (argc == 3 && !strcmp(argv[1], "--config-key")) {
    Arch a;
    if (arch_load_file(argv[2], &a, &d)) return cli_fail(&d);
    printf("%s\n", config_key(&a).c_str());
    return 0;
  }
  if (argc < 2 || strcmp(argv[1], "run")) {
    fprintf(stderr, "usage: sasim-rtl run PROG.bin [options of sasim run]\n"
                    "       sasim-rtl --config-key ARCH.json\n");
    return 2;
  }
  RunArgs a;
  int rc = run_args_parse(argc - 2, argv + 2, &a);
  if (rc) return rc == 1 ? 0 : rc;
  Program *p = nullptr;
  if (prog_load(a.prog_path, &p, &d)) return cli_fail(&d);
  std::string key = config_key(&p->arch), arch_name = p->arch.name;
  prog_free(p);
  std::string bin = self_dir(), build = bin + "/..";
  char real[4096];
  if (realpath(build.c_str(), real)) build = real;   // make sees one spelling of $(BUILD)
  const bool traced = a.vcd != nullptr;
  const char *kind = traced ? "rtl-vcd" : "rtl";
  const std::string libexec = build + "/libexec/sacc";
  const bool installed = is_dir(libexec);
  const std::string dir = (installed ? libexec : build) + "/" + kind, model = dir + "/" + key + "/sasim-rtl-model";
  if (installed && access(model.c_str(), X_OK)) {
    std::string have = models_in(dir);
    fprintf(stderr,
            "sasim-rtl: error: no %sRTL model for arch \"%s\" (%s) in %s (installed: %s); build it in the source "
            "tree (make %s ARCH=<its arch.json>, docs/RTL.md) and install again (make install PREFIX=%s)\n",
            traced ? "traced " : "", arch_name.c_str(), key.c_str(), dir.c_str(), have.empty() ? "none" : have.c_str(),
            traced ? "rtl-model-vcd" : "rtl-model", build.c_str());
    return 1;
  }
  if (access(model.c_str(), X_OK)) {
    fprintf(stderr,
            "sasim-rtl: error: no %sRTL model for arch \"%s\" (%s); build it first: make %s ARCH=<its arch.json> "
            "(or RTL_CONFIG=%s) BUILD='%s' in %s (docs/RTL.md; a minute for a 32x32 array)\n",
            traced ? "traced " : "", arch_name.c_str(), key.c_str(), traced ? "rtl-model-vcd" : "rtl-model", key.c_str(),
            build.c_str(), SA_REPO_ROOT);
    return 1;
  }
  argv[0] = const_cast<char *>(model.c_str());
  execv(model.c_str(), argv);
  fprintf(stderr, "sasim-rtl: error: cannot run %s: %s\n", model.c_str(), strerror(errno));
  return 1;
}
