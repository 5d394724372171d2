/* SPDX-License-Identifier: MIT */
/* Verdicts, case-owned memory, tracked sandboxes and managed listings. */
#include "case_api.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ verdicts */
__attribute__((format(printf, 3, 0))) static void append(kit_case *c, const char *sep, const char *fmt, va_list ap) {
  size_t used = strlen(c->reason);
  if (used && used + strlen(sep) < sizeof c->reason) {
    memcpy(c->reason + used, sep, strlen(sep) + 1);
    used += strlen(sep);
  }
  if (used < sizeof c->reason) vsnprintf(c->reason + used, sizeof c->reason - used, fmt, ap);
}

void kit_fail(kit_case *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (c->status != KIT_FAIL) c->reason[0] = '\0'; /* a failure replaces notes and findings */
  c->status = KIT_FAIL;
  append(c, "; ", fmt, ap);
  va_end(ap);
}

void kit_skip(kit_case *c, const char *fmt, ...) {
  if (c->status == KIT_FAIL) return;
  va_list ap;
  va_start(ap, fmt);
  c->status = KIT_SKIP;
  c->reason[0] = '\0';
  append(c, "", fmt, ap);
  va_end(ap);
}

void kit_warn(kit_case *c, const char *fmt, ...) {
  if (c->status == KIT_FAIL || c->status == KIT_SKIP) return;
  va_list ap;
  va_start(ap, fmt);
  if (c->status != KIT_WARN) c->reason[0] = '\0';
  c->status = KIT_WARN;
  append(c, "; ", fmt, ap);
  va_end(ap);
}

void kit_note(kit_case *c, const char *fmt, ...) {
  if (c->status != KIT_PASS) return;
  va_list ap;
  va_start(ap, fmt);
  append(c, "; ", fmt, ap);
  va_end(ap);
}

int kit_failed(const kit_case *c) {
  return c->status == KIT_FAIL;
}

/* -------------------------------------------------------------- memory */
void kit_defer_free(kit_case *c, void (*fn)(void *), void *ptr) {
  if (!ptr) return;
  if (c->n_defers == c->cap_defers) {
    size_t ncap = c->cap_defers ? c->cap_defers * 2 : 32;
    kit_defer *p = realloc(c->defers, ncap * sizeof *p);
    if (!p) kit_oom();
    c->defers = p;
    c->cap_defers = ncap;
  }
  c->defers[c->n_defers++] = (kit_defer){fn, ptr};
}

static void free_error(void *p) {
  sbio_error_free(p);
}

sbio_error *kit_err(kit_case *c) {
  sbio_error *e = sbio_error_new();
  if (!e) kit_oom();
  kit_defer_free(c, free_error, e);
  return e;
}

const char *kit_code(sbio_code rc) {
  if (rc == SBIO_OK) return "OK";
  const char *name = sbio_code_name(rc);
  return name ? name : "an unknown code";
}

char *kit_fmt(kit_case *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0 || !s) kit_oom();
  kit_defer_free(c, free, s);
  return s;
}

const char *kit_err_text(kit_case *c, sbio_code rc, const sbio_error *err) {
  const char *msg = err ? sbio_error_message(err) : "";
  if (rc == SBIO_OK) return "no error";
  return kit_fmt(c, "[%s] %s", kit_code(rc), msg[0] ? msg : "(no message)");
}

const char *kit_quote(kit_case *c, const char *data, size_t len) {
  size_t shown = len > 200 ? 200 : len;
  char *out = kit_xmalloc(shown * 4 + 8);
  size_t o = 0;
  out[o++] = '"';
  for (size_t i = 0; i < shown; i++) {
    unsigned char ch = (unsigned char)data[i];
    if (ch == '\n') {
      memcpy(out + o, "\\n", 2);
      o += 2;
    } else if (ch == '"' || ch == '\\') {
      out[o++] = '\\';
      out[o++] = (char)ch;
    } else if (ch < 0x20 || ch >= 0x7f) {
      o += (size_t)snprintf(out + o, 5, "\\x%02x", ch);
    } else {
      out[o++] = (char)ch;
    }
  }
  out[o++] = '"';
  if (shown < len) {
    memcpy(out + o, "...", 3);
    o += 3;
  }
  out[o] = '\0';
  kit_defer_free(c, free, out);
  return out;
}

const char *kit_argv_text(kit_case *c, const char *const *argv) {
  size_t len = 3;
  for (size_t i = 0; argv && argv[i]; i++) len += strlen(argv[i]) + 2;
  char *out = kit_xmalloc(len);
  strcpy(out, "[");
  for (size_t i = 0; argv && argv[i]; i++) {
    if (i) strcat(out, ", ");
    strcat(out, argv[i]);
  }
  strcat(out, "]");
  kit_defer_free(c, free, out);
  return out;
}

/* ----------------------------------------------------------- sandboxes */
static void free_create_options(void *p) {
  sbio_create_options_free(p);
}
static void free_exec_options(void *p) {
  sbio_exec_options_free(p);
}

sbio_create_options *kit_opts(kit_case *c) {
  sbio_create_options *o = sbio_create_options_new();
  if (!o) kit_oom();
  kit_defer_free(c, free_create_options, o);
  const char *eq = strchr(c->ctx->run_label, '=');
  char key[64];
  snprintf(key, sizeof key, "%.*s", (int)(eq - c->ctx->run_label), c->ctx->run_label);
  if (sbio_create_options_set_label(o, key, eq + 1) != SBIO_OK ||
      sbio_create_options_set_timeout(o, c->ctx->opt.lifetime) != SBIO_OK)
    kit_oom();
  return o;
}

sbio_exec_options *kit_xopts(kit_case *c) {
  sbio_exec_options *o = sbio_exec_options_new();
  if (!o) kit_oom();
  kit_defer_free(c, free_exec_options, o);
  return o;
}

void kit_track(kit_case *c, sbio_sandbox *sb) {
  pthread_mutex_lock(&c->lock);
  int full = c->n_boxes == KIT_MAX_BOXES;
  if (!full) c->boxes[c->n_boxes++] = sb;
  pthread_mutex_unlock(&c->lock);
  if (full) {
    /* A case that needs more than KIT_MAX_BOXES sandboxes is a kit bug. */
    sbio_sandbox_close(sb, NULL);
    kit_fail(c, "kit error: more than %d sandboxes in one case", KIT_MAX_BOXES);
  }
}

const char *kit_describe(kit_case *c, const sbio_sandbox *sb) {
  size_t need = sbio_sandbox_describe(sb, NULL, 0);
  char *buf = kit_xmalloc(need + 1);
  sbio_sandbox_describe(sb, buf, need + 1);
  kit_defer_free(c, free, buf);
  return buf;
}

sbio_sandbox *kit_create(kit_case *c, sbio_create_options *o, sbio_code *rc, sbio_error *err) {
  sbio_sandbox *sb = NULL;
  sbio_code code = sbio_sandbox_create(c->ctx->host, c->ctx->opt.uri, o, &sb, err);
  if (rc) *rc = code;
  if (code != SBIO_OK) return NULL;
  size_t before = c->n_boxes; /* only this thread changes the count */
  kit_track(c, sb);
  if (c->n_boxes == before) {
    if (rc) *rc = SBIO_E_INTERNAL;
    return NULL;
  }
  return sb;
}

int kit_case_may_share(const kit_case_def *d) {
  /* Cases that only run commands and touch their own probe files; not the
   * one that kills its sandbox. */
  static const char *const groups[] = {"exec.", "stream.", "files.", NULL};
  if (!strcmp(d->name, "stream.output_before_exit")) return 0;
  for (size_t i = 0; groups[i]; i++)
    if (!strncmp(d->name, groups[i], strlen(groups[i]))) return 1;
  return 0;
}

/* The shared sandbox, made on first use. Not tracked as the case's (its
 * cleanup must not close it); c->shared lets the runner's hard-limit kill
 * reach it. */
static sbio_sandbox *shared_sandbox(kit_case *c, const char *what) {
  kit_ctx *ctx = c->ctx;
  if (!ctx->shared) {
    sbio_error *err = kit_err(c);
    sbio_code rc = sbio_sandbox_create(ctx->host, ctx->opt.uri, kit_opts(c), &ctx->shared, err);
    if (rc != SBIO_OK) {
      ctx->shared = NULL;
      kit_fail(c, "%s: create (of the shared sandbox) failed: %s", what, kit_err_text(c, rc, err));
      return NULL;
    }
  }
  ctx->shared_uses++;
  pthread_mutex_lock(&c->lock);
  c->shared = ctx->shared;
  pthread_mutex_unlock(&c->lock);
  return ctx->shared;
}

sbio_sandbox *kit_create_ok(kit_case *c, sbio_create_options *o, const char *what) {
  if (!o && c->ctx->opt.reuse && kit_case_may_share(c->def)) return shared_sandbox(c, what);
  sbio_error *err = kit_err(c);
  sbio_code rc = SBIO_OK;
  sbio_sandbox *sb = kit_create(c, o ? o : kit_opts(c), &rc, err);
  if (!sb && !kit_failed(c)) kit_fail(c, "%s: create failed: %s", what, kit_err_text(c, rc, err));
  return sb;
}

sbio_code kit_close(kit_case *c, sbio_sandbox *sb, sbio_error *err) {
  pthread_mutex_lock(&c->lock);
  for (size_t i = 0; i < c->n_boxes; i++) {
    if (c->boxes[i] != sb) continue;
    c->boxes[i] = c->boxes[--c->n_boxes];
    break;
  }
  pthread_mutex_unlock(&c->lock);
  return sbio_sandbox_close(sb, err);
}

void kit_kill_all(kit_case *c) {
  /* Under the lock, so no handle is closed (freed) while it is killed. */
  pthread_mutex_lock(&c->lock);
  for (size_t i = 0; i < c->n_boxes; i++) sbio_sandbox_kill(c->boxes[i], NULL);
  if (c->shared) sbio_sandbox_kill(c->shared, NULL);
  pthread_mutex_unlock(&c->lock);
}

/* ------------------------------------------------------------- managed */
static sbio_managed_list *list_run(kit_case *c, const char *extra, char *why, size_t why_size) {
  if (!(c->ctx->caps & SBIO_CAP_MANAGED)) {
    snprintf(why, why_size, "the backend does not declare managed, so its sandboxes cannot be listed");
    return NULL;
  }
  const char *labels[] = {c->ctx->run_label, extra, NULL};
  sbio_managed_list *l = NULL;
  sbio_error *err = kit_err(c);
  sbio_code rc = sbio_managed_list_get(c->ctx->host, c->ctx->backend, labels, &l, err);
  if (rc != SBIO_OK) {
    snprintf(why, why_size, "listing managed sandboxes failed: %s", kit_err_text(c, rc, err));
    return NULL;
  }
  return l;
}

int kit_managed_count(kit_case *c, const char *extra, size_t *count, char *why, size_t why_size) {
  sbio_managed_list *l = list_run(c, extra, why, why_size);
  if (!l) return -1;
  *count = sbio_managed_list_count(l);
  sbio_managed_list_free(l);
  return 0;
}

int kit_managed_lists(kit_case *c, const char *id, char *why, size_t why_size) {
  sbio_managed_list *l = list_run(c, NULL, why, why_size);
  if (!l) return -1;
  int found = 0;
  for (size_t i = 0; i < sbio_managed_list_count(l) && !found; i++) found = strcmp(sbio_managed_list_id(l, i), id) == 0;
  sbio_managed_list_free(l);
  return found;
}
