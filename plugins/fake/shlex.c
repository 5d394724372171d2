/* SPDX-License-Identifier: MIT */
#include "shlex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One word may not exceed this: "X=$X$X" repeated would otherwise double
 * its way through all memory. */
#define WORD_MAX ((size_t)1 << 20)

/* A growable string; `oom` sticks once an allocation failed, `too_long`
 * once the word passed WORD_MAX. */
typedef struct sbuf {
  char *p;
  size_t len;
  size_t cap;
  int oom;
  int too_long;
} sbuf;

static void sb_putn(sbuf *b, const char *s, size_t n) {
  if (b->oom || b->too_long) return;
  if (n > WORD_MAX - b->len) {
    b->too_long = 1;
    return;
  }
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 32;
    while (cap < b->len + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void sb_putc(sbuf *b, char c) {
  sb_putn(b, &c, 1);
}

static int is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}
static int is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_name_char(char c) {
  return is_name_start(c) || (c >= '0' && c <= '9');
}
/* Characters that end an unquoted word. */
static int is_meta(char c) {
  return c == '\0' || is_blank(c) || c == ';' || c == '\n' || c == '&' || c == '|' || c == '>' || c == '<' ||
         c == '(' || c == ')';
}

/* State of the word being read. */
typedef struct word_state {
  sbuf text;
  int quoted;      /* any quoting: an empty result is still a word */
  int name_state;  /* 0: a NAME so far, 1: NAME= seen, 2: not an assignment */
  size_t assign;   /* offset past '=' when name_state == 1 */
  int digits_only; /* unquoted digits only: may be the N of N>FILE */
} word_state;

static int syntax(char *msg, size_t size, const char *what) {
  snprintf(msg, size, "%s", what);
  return FAKE_LEX_SYNTAX;
}

/* Appends a literal character, tracking the assignment/fd state. */
static void word_literal(word_state *w, char c, int quoted) {
  if (w->name_state == 0) {
    if (!quoted && c == '=' && w->text.len > 0) {
      w->name_state = 1;
      w->assign = w->text.len + 1;
    } else if (quoted || !(w->text.len == 0 ? is_name_start(c) : is_name_char(c))) {
      w->name_state = 2;
    }
  }
  if (quoted || c < '0' || c > '9') w->digits_only = 0;
  sb_putc(&w->text, c);
}

/* Expands a variable reference; lx->pos is at '$'. */
static int expand(fake_lexer *lx, fake_lookup_fn lookup, void *user, word_state *w, char *msg, size_t msg_size) {
  const char *s = lx->src;
  size_t p = lx->pos + 1, start, end;
  if (s[p] == '{') {
    start = ++p;
    while (s[p] && s[p] != '}') p++;
    if (!s[p]) return syntax(msg, msg_size, "unterminated ${");
    end = p++;
    int ok = end > start && (end - start == 1 && s[start] == '?' ? 1 : is_name_start(s[start]));
    for (size_t i = start + 1; ok && i < end; i++) ok = is_name_char(s[i]);
    if (!ok) return syntax(msg, msg_size, "bad substitution");
  } else if (s[p] == '?') {
    start = p++;
    end = p;
  } else if (is_name_start(s[p])) {
    start = p;
    while (is_name_char(s[p])) p++;
    end = p;
  } else if (s[p] == '(') {
    return syntax(msg, msg_size, "command substitution $(...) is not supported");
  } else { /* a lone '$' is itself */
    lx->pos = p;
    w->name_state = w->name_state == 1 ? 1 : 2;
    w->digits_only = 0;
    sb_putc(&w->text, '$');
    return FAKE_LEX_OK;
  }
  lx->pos = p;
  char *name = malloc(end - start + 1);
  if (!name) return FAKE_LEX_NOMEM;
  memcpy(name, s + start, end - start);
  name[end - start] = '\0';
  const char *value = lookup ? lookup(user, name) : NULL;
  free(name);
  if (w->name_state == 0) w->name_state = 2;
  w->digits_only = 0;
  if (value) sb_putn(&w->text, value, strlen(value));
  return FAKE_LEX_OK;
}

/* Reads one word; lx->pos is at its first character (not a blank or meta). */
static int lex_word(fake_lexer *lx, fake_lookup_fn lookup, void *user, word_state *w, char *msg, size_t msg_size) {
  const char *s = lx->src;
  memset(w, 0, sizeof *w);
  w->digits_only = 1;
  while (!is_meta(s[lx->pos])) {
    char c = s[lx->pos];
    if (c == '`') return syntax(msg, msg_size, "command substitution `...` is not supported");
    if (c == '\\') {
      if (s[lx->pos + 1] == '\n') { /* line continuation */
        lx->pos += 2;
      } else if (s[lx->pos + 1] == '\0') {
        word_literal(w, '\\', 1);
        lx->pos++;
      } else {
        word_literal(w, s[lx->pos + 1], 1);
        w->quoted = 1;
        lx->pos += 2;
      }
    } else if (c == '\'') {
      size_t p = lx->pos + 1;
      while (s[p] && s[p] != '\'') word_literal(w, s[p++], 1);
      if (!s[p]) return syntax(msg, msg_size, "unterminated single quote");
      w->quoted = 1;
      lx->pos = p + 1;
    } else if (c == '"') {
      lx->pos++;
      for (;;) {
        char d = s[lx->pos];
        if (!d) return syntax(msg, msg_size, "unterminated double quote");
        if (d == '"') break;
        if (d == '`') return syntax(msg, msg_size, "command substitution `...` is not supported");
        if (d == '$') {
          int rc = expand(lx, lookup, user, w, msg, msg_size);
          if (rc != FAKE_LEX_OK) return rc;
          continue;
        }
        if (d == '\\' && s[lx->pos + 1] && strchr("$`\"\\\n", s[lx->pos + 1])) {
          if (s[lx->pos + 1] != '\n') word_literal(w, s[lx->pos + 1], 1);
          lx->pos += 2;
          continue;
        }
        word_literal(w, d, 1);
        lx->pos++;
      }
      w->quoted = 1;
      lx->pos++;
    } else if (c == '$') {
      int rc = expand(lx, lookup, user, w, msg, msg_size);
      if (rc != FAKE_LEX_OK) return rc;
    } else if (c == '#' && w->text.len == 0 && !w->quoted) {
      while (s[lx->pos] && s[lx->pos] != '\n') lx->pos++; /* a comment */
    } else {
      word_literal(w, c, 0);
      lx->pos++;
    }
  }
  if (w->text.len == 0) w->digits_only = 0;
  if (w->text.too_long) return syntax(msg, msg_size, "a word is longer than 1 MiB");
  return w->text.oom ? FAKE_LEX_NOMEM : FAKE_LEX_OK;
}

static int push_word(fake_cmd *cmd, word_state *w) {
  if (cmd->n_words == cmd->cap_words) {
    size_t cap = cmd->cap_words ? cmd->cap_words * 2 : 8;
    fake_word *words = realloc(cmd->words, cap * sizeof *words);
    if (!words) return FAKE_LEX_NOMEM;
    cmd->words = words;
    cmd->cap_words = cap;
  }
  if (!w->text.p && !(w->text.p = strdup(""))) return FAKE_LEX_NOMEM;
  cmd->words[cmd->n_words++] = (fake_word){w->text.p, w->name_state == 1 ? w->assign : 0};
  w->text.p = NULL;
  return FAKE_LEX_OK;
}

static int push_redir(fake_cmd *cmd, fake_redir r) {
  if (cmd->n_redirs == cmd->cap_redirs) {
    size_t cap = cmd->cap_redirs ? cmd->cap_redirs * 2 : 4;
    fake_redir *redirs = realloc(cmd->redirs, cap * sizeof *redirs);
    if (!redirs) return FAKE_LEX_NOMEM;
    cmd->redirs = redirs;
    cmd->cap_redirs = cap;
  }
  cmd->redirs[cmd->n_redirs++] = r;
  return FAKE_LEX_OK;
}

static void skip_blanks(fake_lexer *lx) {
  for (;;) {
    if (is_blank(lx->src[lx->pos]))
      lx->pos++;
    else if (lx->src[lx->pos] == '\\' && lx->src[lx->pos + 1] == '\n')
      lx->pos += 2;
    else
      return;
  }
}

/* Reads a redirection; lx->pos is at '>'. */
static int lex_redirect(fake_lexer *lx, int fd, fake_lookup_fn lookup, void *user, fake_cmd *cmd, char *msg,
                        size_t msg_size) {
  const char *s = lx->src;
  fake_redir r = {.fd = fd, .op = FAKE_REDIR_TRUNC};
  lx->pos++;
  if (s[lx->pos] == '>') {
    r.op = FAKE_REDIR_APPEND;
    lx->pos++;
  } else if (s[lx->pos] == '&') {
    lx->pos++;
    if ((s[lx->pos] != '1' && s[lx->pos] != '2') || !is_meta(s[lx->pos + 1]))
      return syntax(msg, msg_size, "only >&1 and >&2 are supported after >&");
    r.op = FAKE_REDIR_DUP;
    r.dup_fd = s[lx->pos++] - '0';
    return push_redir(cmd, r);
  }
  skip_blanks(lx);
  if (is_meta(s[lx->pos])) return syntax(msg, msg_size, "missing file name after >");
  word_state w;
  int rc = lex_word(lx, lookup, user, &w, msg, msg_size);
  if (rc == FAKE_LEX_OK && w.text.len == 0 && !w.quoted && !cmd->error && !(cmd->error = strdup("ambiguous redirect")))
    rc = FAKE_LEX_NOMEM;
  if (rc == FAKE_LEX_OK && !w.text.p && !(w.text.p = strdup(""))) rc = FAKE_LEX_NOMEM;
  if (rc != FAKE_LEX_OK) {
    free(w.text.p);
    return rc;
  }
  r.path = w.text.p;
  rc = push_redir(cmd, r);
  if (rc != FAKE_LEX_OK) free(r.path);
  return rc;
}

/* Reads a word or an [N]> redirection. */
static int lex_item(fake_lexer *lx, fake_lookup_fn lookup, void *user, fake_cmd *cmd, char *msg, size_t msg_size) {
  if (lx->src[lx->pos] == '>') return lex_redirect(lx, 1, lookup, user, cmd, msg, msg_size);
  word_state w;
  int rc = lex_word(lx, lookup, user, &w, msg, msg_size);
  if (rc == FAKE_LEX_OK && lx->src[lx->pos] == '>' && w.digits_only) {
    int fd = (w.text.len == 1 && (w.text.p[0] == '1' || w.text.p[0] == '2')) ? w.text.p[0] - '0' : 0;
    free(w.text.p);
    if (!fd) return syntax(msg, msg_size, "only file descriptors 1 and 2 can be redirected");
    return lex_redirect(lx, fd, lookup, user, cmd, msg, msg_size);
  }
  if (rc == FAKE_LEX_OK && (w.text.len > 0 || w.quoted)) rc = push_word(cmd, &w);
  free(w.text.p);
  return rc;
}

int sbio__fake_lex_command(fake_lexer *lx, fake_lookup_fn lookup, void *user, fake_cmd *cmd, fake_sep *sep, char *msg,
                           size_t msg_size) {
  const char *s = lx->src;
  *sep = FAKE_SEP_END;
  for (;;) {
    skip_blanks(lx);
    char c = s[lx->pos];
    if (c == '\0') return FAKE_LEX_OK;
    if (c == ';' || c == '\n') {
      lx->pos++;
      *sep = FAKE_SEP_SEQ;
      return FAKE_LEX_OK;
    }
    if ((c == '&' || c == '|') && s[lx->pos + 1] == c) {
      lx->pos += 2;
      *sep = c == '&' ? FAKE_SEP_AND : FAKE_SEP_OR;
      /* Like sh, a command may continue on the next line after && or ||. */
      while (is_blank(s[lx->pos]) || s[lx->pos] == '\n') lx->pos++;
      return FAKE_LEX_OK;
    }
    if (c == '&') return syntax(msg, msg_size, "background jobs (&) are not supported");
    if (c == '|') return syntax(msg, msg_size, "pipes (|) are not supported");
    if (c == '<') return syntax(msg, msg_size, "input redirection (<) is not supported");
    if (c == '(' || c == ')') return syntax(msg, msg_size, "subshells ( ) are not supported");
    int rc = lex_item(lx, lookup, user, cmd, msg, msg_size);
    if (rc != FAKE_LEX_OK) return rc;
  }
}

void sbio__fake_cmd_free(fake_cmd *cmd) {
  for (size_t i = 0; i < cmd->n_words; i++) free(cmd->words[i].text);
  for (size_t i = 0; i < cmd->n_redirs; i++) free(cmd->redirs[i].path);
  free(cmd->words);
  free(cmd->redirs);
  free(cmd->error);
  memset(cmd, 0, sizeof *cmd);
}
