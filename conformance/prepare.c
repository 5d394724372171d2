/* SPDX-License-Identifier: MIT */
#include "prepare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --backend-path with relative entries made absolute (against the current
 * directory): the library ignores relative entries, as it must for
 * SBIO_BACKEND_PATH, but on a command line `build/backends` plainly means
 * the directory the user is looking at. Malloc'd. */
static char *absolute_path_list(const char *list) {
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) cwd[0] = '\0';
  size_t cap = strlen(list) + 1, used = 0;
  for (const char *p = list; *p; p++) cap += *p == ':' ? strlen(cwd) + 2 : 0;
  cap += strlen(cwd) + 2;
  char *out = kit_xmalloc(cap);
  char *copy = kit_xstrdup(list), *save = NULL;
  for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
    int n = dir[0] == '/' || !cwd[0] ? snprintf(out + used, cap - used, "%s%s", used ? ":" : "", dir)
                                     : snprintf(out + used, cap - used, "%s%s/%s", used ? ":" : "", cwd, dir);
    if (n > 0 && (size_t)n < cap - used) used += (size_t)n;
  }
  free(copy);
  return out;
}

static int open_host(kit_ctx *ctx) {
  sbio_host_options *o = sbio_host_options_new();
  sbio_error *err = sbio_error_new();
  if (!o || !err) kit_oom();
  sbio_code rc = SBIO_OK;
  if (ctx->opt.config_file) rc = sbio_host_options_set_config_file(o, ctx->opt.config_file);
  if (rc == SBIO_OK && ctx->opt.no_config) rc = sbio_host_options_set_no_config(o, 1);
  if (rc == SBIO_OK && ctx->opt.backend_path) {
    char *dirs = absolute_path_list(ctx->opt.backend_path);
    rc = sbio_host_options_set_backend_path(o, dirs);
    free(dirs);
  }
  if (rc == SBIO_OK) rc = sbio_host_options_set_log_callback(o, kit_capture_log, &ctx->capture);
  if (rc == SBIO_OK) rc = sbio_host_options_add_audit_callback(o, kit_capture_audit, &ctx->capture);
  if (rc == SBIO_OK) rc = sbio_host_options_set_progress_callback(o, kit_capture_progress, &ctx->capture);
  if (rc == SBIO_OK) rc = sbio_host_open(o, &ctx->host, err);
  if (rc != SBIO_OK) {
    const char *name = sbio_code_name(rc), *msg = sbio_error_message(err), *hint = sbio_error_hint(err);
    fprintf(stderr, "sbio-conformance: cannot start libsandboxio: [%s] %s%s%s\n", name ? name : "?",
            msg[0] ? msg : "(no message)", hint[0] ? "\n  hint: " : "", hint);
  }
  sbio_host_options_free(o);
  sbio_error_free(err);
  return rc == SBIO_OK ? 0 : -1;
}

static void search_path(const kit_ctx *ctx, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sbio_host_search_dir_count(ctx->host); i++) {
    int n = snprintf(buf + used, size - used, "%s%s", used ? ":" : "", sbio_host_search_dir_at(ctx->host, i));
    if (n < 0 || (size_t)n >= size - used) break;
    used += (size_t)n;
  }
}

/* Finds, reads and loads the backend; records why it is unusable. */
static void find_backend(kit_ctx *ctx) {
  ctx->info = sbio_host_backend_find(ctx->host, ctx->backend);
  if (!ctx->info) {
    char dirs[600];
    search_path(ctx, dirs, sizeof dirs);
    snprintf(ctx->unusable, sizeof ctx->unusable, "no backend named %s (sbio-backend-%s.so) in the search path %s",
             ctx->backend, ctx->backend, dirs[0] ? dirs : "(empty)");
    return;
  }
  ctx->elf_ok = kit_elf_read(sbio_backend_info_path(ctx->info), &ctx->elf, ctx->elf_error, sizeof ctx->elf_error) == 0;
  sbio_backend_status st = sbio_backend_info_status(ctx->info);
  if (st == SBIO_BACKEND_AVAILABLE) {
    sbio_error *err = sbio_error_new();
    if (!err) kit_oom();
    if (sbio_host_load_backend(ctx->host, ctx->backend, err) != SBIO_OK)
      snprintf(ctx->unusable, sizeof ctx->unusable, "loading it failed: %s", sbio_error_message(err));
    sbio_error_free(err);
    st = sbio_backend_info_status(ctx->info);
  }
  if (st != SBIO_BACKEND_LOADED && !ctx->unusable[0])
    snprintf(ctx->unusable, sizeof ctx->unusable, "%s is %s%s%s", sbio_backend_info_path(ctx->info),
             sbio_backend_status_name(st), sbio_backend_info_reason(ctx->info)[0] ? ": " : "",
             sbio_backend_info_reason(ctx->info));
  ctx->usable = st == SBIO_BACKEND_LOADED;
  ctx->caps = sbio_backend_info_capabilities(ctx->info);
  ctx->tier = sbio_backend_info_tier(ctx->info);
  ctx->strongest = SBIO_TIER_UNKNOWN;
  for (size_t i = 0; i < sbio_backend_info_mechanism_count(ctx->info); i++) {
    sbio_tier t = sbio_mechanism_tier(ctx->info, i);
    if (sbio_tier_rank(t) > sbio_tier_rank(ctx->strongest)) ctx->strongest = t;
  }
}

int kit_prepare(kit_ctx *ctx) {
  kit_capture_init(&ctx->capture, ctx->opt.verbose);
  kit_random_hex(ctx->run_id, 8);
  snprintf(ctx->run_label, sizeof ctx->run_label, "sbio_conformance_run=%s", ctx->run_id);
  const char *sep = strstr(ctx->opt.uri, "://");
  snprintf(ctx->backend, sizeof ctx->backend, "%.*s", (int)(sep - ctx->opt.uri), ctx->opt.uri);
  ctx->uri_has_query = strchr(sep, '?') != NULL;
  ctx->started = kit_now();
  if (open_host(ctx) != 0) return -1;
  find_backend(ctx);
  return 0;
}

void kit_reap_run(kit_ctx *ctx) {
  if (!ctx->usable || !(ctx->caps & SBIO_CAP_MANAGED)) return;
  const char *labels[] = {ctx->run_label, NULL};
  sbio_managed_list *l = NULL;
  if (sbio_managed_list_get(ctx->host, ctx->backend, labels, &l, NULL) != SBIO_OK) return;
  for (size_t i = 0; i < sbio_managed_list_count(l); i++) {
    int killed = 0;
    if (sbio_managed_kill(ctx->host, ctx->backend, sbio_managed_list_id(l, i), &killed, NULL) == SBIO_OK && killed)
      ctx->reaped++;
  }
  sbio_managed_list_free(l);
}

void kit_finish(kit_ctx *ctx) {
  sbio_host_close(ctx->host);
  ctx->host = NULL;
  for (size_t i = 0; i < ctx->n_results; i++) free(ctx->results[i].reason);
  free(ctx->results);
  kit_elf_free(&ctx->elf);
  kit_capture_free(&ctx->capture);
}
