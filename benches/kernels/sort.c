/* Sorting: n pseudo-random u32 keys sorted by quicksort (median of three,
 * insertion sort for short ranges, recursion on the smaller side), then a
 * fresh fill sorted by heapsort. Branchy compare/swap code with data-dependent
 * memory access. The checksum weighs every element by its position, and
 * poisons it if an array came out unsorted. */
#include "kernel.h"

#define BENCH_N 1500000
#define TEST_N 5000

#define MAXN (1u << 22)
static uint32_t keys[MAXN];

static void fill(uint32_t n, uint32_t seed) {
  for (uint32_t i = 0; i < n; i++) keys[i] = lcg_next(&seed);
}

static inline void swap(uint32_t *a, uint32_t *b) {
  uint32_t t = *a;
  *a = *b;
  *b = t;
}

static void insertion_sort(uint32_t *a, uint32_t n) {
  for (uint32_t i = 1; i < n; i++) {
    uint32_t v = a[i], j = i;
    while (j > 0 && a[j - 1] > v) {
      a[j] = a[j - 1];
      j--;
    }
    a[j] = v;
  }
}

static void quicksort(uint32_t *a, uint32_t n) {
  while (n > 16) {
    uint32_t mid = n / 2, last = n - 1;
    if (a[mid] < a[0]) swap(&a[mid], &a[0]);
    if (a[last] < a[0]) swap(&a[last], &a[0]);
    if (a[last] < a[mid]) swap(&a[last], &a[mid]);
    uint32_t pivot = a[mid];
    uint32_t i = 0, j = last;
    for (;;) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i >= j) break;
      swap(&a[i], &a[j]);
      i++;
      j--;
    }
    /* a[0..=j] <= pivot <= a[j+1..n] */
    uint32_t left = j + 1, right = n - left;
    if (left < right) {
      quicksort(a, left);
      a += left;
      n = right;
    } else {
      quicksort(a + left, right);
      n = left;
    }
  }
  insertion_sort(a, n);
}

static void sift_down(uint32_t *a, uint32_t root, uint32_t n) {
  for (;;) {
    uint32_t child = 2 * root + 1;
    if (child >= n) return;
    if (child + 1 < n && a[child + 1] > a[child]) child++;
    if (a[root] >= a[child]) return;
    swap(&a[root], &a[child]);
    root = child;
  }
}

static void heapsort(uint32_t *a, uint32_t n) {
  for (uint32_t i = n / 2; i-- > 0;) sift_down(a, i, n);
  for (uint32_t end = n; end-- > 1;) {
    swap(&a[0], &a[end]);
    sift_down(a, 0, end);
  }
}

static uint64_t digest(uint32_t n) {
  uint64_t sum = 0;
  uint32_t sorted = 1;
  for (uint32_t i = 0; i < n; i++) {
    sum += (uint64_t)keys[i] * (i + 1);
    if (i > 0 && keys[i - 1] > keys[i]) sorted = 0;
  }
  return sorted ? sum : sum ^ 0xbad5047ull;
}

uint64_t run(uint32_t n) {
  if (n > MAXN) n = MAXN;
  fill(n, 0xc0ffee + n);
  quicksort(keys, n);
  uint64_t check = mix(0, digest(n));
  fill(n, 0xbeef + n);
  heapsort(keys, n);
  return mix(check, digest(n));
}
