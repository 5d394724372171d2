/* SPDX-License-Identifier: MIT */
/* sandboxio: types shared by the client API and the backend ABI.
 *
 * Everything here is part of both stable interfaces: values are only ever
 * appended, never renumbered. */
#ifndef SANDBOXIO_TYPES_H
#define SANDBOXIO_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SBIO_API __attribute__((visibility("default")))
#else
#define SBIO_API
#endif

/* The longest timeout anything accepts, in seconds: 24 hours, for a
 * sandbox's lifetime (URI ?timeout=, sbio_create_options_set_timeout) and
 * for an exec (sbio_exec_options_set_timeout). The lifetime is the
 * backstop that ends a sandbox whatever becomes of its caller; a day covers
 * any session or build while bounding what a forgotten sandbox costs and
 * runs, it is the longest lifetime E2B itself grants, and it fits every
 * provider's encoding (whole seconds, minutes) without clamping. Larger
 * values are refused (SBIO_E_CONFIG), never clamped. A backend is never
 * asked for more. */
#define SBIO_MAX_TIMEOUT_S 86400.0

/* How long past a caller's deadline sbio_run may take, in seconds. When a
 * command's deadline passes, killing it and destroying its sandbox share
 * this one fixed margin, whatever the backend or its engine does (a frozen
 * engine included): the call returns SBIO_E_EXEC_TIMEOUT by then. What
 * could not be confirmed in that time is left to the sandbox's lifetime
 * backstop and to `sbio reap`, and the caller is told (an error log line
 * and the kill event's error, naming the sandbox). Scheduling delays on a
 * loaded machine come on top. */
#define SBIO_DEADLINE_MARGIN_S 3.0

/* Isolation tiers. The value is the rank; ranks are spaced by 10 so a tier
 * can be inserted later. The rank orders one property only: resistance to
 * kernel escape by an adversarial tenant. */
typedef enum sbio_tier {
  SBIO_TIER_UNKNOWN = 0,    /* unverified: satisfies no requirement */
  SBIO_TIER_CONTAINER = 10, /* shared host kernel (runc) */
  SBIO_TIER_GVISOR = 20,    /* user-space kernel (runsc) */
  SBIO_TIER_MICROVM = 30    /* dedicated guest kernel in a hardware VM */
} sbio_tier;

/* Status codes. SBIO_OK is 0; every other value is the numeric part of the
 * stable catalogue code (SBIO_E_CONFIG is "SBX_E1000"). */
typedef enum sbio_code {
  SBIO_OK = 0,
  SBIO_E_CONFIG = 1000,              /* ConfigurationError */
  SBIO_E_BACKEND_NOT_FOUND = 1001,   /* BackendNotFound */
  SBIO_E_BACKEND_UNAVAILABLE = 1002, /* BackendUnavailable: refused, disabled, failed to load */
  SBIO_E_CAPABILITY = 1101,          /* CapabilityNotSupported */
  SBIO_E_CREATE = 1201,              /* CreationError */
  SBIO_E_CONNECT = 1202,             /* ConnectError */
  SBIO_E_CREATE_TIMEOUT = 1203,      /* CreateTimeout */
  SBIO_E_GONE = 1204,                /* SandboxGone */
  SBIO_E_EXEC = 1301,                /* ExecutionError */
  SBIO_E_EXEC_TIMEOUT = 1302,        /* ExecutionTimeout */
  SBIO_E_NETWORK_POLICY = 1401,      /* NetworkPolicyViolation */
  SBIO_E_RESOURCE_LIMIT = 1402,      /* ResourceLimitExceeded */
  SBIO_E_AUTH = 1501,                /* AuthError */
  SBIO_E_RATE_LIMIT = 1502,          /* RateLimitError */
  SBIO_E_AUDIT_SINK = 1601,          /* AuditSinkError */
  SBIO_E_FS = 1700,                  /* FileSystemError */
  SBIO_E_PATH_NOT_FOUND = 1701,      /* PathNotFound */
  SBIO_E_INTERNAL = 1900,            /* InternalError (C port: OOM, I/O, bugs) */
  SBIO_E_INVALID_ARGUMENT = 1901,    /* InvalidArgument (C port: API misuse) */
  SBIO_E_CANCELLED = 1902            /* Cancelled (C port: the caller cancelled this exec) */
} sbio_code;

/* Capability flags. A backend declares them; calling an undeclared one
 * fails with SBIO_E_CAPABILITY, never a silent no-op. */
typedef uint64_t sbio_caps;
#define SBIO_CAP_RUN_COMMAND ((sbio_caps)1 << 0)
#define SBIO_CAP_RUN_CODE ((sbio_caps)1 << 1)
#define SBIO_CAP_STATEFUL_CODE ((sbio_caps)1 << 2)
#define SBIO_CAP_STREAMING ((sbio_caps)1 << 3)
#define SBIO_CAP_FILESYSTEM ((sbio_caps)1 << 4)
#define SBIO_CAP_UPLOAD_DOWNLOAD ((sbio_caps)1 << 5)
#define SBIO_CAP_PTY ((sbio_caps)1 << 6)
#define SBIO_CAP_PAUSE_RESUME ((sbio_caps)1 << 7)
#define SBIO_CAP_SNAPSHOT_FORK ((sbio_caps)1 << 8)
#define SBIO_CAP_GPU ((sbio_caps)1 << 9)
#define SBIO_CAP_LSP ((sbio_caps)1 << 10)
#define SBIO_CAP_GIT ((sbio_caps)1 << 11)
#define SBIO_CAP_NETWORK_POLICY ((sbio_caps)1 << 12)
#define SBIO_CAP_TUNNELS ((sbio_caps)1 << 13)
#define SBIO_CAP_COST_REPORTING ((sbio_caps)1 << 14)
/* C port additions */
#define SBIO_CAP_STDIN ((sbio_caps)1 << 15)             /* exec accepts stdin bytes */
#define SBIO_CAP_NETWORK_ALLOWLIST ((sbio_caps)1 << 16) /* egress allow-lists enforced */
#define SBIO_CAP_SEPARATE_STDERR ((sbio_caps)1 << 17)   /* stdout and stderr are distinct */
#define SBIO_CAP_MANAGED ((sbio_caps)1 << 18)           /* list/kill managed sandboxes (reap) */
#define SBIO_CAP_CONNECT ((sbio_caps)1 << 19)           /* re-attach to a sandbox by id */
#define SBIO_CAP_COUNT 20

/* Name ("run_command") of a single capability flag, NULL if unknown. */
SBIO_API const char *sbio_capability_name(sbio_caps flag);
/* Parse one capability name; returns 0 and sets *out, -1 if unknown. */
SBIO_API int sbio_capability_parse(const char *name, sbio_caps *out);

/* Tier helpers. Names are upper case ("MICROVM"); parsing is
 * case-insensitive. */
#define SBIO_TIER_COUNT 4
SBIO_API sbio_tier sbio_tier_at(size_t index);                  /* 0..SBIO_TIER_COUNT-1, by rank */
SBIO_API const char *sbio_tier_name(sbio_tier tier);            /* NULL if not a tier */
SBIO_API int sbio_tier_rank(sbio_tier tier);                    /* -1 if not a tier */
SBIO_API int sbio_tier_parse(const char *text, sbio_tier *out); /* 0 ok, -1 bad */
/* True when `have` meets `required`. Always false when either is UNKNOWN:
 * UNKNOWN satisfies nothing, and requiring UNKNOWN is meaningless. */
SBIO_API int sbio_tier_satisfies(sbio_tier have, sbio_tier required);

#ifdef __cplusplus
}
#endif
#endif
