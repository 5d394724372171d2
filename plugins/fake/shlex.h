/* SPDX-License-Identifier: MIT */
/* The virtual shell's lexer: reads a script one simple command at a time,
 * because a command may change a variable the next one expands
 * ("X=1; echo $X").
 *
 * Supported: blanks between words; 'single' and "double" quotes;
 * backslash escapes; $VAR, ${VAR} and $? (not inside single quotes); NAME=value
 * assignment words; [N]>FILE, [N]>>FILE and [N]>&M for N, M in {1, 2};
 * # comments; separators ; newline && ||. No word splitting of expansions,
 * no globbing. Pipes, background jobs, input redirection, subshells and
 * command substitution are reported as unsupported syntax. */
#ifndef SBIO_FAKE_SHLEX_H
#define SBIO_FAKE_SHLEX_H

#include <stddef.h>

typedef enum fake_sep {
  FAKE_SEP_END = 0, /* end of the script */
  FAKE_SEP_SEQ,     /* ; or newline */
  FAKE_SEP_AND,     /* && */
  FAKE_SEP_OR       /* || */
} fake_sep;

typedef enum fake_redir_op {
  FAKE_REDIR_TRUNC = 0, /* N>FILE */
  FAKE_REDIR_APPEND,    /* N>>FILE */
  FAKE_REDIR_DUP        /* N>&M */
} fake_redir_op;

typedef struct fake_redir {
  int fd; /* 1 or 2 */
  fake_redir_op op;
  int dup_fd; /* FAKE_REDIR_DUP: 1 or 2 */
  char *path; /* otherwise: the expanded file name */
} fake_redir;

typedef struct fake_word {
  char *text;
  size_t assign; /* NAME=value: offset of the value (just past '='); 0 otherwise */
} fake_word;

typedef struct fake_cmd {
  fake_word *words;
  size_t n_words;
  size_t cap_words;
  fake_redir *redirs;
  size_t n_redirs;
  size_t cap_redirs;
  char *error; /* a redirect that cannot be honoured ("ambiguous redirect") */
} fake_cmd;

/* Value of a variable ("?" is the last status), NULL if unset. */
typedef const char *(*fake_lookup_fn)(void *user, const char *name);

typedef struct fake_lexer {
  const char *src;
  size_t pos;
} fake_lexer;

enum { FAKE_LEX_OK = 0, FAKE_LEX_SYNTAX = -1, FAKE_LEX_NOMEM = -2 };

/* Reads the next simple command into `cmd` (which must be zeroed) and the
 * separator after it. On FAKE_LEX_SYNTAX, `msg` says what was wrong. */
int sbio__fake_lex_command(fake_lexer *lx, fake_lookup_fn lookup, void *user, fake_cmd *cmd, fake_sep *sep, char *msg,
                           size_t msg_size);
/* Frees the contents and zeroes `cmd`. */
void sbio__fake_cmd_free(fake_cmd *cmd);

#endif
