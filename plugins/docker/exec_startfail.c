/* SPDX-License-Identifier: MIT */
/* See exec_startfail.h. Holding is decided by content alone (stdout that
 * is still a prefix of the engine's text, nothing on stderr yet); only the
 * exec's inspect (exit code 126 and Pid 0: no process ever ran) turns the
 * text into a start failure, so a command that prints the same words is
 * never rewritten. A command whose first stdout bytes are a prefix of the
 * engine's text sees them a little later, with its next output. The
 * one-shot run's backstop works alike on stderr: only exit 127 or 126 with
 * one held line of timeout's naming the program is rewritten. */
#include "exec_startfail.h"

#include <stdio.h>
#include <string.h>

#define ENGINE_TEXT "OCI runtime exec failed"
#define ENGINE_EXIT 126
#define BACKSTOP_TEXT "timeout: "
#define INIT_TEXT "[FATAL tini"

void sbio__dk_startfail_init(dk_startfail *h) {
  h->len = 0;
  h->done = 0;
  h->stream = 1;
  h->text = ENGINE_TEXT;
  h->text2 = NULL;
  h->backstop = 0;
}

void sbio__dk_startfail_init_backstop(dk_startfail *h) {
  sbio__dk_startfail_init(h);
  h->stream = 2;
  h->text = BACKSTOP_TEXT;
  h->text2 = INIT_TEXT;
  h->backstop = 1;
}

void sbio__dk_startfail_flush(dk_startfail *h, dk_demux_out out, void *user) {
  if (!h->done && h->len) out(user, h->stream, h->held, h->len);
  h->len = 0;
  h->done = 1;
}

/* Whether held + data can still be (the start of) `text`. */
static int may_be(const dk_startfail *h, const char *text, const char *data, size_t len) {
  if (!text || h->len + len > sizeof h->held) return 0;
  size_t have = h->len + len, want = strlen(text);
  size_t check = have < want ? have : want;
  for (size_t i = 0; i < check; i++) {
    char c = i < h->len ? h->held[i] : data[i - h->len];
    if (c != text[i]) return 0;
  }
  return 1;
}

static int may_be_engine_text(const dk_startfail *h, const char *data, size_t len) {
  return may_be(h, h->text, data, len) || may_be(h, h->text2, data, len);
}

static int begins(const char *held, size_t len, const char *text) {
  size_t n = strlen(text);
  return len >= n && !memcmp(held, text, n);
}

void sbio__dk_startfail_feed(dk_startfail *h, int stream, const char *data, size_t len, dk_demux_out out, void *user) {
  if (!len) return;
  if (!h->done && stream == h->stream && may_be_engine_text(h, data, len)) {
    memcpy(h->held + h->len, data, len);
    h->len += len;
    return;
  }
  sbio__dk_startfail_flush(h, out, user);
  out(user, stream, data, len);
}

/* Not found: the program (or a path to it) does not exist. A missing
 * working directory also says "no such file or directory", but it is not
 * the program that is missing: that one "cannot run" (126). */
static int not_found(const char *text) {
  if (strstr(text, "executable file not found")) return 1;
  if (strstr(text, "cwd") || strstr(text, "working directory")) return 0;
  return strstr(text, "no such file or directory") != NULL;
}

/* timeout's line names the program it could not run, quoted: busybox
 * "can't execute 'P': ...", coreutils "failed to run command 'P': ..."
 * (or with typographic quotes). Exit 127 is not found, 126 cannot run. */
static int backstop_said(const char *text, int exit_code, const char *program) {
  if ((exit_code != 127 && exit_code != 126) || !program || !program[0] || strchr(text, '\n')) return 0;
  const char *at = strstr(text, program);
  if (!at || at == text) return 0;
  char after = at[strlen(program)];
  return at[-1] == '\'' || (unsigned char)at[-1] == 0x98 /* end of U+2018 */ || after == '\'' ||
         (unsigned char)after == 0xe2 /* start of U+2019 */;
}

int sbio__dk_startfail_finish(dk_startfail *h, int exit_code, long pid, const char *program, dk_demux_out out,
                              void *user) {
  int engine = !h->backstop && exit_code == ENGINE_EXIT && pid == 0;
  int whole = begins(h->held, h->len, h->text) || (h->text2 && begins(h->held, h->len, h->text2));
  if (h->done || !(engine || h->backstop) || !whole || memchr(h->held, '\0', h->len)) {
    sbio__dk_startfail_flush(h, out, user);
    return exit_code;
  }
  char text[DK_STARTFAIL_HOLD + 1];
  size_t n = h->len;
  while (n && (h->held[n - 1] == '\n' || h->held[n - 1] == '\r')) n--;
  memcpy(text, h->held, n);
  text[n] = '\0';
  if (h->backstop && begins(text, n, INIT_TEXT)) {
    if (exit_code != 127 || !strstr(text, "exec timeout failed") || strchr(text, '\n')) {
      sbio__dk_startfail_flush(h, out, user);
      return exit_code;
    }
    h->len = 0;
    h->done = 1;
    return DK_STARTFAIL_NO_BACKSTOP;
  }
  if (h->backstop && !backstop_said(text, exit_code, program)) {
    sbio__dk_startfail_flush(h, out, user);
    return exit_code;
  }
  int code = h->backstop ? exit_code : not_found(text) ? 127 : 126;
  char msg[DK_STARTFAIL_HOLD + 400];
  int m = snprintf(msg, sizeof msg, "sbio: %.200s: %s (%s)\n", program && program[0] ? program : "the command",
                   code == 127 ? "command not found" : "cannot run it", text);
  h->len = 0;
  h->done = 1;
  if (m > 0) out(user, 2, msg, (size_t)m < sizeof msg ? (size_t)m : sizeof msg - 1);
  return code;
}
