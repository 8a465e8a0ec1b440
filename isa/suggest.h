// suggest.h: "did you mean X?" for a misspelt word: an edit distance, and the nearest of the
// candidates offered one by one. The option parser (cliopt.c) and the assembler (asm.c: mnemonics
// and operands) use it.
#ifndef SA_SUGGEST_H
#define SA_SUGGEST_H

// Edit distance: insertions, deletions, substitutions and swaps of neighbours count 1 each;
// strings longer than 63 are far from everything. fold: compare letters case-insensitively.
int suggest_distance(const char *a, const char *b, int fold);

// The nearest candidate to word so far (case-insensitive), for suggest_result.
typedef struct {
  const char *word;
  const char *best;   // NULL until a candidate is offered
  int best_d;
} Suggest;

void suggest_init(Suggest *s, const char *word);
void suggest_offer(Suggest *s, const char *candidate);   // NULL is ignored
// The nearest candidate when it is a likely misspelling (at most 1 edit for a word shorter than 8
// characters, 2 for a longer one; edits fewer than a third of the word's characters and than the
// candidate's), else NULL.
const char *suggest_result(const Suggest *s);

#endif
