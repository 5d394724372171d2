/* SPDX-License-Identifier: MIT */
/* The host and sandbox objects, shared by the modules that implement the
 * client API (host.c, sandbox.c, connect.c, admission.c, exec.c, files.c,
 * managed.c, policy.c). */
#ifndef SBIO_HOST_INTERNAL_H
#define SBIO_HOST_INTERNAL_H

#include "audit.h"
#include "config.h"
#include "redact.h"
#include "registry.h"
#include "strlist.h"
#include "trust.h"

#include <pthread.h>
#include <sandboxio/backend.h>
#include <sandboxio/sandboxio.h>
#include <stdatomic.h>

#define SBIO__MAX_AUDIT_CALLBACKS 8

struct sbio_host_options {
  char *config_file;
  int no_config;
  char *backend_path;
  sbio_log_fn log_fn;
  void *log_user;
  sbio_progress_fn progress_fn;
  void *progress_user;
  sbio__audit_callback audit_cbs[SBIO__MAX_AUDIT_CALLBACKS];
  size_t n_audit_cbs;
  int64_t now;
  char *traceparent; /* the caller's W3C trace context, unparsed */
};

struct sbio_host {
  sbio__config cfg;
  sbio__registry reg;
  sbio__strlist search_dirs;
  sbio__trust_policy trust;
  sbio_log_fn log_fn;
  void *log_user;
  sbio_progress_fn progress_fn; /* NULL: progress is dropped */
  void *progress_user;
  sbio__redactor redactor;
  sbio__audit audit;
  struct sbio__tracer *tracer;  /* NULL unless spans are exported (trace.h) */
  const char *trace_off_reason; /* static text: why tracer is NULL */
  char session_id[33];
  sbio_host_services services;
  pthread_mutex_t lock; /* guards `sandboxes` */
  struct sbio_sandbox **sandboxes;
  size_t n_sandboxes, cap_sandboxes;
};

struct sbio_sandbox {
  sbio_host *host;
  struct sbio_backend_info *backend;
  void *handle; /* the backend's */
  char id[128];
  char mechanism[64];
  sbio_tier tier;
  const sbio__mechanism *mech; /* metadata entry of the observed mechanism */
  sbio_caps caps;
  sbio__kvlist labels;
  double timeout_s;
  atomic_int killed; /* kill requested: cancels calls in flight */
  /* sbio_run without a one-shot operation: this token, once requested,
   * means the sandbox is being killed (calls in flight end as for a kill;
   * the run then closes the sandbox). NULL otherwise. */
  const struct sbio_cancel *kill_token;
  int destroyed;             /* the backend confirmed the kill (under kill_lock) */
  pthread_mutex_t kill_lock; /* serialises kill against itself */
};

/* Per-call context handed to backends: deadline plus cancellation when the
 * sandbox is killed from another thread, or when the caller's token
 * cancels this one exec (only set for backends with
 * SBIO_BK_FEATURE_EXEC_CANCEL; exec.c refuses a token otherwise). */
typedef struct sbio__call {
  sbio_bk_call call;
  struct sbio_sandbox *sandbox;     /* may be NULL */
  const struct sbio_cancel *cancel; /* may be NULL */
  /* The token ends the whole call, sandbox and all (sbio_run's one-shot
   * operation): cancelled() only, never exec_cancelled(). */
  int cancel_kills;
} sbio__call;

void sbio__call_init(sbio__call *c, sbio_host *host, struct sbio_sandbox *sb, int64_t deadline_ns);
/* Loads the backend if needed and opens its instance with its settings. */
sbio_code sbio__host_backend_instance(sbio_host *host, struct sbio_backend_info *b, sbio_error *err);
/* The backend's entry for an error: name, "available" list, status. */
sbio_code sbio__host_resolve_backend(sbio_host *host, const char *name, struct sbio_backend_info **out,
                                     sbio_error *err);
/* SBIO_E_BACKEND_UNAVAILABLE, with the reason, unless the backend is
 * available or loaded. */
sbio_code sbio__host_check_usable(const struct sbio_backend_info *b, sbio_error *err);
void sbio__host_forget_sandbox(sbio_host *host, struct sbio_sandbox *sb);
/* A sandbox object for a backend handle (sandbox.c); NULL on OOM. `mech`
 * is the admitted mechanism's metadata entry (NULL: UNKNOWN). Not yet
 * owned by the host (sbio__host_adopt_sandbox). */
struct sbio_sandbox *sbio__sandbox_new(sbio_host *host, struct sbio_backend_info *b, void *handle,
                                       const sbio_bk_sandbox_info *info, const sbio__mechanism *mech);
/* Frees the object only: no kill, no release. */
void sbio__sandbox_free(struct sbio_sandbox *sb);
int sbio__host_adopt_sandbox(sbio_host *host, struct sbio_sandbox *sb);
/* The mechanism entry of a backend by name, or NULL. */
const sbio__mechanism *sbio__backend_mechanism(const struct sbio_backend_info *b, const char *name);
/* Redacts the error against every secret the host knows. */
void sbio__host_redact_error(sbio_host *host, sbio_error *err);

/* log.c */
void sbio__log(sbio_host *host, sbio_log_level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
