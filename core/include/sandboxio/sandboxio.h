/* SPDX-License-Identifier: MIT */
/* sandboxio: run code in sandboxes of any provider, with the strength of
 * their isolation reported and enforceable.
 *
 * Conventions
 * - Every fallible call returns an sbio_code (SBIO_OK == 0) and, when given a
 *   non-NULL sbio_error, fills it with code, message and hint. There is no
 *   global error state.
 * - Objects are opaque; options are objects with setters, so the API grows
 *   without breaking the ABI (SONAME libsandboxio.so.0).
 * - One sbio_host may serve many threads. One sbio_sandbox is used by one
 *   thread at a time, except sbio_sandbox_kill(), which any thread may call,
 *   also while an exec is in flight.
 * - Strings returned by accessors are owned by the object they come from and
 *   live as long as it does. Buffers returned through out-parameters are
 *   released with sbio_free().
 */
#ifndef SANDBOXIO_H
#define SANDBOXIO_H

#include <sandboxio/types.h>
#include <sandboxio/version.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The loaded library's version: "0.1.0", and as SBIO_VERSION_HEX encodes it
 * (<sandboxio/version.h> has the version a program was built against). */
SBIO_API const char *sbio_version(void);
SBIO_API unsigned int sbio_version_number(void);
SBIO_API void sbio_free(void *ptr);

/* ------------------------------------------------------------------ errors */
typedef struct sbio_error sbio_error;

SBIO_API sbio_error *sbio_error_new(void);
SBIO_API void sbio_error_free(sbio_error *err);
SBIO_API void sbio_error_clear(sbio_error *err);
SBIO_API sbio_code sbio_error_code(const sbio_error *err);
SBIO_API const char *sbio_error_message(const sbio_error *err);    /* "" when none */
SBIO_API const char *sbio_error_hint(const sbio_error *err);       /* "" when none */
SBIO_API const char *sbio_error_backend(const sbio_error *err);    /* "" when none */
SBIO_API const char *sbio_error_sandbox_id(const sbio_error *err); /* "" when none */
SBIO_API int sbio_error_provider_status(const sbio_error *err);    /* 0 when none */
/* "SBX_E1000" for SBIO_E_CONFIG; NULL for an unknown code. */
SBIO_API const char *sbio_code_name(sbio_code code);
/* "ConfigurationError" for SBIO_E_CONFIG; NULL for an unknown code. */
SBIO_API const char *sbio_code_class(sbio_code code);

/* -------------------------------------------------------------------- log */
typedef enum sbio_log_level {
  SBIO_LOG_DEBUG = 10,
  SBIO_LOG_INFO = 20,
  SBIO_LOG_WARN = 30,
  SBIO_LOG_ERROR = 40
} sbio_log_level;

/* Receives library diagnostics, already redacted. Without a callback,
 * warnings and errors go to stderr prefixed "sandboxio: ". */
typedef void (*sbio_log_fn)(sbio_log_level level, const char *message, void *user);
/* Receives each audit event as one line of JSON (no trailing newline).
 * Return 0 on success; non-zero is a sink failure (see audit.on_failure). */
typedef int (*sbio_audit_fn)(const char *json_line, void *user);

/* ------------------------------------------------------------------- host */
typedef struct sbio_host sbio_host;
typedef struct sbio_host_options sbio_host_options;

SBIO_API sbio_host_options *sbio_host_options_new(void);
SBIO_API void sbio_host_options_free(sbio_host_options *opts);
/* Use exactly this config file instead of the layered defaults (as
 * SBIO_CONFIG does). NULL restores the default. */
SBIO_API sbio_code sbio_host_options_set_config_file(sbio_host_options *opts, const char *path);
/* Do not read any config file, not even SBIO_CONFIG: built-in defaults. */
SBIO_API sbio_code sbio_host_options_set_no_config(sbio_host_options *opts, int no_config);
/* Colon-separated directories searched before every other, like
 * SBIO_BACKEND_PATH (which is searched after these). */
SBIO_API sbio_code sbio_host_options_set_backend_path(sbio_host_options *opts, const char *path);
SBIO_API sbio_code sbio_host_options_set_log_callback(sbio_host_options *opts, sbio_log_fn fn, void *user);
SBIO_API sbio_code sbio_host_options_add_audit_callback(sbio_host_options *opts, sbio_audit_fn fn, void *user);
/* Wall clock used for freshness and date checks (seconds since the epoch);
 * 0 means the real clock. For tests and reproducible reports. */
SBIO_API sbio_code sbio_host_options_set_now(sbio_host_options *opts, int64_t unix_seconds);

/* Reads configuration, scans the backend search path and validates every
 * backend's metadata. No backend code runs here. */
SBIO_API sbio_code sbio_host_open(const sbio_host_options *opts, sbio_host **out, sbio_error *err);
/* Destroys every sandbox still owned, unloads backends, flushes sinks. */
SBIO_API void sbio_host_close(sbio_host *host);
/* Config files read, in order (for doctor-style reports). */
SBIO_API size_t sbio_host_config_file_count(const sbio_host *host);
SBIO_API const char *sbio_host_config_file_at(const sbio_host *host, size_t index);
/* Effective search path, in order. */
SBIO_API size_t sbio_host_search_dir_count(const sbio_host *host);
SBIO_API const char *sbio_host_search_dir_at(const sbio_host *host, size_t index);
SBIO_API const char *sbio_host_default_backend(const sbio_host *host); /* NULL if unset */
SBIO_API sbio_tier sbio_host_isolation_floor(const sbio_host *host);   /* UNKNOWN = none */
/* One line, secret-free: "Host(backends: fake CONTAINER, daytona UNKNOWN;
 * floor GVISOR)". snprintf semantics. */
SBIO_API size_t sbio_host_describe(const sbio_host *host, char *buf, size_t size);

/* --------------------------------------------------------- backend info */
typedef struct sbio_backend_info sbio_backend_info;

typedef enum sbio_backend_status {
  SBIO_BACKEND_AVAILABLE = 1, /* metadata valid, enabled, code not loaded yet */
  SBIO_BACKEND_LOADED = 2,    /* dlopen'ed and its entry point validated */
  SBIO_BACKEND_DISABLED = 3,  /* disabled by configuration; never loaded */
  SBIO_BACKEND_REFUSED = 4,   /* refused; see the reason */
  SBIO_BACKEND_SHADOWED = 5   /* same name found earlier in the search path */
} sbio_backend_status;

SBIO_API size_t sbio_host_backend_count(const sbio_host *host);
SBIO_API const sbio_backend_info *sbio_host_backend_at(const sbio_host *host, size_t index);
/* The active entry for a name (not a shadowed one); NULL if none. */
SBIO_API const sbio_backend_info *sbio_host_backend_find(const sbio_host *host, const char *name);
/* Loads (dlopen) an enabled backend now and validates its entry point;
 * refusals found this way are recorded in its info. Creating a sandbox
 * loads the backend on demand; this is for listing with --load. */
SBIO_API sbio_code sbio_host_load_backend(sbio_host *host, const char *name, sbio_error *err);

SBIO_API const char *sbio_backend_info_name(const sbio_backend_info *b);
SBIO_API const char *sbio_backend_info_path(const sbio_backend_info *b);
SBIO_API const char *sbio_backend_info_version(const sbio_backend_info *b); /* "" if unknown */
SBIO_API const char *sbio_backend_info_summary(const sbio_backend_info *b); /* "" if unknown */
/* The environment variables holding the backend's credentials, as its
 * metadata declares them (and as its configured settings name them, e.g.
 * daytona's api_key_env): names only. The library redacts their values
 * from every message, log line, audit event and span it produces. */
SBIO_API size_t sbio_backend_info_credential_count(const sbio_backend_info *b);
SBIO_API const char *sbio_backend_info_credential_var(const sbio_backend_info *b, size_t i); /* NULL past the end */
/* The credential settings the backend declares that its configuration
 * fills (e2b's and daytona's api_key_env): the backend then reads the
 * variable such a setting names rather than its default one. Returns the
 * setting's name ("api_key_env"; NULL past the end) and sets *var (when
 * var is not NULL) to the variable it names, or to NULL while that
 * variable is unset or empty and is not one the backend declares: the
 * text may then be the credential itself, pasted where a name belongs,
 * so it is never handed out (say "the variable that settings.api_key_env
 * names"). */
SBIO_API size_t sbio_backend_info_credential_setting_count(const sbio_backend_info *b);
SBIO_API const char *sbio_backend_info_credential_setting(const sbio_backend_info *b, size_t i, const char **var);
SBIO_API sbio_backend_status sbio_backend_info_status(const sbio_backend_info *b);
SBIO_API const char *sbio_backend_status_name(sbio_backend_status status); /* "loaded" */
/* Why the backend was refused, disabled or shadowed; "" otherwise. */
SBIO_API const char *sbio_backend_info_reason(const sbio_backend_info *b);
SBIO_API int sbio_backend_info_enabled(const sbio_backend_info *b);
SBIO_API sbio_caps sbio_backend_info_capabilities(const sbio_backend_info *b);
/* The backend's tier: the weakest effective tier among its mechanisms
 * (what every sandbox it creates is at least). UNKNOWN when refused. */
SBIO_API sbio_tier sbio_backend_info_tier(const sbio_backend_info *b);
/* The weakest tier its metadata claims, before verification. */
SBIO_API sbio_tier sbio_backend_info_claimed_tier(const sbio_backend_info *b);
/* Operator pins from the config (UNKNOWN / "" when not pinned). */
SBIO_API int sbio_backend_info_has_expect_tier(const sbio_backend_info *b);
SBIO_API sbio_tier sbio_backend_info_expect_tier(const sbio_backend_info *b);
/* SHA-256 of the file, 64 hex digits. Listing does not read whole files:
 * the file is hashed on the first call (and at scan when a sha256 pin
 * needs it); "" when it can no longer be known (the file changed since the
 * host scanned it, or cannot be read). */
SBIO_API const char *sbio_backend_info_sha256(const sbio_backend_info *b);

SBIO_API size_t sbio_backend_info_mechanism_count(const sbio_backend_info *b);
SBIO_API const char *sbio_mechanism_name(const sbio_backend_info *b, size_t i);
SBIO_API sbio_tier sbio_mechanism_claimed_tier(const sbio_backend_info *b, size_t i);
SBIO_API sbio_tier sbio_mechanism_tier(const sbio_backend_info *b, size_t i); /* effective */
SBIO_API const char *sbio_mechanism_source_url(const sbio_backend_info *b, size_t i);
SBIO_API const char *sbio_mechanism_verified_on(const sbio_backend_info *b, size_t i);
SBIO_API const char *sbio_mechanism_quote(const sbio_backend_info *b, size_t i);
SBIO_API int sbio_mechanism_stale(const sbio_backend_info *b, size_t i);
SBIO_API int sbio_mechanism_age_days(const sbio_backend_info *b, size_t i); /* -1 unknown */
/* Why the effective tier is UNKNOWN or stale; "" when verified and fresh. */
SBIO_API const char *sbio_mechanism_reason(const sbio_backend_info *b, size_t i);

/* One line, secret-free: "Backend(fake 0.1.0 loaded CONTAINER)". Returns the
 * length it needed (snprintf semantics). */
SBIO_API size_t sbio_backend_info_describe(const sbio_backend_info *b, char *buf, size_t size);

/* --------------------------------------------------------------- sandbox */
typedef struct sbio_sandbox sbio_sandbox;
typedef struct sbio_create_options sbio_create_options;

typedef enum sbio_egress {
  SBIO_EGRESS_DENY = 0, /* default */
  SBIO_EGRESS_ALLOW = 1
} sbio_egress;

#define SBIO_DEFAULT_TIMEOUT_S 300.0

SBIO_API sbio_create_options *sbio_create_options_new(void);
SBIO_API void sbio_create_options_free(sbio_create_options *o);
/* Fails with SBIO_E_CONFIG on creation when the backend's plan does not
 * satisfy it; requiring UNKNOWN is itself a configuration error. */
SBIO_API sbio_code sbio_create_options_require_isolation(sbio_create_options *o, sbio_tier tier);
SBIO_API sbio_code sbio_create_options_set_template(sbio_create_options *o, const char *tmpl);
SBIO_API sbio_code sbio_create_options_set_env(sbio_create_options *o, const char *key, const char *value);
/* Like env, but the value is redacted from every log, event, description
 * and error. */
SBIO_API sbio_code sbio_create_options_set_secret(sbio_create_options *o, const char *key, const char *value);
/* Caller metadata, propagated to provider labels (tenant_id, session_id). */
SBIO_API sbio_code sbio_create_options_set_label(sbio_create_options *o, const char *key, const char *value);
/* Caps: values must be > 0 (a caller may raise a cap, never unset it). */
SBIO_API sbio_code sbio_create_options_set_cpu(sbio_create_options *o, double cpus);
SBIO_API sbio_code sbio_create_options_set_memory_mb(sbio_create_options *o, int64_t mb);
SBIO_API sbio_code sbio_create_options_set_disk_mb(sbio_create_options *o, int64_t mb);
SBIO_API sbio_code sbio_create_options_set_gpu(sbio_create_options *o, const char *gpu);
SBIO_API sbio_code sbio_create_options_set_egress(sbio_create_options *o, sbio_egress egress);
/* Adds a host or CIDR to the egress allow-list (needs NETWORK_ALLOWLIST). */
SBIO_API sbio_code sbio_create_options_allow_host(sbio_create_options *o, const char *host);
/* Sandbox lifetime and create deadline in seconds (> 0 and at most
 * SBIO_MAX_TIMEOUT_S, 24 h; default 300). */
SBIO_API sbio_code sbio_create_options_set_timeout(sbio_create_options *o, double seconds);

/* Creates a sandbox from a target URI: "<backend>://[<template>][?timeout=N]".
 * NULL uri means the configured default backend, else "fake://". */
SBIO_API sbio_code sbio_sandbox_create(sbio_host *host, const char *uri, const sbio_create_options *opts,
                                       sbio_sandbox **out, sbio_error *err);
/* Re-attaches to a live managed sandbox; never creates one. It passes the
 * same admission gate as a create, with the fleet floor as the only
 * requirement (sbio_sandbox_connect_ex takes more). Closing the handle
 * destroys the sandbox, as for one this host created. */
SBIO_API sbio_code sbio_sandbox_connect(sbio_host *host, const char *backend, const char *sandbox_id,
                                        sbio_sandbox **out, sbio_error *err);
/* Idempotent; callable from any thread, also during an exec. */
SBIO_API sbio_code sbio_sandbox_kill(sbio_sandbox *sb, sbio_error *err);
/* Kills the sandbox (if not yet killed) and frees the handle. A failed
 * teardown is returned with the sandbox id and labels in the message so
 * `sbio reap` can finish the job. The handle is freed either way. */
SBIO_API sbio_code sbio_sandbox_close(sbio_sandbox *sb, sbio_error *err);

SBIO_API const char *sbio_sandbox_id(const sbio_sandbox *sb);
SBIO_API const char *sbio_sandbox_backend(const sbio_sandbox *sb);
SBIO_API const char *sbio_sandbox_mechanism(const sbio_sandbox *sb);
SBIO_API sbio_tier sbio_sandbox_tier(const sbio_sandbox *sb);
SBIO_API sbio_caps sbio_sandbox_capabilities(const sbio_sandbox *sb);
SBIO_API int sbio_sandbox_alive(const sbio_sandbox *sb);
/* "Sandbox(fake:fake-0001 CONTAINER/none running)" */
SBIO_API size_t sbio_sandbox_describe(const sbio_sandbox *sb, char *buf, size_t size);

/* ------------------------------------------------------------------ exec */
typedef struct sbio_exec_options sbio_exec_options;
typedef struct sbio_exec_result sbio_exec_result;

typedef enum sbio_stream { SBIO_STDOUT = 1, SBIO_STDERR = 2 } sbio_stream;
/* Streaming output, called on the exec's thread as bytes arrive, in order
 * within a stream. That thread also enforces the exec's deadline: while the
 * callback blocks (a write to a pipe nobody reads), the deadline cannot
 * fire. Return promptly, or hand the bytes to a thread of your own with a
 * bounded wait (sbio run does: cli/run_writer.c). */
typedef void (*sbio_output_fn)(sbio_stream stream, const char *data, size_t len, void *user);

/* Buffered output is capped per stream (default 16 MiB); bytes beyond the
 * cap still reach the streaming callback, and the result says it was
 * truncated. */
#define SBIO_DEFAULT_OUTPUT_CAP ((size_t)16 * 1024 * 1024)

SBIO_API sbio_exec_options *sbio_exec_options_new(void);
SBIO_API void sbio_exec_options_free(sbio_exec_options *o);
SBIO_API sbio_code sbio_exec_options_set_env(sbio_exec_options *o, const char *key, const char *value);
SBIO_API sbio_code sbio_exec_options_set_cwd(sbio_exec_options *o, const char *cwd);
SBIO_API sbio_code sbio_exec_options_set_stdin(sbio_exec_options *o, const void *data, size_t len);
/* Seconds (> 0, at most SBIO_MAX_TIMEOUT_S). Unset: inherits the
 * sandbox's timeout; never unbounded. */
SBIO_API sbio_code sbio_exec_options_set_timeout(sbio_exec_options *o, double seconds);
SBIO_API sbio_code sbio_exec_options_set_output_callback(sbio_exec_options *o, sbio_output_fn fn, void *user);
SBIO_API sbio_code sbio_exec_options_set_output_cap(sbio_exec_options *o, size_t bytes_per_stream);

/* argv is NULL-terminated and never passes through a shell. A non-zero exit
 * status is data (in the result), not an error. A deadline kills the process
 * and returns SBIO_E_EXEC_TIMEOUT (the result, if requested, holds the
 * output so far). */
SBIO_API sbio_code sbio_sandbox_exec(sbio_sandbox *sb, const char *const *argv, const sbio_exec_options *opts,
                                     sbio_exec_result **out, sbio_error *err);
/* Runs a script under the backend's shell (/bin/sh -c where it has one). */
SBIO_API sbio_code sbio_sandbox_exec_shell(sbio_sandbox *sb, const char *script, const sbio_exec_options *opts,
                                           sbio_exec_result **out, sbio_error *err);

/* One command in a sandbox that exists only for it: create (through the
 * same admission gate, before anything is provisioned), run, destroy, in
 * one call; what `sbio run` does. With a backend that offers a one-shot
 * operation (backend ABI 1.5, `run`) the command is the
 * sandbox's own process rather than an exec into an idle sandbox;
 * otherwise the library creates, executes and closes. Either way the
 * options mean what they mean for sbio_sandbox_create and
 * sbio_sandbox_exec (the exec's timeout, or the sandbox's, bounds the
 * whole run), the audit log records create_requested, created, exec and
 * kill, and the sandbox is gone when the call returns (a teardown that
 * fails is logged with the sandbox id for `sbio reap --kill`). The exec
 * options' cancellation token, if any, ends the whole run from any thread:
 * the sandbox is destroyed and the call returns SBIO_E_CANCELLED, with the
 * output so far when a result is asked for. */
SBIO_API sbio_code sbio_run(sbio_host *host, const char *uri, const sbio_create_options *copts, const char *const *argv,
                            const sbio_exec_options *eopts, sbio_exec_result **out, sbio_error *err);
SBIO_API sbio_code sbio_run_shell(sbio_host *host, const char *uri, const sbio_create_options *copts,
                                  const char *script, const sbio_exec_options *eopts, sbio_exec_result **out,
                                  sbio_error *err);

SBIO_API int sbio_exec_result_exit_code(const sbio_exec_result *r);
SBIO_API const char *sbio_exec_result_stdout(const sbio_exec_result *r, size_t *len); /* NUL-terminated */
SBIO_API const char *sbio_exec_result_stderr(const sbio_exec_result *r, size_t *len); /* NUL-terminated */
SBIO_API int sbio_exec_result_truncated(const sbio_exec_result *r);                   /* either stream hit the cap */
SBIO_API int64_t sbio_exec_result_duration_ms(const sbio_exec_result *r);
SBIO_API void sbio_exec_result_free(sbio_exec_result *r);

/* Cancelling one exec, from any thread, without ending the sandbox (which
 * sbio_sandbox_kill does).
 *
 *   sbio_cancel *c = sbio_cancel_new();
 *   sbio_exec_options_set_cancel(opts, c);
 *   ... sbio_sandbox_exec(sb, argv, opts, &r, err) on one thread ...
 *   ... sbio_cancel_request(c) on another: the exec kills its process and
 *       returns SBIO_E_CANCELLED promptly; the sandbox stays usable ...
 *   sbio_cancel_free(c);   (after the exec returned)
 *
 * A token is one-way: once requested it stays requested, and an exec
 * started with a requested token fails with SBIO_E_CANCELLED before
 * anything runs. One token may serve several execs (cancelling them all).
 * On SBIO_E_CANCELLED the result, if requested, holds the output produced
 * before the process was killed (exit code 137, or -1 when it never
 * started).
 * A command that finished before the cancellation reached the backend
 * returns normally. Not every backend can stop one process without ending
 * the sandbox: sbio_sandbox_exec_cancellable() says whether this one can,
 * and an exec given a token on a sandbox that cannot fails at once with
 * SBIO_E_CAPABILITY rather than ignoring the token. */
typedef struct sbio_cancel sbio_cancel;

SBIO_API sbio_cancel *sbio_cancel_new(void);
/* Free only once no exec uses the token any more. */
SBIO_API void sbio_cancel_free(sbio_cancel *c);
/* Idempotent; async-signal-safe (one atomic store); any thread. */
SBIO_API void sbio_cancel_request(sbio_cancel *c);
SBIO_API int sbio_cancel_requested(const sbio_cancel *c);
/* The token is borrowed: it must outlive every exec run with `o`. NULL
 * removes it. */
SBIO_API sbio_code sbio_exec_options_set_cancel(sbio_exec_options *o, sbio_cancel *c);
/* 1 when the backend can cancel one exec of this sandbox and keep the
 * sandbox (backend ABI 1.3, SBIO_BK_FEATURE_EXEC_CANCEL), else 0. */
SBIO_API int sbio_sandbox_exec_cancellable(const sbio_sandbox *sb);

/* ----------------------------------------------------------------- files */
typedef struct sbio_file_list sbio_file_list;

/* Paths are inside the sandbox; relative paths resolve against the same
 * work directory exec uses. Reads are capped at `max_bytes` (0: 256 MiB). */
SBIO_API sbio_code sbio_file_read(sbio_sandbox *sb, const char *path, size_t max_bytes, unsigned char **data,
                                  size_t *len, sbio_error *err);
SBIO_API sbio_code sbio_file_write(sbio_sandbox *sb, const char *path, const void *data, size_t len, sbio_error *err);
SBIO_API sbio_code sbio_file_list_dir(sbio_sandbox *sb, const char *path, sbio_file_list **out, sbio_error *err);
SBIO_API sbio_code sbio_file_mkdir(sbio_sandbox *sb, const char *path, int parents, sbio_error *err);
/* Removes a file or a directory tree. */
SBIO_API sbio_code sbio_file_remove(sbio_sandbox *sb, const char *path, sbio_error *err);

SBIO_API size_t sbio_file_list_count(const sbio_file_list *l);
SBIO_API const char *sbio_file_list_name(const sbio_file_list *l, size_t i);
SBIO_API const char *sbio_file_list_path(const sbio_file_list *l, size_t i);
SBIO_API int64_t sbio_file_list_size(const sbio_file_list *l, size_t i);
SBIO_API int sbio_file_list_is_dir(const sbio_file_list *l, size_t i);
SBIO_API void sbio_file_list_free(sbio_file_list *l);

/* ------------------------------------------------------- managed (reap) */
typedef struct sbio_managed_list sbio_managed_list;

/* Sandboxes this project created on a backend (live or stopped but still
 * held by the provider), filtered by labels ("k=v", AND). */
SBIO_API sbio_code sbio_managed_list_get(sbio_host *host, const char *backend, const char *const *labels,
                                         sbio_managed_list **out, sbio_error *err);
SBIO_API size_t sbio_managed_list_count(const sbio_managed_list *l);
SBIO_API const char *sbio_managed_list_id(const sbio_managed_list *l, size_t i);
SBIO_API const char *sbio_managed_list_state(const sbio_managed_list *l, size_t i);
SBIO_API int64_t sbio_managed_list_created_at(const sbio_managed_list *l, size_t i); /* -1 unknown */
SBIO_API size_t sbio_managed_list_label_count(const sbio_managed_list *l, size_t i);
SBIO_API const char *sbio_managed_list_label_key(const sbio_managed_list *l, size_t i, size_t j);
SBIO_API const char *sbio_managed_list_label_value(const sbio_managed_list *l, size_t i, size_t j);
SBIO_API void sbio_managed_list_free(sbio_managed_list *l);
/* *killed is 1 when it was removed, 0 when it was already gone. */
SBIO_API sbio_code sbio_managed_kill(sbio_host *host, const char *backend, const char *sandbox_id, int *killed,
                                     sbio_error *err);

/* --------------------------------------------------------- observability */
/* A caller's W3C trace context, "00-<32 hex trace id>-<16 hex span id>-<2 hex
 * flags>": the span of every operation of this host becomes a child of that
 * span (in its trace). A malformed value is ignored with a warning at
 * sbio_host_open, as W3C Trace Context requires; NULL clears it. Spans are
 * exported only when tracing is configured (docs/tracing.md). */
SBIO_API sbio_code sbio_host_options_set_traceparent(sbio_host_options *opts, const char *traceparent);
/* Where this host exports spans ("http://collector:4318/v1/traces", without
 * user name, password or query), or NULL when span export is off. */
SBIO_API const char *sbio_host_trace_endpoint(const sbio_host *host);
/* Why span export is off, in a sentence for a person ("OTEL_SDK_DISABLED=true",
 * "tracing.enabled is false in the configuration", "no endpoint is
 * configured ..."), or NULL when spans are exported. Owned by the host. */
SBIO_API const char *sbio_host_trace_off_reason(const sbio_host *host);

/* Asks a backend whether its provider can be reached (Docker: a ping of the
 * daemon). Loads the backend and opens its instance if needed, so the
 * backend's code runs; cloud backends may make a network request. `detail`
 * receives one secret-free line (e.g. the engine version, or why it failed).
 * SBIO_E_CAPABILITY when the backend has no probe operation. Bounded by a
 * 10 s deadline. */
SBIO_API sbio_code sbio_backend_probe(sbio_host *host, const char *name, char *detail, size_t detail_size,
                                      sbio_error *err);

/* ---------------------------------------------------------------- progress */
/* Progress of a long step inside an operation, such as the image pull of a
 * sbio_sandbox_create: `what` names the step ("pull python:3.12-slim",
 * redacted), `done` and `total` count its units (bytes for a pull), and
 * `total` is -1 while unknown. Called on the thread running the operation,
 * only when a number changed; `done` never goes down and a step that
 * succeeds ends with done == total. Backends built before ABI 1.2 never
 * report progress. */
typedef void (*sbio_progress_fn)(const char *what, int64_t done, int64_t total, void *user);
/* Where progress goes; without a callback (the default, or fn NULL) it is
 * dropped. `user` must outlive the host. */
SBIO_API sbio_code sbio_host_options_set_progress_callback(sbio_host_options *opts, sbio_progress_fn fn, void *user);

/* ------------------------------------------------------------ admission */
/* Every path that yields a sandbox handle passes one admission gate: the
 * fleet floor (require_isolation in the configuration) raised by the
 * caller's requirement, the mechanism the backend names for that sandbox,
 * and every capability the request needs. A refusal (SBIO_E_CONFIG for
 * isolation, SBIO_E_CAPABILITY for a capability) comes before anything is
 * provisioned, or, for a connect, before a handle is returned.
 *
 * Declares what the caller will use of the sandbox (SBIO_CAP_STDIN,
 * SBIO_CAP_SEPARATE_STDERR, SBIO_CAP_FILESYSTEM, ...; OR them), so a create
 * on a backend that lacks one fails before anything exists instead of at
 * the exec or file operation that needs it (which still refuse, as a
 * second line). Repeated calls add up. A bit that is not a capability is a
 * configuration error. */
SBIO_API sbio_code sbio_create_options_require_capabilities(sbio_create_options *o, sbio_caps caps);

/* Options of a connect; NULL options mean the fleet floor alone. */
typedef struct sbio_connect_options sbio_connect_options;
SBIO_API sbio_connect_options *sbio_connect_options_new(void);
SBIO_API void sbio_connect_options_free(sbio_connect_options *o);
/* As for a create: raises the fleet floor, never lowers it; requiring
 * UNKNOWN is a configuration error. */
SBIO_API sbio_code sbio_connect_options_require_isolation(sbio_connect_options *o, sbio_tier tier);
/* What the caller will use of the sandbox (SBIO_CAP_CONNECT is implied). */
SBIO_API sbio_code sbio_connect_options_require_capabilities(sbio_connect_options *o, sbio_caps caps);
/* sbio_sandbox_connect with options. Refused before the backend is asked
 * when none of its mechanisms could meet the required tier or a capability
 * is undeclared; refused before a handle is returned when the mechanism the
 * backend reports for that sandbox does not meet it (the sandbox is then
 * left as it was, not killed). Audited: connect_requested, connect_denied,
 * connected, connect_failed. sbio_sandbox_connect(h, b, id, out, err) is
 * sbio_sandbox_connect_ex(h, b, id, NULL, out, err). */
SBIO_API sbio_code sbio_sandbox_connect_ex(sbio_host *host, const char *backend, const char *sandbox_id,
                                           const sbio_connect_options *opts, sbio_sandbox **out, sbio_error *err);

/* Everything sbio_sandbox_create(host, uri, opts, ...) decides before it
 * provisions anything, and nothing more: the target URI and options, the
 * backend (found, usable), the admission gate (the fleet floor raised by the
 * options' requirement, every capability needed) and the backend's plan
 * against the required tier. Nothing is provisioned or billed; the
 * backend's code does run (it is loaded and asked for its plan), as for a
 * create. Returns what that create would return at this point (SBIO_OK, or
 * the same error and hint), and *planned_tier (may be NULL) the tier of the
 * mechanism it would use. A refusal is audited as the create_denied event
 * such a create would emit, with "check": 1; a pass emits nothing. For
 * deciding a requirement when a service starts (sbio mcp) rather than at
 * its first request. The create still checks again, and checks the
 * mechanism it observed. */
SBIO_API sbio_code sbio_sandbox_check(sbio_host *host, const char *uri, const sbio_create_options *opts,
                                      sbio_tier *planned_tier, sbio_error *err);

#ifdef __cplusplus
}
#endif
#endif
