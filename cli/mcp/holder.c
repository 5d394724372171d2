/* SPDX-License-Identifier: MIT */
/* The sandbox holder; see holder.h. The lock guards the sandbox pointer and
 * the stopping flag, never a slow call but the shutdown's kill, so a kill
 * cannot race a close. */
#include "holder.h"

#include "errors.h"
#include "exitcode.h"
#include "host_open.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mcp_holder {
  const mcp_config *cfg;
  sbio_host *host;
  sbio_create_options *copts;
  char backend[64];
  sbio_tier floor;
  double timeout_s; /* the sandbox's lifetime: the URI's ?timeout= wins, as in the library */
  pthread_mutex_t lock;
  sbio_sandbox *sb;
  int stopping;
  sbio_progress_fn progress_fn;
  void *progress_user;
};

static const char fake_notice[] =
    "sbio mcp: no backend chosen; using the built-in fake backend, which executes nothing "
    "(choose one with --backend docker://IMAGE or default_backend in the config)\n";

/* The host calls this on the creating thread (the worker). */
static void on_progress(const char *what, int64_t done, int64_t total, void *user) {
  mcp_holder *h = user;
  if (h->progress_fn) h->progress_fn(what, done, total, h->progress_user);
}

static int setter_failed(sbio_code rc, const char *what) {
  char message[160];
  snprintf(message, sizeof message, "cannot use %s", what);
  cli_error_view v = {rc, message, NULL, NULL, NULL};
  return cli_error_report(&v, 0);
}

/* The options every create of this server uses, from the command line.
 * On a refusal *what names the flag. */
static sbio_code fill_create_options(const mcp_config *c, sbio_create_options *o, const char **what) {
  sbio_code rc = SBIO_OK;
  *what = NULL;
  if (c->require_set && (rc = sbio_create_options_require_isolation(o, c->require)) != SBIO_OK) {
    *what = "--require-isolation";
  } else if (c->timeout_set && (rc = sbio_create_options_set_timeout(o, c->timeout_s)) != SBIO_OK) {
    *what = c->timeout_s > SBIO_MAX_TIMEOUT_S ? "--timeout above the maximum of 86400 seconds (24 hours)" : "--timeout";
  } else if ((rc = sbio_create_options_set_egress(o, c->egress)) != SBIO_OK) {
    *what = "--egress";
  } else if ((rc = sbio_create_options_set_label(o, MCP_LABEL_KEY, MCP_LABEL_VALUE)) != SBIO_OK) {
    *what = "the sandboxio_mcp label";
  }
  return rc;
}

static int build_create_options(mcp_holder *h) {
  sbio_create_options *o = sbio_create_options_new();
  if (!o) return cli_error_oom(0);
  h->copts = o;
  const char *what;
  sbio_code rc = fill_create_options(h->cfg, o, &what);
  return rc != SBIO_OK ? setter_failed(rc, what) : 0;
}

/* The backend a create would use: the URI's scheme, else the configured
 * default (a bare name or a URI), else the fake. */
static void resolve_backend_name(mcp_holder *h) {
  const char *target = h->cfg->uri ? h->cfg->uri : sbio_host_default_backend(h->host);
  if (!target) target = "fake";
  const char *sep = strstr(target, "://");
  size_t n = sep ? (size_t)(sep - target) : strlen(target);
  if (n >= sizeof h->backend) n = sizeof h->backend - 1;
  memcpy(h->backend, target, n);
  h->backend[n] = '\0';
}

int mcp_holder_open(const cli_globals *g, const mcp_config *cfg, mcp_holder **out) {
  *out = NULL;
  mcp_holder *h = calloc(1, sizeof *h);
  if (!h) return cli_error_oom(0);
  h->cfg = cfg;
  pthread_mutex_init(&h->lock, NULL);
  int exit_code = cli_host_open_progress_to(g, on_progress, h, &h->host);
  if (!exit_code) exit_code = build_create_options(h);
  if (exit_code) {
    mcp_holder_close(h);
    return exit_code;
  }
  resolve_backend_name(h);
  h->timeout_s = cfg->timeout_set ? cfg->timeout_s : SBIO_DEFAULT_TIMEOUT_S;
  const char *q = cfg->uri ? strstr(cfg->uri, "?timeout=") : NULL;
  if (q) {
    char *end = NULL;
    double v = strtod(q + 9, &end);
    if (end != q + 9 && v > 0) h->timeout_s = v; /* a malformed one fails the create with its reason */
  }
  sbio_tier floor = sbio_host_isolation_floor(h->host);
  if (cfg->require_set && sbio_tier_rank(cfg->require) > sbio_tier_rank(floor)) floor = cfg->require;
  h->floor = floor;
  if (!cfg->uri && !sbio_host_default_backend(h->host)) fputs(fake_notice, stderr);
  *out = h;
  return 0;
}

static int report(sbio_code code, const char *message, const char *hint, const char *backend) {
  cli_error_view v = {code, message, hint, backend, NULL};
  return cli_error_report(&v, 0);
}

int mcp_holder_admit(mcp_holder *h) {
  const sbio_backend_info *b = sbio_host_backend_find(h->host, h->backend);
  char message[1024];
  if (!b) {
    snprintf(message, sizeof message, "no backend named '%s' was found", h->backend);
    return report(SBIO_E_BACKEND_NOT_FOUND, message, "run `sbio backends` to see what is installed", h->backend);
  }
  sbio_backend_status st = sbio_backend_info_status(b);
  if (st != SBIO_BACKEND_AVAILABLE && st != SBIO_BACKEND_LOADED) {
    snprintf(message, sizeof message, "backend %s is %s: %s", h->backend, sbio_backend_status_name(st),
             sbio_backend_info_reason(b));
    return report(SBIO_E_BACKEND_UNAVAILABLE, message, "run `sbio inspect NAME` to see why", h->backend);
  }
  if (h->floor == SBIO_TIER_UNKNOWN) return 0; /* nothing to decide: no backend code runs before a tool call */
  /* The library's own decision, the one a create would make before it
   * provisions anything: the gate from metadata, then the backend's plan
   * (docker: the runtime it would use). A backend that could meet the
   * floor with another mechanism but would not with this configuration is
   * refused here, at start-up, not at the first tool call. */
  sbio_error *err = sbio_error_new();
  if (!err) return cli_error_oom(0);
  sbio_tier planned = SBIO_TIER_UNKNOWN;
  int exit_code = 0;
  if (sbio_sandbox_check(h->host, h->cfg->uri, h->copts, &planned, err) != SBIO_OK)
    exit_code = cli_error_report_sbio(err, 0);
  sbio_error_free(err);
  return exit_code;
}

void mcp_holder_set_progress(mcp_holder *h, sbio_progress_fn fn, void *user) {
  h->progress_fn = fn;
  h->progress_user = user;
}

/* The create of the holder's sandbox, declaring what the tool that asks
 * for it needs: the library's admission gate refuses a backend without it
 * before anything is provisioned (a file tool must not pay for a sandbox
 * its backend cannot read files in). The options are built for this one
 * create, so a tool's needs do not stay on the server's options. */
static sbio_code create_for(mcp_holder *h, sbio_caps needs, sbio_sandbox **out, sbio_error *err) {
  sbio_create_options *o = sbio_create_options_new();
  if (!o) {
    if (err) sbio_error_clear(err);
    return SBIO_E_INTERNAL;
  }
  /* The same settings were accepted at start-up; should a setter refuse
   * now, the options remember it and the create reports it. */
  const char *what;
  if (fill_create_options(h->cfg, o, &what) == SBIO_OK && needs)
    (void)sbio_create_options_require_capabilities(o, needs);
  sbio_code rc = sbio_sandbox_create(h->host, h->cfg->uri, o, out, err);
  sbio_create_options_free(o);
  return rc;
}

sbio_code mcp_holder_sandbox(mcp_holder *h, sbio_caps needs, sbio_sandbox **out, int *created, sbio_error *err) {
  *out = NULL;
  if (created) *created = 0;
  pthread_mutex_lock(&h->lock);
  int stopping = h->stopping;
  sbio_sandbox *sb = h->sb;
  pthread_mutex_unlock(&h->lock);
  if (stopping) return SBIO_E_GONE;
  if (sb) {
    *out = sb;
    return SBIO_OK;
  }
  /* Outside the lock: a create may take minutes (an image pull), and a
   * shutdown meanwhile must not wait for the lock to say "stop". */
  sbio_code rc = create_for(h, needs, &sb, err);
  if (rc != SBIO_OK) return rc;
  pthread_mutex_lock(&h->lock);
  if (h->stopping) {
    pthread_mutex_unlock(&h->lock);
    sbio_sandbox_close(sb, NULL);
    return SBIO_E_GONE;
  }
  h->sb = sb;
  pthread_mutex_unlock(&h->lock);
  *out = sb;
  if (created) *created = 1;
  return SBIO_OK;
}

void mcp_holder_forget(mcp_holder *h, sbio_sandbox *sb) {
  pthread_mutex_lock(&h->lock);
  if (h->sb == sb) h->sb = NULL;
  pthread_mutex_unlock(&h->lock);
  sbio_sandbox_close(sb, NULL);
}

static void close_reporting(sbio_sandbox *sb) {
  sbio_error *err = sbio_error_new();
  if (sbio_sandbox_close(sb, err) != SBIO_OK && err) {
    cli_error_view v;
    cli_error_view_from_sbio(err, &v);
    cli_error_print_human(&v, "warning");
  }
  sbio_error_free(err);
}

void mcp_holder_reset(mcp_holder *h) {
  pthread_mutex_lock(&h->lock);
  sbio_sandbox *sb = h->sb;
  h->sb = NULL;
  pthread_mutex_unlock(&h->lock);
  if (sb) close_reporting(sb);
}

void mcp_holder_shutdown(mcp_holder *h) {
  pthread_mutex_lock(&h->lock);
  h->stopping = 1;
  if (h->sb) sbio_sandbox_kill(h->sb, NULL);
  pthread_mutex_unlock(&h->lock);
}

int mcp_holder_stopping(mcp_holder *h) {
  pthread_mutex_lock(&h->lock);
  int stopping = h->stopping;
  pthread_mutex_unlock(&h->lock);
  return stopping;
}

void mcp_holder_close(mcp_holder *h) {
  if (!h) return;
  if (h->sb) {
    close_reporting(h->sb);
    h->sb = NULL;
  }
  if (h->host) sbio_host_close(h->host);
  sbio_create_options_free(h->copts);
  pthread_mutex_destroy(&h->lock);
  free(h);
}

void mcp_holder_isolation(mcp_holder *h, mcp_isolation *out) {
  memset(out, 0, sizeof *out);
  snprintf(out->backend, sizeof out->backend, "%s", h->backend);
  pthread_mutex_lock(&h->lock);
  sbio_sandbox *sb = h->sb;
  if (sb) {
    out->exists = 1;
    snprintf(out->mechanism, sizeof out->mechanism, "%s", sbio_sandbox_mechanism(sb));
    snprintf(out->sandbox_id, sizeof out->sandbox_id, "%s", sbio_sandbox_id(sb));
    out->tier = sbio_sandbox_tier(sb);
  }
  pthread_mutex_unlock(&h->lock);
  if (!sb) {
    const sbio_backend_info *b = sbio_host_backend_find(h->host, h->backend);
    out->tier = b ? sbio_backend_info_tier(b) : SBIO_TIER_UNKNOWN;
  }
}

sbio_host *mcp_holder_host(mcp_holder *h) {
  return h->host;
}
const mcp_config *mcp_holder_config(mcp_holder *h) {
  return h->cfg;
}
const char *mcp_holder_backend(mcp_holder *h) {
  return h->backend;
}
sbio_tier mcp_holder_floor(mcp_holder *h) {
  return h->floor;
}
double mcp_holder_timeout(mcp_holder *h) {
  return h->timeout_s;
}
