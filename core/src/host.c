/* SPDX-License-Identifier: MIT */
/* The host: configuration, the backend registry, sinks and the sandboxes it
 * owns. Opening a host runs no backend code; backends are loaded on first
 * use (or by sbio_host_load_backend). */
#include "clock.h"
#include "credentials.h"
#include "error_internal.h"
#include "host_internal.h"
#include "loader.h"
#include "trace.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------- options */
sbio_host_options *sbio_host_options_new(void) {
  return calloc(1, sizeof(sbio_host_options));
}

void sbio_host_options_free(sbio_host_options *opts) {
  if (!opts) return;
  free(opts->config_file);
  free(opts->backend_path);
  free(opts->traceparent);
  free(opts);
}

static sbio_code replace_string(char **slot, const char *value) {
  char *copy = NULL;
  if (value && !(copy = strdup(value))) return SBIO_E_INTERNAL;
  free(*slot);
  *slot = copy;
  return SBIO_OK;
}

sbio_code sbio_host_options_set_config_file(sbio_host_options *opts, const char *path) {
  if (!opts) return SBIO_E_INVALID_ARGUMENT;
  return replace_string(&opts->config_file, path);
}

sbio_code sbio_host_options_set_no_config(sbio_host_options *opts, int no_config) {
  if (!opts) return SBIO_E_INVALID_ARGUMENT;
  opts->no_config = no_config != 0;
  return SBIO_OK;
}

sbio_code sbio_host_options_set_backend_path(sbio_host_options *opts, const char *path) {
  if (!opts) return SBIO_E_INVALID_ARGUMENT;
  return replace_string(&opts->backend_path, path);
}

sbio_code sbio_host_options_set_log_callback(sbio_host_options *opts, sbio_log_fn fn, void *user) {
  if (!opts) return SBIO_E_INVALID_ARGUMENT;
  opts->log_fn = fn;
  opts->log_user = user;
  return SBIO_OK;
}

sbio_code sbio_host_options_set_progress_callback(sbio_host_options *opts, sbio_progress_fn fn, void *user) {
  if (!opts) return SBIO_E_INVALID_ARGUMENT;
  opts->progress_fn = fn;
  opts->progress_user = fn ? user : NULL;
  return SBIO_OK;
}

sbio_code sbio_host_options_add_audit_callback(sbio_host_options *opts, sbio_audit_fn fn, void *user) {
  if (!opts || !fn || opts->n_audit_cbs == SBIO__MAX_AUDIT_CALLBACKS) return SBIO_E_INVALID_ARGUMENT;
  opts->audit_cbs[opts->n_audit_cbs].fn = fn;
  opts->audit_cbs[opts->n_audit_cbs].user = user;
  opts->n_audit_cbs++;
  return SBIO_OK;
}

sbio_code sbio_host_options_set_now(sbio_host_options *opts, int64_t unix_seconds) {
  if (!opts || unix_seconds < 0) return SBIO_E_INVALID_ARGUMENT;
  opts->now = unix_seconds;
  return SBIO_OK;
}

/* ------------------------------------------------------ host services */
static void svc_log(void *host_data, int level, const char *message) {
  sbio__log(host_data, (sbio_log_level)level, "%s", message);
}
static int64_t svc_monotonic(void *host_data) {
  (void)host_data;
  return sbio__monotonic_ns();
}
static char *svc_redact(void *host_data, const char *text) {
  return sbio__redact(&((sbio_host *)host_data)->redactor, text);
}
static void svc_free_string(void *host_data, char *text) {
  (void)host_data;
  free(text);
}

/* Forwards a backend's progress to the application. `what` comes from the
 * backend: redacted like every other backend text, and a step without a
 * name or with impossible numbers is dropped rather than passed on. */
static void svc_progress(void *host_data, const char *what, int64_t done, int64_t total) {
  sbio_host *host = host_data;
  if (!host->progress_fn || !what || done < 0 || total < -1) return;
  char *clean = sbio__redact(&host->redactor, what);
  if (clean) host->progress_fn(clean, done, total, host->progress_user);
  free(clean);
}

static int sandbox_killed(const sbio__call *c) {
  return c->sandbox && (atomic_load(&c->sandbox->killed) || sbio_cancel_requested(c->sandbox->kill_token));
}

static int call_cancelled(const sbio_bk_call *call) {
  const sbio__call *c = (const sbio__call *)call;
  return sandbox_killed(c) || sbio_cancel_requested(c->cancel);
}

/* This exec alone was cancelled: a kill of the sandbox takes precedence,
 * so a backend never returns "cancelled" for a sandbox that is gone. */
static int call_exec_cancelled(const sbio_bk_call *call) {
  const sbio__call *c = (const sbio__call *)call;
  return !c->cancel_kills && sbio_cancel_requested(c->cancel) && !sandbox_killed(c);
}

void sbio__call_init(sbio__call *c, sbio_host *host, struct sbio_sandbox *sb, int64_t deadline_ns) {
  memset(c, 0, sizeof *c);
  c->call.size = sizeof c->call;
  c->call.deadline_ns = deadline_ns;
  c->call.host = &host->services;
  c->call.host_call_data = c;
  c->call.cancelled = call_cancelled;
  c->call.exec_cancelled = call_exec_cancelled;
  c->sandbox = sb;
}

/* --------------------------------------------------------- search path */
/* The built-in directory sits next to the library itself
 * (LIBDIR/sandboxio/backends), so a build tree and an installed tree both
 * find their own backends with no environment variable. */
static int builtin_backend_dir(char *out, size_t size) {
  Dl_info info;
  if (dladdr((void *)sbio_version, &info) && info.dli_fname && info.dli_fname[0] == '/') {
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", info.dli_fname);
    int n = snprintf(out, size, "%s/sandboxio/backends", dirname(copy));
    if (n > 0 && (size_t)n < size) return 0;
  }
  snprintf(out, size, "%s", SBIO_BACKENDDIR);
  return 0;
}

static sbio_code add_search_dirs(sbio_host *host, const char *list, const char *origin) {
  sbio__strlist parts = {0};
  if (sbio__strlist_split(&parts, list, ':') != 0) return SBIO_E_INTERNAL;
  for (size_t i = 0; i < parts.n; i++) {
    const char *dir = parts.items[i];
    if (dir[0] != '/') {
      /* An empty or relative entry would mean the current directory: never. */
      sbio__log(host, SBIO_LOG_WARN, "ignoring %s entry \"%s\": backend directories must be absolute", origin, dir);
      continue;
    }
    if (sbio__strlist_add(&host->search_dirs, dir) != 0) {
      sbio__strlist_free(&parts);
      return SBIO_E_INTERNAL;
    }
  }
  sbio__strlist_free(&parts);
  return SBIO_OK;
}

static sbio_code build_search_path(sbio_host *host, const sbio_host_options *opts) {
  if (opts && opts->backend_path && add_search_dirs(host, opts->backend_path, "backend path option") != SBIO_OK)
    return SBIO_E_INTERNAL;
  /* secure_getenv: in a set-user-ID or otherwise privileged process the
   * environment is the caller's, and a search path is code to load, as
   * LD_LIBRARY_PATH is (SBIO_CONFIG is read the same way). */
  const char *env = secure_getenv("SBIO_BACKEND_PATH");
  if (env && env[0] && add_search_dirs(host, env, "SBIO_BACKEND_PATH") != SBIO_OK) return SBIO_E_INTERNAL;
  for (size_t i = 0; i < host->cfg.n_backend_path; i++)
    if (sbio__strlist_add(&host->search_dirs, host->cfg.backend_path[i]) != 0) return SBIO_E_INTERNAL;
  char builtin[PATH_MAX];
  builtin_backend_dir(builtin, sizeof builtin);
  if (sbio__strlist_add(&host->search_dirs, builtin) != 0) return SBIO_E_INTERNAL;
  return SBIO_OK;
}

/* ------------------------------------------------------------ open/close */
static void report_scan(sbio_host *host) {
  for (size_t i = 0; i < host->reg.n; i++) {
    struct sbio_backend_info *b = host->reg.items[i];
    if (b->status == SBIO_BACKEND_REFUSED) {
      sbio__log(host, SBIO_LOG_WARN, "backend %s (%s) refused: %s", b->name, b->path, b->reason);
      sbio__event ev;
      sbio__event_begin(&ev, host, "backend_refused");
      sbio__event_backend(&ev, b, NULL);
      sbio__event_outcome(&ev, SBIO_E_BACKEND_UNAVAILABLE, NULL);
      sbio__event_str(&ev, "path", b->path);
      sbio__event_str(&ev, "reason", b->reason);
      sbio__audit_emit(host, &ev, 1, NULL);
      continue;
    }
    if (!b->have_meta || b->status == SBIO_BACKEND_SHADOWED) continue;
    for (size_t m = 0; m < b->meta.n_mechs; m++) {
      const sbio__mechanism *mech = &b->meta.mechs[m];
      if (!mech->stale) continue;
      sbio__log(host, SBIO_LOG_WARN, "backend %s mechanism %s: %s; re-verify it against the provider's documentation",
                b->name, mech->name, mech->reason);
      sbio__event ev;
      sbio__event_begin(&ev, host, "backend_stale");
      sbio__event_backend(&ev, b, mech);
      sbio__event_int(&ev, "age_days", mech->age_days);
      sbio__event_str(&ev, "reason", mech->reason);
      sbio__event_str(&ev, "outcome", "ok"); /* a warning: the backend stays usable */
      sbio__audit_emit(host, &ev, 1, NULL);
    }
  }
}

sbio_code sbio_host_open(const sbio_host_options *opts, sbio_host **out, sbio_error *err) {
  if (!out) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "sbio_host_open: out is NULL");
  *out = NULL;
  sbio_host *host = calloc(1, sizeof *host);
  if (!host) return sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  sbio__redactor_init(&host->redactor);
  pthread_mutex_init(&host->lock, NULL);
  pthread_mutex_init(&host->audit.lock, NULL);
  sbio__registry_init(&host->reg);
  sbio__config_init(&host->cfg);
  host->services = (sbio_host_services){.size = sizeof(sbio_host_services),
                                        .host_data = host,
                                        .log = svc_log,
                                        .monotonic_ns = svc_monotonic,
                                        .redact = svc_redact,
                                        .free_string = svc_free_string,
                                        .progress = svc_progress};
  if (opts) {
    host->log_fn = opts->log_fn;
    host->log_user = opts->log_user;
    host->progress_fn = opts->progress_fn;
    host->progress_user = opts->progress_user;
    memcpy(host->audit.cbs, opts->audit_cbs, sizeof host->audit.cbs);
    host->audit.n_cbs = opts->n_audit_cbs;
  }
  sbio_code rc = SBIO_OK;
  if (sbio__random_hex(host->session_id, 32) != 0) {
    rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "cannot read random bytes for the session id");
    goto fail;
  }
  if (!(opts && opts->no_config)) {
    rc = sbio__config_load(&host->cfg, opts ? opts->config_file : NULL, NULL, NULL, err);
    if (rc != SBIO_OK) goto fail;
  }
  host->trust.max_age_days = host->cfg.max_age_days;
  host->trust.stale_is_unknown = host->cfg.stale == SBIO__STALE_UNKNOWN;
  host->trust.now = (opts && opts->now) ? opts->now : (int64_t)time(NULL);
  if (host->cfg.audit_path && !(host->audit.path = strdup(host->cfg.audit_path))) {
    rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
    goto fail;
  }
  host->audit.on_failure = host->cfg.audit_on_failure;
  host->audit.to_stderr = host->cfg.audit_stderr;
  host->tracer = sbio__tracer_open(host, opts ? opts->traceparent : NULL);
  if (build_search_path(host, opts) != SBIO_OK) {
    rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
    goto fail;
  }
  rc = sbio__registry_scan(&host->reg, (const char *const *)host->search_dirs.items, host->search_dirs.n, &host->cfg,
                           &host->trust, err);
  if (rc != SBIO_OK) goto fail;
  report_scan(host);
  /* Every backend's declared credentials are known before anything of it
   * can speak: a listing, a probe, a create. */
  for (size_t i = 0; i < host->reg.n; i++) sbio__credentials_learn(host, host->reg.items[i]);
  *out = host;
  return SBIO_OK;
fail:
  sbio_host_close(host);
  return rc;
}

void sbio_host_close(sbio_host *host) {
  if (!host) return;
  /* Guaranteed teardown: whatever the caller did not close dies here. */
  for (;;) {
    pthread_mutex_lock(&host->lock);
    struct sbio_sandbox *sb = host->n_sandboxes ? host->sandboxes[host->n_sandboxes - 1] : NULL;
    pthread_mutex_unlock(&host->lock);
    if (!sb) break;
    sbio_error *e = sbio_error_new();
    if (sbio_sandbox_close(sb, e) != SBIO_OK)
      sbio__log(host, SBIO_LOG_ERROR, "teardown at host close failed: %s", sbio_error_message(e));
    sbio_error_free(e);
  }
  free(host->sandboxes);
  sbio__audit_close(host); /* after teardown: its events may have failed too */
  /* After teardown, so the kills' spans are in the flush. */
  sbio__tracer_close(host->tracer);
  host->tracer = NULL;
  sbio__registry_free(&host->reg);
  sbio__config_free(&host->cfg);
  sbio__strlist_free(&host->search_dirs);
  free(host->audit.path);
  sbio__redactor_free(&host->redactor);
  pthread_mutex_destroy(&host->lock);
  pthread_mutex_destroy(&host->audit.lock);
  free(host);
}

/* ------------------------------------------------------------ accessors */
size_t sbio_host_config_file_count(const sbio_host *host) {
  return host ? host->cfg.n_files_read : 0;
}
const char *sbio_host_config_file_at(const sbio_host *host, size_t i) {
  return host && i < host->cfg.n_files_read ? host->cfg.files_read[i] : NULL;
}
size_t sbio_host_search_dir_count(const sbio_host *host) {
  return host ? host->search_dirs.n : 0;
}
const char *sbio_host_search_dir_at(const sbio_host *host, size_t i) {
  return host && i < host->search_dirs.n ? host->search_dirs.items[i] : NULL;
}
const char *sbio_host_default_backend(const sbio_host *host) {
  return host ? host->cfg.default_backend : NULL;
}
sbio_tier sbio_host_isolation_floor(const sbio_host *host) {
  return host && host->cfg.require_isolation_set ? host->cfg.require_isolation : SBIO_TIER_UNKNOWN;
}
size_t sbio_host_describe(const sbio_host *host, char *buf, size_t size) {
  char list[1024] = "";
  size_t used = 0;
  for (size_t i = 0; host && i < host->reg.n; i++) {
    const struct sbio_backend_info *b = host->reg.items[i];
    if (b->status == SBIO_BACKEND_SHADOWED) continue;
    const char *what = b->status == SBIO_BACKEND_AVAILABLE || b->status == SBIO_BACKEND_LOADED
                           ? sbio_tier_name(b->tier)
                           : sbio_backend_status_name(b->status);
    int n = snprintf(list + used, sizeof list - used, "%s%s %s", used ? ", " : "", b->name, what);
    if (n < 0 || (size_t)n >= sizeof list - used) break;
    used += (size_t)n;
  }
  sbio_tier floor = sbio_host_isolation_floor(host);
  int n = snprintf(buf, size, "Host(backends: %s; floor %s)", used ? list : "none",
                   floor == SBIO_TIER_UNKNOWN ? "none" : sbio_tier_name(floor));
  return n < 0 ? 0 : (size_t)n;
}

size_t sbio_host_backend_count(const sbio_host *host) {
  return host ? host->reg.n : 0;
}
const sbio_backend_info *sbio_host_backend_at(const sbio_host *host, size_t i) {
  return host && i < host->reg.n ? host->reg.items[i] : NULL;
}
const sbio_backend_info *sbio_host_backend_find(const sbio_host *host, const char *name) {
  return host && name ? sbio__registry_find((sbio__registry *)&host->reg, name) : NULL;
}

/* ------------------------------------------------- backends on demand */
static sbio_code available_names(sbio_host *host, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < host->reg.n; i++) {
    const struct sbio_backend_info *b = host->reg.items[i];
    if (b->status != SBIO_BACKEND_AVAILABLE && b->status != SBIO_BACKEND_LOADED) continue;
    int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", b->name);
    if (n < 0 || (size_t)n >= size - used) break;
    used += (size_t)n;
  }
  if (!used) snprintf(buf, size, "none");
  return SBIO_OK;
}

sbio_code sbio__host_resolve_backend(sbio_host *host, const char *name, struct sbio_backend_info **out,
                                     sbio_error *err) {
  struct sbio_backend_info *b = sbio__registry_find(&host->reg, name);
  if (!b) {
    char names[512], hint[700];
    available_names(host, names, sizeof names);
    snprintf(hint, sizeof hint,
             "available backends: %s; install sbio-backend-%s.so into a directory of the search path", names, name);
    sbio__error_set(err, SBIO_E_BACKEND_NOT_FOUND, hint, "no backend named \"%s\" was found", name);
    sbio__error_set_backend(err, name);
    return SBIO_E_BACKEND_NOT_FOUND;
  }
  *out = b;
  return SBIO_OK;
}

sbio_code sbio__host_check_usable(const struct sbio_backend_info *b, sbio_error *err) {
  if (b->status == SBIO_BACKEND_AVAILABLE || b->status == SBIO_BACKEND_LOADED) return SBIO_OK;
  char hint[160];
  snprintf(hint, sizeof hint, "run `sbio inspect %s` for details", b->name);
  sbio__error_set(err, SBIO_E_BACKEND_UNAVAILABLE, hint, "backend %s is %s: %s", b->name,
                  sbio_backend_status_name(b->status), b->reason);
  sbio__error_set_backend(err, b->name);
  return SBIO_E_BACKEND_UNAVAILABLE;
}

/* Loads the backend's code if needed; reports the first load. Caller holds
 * host->reg.lock. */
static sbio_code ensure_loaded(sbio_host *host, struct sbio_backend_info *b, sbio_error *err) {
  int was_loaded = b->status == SBIO_BACKEND_LOADED;
  sbio_code rc = sbio__loader_load(b, err);
  if (rc == SBIO_OK && !was_loaded) {
    sbio__event ev;
    sbio__event_begin(&ev, host, "backend_loaded");
    sbio__event_backend(&ev, b, NULL);
    sbio__event_str(&ev, "path", b->path);
    sbio__event_str(&ev, "version", b->meta.version);
    sbio__audit_emit(host, &ev, 0, NULL);
  }
  return rc;
}

sbio_code sbio__host_backend_instance(sbio_host *host, struct sbio_backend_info *b, sbio_error *err) {
  pthread_mutex_lock(&host->reg.lock);
  sbio_code rc = ensure_loaded(host, b, err);
  /* Again before the backend runs: a variable may have been set since the
   * host opened (the key is read by the backend at this point too). */
  sbio__credentials_learn(host, b);
  if (rc == SBIO_OK && !b->instance) {
    sbio_bk_error bk = {.size = sizeof bk};
    const char *settings = b->cfg && b->cfg->settings_json ? b->cfg->settings_json : "{}";
    void *instance = NULL;
    if (!SBIO_OPS_HAS(b->ops, open)) {
      rc = sbio__error_set(err, SBIO_E_BACKEND_UNAVAILABLE, NULL, "backend %s has no open operation", b->name);
    } else if (b->ops->open(&host->services, settings, &instance, &bk) != 0) {
      rc = sbio__error_from_backend(err, &bk, b->name);
      sbio__error_prefix(err, "backend %s could not start", b->name);
    } else {
      b->instance = instance;
    }
  }
  pthread_mutex_unlock(&host->reg.lock);
  if (rc != SBIO_OK) sbio__error_set_backend(err, b->name);
  return rc;
}

sbio_code sbio_host_load_backend(sbio_host *host, const char *name, sbio_error *err) {
  if (!host || !name) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "host and name are required");
  struct sbio_backend_info *b = NULL;
  sbio_code rc = sbio__host_resolve_backend(host, name, &b, err);
  if (rc != SBIO_OK) return rc;
  pthread_mutex_lock(&host->reg.lock);
  rc = ensure_loaded(host, b, err);
  pthread_mutex_unlock(&host->reg.lock);
  return rc;
}

/* ------------------------------------------------------ owned sandboxes */
int sbio__host_adopt_sandbox(sbio_host *host, struct sbio_sandbox *sb) {
  pthread_mutex_lock(&host->lock);
  if (host->n_sandboxes == host->cap_sandboxes) {
    size_t ncap = host->cap_sandboxes ? host->cap_sandboxes * 2 : 8;
    struct sbio_sandbox **p = realloc(host->sandboxes, ncap * sizeof *p);
    if (!p) {
      pthread_mutex_unlock(&host->lock);
      return -1;
    }
    host->sandboxes = p;
    host->cap_sandboxes = ncap;
  }
  host->sandboxes[host->n_sandboxes++] = sb;
  pthread_mutex_unlock(&host->lock);
  return 0;
}

void sbio__host_forget_sandbox(sbio_host *host, struct sbio_sandbox *sb) {
  pthread_mutex_lock(&host->lock);
  for (size_t i = 0; i < host->n_sandboxes; i++) {
    if (host->sandboxes[i] == sb) {
      host->sandboxes[i] = host->sandboxes[--host->n_sandboxes];
      break;
    }
  }
  pthread_mutex_unlock(&host->lock);
}

void sbio__host_redact_error(sbio_host *host, sbio_error *err) {
  sbio__error_redact(err, &host->redactor);
}
