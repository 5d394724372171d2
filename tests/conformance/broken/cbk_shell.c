/* SPDX-License-Identifier: MIT */
/* The cbk shell: just enough of sh to run the kit's probes (echo, env,
 * printenv, seq, sleep, cat, exit, true, false, curl/wget, sh -c; ';' and newlines;
 * quotes, $VAR and $?; '>&2', '> FILE', '>> FILE'). It executes nothing. */
#include "cbk.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAX_DEPTH 8
#define MAX_WORDS 64
#define SLEEP_CAP_NS (60LL * 1000000000LL)

typedef struct sh {
  cbk_box *box;
  const sbio_bk_exec_req *req;
  const sbio_bk_call *call;
  cbk_kv env;
  int stdin_used;
  int killed, timed_out, exited;
  int exec_cancelled; /* this exec alone was cancelled (ABI 1.3): the sandbox stays */
  int status;
  char *held[3]; /* CBK_DEFECT_BUFFERED: output held until the end */
  size_t held_len[3];
  int depth;
} sh;

typedef struct io {
  int to_stderr;
  char *file; /* '>' target, absolute */
  int append;
  char *buf; /* what goes to the file */
  size_t len;
} io;

static int stopped(const sh *s) {
  return s->killed || s->timed_out || s->exited || s->exec_cancelled;
}

#ifdef CBK_DEFECT_BUFFERED
static void hold(sh *s, int stream, const char *data, size_t len) {
  char *p = realloc(s->held[stream], s->held_len[stream] + len + 1);
  if (!p) return;
  memcpy(p + s->held_len[stream], data, len);
  s->held[stream] = p;
  s->held_len[stream] += len;
}
#endif

static void emit(sh *s, int stream, const char *data, size_t len) {
#ifdef CBK_DEFECT_MERGED_STDERR
  stream = 1;
#endif
#ifdef CBK_DEFECT_BUFFERED
  hold(s, stream, data, len);
#else
  if (len && s->req->output) s->req->output(s->req->output_user, stream, data, len);
#endif
}

static void out(sh *s, io *o, int stream, const char *data, size_t len) {
  if (stream == 1 && o->file) {
    char *p = realloc(o->buf, o->len + len + 1);
    if (!p) return;
    memcpy(p + o->len, data, len);
    o->buf = p;
    o->len += len;
    return;
  }
  emit(s, stream == 1 && o->to_stderr ? 2 : stream, data, len);
}

static void outs(sh *s, io *o, int stream, const char *text) {
  out(s, o, stream, text, strlen(text));
}

/* Sleeps, ending early on a kill or at the deadline (unless a defect
 * says otherwise). */
static void wait_for(sh *s, double seconds) {
  int64_t start = sbio_bk_now_ns(s->call);
  int64_t want = (int64_t)(seconds * 1e9);
  if (want > SLEEP_CAP_NS) want = SLEEP_CAP_NS; /* no fixture sleeps forever */
  for (;;) {
    int64_t now = sbio_bk_now_ns(s->call);
#ifndef CBK_DEFECT_IGNORE_KILL
    int cancelled = s->call->cancelled && s->call->cancelled(s->call);
    if (cancelled && sbio_bk_exec_cancelled(s->call) && !atomic_load(&s->box->killed)) {
#ifndef CBK_DEFECT_IGNORE_CANCEL
      s->exec_cancelled = 1;
      return;
#endif
    } else if (atomic_load(&s->box->killed) || cancelled) {
      s->killed = 1;
      return;
    }
#endif
#if !defined(CBK_DEFECT_SWALLOW_TIMEOUT) && !defined(CBK_DEFECT_IGNORE_KILL)
    if (now >= s->call->deadline_ns) {
      s->timed_out = 1;
      return;
    }
#endif
    if (now - start >= want) return;
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

/* ------------------------------------------------------------ commands */
static int host_allowed(const sh *s, const char *host) {
#ifdef CBK_DEFECT_IGNORE_POLICY
  (void)s, (void)host;
  return 1;
#else
  if (s->box->egress_allow) return 1;
  for (size_t i = 0; i < s->box->n_allow; i++)
    if (strcasecmp(s->box->allow[i], host) == 0) return 1;
  return 0;
#endif
}

static int cmd_curl(sh *s, io *o, char **w, size_t n) {
  const char *url = NULL;
  for (size_t i = 1; i < n && !url; i++)
    if (strstr(w[i], "://")) url = strstr(w[i], "://") + 3;
  if (!url) {
    outs(s, o, 2, "curl: no URL\n");
    return 2;
  }
  char host[256];
  size_t len = strcspn(url, "/:?");
  snprintf(host, sizeof host, "%.*s", (int)(len < sizeof host ? len : sizeof host - 1), url);
  if (host_allowed(s, host)) {
    outs(s, o, 1, "OK\n");
    return 0;
  }
  char msg[400];
  snprintf(msg, sizeof msg, "curl: (7) Failed to connect to %s: egress denied\n", host);
  outs(s, o, 2, msg);
  return 7;
}

static int cmd_cat(sh *s, io *o, char **w, size_t n) {
  if (n == 1) {
    if (!s->stdin_used && s->req->has_stdin) out(s, o, 1, (const char *)s->req->stdin_data, s->req->stdin_len);
    s->stdin_used = 1;
    return 0;
  }
  int status = 0;
  for (size_t i = 1; i < n; i++) {
    char *abs = cbk_fs_resolve(w[i]);
    pthread_mutex_lock(&s->box->lock);
    cbk_node *nd = abs ? cbk_fs_find(&s->box->fs, abs) : NULL;
    char *copy = nd && !nd->is_dir ? malloc(nd->len + 1) : NULL;
    size_t len = copy ? nd->len : 0;
    if (copy && len) memcpy(copy, nd->data, len);
    pthread_mutex_unlock(&s->box->lock);
    if (copy) {
      out(s, o, 1, copy, len);
    } else {
      char msg[300];
      snprintf(msg, sizeof msg, "cat: %.200s: No such file or directory\n", w[i]);
      outs(s, o, 2, msg);
      status = 1;
    }
    free(copy);
    free(abs);
  }
  return status;
}

static int run_script(sh *s, const char *script);

static int run_words(sh *s, io *o, char **w, size_t n) {
  const char *cmd = strrchr(w[0], '/') ? strrchr(w[0], '/') + 1 : w[0];
  char line[64];
  if (strcmp(cmd, "echo") == 0) {
    size_t first = n > 1 && strcmp(w[1], "-n") == 0 ? 2 : 1;
    for (size_t i = first; i < n; i++) {
      if (i > first) outs(s, o, 1, " ");
      outs(s, o, 1, w[i]);
    }
    if (first == 1) outs(s, o, 1, "\n");
    return 0;
  }
  if (strcmp(cmd, "true") == 0 || strcmp(cmd, ":") == 0) return 0;
  if (strcmp(cmd, "false") == 0) return 1;
  if (strcmp(cmd, "exit") == 0) {
    s->exited = 1;
    return n > 1 ? atoi(w[1]) & 0xff : s->status;
  }
  if (strcmp(cmd, "printenv") == 0) {
    int status = 0;
    for (size_t i = 1; i < n; i++) {
      const char *v = cbk_kv_get(&s->env, w[i]);
      if (!v) {
        status = 1;
        continue;
      }
      outs(s, o, 1, v);
      outs(s, o, 1, "\n");
    }
    return status;
  }
  if (strcmp(cmd, "env") == 0 && n == 1) {
    for (size_t i = 0; i < s->env.n; i++) {
      /* Only the last setting of a name is its value. */
      if (cbk_kv_get(&s->env, s->env.keys[i]) != s->env.values[i]) continue;
      outs(s, o, 1, s->env.keys[i]);
      outs(s, o, 1, "=");
      outs(s, o, 1, s->env.values[i]);
      outs(s, o, 1, "\n");
    }
    return 0;
  }
  if (strcmp(cmd, "seq") == 0 && n >= 2) {
    long first = n >= 3 ? atol(w[1]) : 1, last = atol(w[n - 1]);
    for (long i = first; i <= last && !stopped(s); i++) {
      snprintf(line, sizeof line, "%ld\n", i);
      outs(s, o, 1, line);
    }
    return 0;
  }
  if (strcmp(cmd, "sleep") == 0 && n == 2) {
    wait_for(s, atof(w[1]));
    return 0;
  }
  if (strcmp(cmd, "cat") == 0) return cmd_cat(s, o, w, n);
  if (strcmp(cmd, "curl") == 0 || strcmp(cmd, "wget") == 0) return cmd_curl(s, o, w, n);
  if ((strcmp(cmd, "sh") == 0 || strcmp(cmd, "bash") == 0) && n == 3 && strcmp(w[1], "-c") == 0) {
    if (s->depth >= MAX_DEPTH) return 2;
    s->depth++;
    int status = run_script(s, w[2]);
    s->depth--;
    s->exited = 0; /* exit ends the child shell only */
    return status;
  }
  char msg[300];
  snprintf(msg, sizeof msg, "cbk: command not found: %.200s\n", w[0]); /* as given, path and all */
  outs(s, o, 2, msg);
  return 127;
}

/* Runs one command with its redirections, then writes any '>' file. */
static int run_command(sh *s, char **w, size_t n) {
  io o = {0};
  char *argv[MAX_WORDS];
  size_t argc = 0;
  for (size_t i = 0; i < n; i++) {
    if (strcmp(w[i], ">&2") == 0 || strcmp(w[i], "1>&2") == 0) {
      o.to_stderr = 1;
    } else if (strcmp(w[i], "2>&1") == 0) {
      /* stderr already reaches the caller */
    } else if ((strcmp(w[i], ">") == 0 || strcmp(w[i], ">>") == 0) && i + 1 < n) {
      o.append = w[i][1] == '>';
      free(o.file);
      o.file = cbk_fs_resolve(w[++i]);
    } else {
      argv[argc++] = w[i];
    }
  }
  int status = argc ? run_words(s, &o, argv, argc) : 0;
  if (o.file) {
    pthread_mutex_lock(&s->box->lock);
    cbk_node *old = o.append ? cbk_fs_find(&s->box->fs, o.file) : NULL;
    size_t keep = old && !old->is_dir ? old->len : 0;
    char *all = malloc(keep + o.len + 1);
    if (all) {
      if (keep) memcpy(all, old->data, keep);
      if (o.len) memcpy(all + keep, o.buf, o.len);
      sbio_bk_error e = {.size = sizeof e};
      if (cbk_fs_write(&s->box->fs, o.file, all, keep + o.len, &e) != 0) status = 1;
    }
    pthread_mutex_unlock(&s->box->lock);
    free(all);
  }
  free(o.file);
  free(o.buf);
  return status;
}

/* ------------------------------------------------------------- parsing */
typedef struct word {
  char *text;
  size_t len, cap;
} word;

static void put(word *wd, const char *p, size_t n) {
  if (wd->len + n + 1 > wd->cap) {
    size_t ncap = (wd->len + n + 1) * 2;
    char *q = realloc(wd->text, ncap);
    if (!q) return;
    wd->text = q;
    wd->cap = ncap;
  }
  memcpy(wd->text + wd->len, p, n);
  wd->len += n;
  wd->text[wd->len] = '\0';
}

/* $NAME, ${NAME} or $? at p (which points at '$'); returns the chars used. */
static size_t expand(sh *s, const char *p, word *wd) {
  char name[128];
  size_t n = 0;
  if (p[1] == '?') {
    snprintf(name, sizeof name, "%d", s->status);
    put(wd, name, strlen(name));
    return 2;
  }
  int braced = p[1] == '{';
  const char *q = p + 1 + braced;
  while ((isalnum((unsigned char)q[n]) || q[n] == '_') && n < sizeof name - 1) n++;
  if (n == 0) {
    put(wd, "$", 1);
    return 1;
  }
  memcpy(name, q, n);
  name[n] = '\0';
  const char *v = cbk_kv_get(&s->env, name);
  if (v) put(wd, v, strlen(v));
  return 1 + (size_t)braced + n + (size_t)(braced && q[n] == '}');
}

/* One word at *pp (quotes removed, variables expanded); advances *pp. */
static char *read_word(sh *s, const char **pp) {
  const char *p = *pp;
  word wd = {0};
  put(&wd, "", 0);
  while (*p && *p != ' ' && *p != '\t' && *p != ';' && *p != '\n') {
    if (*p == '\'') {
      const char *end = strchr(p + 1, '\'');
      size_t len = end ? (size_t)(end - p - 1) : strlen(p + 1);
      put(&wd, p + 1, len);
      p += len + 1 + (end != NULL);
    } else if (*p == '"') {
      p++;
      while (*p && *p != '"') {
        if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$')) {
          put(&wd, p + 1, 1);
          p += 2;
        } else if (*p == '$') {
          p += expand(s, p, &wd);
        } else {
          put(&wd, p++, 1);
        }
      }
      if (*p == '"') p++;
    } else if (*p == '\\' && p[1]) {
      put(&wd, p + 1, 1);
      p += 2;
    } else if (*p == '$') {
      p += expand(s, p, &wd);
    } else {
      put(&wd, p++, 1);
    }
  }
  *pp = p;
  return wd.text;
}

static int run_script(sh *s, const char *p) {
  int status = 0;
  while (*p && !stopped(s)) {
    char *w[MAX_WORDS];
    size_t n = 0;
    for (;;) {
      while (*p == ' ' || *p == '\t') p++;
      if (!*p || *p == ';' || *p == '\n') break;
      char *text = read_word(s, &p);
      if (n < MAX_WORDS && text)
        w[n++] = text;
      else
        free(text);
    }
    if (*p) p++;
    if (n) status = s->status = run_command(s, w, n);
    for (size_t i = 0; i < n; i++) free(w[i]);
  }
  return status;
}

/* ------------------------------------------------------------------ exec */
#ifdef CBK_DEFECT_SHELL_ARGV
/* The defect: each word double-quoted, so spaces survive but "$VAR" does not. */
static char *argv_as_script(const sbio_bk_exec_req *req) {
  size_t len = 1;
  for (size_t i = 0; i < req->argc; i++) len += 2 * strlen(req->argv[i]) + 3;
  char *script = malloc(len), *o = script;
  if (!script) return NULL;
  for (size_t i = 0; i < req->argc; i++) {
    if (i) *o++ = ' ';
    *o++ = '"';
    for (const char *p = req->argv[i]; *p; p++) {
      if (*p == '"' || *p == '\\') *o++ = '\\';
      *o++ = *p;
    }
    *o++ = '"';
  }
  *o = '\0';
  return script;
}
#endif

int cbk_exec(cbk_box *box, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code, sbio_bk_error *err) {
  sh s = {.box = box, .req = req, .call = call};
  int bad = 0;
  for (size_t i = 0; i < box->env.n && !bad; i++) bad = cbk_kv_set(&s.env, box->env.keys[i], box->env.values[i]);
  for (size_t i = 0; i < req->n_env && !bad; i++) bad = cbk_kv_set(&s.env, req->env[i].key, req->env[i].value);
  if (bad) {
    cbk_kv_free(&s.env);
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  int status;
  if (req->shell) {
    status = run_script(&s, req->shell);
  } else {
#ifdef CBK_DEFECT_SHELL_ARGV
    char *script = argv_as_script(req);
    status = script ? run_script(&s, script) : 1;
    free(script);
#else
    /* argv mode: the words as given, no redirections, no expansion. */
    char *w[MAX_WORDS];
    size_t n = req->argc < MAX_WORDS ? req->argc : MAX_WORDS;
    for (size_t i = 0; i < n; i++) w[i] = (char *)req->argv[i];
    io o = {0};
    status = n ? run_words(&s, &o, w, n) : 0;
#endif
  }
  for (int i = 1; i <= 2; i++) {
    if (s.held_len[i] && req->output) req->output(req->output_user, i, s.held[i], s.held_len[i]);
    free(s.held[i]);
  }
  cbk_kv_free(&s.env);
  *exit_code = s.killed || s.timed_out || s.exec_cancelled ? 137 : status;
#ifdef CBK_DEFECT_KILLED_EXIT_1
  if (s.killed) *exit_code = 1; /* the defect: a killed command looks like an ordinary failure */
#endif
  if (s.exec_cancelled)
    return sbio_bk_error_set(err, SBIO_E_CANCELLED, NULL, "command cancelled by its caller; the sandbox stays");
  if (s.timed_out) {
    char leak[512] = "";
#ifdef CBK_DEFECT_LEAK_SECRET
    cbk_leak(box, leak, sizeof leak);
#endif
    return sbio_bk_error_set(err, SBIO_E_EXEC_TIMEOUT, NULL, "command exceeded its deadline and was killed%s%s",
                             leak[0] ? "; request " : "", leak);
  }
  return 0;
}
