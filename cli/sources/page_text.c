/* SPDX-License-Identifier: MIT */
/* Page to text; see page_text.h. One pass removes the markup and decodes
 * references into raw text, a second folds that text. The scanner follows
 * the HTML standard where a difference could move words together or apart
 * (quoted attribute values may hold '>', '<' not followed by a tag name is
 * text), and is simple elsewhere: it never builds a tree. */
#include "page_text.h"

#include "buf.h"
#include "entities.h"
#include "utf8.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------- markup */

/* Elements whose content is never shown as text. */
static const char *const hidden_elements[] = {"script", "style",  "template", "svg",      "math",
                                              "iframe", "object", "noembed",  "noframes", NULL};

/* Elements that flow within a line: no word boundary at their tags. */
static const char *const inline_elements[] = {
    "a",      "abbr",   "acronym", "b",   "bdi",  "bdo",  "big",  "cite", "code", "data", "del",   "dfn",
    "em",     "font",   "i",       "ins", "kbd",  "mark", "nobr", "q",    "s",    "samp", "small", "span",
    "strike", "strong", "sub",     "sup", "time", "tt",   "u",    "var",  "wbr",  NULL};

static int name_in(const char *name, size_t len, const char *const *list) {
  for (size_t i = 0; list[i]; i++)
    if (strlen(list[i]) == len && strncasecmp(list[i], name, len) == 0) return 1;
  return 0;
}

static int ascii_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int tag_name_char(char c) {
  return ascii_alpha(c) || (c >= '0' && c <= '9') || c == '-' || c == ':' || c == '_';
}

static int html_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* Index just past the '>' that ends the tag whose attributes start at i,
 * honouring quoted values; len when the page ends first. */
static size_t tag_end(const char *s, size_t len, size_t i) {
  char quote = 0;
  for (; i < len; i++) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      /* Only a value's opening quote counts: after '=' and blanks. */
      size_t j = i;
      while (j > 0 && html_space(s[j - 1])) j--;
      if (j > 0 && s[j - 1] == '=') quote = c;
    } else if (c == '>') {
      return i + 1;
    }
  }
  return len;
}

/* Index just past "</name ...>" closing a hidden element opened before i;
 * len when it is never closed (the rest of the page is its content). */
static size_t skip_hidden(const char *s, size_t len, size_t i, const char *name, size_t name_len) {
  for (; i + 2 + name_len <= len; i++) {
    if (s[i] != '<' || s[i + 1] != '/' || strncasecmp(s + i + 2, name, name_len) != 0) continue;
    size_t after = i + 2 + name_len;
    if (after == len || html_space(s[after]) || s[after] == '>' || s[after] == '/') return tag_end(s, len, after);
  }
  return len;
}

/* Decodes the reference at s[i] == '&' into out; returns the index after
 * it, or i + 1 (the '&' kept as text) when it is not one. */
static size_t reference(const char *s, size_t len, size_t i, src_buf *out) {
  size_t j = i + 1;
  if (j < len && s[j] == '#') {
    int hex = j + 1 < len && (s[j + 1] == 'x' || s[j + 1] == 'X');
    j += hex ? 2 : 1;
    unsigned long value = 0;
    size_t digits = 0;
    for (; j < len && (hex ? isxdigit((unsigned char)s[j]) : isdigit((unsigned char)s[j])); j++, digits++) {
      int d = isdigit((unsigned char)s[j]) ? s[j] - '0' : (tolower((unsigned char)s[j]) - 'a' + 10);
      if (value <= 0x10ffff) value = value * (hex ? 16 : 10) + (unsigned long)d; /* saturates past the range */
    }
    if (digits == 0) {
      src_buf_addc(out, '&');
      return i + 1;
    }
    if (j < len && s[j] == ';') j++;
    src_buf_add_cp(out, src_entity_numeric(value));
    return j;
  }
  size_t start = j;
  while (j < len && j - start < 32 && (ascii_alpha(s[j]) || (s[j] >= '0' && s[j] <= '9'))) j++;
  unsigned cp = j < len && s[j] == ';' && j > start ? src_entity_named(s + start, j - start) : 0;
  if (!cp) {
    src_buf_addc(out, '&');
    return i + 1;
  }
  src_buf_add_cp(out, cp);
  return j + 1;
}

/* Handles the '<' at s[i]; returns where scanning continues. */
static size_t markup(const char *s, size_t len, size_t i, src_buf *out) {
  if (i + 3 < len && memcmp(s + i, "<!--", 4) == 0) {
    /* A comment: gone, and no word boundary (browsers show nothing). */
    for (size_t j = i + 4; j + 2 < len; j++)
      if (memcmp(s + j, "-->", 3) == 0) return j + 3;
    return len;
  }
  if (i + 1 < len && (s[i + 1] == '!' || s[i + 1] == '?')) {
    const char *end = memchr(s + i, '>', len - i); /* doctype, CDATA, processing instruction */
    src_buf_addc(out, ' ');
    return end ? (size_t)(end - s) + 1 : len;
  }
  int closing = i + 1 < len && s[i + 1] == '/';
  size_t name = i + 1 + (size_t)closing, j = name;
  if (j >= len || !ascii_alpha(s[j])) {
    src_buf_addc(out, '<'); /* "a < b": text */
    return i + 1;
  }
  while (j < len && tag_name_char(s[j])) j++;
  size_t name_len = j - name;
  size_t after = tag_end(s, len, j);
  if (!name_in(s + name, name_len, inline_elements)) src_buf_addc(out, ' ');
  if (!closing && name_in(s + name, name_len, hidden_elements)) {
    int self_closing = after >= 2 && after <= len && s[after - 1] == '>' && s[after - 2] == '/';
    if (!self_closing) {
      char element[16];
      memcpy(element, s + name, name_len);
      element[name_len] = '\0';
      return skip_hidden(s, len, after, element, name_len);
    }
  }
  return after;
}

static char *strip_markup(const char *s, size_t len, size_t *out_len) {
  src_buf out = {0};
  size_t i = 0;
  while (i < len) {
    /* Copy the run of plain text up to the next '<' or '&' at once. */
    size_t run = i;
    while (run < len && s[run] != '<' && s[run] != '&') run++;
    src_buf_add(&out, s + i, run - i);
    i = run;
    if (i >= len) break;
    i = s[i] == '<' ? markup(s, len, i, &out) : reference(s, len, i, &out);
  }
  return src_buf_take(&out, out_len);
}

/* ------------------------------------------------------------ folding */

enum { FOLD_KEEP, FOLD_SPACE, FOLD_DROP, FOLD_TO };

/* What folding does with code point cp; for FOLD_TO, *to is the ASCII. */
static int fold_class(unsigned cp, const char **to) {
  switch (cp) {
  case '\t':
  case '\n':
  case '\v':
  case '\f':
  case '\r':
  case ' ':
  case 0xa0:
  case 0x1680:
  case 0x2028:
  case 0x2029:
  case 0x202f:
  case 0x205f:
  case 0x3000:
    return FOLD_SPACE;
  case 0xad:   /* soft hyphen */
  case 0x180e: /* Mongolian vowel separator */
  case 0x200b: /* zero-width space, non-joiner, joiner */
  case 0x200c:
  case 0x200d:
  case 0x200e: /* left-to-right and right-to-left marks */
  case 0x200f:
  case 0x2060: /* word joiner */
  case 0xfeff: /* zero-width no-break space (BOM) */
    return FOLD_DROP;
  case 0x2018:
  case 0x2019:
  case 0x201a:
  case 0x201b:
  case 0x2032:
  case 0x2035:
  case 0x02bc:
    *to = "'";
    return FOLD_TO;
  case 0x201c:
  case 0x201d:
  case 0x201e:
  case 0x201f:
  case 0x2033:
  case 0x2036:
  case 0xab:
  case 0xbb:
  case 0x2039:
  case 0x203a:
    *to = "\"";
    return FOLD_TO;
  case 0x2010:
  case 0x2011:
  case 0x2012:
  case 0x2013:
  case 0x2014:
  case 0x2015:
  case 0x2212:
  case 0xfe58:
  case 0xfe63:
  case 0xff0d:
    *to = "-";
    return FOLD_TO;
  case 0x2026:
    *to = "...";
    return FOLD_TO;
  default:
    break;
  }
  if (cp >= 0x2000 && cp <= 0x200a) return FOLD_SPACE;
  /* Bidirectional embeddings, overrides and isolates: invisible, and able
   * to reorder what a terminal shows. */
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) return FOLD_DROP;
  if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) return FOLD_DROP; /* other controls */
  return FOLD_KEEP;
}

/* Folding, or with `typography` 0 only what makes text unsafe to show:
 * controls, invisible and bidirectional characters, malformed bytes and
 * runs of white space. */
static char *fold(const char *text, size_t len, int typography, size_t *out_len) {
  src_buf out = {0};
  int pending_space = 0;
  for (size_t i = 0; i < len;) {
    unsigned cp;
    size_t n = src_utf8_next(text + i, len - i, &cp);
    const char *to = NULL;
    int what = fold_class(cp, &to);
    if (what == FOLD_TO && !typography) what = FOLD_KEEP;
    if (what == FOLD_SPACE) {
      pending_space = out.len > 0;
    } else if (what != FOLD_DROP) {
      if (pending_space) src_buf_addc(&out, ' ');
      pending_space = 0;
      if (what == FOLD_TO)
        src_buf_add(&out, to, strlen(to));
      else if (cp == SRC_REPLACEMENT || n == 1)
        src_buf_add_cp(&out, cp); /* a malformed byte is written as U+FFFD, never copied */
      else
        src_buf_add(&out, text + i, n);
    }
    i += n;
  }
  return src_buf_take(&out, out_len);
}

char *src_text_fold(const char *text, size_t len, size_t *out_len) {
  return fold(text, len, 1, out_len);
}

char *src_text_clean(const char *text, size_t len, size_t *out_len) {
  return fold(text, len, 0, out_len);
}

char *src_page_text(const char *page, size_t len, size_t *out_len) {
  size_t raw_len = 0;
  char *raw = strip_markup(page, len, &raw_len);
  if (!raw) return NULL;
  char *text = src_text_fold(raw, raw_len, out_len);
  free(raw);
  return text;
}
