// suggest.c: edit distance and the nearest candidate for "did you mean" (see suggest.h).
#include "suggest.h"

#include <ctype.h>
#include <string.h>

static int same(char x, char y, int fold) {
  return fold ? tolower((unsigned char)x) == tolower((unsigned char)y) : x == y;
}

int suggest_distance(const char *a, const char *b, int fold) {
  size_t n = strlen(a), m = strlen(b);
  if (n > 63 || m > 63) return 1000;
  int dist[64][64];   // dist[i][j]: a's first i characters against b's first j
  for (size_t i = 0; i <= n; i++)
    for (size_t j = 0; j <= m; j++) {
      if (!i || !j) {
        dist[i][j] = (int)(i + j);
        continue;
      }
      int best = dist[i - 1][j - 1] + !same(a[i - 1], b[j - 1], fold);
      if (dist[i - 1][j] + 1 < best) best = dist[i - 1][j] + 1;
      if (dist[i][j - 1] + 1 < best) best = dist[i][j - 1] + 1;
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2], fold) && same(a[i - 2], b[j - 1], fold) &&
          dist[i - 2][j - 2] + 1 < best)
        best = dist[i - 2][j - 2] + 1;   // two neighbours swapped
      dist[i][j] = best;
    }
  return dist[n][m];
}

void suggest_init(Suggest *s, const char *word) {
  s->word = word;
  s->best = NULL;
  s->best_d = 1000;
}

void suggest_offer(Suggest *s, const char *candidate) {
  if (!candidate) return;
  int d = suggest_distance(s->word, candidate, 1);
  if (d < s->best_d) s->best_d = d, s->best = candidate;
}

const char *suggest_result(const Suggest *s) {
  if (!s->best) return NULL;
  int len = (int)strlen(s->word), limit = len < 8 ? 1 : 2;
  // 3 * d < len: a 3-letter word one edit from another ("dst", "src") is no likely misspelling
  return s->best_d <= limit && 3 * s->best_d < len && s->best_d < (int)strlen(s->best) ? s->best : NULL;
}
