/* SPDX-License-Identifier: MIT */
/* sandboxio backend ABI, version 1.
 *
 * A backend is a shared object named sbio-backend-NAME.so that
 *   1. embeds its metadata (JSON) in an ELF note, section ".note.sandboxio",
 *      which the core reads from the file without running any code, and
 *   2. exports exactly one symbol, sbio_backend_entry_v1, returning its
 *      operations table.
 * Both come from one SBIO_BACKEND(...) invocation, so they cannot drift.
 *
 * Stability: within ABI major 1, fields are only appended to the structs
 * below and each struct starts with its size, so a backend built against an
 * older minor keeps working and a newer core never reads past what the
 * backend provided. An operation left NULL means "not supported" and the
 * core answers SBIO_E_CAPABILITY; it is never called. See docs/backend-abi.md.
 */
#ifndef SANDBOXIO_BACKEND_H
#define SANDBOXIO_BACKEND_H

#include <sandboxio/types.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SBIO_BACKEND_ABI_MAJOR 1
/* Minor versions (appended operations, see "Stability" above):
 *   1.0  the first table
 *   1.1  probe
 *   1.2  sbio_host_services.progress (check it with SBIO_HOST_HAS)
 *   1.3  per-exec cancellation: sbio_bk_call.exec_cancelled (check it with
 *        SBIO_CALL_HAS), sbio_backend_ops.features (SBIO_BK_FEATURE_*) and
 *        the catalogue code SBIO_E_CANCELLED
 *   1.4  the metadata key "credentials" (SBIO_CREDENTIALS, declared with
 *        SBIO_BACKEND_WITH_CREDENTIALS): the core redacts the values of the
 *        variables it lists from everything it passes on. A core older
 *        than 1.4 refuses a note that carries it (its schema is closed).
 *   1.5  run: one command in a sandbox that exists only for it
 *        (sbio_bk_run_req) */
#define SBIO_BACKEND_ABI_MINOR 5
#define SBIO_BACKEND_ENTRY_SYMBOL "sbio_backend_entry_v1"

/* ELF note: owner "sandboxio", type 'SBIO'. The descriptor is the metadata
 * JSON, NUL-terminated and padded to 4 bytes. */
#define SBIO_NOTE_OWNER "sandboxio"
#define SBIO_NOTE_TYPE 0x4f494253u /* "SBIO" little-endian */
#define SBIO_NOTE_SECTION ".note.sandboxio"
#define SBIO_METADATA_MAX 65536 /* largest descriptor the core accepts */

/* --------------------------------------------------------------- errors */
/* Filled by a failing operation. Fixed buffers keep the ABI free of
 * allocator ownership questions. Never put a secret here: the core redacts
 * what it knows, but a backend must not rely on that. */
typedef struct sbio_bk_error {
  uint32_t size;
  int code;            /* an sbio_code */
  int provider_status; /* e.g. the HTTP status, 0 if none */
  char message[512];
  char hint[256];
} sbio_bk_error;

static inline int sbio_bk_error_set(sbio_bk_error *err, int code, const char *hint, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static inline int sbio_bk_error_set(sbio_bk_error *err, int code, const char *hint, const char *fmt, ...) {
  if (err) {
    va_list ap;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    snprintf(err->hint, sizeof err->hint, "%s", hint ? hint : "");
  }
  return code;
}

/* --------------------------------------------------------- host services */
enum { SBIO_BK_LOG_DEBUG = 10, SBIO_BK_LOG_INFO = 20, SBIO_BK_LOG_WARN = 30, SBIO_BK_LOG_ERROR = 40 };

typedef struct sbio_host_services {
  uint32_t size;
  void *host_data;
  /* Log a line (redacted by the host before any sink sees it). */
  void (*log)(void *host_data, int level, const char *message);
  /* Monotonic clock in nanoseconds; deadlines use this clock. */
  int64_t (*monotonic_ns)(void *host_data);
  /* Returns a malloc'd copy of `text` with every secret the host knows
   * replaced by "***"; free it with free_string. NULL on OOM. */
  char *(*redact)(void *host_data, const char *text);
  void (*free_string)(void *host_data, char *text);
  /* ABI 1.2. Progress of a long step inside an operation, for a progress
   * bar: `what` names the step ("pull python:3.12-slim"; no secrets),
   * `done` and `total` count its units (bytes for a pull), total -1 while
   * unknown. Call it on the operation's thread, only when something
   * changed, and end a successful step with done == total. A host older
   * than 1.2 has no such member: test SBIO_HOST_HAS(host, progress). */
  void (*progress)(void *host_data, const char *what, int64_t done, int64_t total);
} sbio_host_services;

/* True when the host provides the service (its struct is large enough and
 * the pointer is non-NULL): the same rule as SBIO_OPS_HAS, for services
 * appended after ABI 1.0. */
#define SBIO_HOST_HAS(host, field)                                                                                     \
  ((host)->size >= offsetof(sbio_host_services, field) + sizeof((host)->field) && (host)->field != NULL)

/* Per-call context: the deadline and a cancellation check. */
typedef struct sbio_bk_call {
  uint32_t size;
  int64_t deadline_ns; /* absolute, host monotonic clock; always set */
  const sbio_host_services *host;
  void *host_call_data;
  /* Non-zero once the caller gave up (e.g. the sandbox is being killed
   * from another thread). Long waits poll it. */
  int (*cancelled)(const struct sbio_bk_call *call);
  /* ABI 1.3. Non-zero when this exec was cancelled by its caller while the
   * sandbox lives on: cancelled() is then non-zero too. Only a backend that
   * declares SBIO_BK_FEATURE_EXEC_CANCEL ever sees it set; it must then kill
   * the process (never the sandbox), return SBIO_E_CANCELLED promptly and
   * leave the sandbox usable. cancelled() without exec_cancelled() means the
   * sandbox itself is being killed (kill's rules apply: exit code 137). A
   * core older than 1.3 has no such member: test SBIO_CALL_HAS(call,
   * exec_cancelled). */
  int (*exec_cancelled)(const struct sbio_bk_call *call);
} sbio_bk_call;

/* True when the call context has the member (large enough, non-NULL). */
#define SBIO_CALL_HAS(call, field)                                                                                     \
  ((call)->size >= offsetof(sbio_bk_call, field) + sizeof((call)->field) && (call)->field != NULL)

/* Non-zero when the caller cancelled this exec (and only this exec): see
 * sbio_bk_call.exec_cancelled. Safe on any core. */
static inline int sbio_bk_exec_cancelled(const sbio_bk_call *call) {
  return SBIO_CALL_HAS(call, exec_cancelled) && call->exec_cancelled(call);
}

static inline int64_t sbio_bk_now_ns(const sbio_bk_call *call) {
  return call->host->monotonic_ns(call->host->host_data);
}
static inline int64_t sbio_bk_remaining_ns(const sbio_bk_call *call) {
  int64_t left = call->deadline_ns - sbio_bk_now_ns(call);
  return left > 0 ? left : 0;
}

/* ------------------------------------------------------------- requests */
typedef struct sbio_bk_kv {
  const char *key;
  const char *value;
} sbio_bk_kv;

typedef struct sbio_bk_create_req {
  uint32_t size;
  const char *template_name; /* NULL: the backend's default */
  const sbio_bk_kv *env;     /* environment of every process */
  size_t n_env;
  const sbio_bk_kv *secrets; /* also environment; values must never be logged */
  size_t n_secrets;
  const sbio_bk_kv *labels; /* caller metadata: propagate to provider labels */
  size_t n_labels;
  const char *session_id;   /* this host's session (label it for reaping) */
  double cpu;               /* 0: the backend's modest default */
  int64_t memory_mb;        /* 0: default */
  int64_t disk_mb;          /* 0: default */
  const char *gpu;          /* NULL: none */
  int egress;               /* sbio_egress: 0 deny, 1 allow */
  const char *const *allow; /* egress allow-list (hosts, CIDRs), under deny */
  size_t n_allow;
  double timeout_s; /* sandbox lifetime, in (0, SBIO_MAX_TIMEOUT_S]; also the provider-side backstop */
} sbio_bk_create_req;

typedef struct sbio_bk_sandbox_info {
  uint32_t size;
  char id[128];       /* provider id, unique for the sandbox's lifetime */
  char mechanism[64]; /* the mechanism actually used (observed) */
} sbio_bk_sandbox_info;

/* Output arrives through this callback: stream 1 stdout, 2 stderr. */
typedef void (*sbio_bk_output_fn)(void *user, int stream, const char *data, size_t len);

typedef struct sbio_bk_exec_req {
  uint32_t size;
  const char *const *argv; /* argv mode: never through a shell */
  size_t argc;
  const char *shell; /* shell mode when non-NULL (argv is then NULL) */
  const sbio_bk_kv *env;
  size_t n_env;
  const char *cwd; /* NULL: the sandbox work directory */
  int has_stdin;
  const unsigned char *stdin_data;
  size_t stdin_len;
  sbio_bk_output_fn output;
  void *output_user;
} sbio_bk_exec_req;

/* ABI 1.5: one command in a sandbox made for it alone (the `run`
 * operation). */
typedef struct sbio_bk_run_req {
  uint32_t size;
  const sbio_bk_create_req *create; /* the sandbox, as create gets it */
  const sbio_bk_exec_req *exec;     /* the command, as exec gets it */
  /* Called once, after the sandbox exists and before the command starts,
   * with what the backend observed (info->id, info->mechanism). Non-zero:
   * the core refuses it (the gate's second check, or an audit sink that
   * must record every sandbox); the backend then destroys the sandbox,
   * starts nothing and returns non-zero with any error (the core keeps its
   * own). */
  int (*admit)(void *user, const sbio_bk_sandbox_info *info);
  void *admit_user;
  /* Seconds the backend may spend destroying the sandbox once the command
   * ended, the deadline passed or the call was cancelled. */
  double teardown_s;
} sbio_bk_run_req;

/* File read data sink: return 0 to continue, non-zero to stop (too big). */
typedef int (*sbio_bk_data_fn)(void *user, const void *data, size_t len);

typedef struct sbio_bk_dirent {
  uint32_t size;
  const char *name;
  const char *path; /* full path inside the sandbox */
  int64_t bytes;
  int is_dir;
} sbio_bk_dirent;
typedef void (*sbio_bk_dirent_fn)(void *user, const sbio_bk_dirent *entry);

typedef struct sbio_bk_managed {
  uint32_t size;
  const char *id;
  const char *state;  /* "running", "stopped", "paused" */
  int64_t created_at; /* unix seconds, -1 unknown */
  const sbio_bk_kv *labels;
  size_t n_labels;
} sbio_bk_managed;
typedef void (*sbio_bk_managed_fn)(void *user, const sbio_bk_managed *entry);

/* ------------------------------------------------------ operations table */
typedef struct sbio_backend_ops {
  uint32_t size; /* sizeof(sbio_backend_ops) as the backend was compiled */
  uint32_t abi_major;
  uint32_t abi_minor;
  const char *name;          /* must equal NAME in sbio-backend-NAME.so */
  const char *metadata_json; /* the very bytes of the ELF note */

  /* A backend instance: settings_json is the backend's `settings` subtree
   * of the config as a JSON object ("{}" when none). */
  int (*open)(const sbio_host_services *host, const char *settings_json, void **instance, sbio_bk_error *err);
  void (*close)(void *instance);

  /* Which mechanism a create with this request would use, provisioning
   * nothing. Also the place to refuse a request the backend cannot honour
   * (e.g. a cap it cannot enforce) before anything exists. */
  int (*plan)(void *instance, const sbio_bk_create_req *req, char *mechanism, size_t mechanism_size,
              sbio_bk_error *err);
  /* Creates and starts a sandbox; info->mechanism is what was observed. On
   * failure nothing may remain provisioned. */
  int (*create)(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                sbio_bk_sandbox_info *info, sbio_bk_error *err);
  int (*connect)(void *instance, const char *id, const sbio_bk_call *call, void **sandbox, sbio_bk_sandbox_info *info,
                 sbio_bk_error *err);

  /* Runs a process; *exit_code receives its status (137 when killed). The
   * deadline is call->deadline_ns: past it, kill the process and return
   * SBIO_E_EXEC_TIMEOUT. */
  int (*exec)(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code, sbio_bk_error *err);

  int (*file_read)(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                   sbio_bk_error *err);
  int (*file_write)(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                    sbio_bk_error *err);
  int (*file_list)(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_dirent_fn entry, void *user,
                   sbio_bk_error *err);
  int (*file_mkdir)(void *sandbox, const char *path, int parents, const sbio_bk_call *call, sbio_bk_error *err);
  int (*file_remove)(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_error *err);

  /* Destroys the sandbox. Idempotent; thread-safe against a concurrent
   * exec on the same sandbox, which then ends (exit 137). */
  int (*kill)(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err);
  /* Frees the handle; no remote effect. Called exactly once per handle. */
  void (*release)(void *sandbox);

  int (*list_managed)(void *instance, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                      sbio_bk_managed_fn entry, void *user, sbio_bk_error *err);
  int (*kill_managed)(void *instance, const char *id, const sbio_bk_call *call, int *killed, sbio_bk_error *err);

  /* ABI 1.1. Whether the provider can be reached now (Docker: ping the
   * daemon), provisioning nothing; `sbio doctor` calls it. On success write
   * one secret-free line to detail (e.g. "Docker Engine 27.3.1"); on
   * failure fill err (SBIO_E_CONNECT, SBIO_E_AUTH, ...) with a hint that
   * says how to fix it. Must respect call->deadline_ns. */
  int (*probe)(void *instance, const sbio_bk_call *call, char *detail, size_t detail_size, sbio_bk_error *err);

  /* ABI 1.3. What the backend's operations promise beyond ABI 1.0, as
   * SBIO_BK_FEATURE_* bits; 0 (or a table too small to hold it) means none. */
  uint64_t features;

  /* ABI 1.5. Creates a sandbox, runs one command in it and destroys it, in
   * one operation, so a backend can make the command the sandbox's own
   * process (docker: the container's main process) instead of creating an
   * idle sandbox and executing into it. Same guarantees as create, exec
   * and kill together: the request is refused (check, as create does)
   * before anything exists; req->admit is called before the command
   * starts; output reaches exec->output as it comes; *exit_code is the
   * command's status (137 when killed). Past call->deadline_ns the command
   * is killed and SBIO_E_EXEC_TIMEOUT returned; once cancelled() is
   * non-zero the sandbox is destroyed and SBIO_E_CANCELLED returned. On
   * every path the sandbox is destroyed before return, within
   * req->teardown_s: *removed is 1 once it is gone (0: it may remain;
   * info->id says which). info->id is set as soon as the sandbox exists.
   * Optional: without it the core creates, executes and kills. */
  int (*run)(void *instance, const sbio_bk_run_req *req, const sbio_bk_call *call, sbio_bk_sandbox_info *info,
             int *exit_code, int *removed, sbio_bk_error *err);
} sbio_backend_ops;

/* exec honours sbio_bk_call.exec_cancelled: it kills the one process and
 * returns SBIO_E_CANCELLED, and the sandbox stays usable. Without it the
 * core refuses an exec its caller wants to be able to cancel. */
#define SBIO_BK_FEATURE_EXEC_CANCEL ((uint64_t)1 << 0)

/* True when the table has the operation (large enough and non-NULL). */
#define SBIO_OPS_HAS(ops, field)                                                                                       \
  ((ops)->size >= offsetof(sbio_backend_ops, field) + sizeof((ops)->field) && (ops)->field != NULL)
/* The features the table declares (0 for a table older than ABI 1.3). */
#define SBIO_OPS_FEATURES(ops)                                                                                         \
  ((ops)->size >= offsetof(sbio_backend_ops, features) + sizeof((ops)->features) ? (ops)->features : (uint64_t)0)

typedef const sbio_backend_ops *(*sbio_backend_entry_fn)(void);

/* ------------------------------------------------------ metadata literals */
#define SBIO__STR2(x) #x
#define SBIO__STR(x) SBIO__STR2(x)

/* One capability name for the `caps` argument of SBIO_BACKEND; join several
 * with "," as in SBIO_CAP("run_command") "," SBIO_CAP("filesystem"). */
#define SBIO_CAP(name) "\"" name "\""

/* A mechanism with its provider source. tier: "container", "gvisor",
 * "microvm". url: https page of the provider's own documentation;
 * verified_on: YYYY-MM-DD the page was read; quote: the sentence that
 * states the mechanism (no double quotes or backslashes inside). */
#define SBIO_MECHANISM(name, tier, url, verified_on, quote)                                                            \
  "{\"name\":\"" name "\",\"tier\":\"" tier "\",\"source\":{\"url\":\"" url "\",\"verified_on\":\"" verified_on        \
  "\",\"quote\":\"" quote "\"}}"
/* A mechanism the backend can use but whose tier nobody could verify. */
#define SBIO_MECHANISM_UNVERIFIED(name, why) "{\"name\":\"" name "\",\"tier\":\"unknown\",\"unverified\":\"" why "\"}"

/* The credentials a backend reads (ABI 1.4), for the `creds` argument of
 * SBIO_BACKEND_WITH_CREDENTIALS: `env`, the environment variables that hold
 * them, and `settings`, the setting keys whose value names another such
 * variable. Each a comma-joined list of SBIO_CRED(...), possibly empty:
 *
 *   SBIO_CREDENTIALS(SBIO_CRED("ACME_API_KEY"), SBIO_CRED("api_key_env"))
 *
 * The core reads those variables when it opens a host and again before it
 * starts the backend, and redacts their values from every error, hint, log
 * line, progress step, description, audit event and span. It never shows
 * them. Names only: [A-Za-z_][A-Za-z0-9_]* for variables, [a-z_][a-z0-9_]*
 * for settings, at most 16 of each. */
#define SBIO_CRED(name) "\"" name "\""
#define SBIO_CREDENTIALS(env, settings) ",\"credentials\":{\"env\":[" env "],\"settings\":[" settings "]}"

#define SBIO_METADATA_JSON_WITH(name, version, summary, caps, mechanisms, extra)                                       \
  "{\"abi\":" SBIO__STR(SBIO_BACKEND_ABI_MAJOR) ",\"name\":\"" name "\",\"version\":\"" version                        \
                                                "\",\"summary\":\"" summary "\",\"capabilities\":[" caps               \
                                                "],\"mechanisms\":[" mechanisms "]" extra "}"
#define SBIO_METADATA_JSON(name, version, summary, caps, mechanisms)                                                   \
  SBIO_METADATA_JSON_WITH(name, version, summary, caps, mechanisms, "")

#if defined(__GNUC__)
#define SBIO_BACKEND_EXPORT __attribute__((visibility("default")))
#else
#define SBIO_BACKEND_EXPORT
#endif

/* The note must be laid out exactly as written: clang's AddressSanitizer
 * would otherwise pad it with a redzone and align its section to 32, which
 * the core rightly refuses as a malformed note. (gcc leaves globals in a
 * named section alone.) */
#if defined(__clang__)
#define SBIO__NOTE_UNSANITIZED __attribute__((no_sanitize("address")))
#else
#define SBIO__NOTE_UNSANITIZED
#endif

/* Defines the note and the entry point from one set of literals:
 *
 *   SBIO_BACKEND("acme", "1.2.0", "Acme sandboxes",
 *                SBIO_CAP("run_command") "," SBIO_CAP("network_policy"),
 *                SBIO_MECHANISM("firecracker", "microvm", "https://...", "2026-11-01", "..."),
 *                .open = acme_open, .close = acme_close, ...);
 *
 * A backend that reads a credential says which (ABI 1.4), so that the core
 * redacts it even where the backend forgot to:
 *
 *   SBIO_BACKEND_WITH_CREDENTIALS("acme", "1.2.0", "Acme sandboxes", CAPS, MECHS,
 *                SBIO_CREDENTIALS(SBIO_CRED("ACME_API_KEY"), SBIO_CRED("api_key_env")),
 *                .open = acme_open, ...);
 */
#define SBIO_BACKEND_WITH_CREDENTIALS(NAME_, VERSION_, SUMMARY_, CAPS_, MECHS_, CREDS_, ...)                           \
  static const struct {                                                                                                \
    uint32_t namesz, descsz, type;                                                                                     \
    char owner[12];                                                                                                    \
    char desc[(sizeof(SBIO_METADATA_JSON_WITH(NAME_, VERSION_, SUMMARY_, CAPS_, MECHS_, CREDS_)) + 3u) & ~3u];         \
  } sbio__note SBIO__NOTE_UNSANITIZED __attribute__((section(SBIO_NOTE_SECTION), used, aligned(4))) = {                \
      sizeof(SBIO_NOTE_OWNER), sizeof(SBIO_METADATA_JSON_WITH(NAME_, VERSION_, SUMMARY_, CAPS_, MECHS_, CREDS_)),      \
      SBIO_NOTE_TYPE, SBIO_NOTE_OWNER, SBIO_METADATA_JSON_WITH(NAME_, VERSION_, SUMMARY_, CAPS_, MECHS_, CREDS_)};     \
  static const sbio_backend_ops sbio__ops = {.size = sizeof(sbio_backend_ops),                                         \
                                             .abi_major = SBIO_BACKEND_ABI_MAJOR,                                      \
                                             .abi_minor = SBIO_BACKEND_ABI_MINOR,                                      \
                                             .name = NAME_,                                                            \
                                             .metadata_json = sbio__note.desc,                                         \
                                             __VA_ARGS__};                                                             \
  SBIO_BACKEND_EXPORT const sbio_backend_ops *sbio_backend_entry_v1(void);                                             \
  SBIO_BACKEND_EXPORT const sbio_backend_ops *sbio_backend_entry_v1(void) {                                            \
    return &sbio__ops;                                                                                                 \
  }
#define SBIO_BACKEND(NAME_, VERSION_, SUMMARY_, CAPS_, MECHS_, ...)                                                    \
  SBIO_BACKEND_WITH_CREDENTIALS(NAME_, VERSION_, SUMMARY_, CAPS_, MECHS_, "", __VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif
