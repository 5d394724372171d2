/* SPDX-License-Identifier: MIT */
/* Word-sequence matching; see quote_match.h. Pages are capped in size
 * (fetch.h), quotes by the metadata schema (4 KiB), so the exact search is
 * a plain scan and the closest passage a sliding window over word ids. */
#include "quote_match.h"

#include "utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct word {
  size_t start, end;
} word;

typedef struct words {
  word *at;
  size_t n, cap;
} words;

/* Letters and digits: ASCII ones, and non-ASCII code points outside the
 * blocks of punctuation, symbols and spaces that pages put between words. */
static int word_char(unsigned cp) {
  if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  if (cp < 0xc0 || cp == 0xd7 || cp == 0xf7) return 0;                   /* Latin-1 punctuation and signs */
  if (cp >= 0x2000 && cp <= 0x2bff) return 0;                            /* punctuation, symbols, arrows, shapes */
  if (cp >= 0x2e00 && cp <= 0x2e7f) return 0;                            /* supplemental punctuation */
  if (cp >= 0x3000 && cp <= 0x303f) return 0;                            /* CJK punctuation */
  if (cp >= 0xfe10 && cp <= 0xfe6f) return 0;                            /* vertical and small forms */
  if (cp >= 0xff00 && cp <= 0xff0f) return 0;                            /* fullwidth punctuation */
  if (cp == SRC_REPLACEMENT || (cp >= 0xe000 && cp <= 0xf8ff)) return 0; /* unreadable, private use */
  return 1;
}

static int split_words(const char *text, size_t len, words *out) {
  memset(out, 0, sizeof *out);
  size_t i = 0;
  while (i < len) {
    unsigned cp;
    size_t n = src_utf8_next(text + i, len - i, &cp);
    if (!word_char(cp)) {
      i += n;
      continue;
    }
    size_t start = i;
    while (i < len) {
      n = src_utf8_next(text + i, len - i, &cp);
      if (!word_char(cp)) break;
      i += n;
    }
    if (out->n == out->cap) {
      size_t cap = out->cap ? out->cap * 2 : 64;
      word *grown = realloc(out->at, cap * sizeof *grown);
      if (!grown) {
        free(out->at);
        return -1;
      }
      out->at = grown;
      out->cap = cap;
    }
    out->at[out->n++] = (word){start, i};
  }
  return 0;
}

static char lower(char c) {
  return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static int same_word(const char *a, word wa, const char *b, word wb) {
  size_t n = wa.end - wa.start;
  if (n != wb.end - wb.start) return 0;
  for (size_t i = 0; i < n; i++)
    if (lower(a[wa.start + i]) != lower(b[wb.start + i])) return 0;
  return 1;
}

static uint64_t word_hash(const char *text, word w) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = w.start; i < w.end; i++) h = (h ^ (unsigned char)lower(text[i])) * 1099511628211ull;
  return h;
}

/* The quote's distinct words in an open-addressing table: page words are
 * mapped to the id of the equal quote word, or -1. */
typedef struct vocab {
  const char *text;
  word *distinct; /* id -> a word of the quote */
  size_t n_distinct;
  long *slots; /* id, or -1 for empty */
  size_t mask;
} vocab;

static long vocab_find(const vocab *v, const char *text, word w, uint64_t h) {
  for (size_t s = (size_t)h & v->mask;; s = (s + 1) & v->mask) {
    long id = v->slots[s];
    if (id < 0) return -1;
    if (same_word(v->text, v->distinct[id], text, w)) return id;
  }
}

/* Builds the vocabulary; quote_ids[i] gets the id of the quote's i-th word. */
static int vocab_build(vocab *v, const char *quote, const words *q, long *quote_ids) {
  size_t size = 16;
  while (size < q->n * 2) size *= 2;
  v->text = quote;
  v->mask = size - 1;
  v->slots = malloc(size * sizeof *v->slots);
  v->distinct = malloc((q->n ? q->n : 1) * sizeof *v->distinct);
  v->n_distinct = 0;
  if (!v->slots || !v->distinct) return -1;
  for (size_t s = 0; s < size; s++) v->slots[s] = -1;
  for (size_t i = 0; i < q->n; i++) {
    uint64_t h = word_hash(quote, q->at[i]);
    long id = vocab_find(v, quote, q->at[i], h);
    if (id < 0) {
      id = (long)v->n_distinct++;
      v->distinct[id] = q->at[i];
      size_t s = (size_t)h & v->mask;
      while (v->slots[s] >= 0) s = (s + 1) & v->mask;
      v->slots[s] = id;
    }
    quote_ids[i] = id;
  }
  return 0;
}

static void vocab_free(vocab *v) {
  free(v->slots);
  free(v->distinct);
}

static int exact(const char *page, const words *p, const char *quote, const words *q, size_t *at) {
  if (q->n == 0 || p->n < q->n) return 0;
  for (size_t i = 0; i + q->n <= p->n; i++) {
    size_t k = 0;
    while (k < q->n && same_word(page, p->at[i + k], quote, q->at[k])) k++;
    if (k == q->n) {
      *at = i;
      return 1;
    }
  }
  return 0;
}

/* The window of q->n page words (the whole page if shorter) sharing the
 * most words with the quote; the first such window wins, and words at its
 * edges that the quote does not have are trimmed off. */
static int closest(const char *page, const words *p, const char *quote, const words *q, size_t *best_at,
                   size_t *best_count, size_t *best_matched) {
  *best_at = 0;
  *best_count = 0;
  *best_matched = 0;
  if (q->n == 0 || p->n == 0) return 0;
  long *quote_ids = malloc(q->n * sizeof *quote_ids);
  long *page_ids = malloc(p->n * sizeof *page_ids);
  vocab v = {0};
  size_t *need = NULL, *have = NULL;
  int rc = -1;
  if (!quote_ids || !page_ids || vocab_build(&v, quote, q, quote_ids) != 0) goto done;
  need = calloc(v.n_distinct, sizeof *need);
  have = calloc(v.n_distinct, sizeof *have);
  if (!need || !have) goto done;
  for (size_t i = 0; i < q->n; i++) need[quote_ids[i]]++;
  for (size_t i = 0; i < p->n; i++) page_ids[i] = vocab_find(&v, page, p->at[i], word_hash(page, p->at[i]));

  size_t window = q->n < p->n ? q->n : p->n, matched = 0;
  for (size_t i = 0; i < p->n; i++) {
    long in = page_ids[i];
    if (in >= 0 && have[in]++ < need[in]) matched++;
    if (i >= window) {
      long out = page_ids[i - window];
      if (out >= 0 && --have[out] < need[out]) matched--;
    }
    if (i + 1 >= window && matched > *best_matched) {
      *best_matched = matched;
      *best_at = i + 1 - window;
      *best_count = window;
    }
  }
  while (*best_count > 0 && page_ids[*best_at] < 0) {
    (*best_at)++;
    (*best_count)--;
  }
  while (*best_count > 0 && page_ids[*best_at + *best_count - 1] < 0) (*best_count)--;
  rc = 0;
done:
  free(need);
  free(have);
  vocab_free(&v);
  free(quote_ids);
  free(page_ids);
  return rc;
}

int src_quote_match(const char *page, size_t page_len, const char *quote, size_t quote_len, src_match *out) {
  memset(out, 0, sizeof *out);
  words p, q;
  if (split_words(quote, quote_len, &q) != 0) return -1;
  if (split_words(page, page_len, &p) != 0) {
    free(q.at);
    return -1;
  }
  out->quote_words = q.n;
  size_t at = 0, count = 0, matched = 0;
  int rc = 0;
  if (exact(page, &p, quote, &q, &at)) {
    out->found = 1;
    out->matched_words = q.n;
    count = q.n;
  } else if (closest(page, &p, quote, &q, &at, &count, &matched) != 0) {
    rc = -1;
  } else {
    out->matched_words = matched;
  }
  if (rc == 0 && count > 0) {
    out->start = p.at[at].start;
    out->end = p.at[at + count - 1].end;
  }
  free(p.at);
  free(q.at);
  return rc;
}
