// bits.h: reading and writing bit fields of Verilator ports whatever their C++ type (CData ...
// QData for up to 64 bits, VlWide<N> above), so the harness works for every model configuration.
#ifndef SA_RTL_BITS_H
#define SA_RTL_BITS_H

#include <cstddef>
#include <cstdint>

#include "verilated.h"

template <typename T>
static inline uint64_t get_bits(const T &v, unsigned lsb, unsigned w) {
  uint64_t x = (uint64_t)v >> lsb;
  return w >= 64 ? x : x & ((1ull << w) - 1);
}

template <std::size_t N>
static inline uint64_t get_bits(const VlWide<N> &v, unsigned lsb, unsigned w) {
  // Word by word: the harness reads a dozen wide probe ports every cycle.
  unsigned i = lsb / 32, got = 32 - lsb % 32;
  uint64_t x = i < N ? v[i] >> (lsb % 32) : 0;
  for (unsigned k = i + 1; got < w && k < N; k++, got += 32) x |= (uint64_t)v[k] << got;
  return w >= 64 ? x : x & ((1ull << w) - 1);
}

template <typename T>
static inline void set_bytes(T &v, const uint8_t *bytes, unsigned n) {
  uint64_t x = 0;
  for (unsigned i = 0; i < n && i < 8; i++) x |= (uint64_t)bytes[i] << (8 * i);
  v = (T)x;
}

template <std::size_t N>
static inline void set_bytes(VlWide<N> &v, const uint8_t *bytes, unsigned n) {
  for (std::size_t w = 0; w < N; w++) {
    uint32_t x = 0;
    for (unsigned b = 0; b < 4; b++)
      if (4 * w + b < n) x |= (uint32_t)bytes[4 * w + b] << (8 * b);
    v[w] = x;
  }
}

template <typename T>
static inline void get_bytes(const T &v, uint8_t *bytes, unsigned n) {
  for (unsigned i = 0; i < n; i++) bytes[i] = (uint8_t)get_bits(v, 8 * i, 8);
}

#endif
