// grow.h: the capacity of a growing array, overflow-checked. Every doubling array in isa/, sim/
// and compiler/ takes its next capacity from grow_cap(), so none can wrap its counter (a uint32
// `cap *= 2` is 0 at 2^31 and loops forever) or ask realloc for a size that wrapped.
#ifndef SA_GROW_H
#define SA_GROW_H

#include <stddef.h>
#include <stdint.h>

// The capacity to grow to so that `need` elements fit: cap doubled until it does (first when cap
// is 0), clamped to max_elems and to SIZE_MAX / elem_bytes. Returns 0 when need does not fit
// under those limits (the caller reports out of memory). need <= cap returns cap.
static inline size_t grow_cap(size_t cap, size_t need, size_t first, size_t elem_bytes, size_t max_elems) {
  size_t limit = SIZE_MAX / (elem_bytes ? elem_bytes : 1);
  if (max_elems < limit) limit = max_elems;
  if (need <= cap) return cap;
  if (need > limit) return 0;
  size_t nc = cap ? cap : first;
  while (nc < need) nc = nc > limit / 2 ? limit : nc * 2;
  return nc < limit ? nc : limit;
}

#endif
