// cliopt.c: the table-driven option parser and help of sacc and sasim (see cliopt.h). The tables
// themselves live with each tool (compiler/sacc_cli.c, sim/sasim_cli.c); this file knows no option.
#include "cliopt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "suggest.h"

#define HELP_COL 24   // where an option's help text starts in --help

int cli_is_help(const char *word) { return !strcmp(word, "-h") || !strcmp(word, "--help"); }

int cli_distance(const char *a, const char *b) { return suggest_distance(a, b, 0); }

void cli_init(CliParser *p, const CliTool *tool, const CliCommand *cmd, int argc, char **argv) {
  memset(p, 0, sizeof *p);
  p->tool = tool;
  p->cmd = cmd;
  p->argc = argc;
  p->argv = argv;
  diag_init(&p->diag);
}

static CliStatus verror(CliParser *p, const char *fmt, va_list ap) {
  char msg[400];
  vsnprintf(msg, sizeof msg, fmt, ap);
  diag_error(&p->diag, "%s: %s: %s", p->tool->name, p->cmd->name, msg);
  return CLI_ERROR;
}

CliStatus cli_error(CliParser *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verror(p, fmt, ap);
  va_end(ap);
  return CLI_ERROR;
}

// "a, b or c" from a choice list.
static void choice_list(const CliChoice *c, const char *sep, const char *last, char *out, size_t size) {
  size_t len = 0;
  out[0] = 0;
  for (int i = 0; c[i].name && len < size; i++)
    len += (size_t)snprintf(out + len, size - len, "%s%s", i == 0 ? "" : c[i + 1].name ? sep : last, c[i].name);
}

CliStatus cli_bad_value(CliParser *p, const char *what) {
  return cli_error(p, "%s: expected %s, got '%s'", p->spelling, what, p->value);
}

CliStatus cli_uint(CliParser *p, unsigned long long min, unsigned long long *out) {
  const char *s = p->value;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || !*s || s[0] < '0' || s[0] > '9' || v < min) {
    char what[64];
    if (min == 0) snprintf(what, sizeof what, "a non-negative whole number");
    else if (min == 1) snprintf(what, sizeof what, "a positive whole number");
    else snprintf(what, sizeof what, "a whole number >= %llu", min);
    return cli_bad_value(p, what);
  }
  *out = v;
  return CLI_OPTION;
}

// Is the n characters at s one of the choices? Sets *value.
static int pick_choice(const CliChoice *c, const char *s, size_t n, int *value) {
  for (; c->name; c++)
    if (strlen(c->name) == n && !strncmp(c->name, s, n)) return *value = c->value, 1;
  return 0;
}

// A comma-separated list of choices, none empty; *value ORs theirs.
static int pick_list(const CliChoice *c, const char *s, int *value) {
  *value = 0;
  for (;;) {
    size_t n = strcspn(s, ",");
    int v;
    if (!pick_choice(c, s, n, &v)) return 0;
    *value |= v;
    if (!s[n]) return 1;
    s += n + 1;
  }
}

static int opt_has_name(const CliOpt *o, const char *name, size_t len) {
  for (int k = 0; k < CLI_MAX_NAMES && o->names[k]; k++)
    if (strlen(o->names[k]) == len && !strncmp(o->names[k], name, len)) return 1;
  return 0;
}

static const CliOpt *find_opt(const CliCommand *c, const char *name, size_t len) {
  for (int i = 0; i < c->n_opts; i++)
    if (opt_has_name(&c->opts[i], name, len)) return &c->opts[i];
  return NULL;
}

// The unknown option's message: the commands that take it when others do, else the closest
// spelling of this command (a typo, or a unique prefix).
static CliStatus unknown_option(CliParser *p, const char *word, size_t len) {
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), word);
  char others[200] = "";
  size_t used = 0;
  int n = 0;
  for (int c = 0; c < p->tool->n_cmds; c++) {
    const CliCommand *oc = p->tool->cmds[c];
    if (oc != p->cmd && find_opt(oc, name, strlen(name)) && used < sizeof others)
      used += (size_t)snprintf(others + used, sizeof others - used, "%s%s %s", n++ ? " and " : "", p->tool->name,
                               oc->name);
  }
  if (n)
    return cli_error(p, "unknown option '%s' (%s take%s it, not %s %s)", name, others, n > 1 ? "" : "s",
                     p->tool->name, p->cmd->name);
  const char *best = NULL, *prefix = NULL;
  int best_d = 1000, prefix_hits = 0;
  for (int i = 0; i < p->cmd->n_opts; i++)
    for (int k = 0; k < CLI_MAX_NAMES && p->cmd->opts[i].names[k]; k++) {
      const char *s = p->cmd->opts[i].names[k];
      int d = cli_distance(name, s);
      if (d < best_d) best_d = d, best = s;
      if (strlen(name) >= 4 && !strncmp(s, name, strlen(name))) prefix_hits++, prefix = s;
    }
  int limit = strlen(name) < 8 ? 1 : 2;   // "--fats" is one swap from "--fast"; "--dataflw" one letter short
  if (best && best_d <= limit) return cli_error(p, "unknown option '%s' (did you mean %s?)", name, best);
  if (prefix_hits == 1) return cli_error(p, "unknown option '%s' (did you mean %s?)", name, prefix);
  return cli_error(p, "unknown option '%s'", name);
}

CliStatus cli_next(CliParser *p) {
  p->opt = NULL;
  p->spelling = p->value = NULL;
  p->choice = 0;
  while (p->next < p->argc) {
    const char *w = p->argv[p->next++];
    if (!p->options_done && !strcmp(w, "--")) {
      p->options_done = 1;
      continue;
    }
    if (p->options_done || w[0] != '-' || !w[1]) {   // "-" alone is stdin or stdout: an argument
      if (++p->n_args > 1)
        return cli_error(p, "unexpected argument '%s' (%s %s takes one %s)", w, p->tool->name, p->cmd->name,
                         p->cmd->args ? p->cmd->args : "argument");
      p->value = w;
      return CLI_ARG;
    }
    if (cli_is_help(w)) return CLI_HELP;
    const char *eq = w[1] == '-' ? strchr(w, '=') : NULL;   // --name=value
    size_t len = eq ? (size_t)(eq - w) : strlen(w);
    const CliOpt *o = find_opt(p->cmd, w, len);
    if (!o) return unknown_option(p, w, len);
    p->opt = o;
    p->spelling = o->names[0];
    for (int k = 0; k < CLI_MAX_NAMES && o->names[k]; k++)
      if (strlen(o->names[k]) == len && !strncmp(o->names[k], w, len)) p->spelling = o->names[k];
    if (!o->metavar && eq) return cli_error(p, "%s takes no value (got '%s')", p->spelling, eq + 1);
    if (o->metavar) {
      if (eq) p->value = eq + 1;
      else if (p->next < p->argc) p->value = p->argv[p->next++];
      else return cli_error(p, "%s needs a value (%s)", p->spelling, o->metavar);
    }
    int idx = (int)(o - p->cmd->opts);
    int max = o->max_count > 1 ? o->max_count : 1;
    if (p->count[idx] >= max) {
      if (max == 1) return cli_error(p, "%s given twice", p->spelling);
      return cli_error(p, "%s given more than %d times", p->spelling, max);
    }
    p->count[idx]++;
    int ok = 1;
    if (o->choices && p->value && (o->flags & CLI_LIST)) ok = pick_list(o->choices, p->value, &p->choice);
    else if (o->choices && p->value) ok = pick_choice(o->choices, p->value, strlen(p->value), &p->choice);
    if (!ok) {
      char list[200], what[240];
      choice_list(o->choices, ", ", " or ", list, sizeof list);
      if (o->flags & CLI_LIST) snprintf(what, sizeof what, "a comma-separated list of %s", list);
      else snprintf(what, sizeof what, "%s", list);
      return cli_bad_value(p, what);
    }
    return CLI_OPTION;
  }
  return CLI_END;
}

static void usage_line(FILE *f, const CliTool *t, const CliCommand *c) {
  fprintf(f, "usage: %s %s%s%s [options]\n", t->name, c->name, c->args ? " " : "", c->args ? c->args : "");
}

int cli_finish(const CliParser *p, CliStatus st) {
  if (st == CLI_HELP) {
    cli_help_command(stdout, p->tool, p->cmd);
    return 0;
  }
  diag_print(&p->diag);
  usage_line(stderr, p->tool, p->cmd);
  fprintf(stderr, "`%s %s --help` lists the options\n", p->tool->name, p->cmd->name);
  return 2;
}

const CliCommand *cli_find_command(const CliTool *t, const char *name, Diag *d) {
  const char *best = NULL;
  int best_d = 1000;
  for (int i = 0; i < t->n_cmds; i++) {
    if (!strcmp(t->cmds[i]->name, name)) return t->cmds[i];
    int dist = cli_distance(name, t->cmds[i]->name);
    if (dist < best_d) best_d = dist, best = t->cmds[i]->name;
  }
  if (best && best_d <= 2 && best_d < (int)strlen(best))
    diag_error(d, "%s: unknown command '%s' (did you mean %s?)", t->name, name, best);
  else
    diag_error(d, "%s: unknown command '%s'", t->name, name);
  return NULL;
}

// Prints text whose lines are separated by '\n', each indented by indent spaces (the first by
// first); at least one line.
static void indented(FILE *f, const char *text, int first, int indent) {
  if (!*text) fputc('\n', f);
  int pad = first;
  for (const char *s = text; *s;) {
    size_t n = strcspn(s, "\n");
    fprintf(f, "%*s%.*s\n", pad, "", (int)n, s);
    pad = indent;
    s += n;
    if (*s) s++;
  }
}

// An option's left column: "-o, --output OUT", choices as "ws|os|is", "..." when repeatable.
static void opt_label(const CliOpt *o, char *out, size_t size) {
  size_t len = 0;
  for (int k = 0; k < CLI_MAX_NAMES && o->names[k] && len < size; k++)
    len += (size_t)snprintf(out + len, size - len, "%s%s", k ? ", " : "", o->names[k]);
  if (o->choices && len < size) {
    out[len++] = ' ';
    const char *sep = o->flags & CLI_LIST ? "," : "|";
    choice_list(o->choices, sep, sep, out + len, size - len);
  } else if (o->metavar && len < size) {
    snprintf(out + len, size - len, " %s", o->metavar);
  }
  len = strlen(out);
  if (o->max_count > 1 && len < size) snprintf(out + len, size - len, "...");
}

static void opt_help(FILE *f, const char *label, const char *help) {
  int n = (int)strlen(label) + 2;
  if (n < HELP_COL - 1) {
    fprintf(f, "  %s", label);
    indented(f, help, HELP_COL - n, HELP_COL);
  } else {   // too wide: the text starts on the next line
    fprintf(f, "  %s\n", label);
    indented(f, help, HELP_COL, HELP_COL);
  }
}

void cli_help_command(FILE *f, const CliTool *t, const CliCommand *c) {
  usage_line(f, t, c);
  if (c->about) indented(f, c->about, 2, 2);
  fprintf(f, "\noptions:\n");
  char label[200];
  for (int i = 0; i < c->n_opts; i++) {
    opt_label(&c->opts[i], label, sizeof label);
    opt_help(f, label, c->opts[i].help ? c->opts[i].help : "");
  }
  opt_help(f, "-h, --help", "print this help");
  if (c->notes) {
    fputc('\n', f);
    indented(f, c->notes, 0, 0);
  }
}

void cli_help_tool(FILE *f, const CliTool *t) {
  fprintf(f, "usage: %s <command> [options]\n\ncommands:\n", t->name);
  char label[120];
  for (int i = 0; i < t->n_cmds; i++) {
    const CliCommand *c = t->cmds[i];
    snprintf(label, sizeof label, "%s%s%s", c->name, c->args ? " " : "", c->args ? c->args : "");
    fprintf(f, "  %-18s%s%s\n", label, strlen(label) < 18 ? "" : " ", c->summary);
  }
  fprintf(f, "\n`%s <command> --help` (or `%s help <command>`) describes each command and its options.\n", t->name,
          t->name);
  if (t->notes) indented(f, t->notes, 0, 0);
}

// Does text hold before + word, with word ending there (at a space, comma, '|' or the line's end)?
static int has_word(const char *text, const char *before, const char *word) {
  char key[128];
  snprintf(key, sizeof key, "%s%s", before, word);
  size_t n = strlen(key);
  for (const char *s = strstr(text, key); s; s = strstr(s + 1, key))
    if (s[n] == 0 || strchr(" ,|\n", s[n])) return 1;
  return 0;
}

static int check_command(const CliTool *t, const CliCommand *c, Diag *d) {
  int rc = 0;
  if (c->n_opts > CLI_MAX_OPTS) return diag_error(d, "%s %s: more than %d options", t->name, c->name, CLI_MAX_OPTS);
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  if (!f) return diag_error(d, "%s %s: out of memory", t->name, c->name);
  cli_help_command(f, t, c);
  if (fclose(f) || !text) return diag_error(d, "%s %s: out of memory", t->name, c->name);
  // only the option lines count: the about text and the notes may name options too
  char *rows = strstr(text, "\noptions:\n"), *end = rows ? strstr(rows, "\n  -h, --help ") : NULL;
  if (!rows || !end) {
    free(text);
    return diag_error(d, "%s %s: --help has no options section", t->name, c->name);
  }
  *end = 0;
  for (int i = 0; i < c->n_opts; i++) {
    const CliOpt *o = &c->opts[i];
    if (!o->names[0] || !o->help || !o->help[0])
      rc = diag_error(d, "%s %s: row %d has no name or no help", t->name, c->name, i);
    if (o->choices && !o->metavar)
      rc = diag_error(d, "%s %s: %s has choices but no metavariable", t->name, c->name, o->names[0]);
    for (int j = 0; j < i; j++)
      if (c->opts[j].id == o->id) rc = diag_error(d, "%s %s: rows %d and %d share an id", t->name, c->name, j, i);
    for (int k = 0; k < CLI_MAX_NAMES && o->names[k]; k++) {
      const char *s = o->names[k];
      if (s[0] != '-' || cli_is_help(s) || !strcmp(s, "--") || strchr(s, '='))
        rc = diag_error(d, "%s %s: bad spelling '%s'", t->name, c->name, s);
      if (find_opt(c, s, strlen(s)) != o) rc = diag_error(d, "%s %s: %s spelt twice", t->name, c->name, s);
      if (!has_word(rows, "\n  ", s) && !has_word(rows, ", ", s))
        rc = diag_error(d, "%s %s: %s missing from --help", t->name, c->name, s);
      char *argv[2] = {(char *)s, (char *)(o->choices ? o->choices[0].name : "1")};
      CliParser p;
      cli_init(&p, t, c, o->metavar ? 2 : 1, argv);
      if (cli_next(&p) != CLI_OPTION || p.opt != o)
        rc = diag_error(d, "%s %s: %s does not parse: %s", t->name, c->name, s, diag_first(&p.diag));
    }
    for (const CliChoice *ch = o->choices; ch && ch->name; ch++) {   // "a|b|c" or "a,b,c"
      char first[80], first_list[80];
      snprintf(first, sizeof first, " %s|", ch->name);
      snprintf(first_list, sizeof first_list, " %s,", ch->name);
      if (!strstr(rows, first) && !strstr(rows, first_list) && !has_word(rows, "|", ch->name) &&
          !has_word(rows, ",", ch->name))
        rc = diag_error(d, "%s %s: %s %s missing from --help", t->name, c->name, o->names[0], ch->name);
    }
  }
  free(text);
  return rc;
}

int cli_check_tool(const CliTool *t, Diag *d) {
  int rc = 0;
  for (int i = 0; i < t->n_cmds; i++) {
    if (check_command(t, t->cmds[i], d)) rc = -1;
    for (int j = 0; j < i; j++)
      if (!strcmp(t->cmds[i]->name, t->cmds[j]->name))
        rc = diag_error(d, "%s: command %s twice", t->name, t->cmds[i]->name);
  }
  return rc;
}
