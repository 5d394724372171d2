/* SPDX-License-Identifier: MIT */
/* SDK: an HTTP client over libcurl for provider APIs.
 *
 * - Deadlines: every request takes the sbio_bk_call of the operation. Its
 *   connect timeout is min(connect_timeout_ms, time left) and its total
 *   timeout the time left, so no request outlives the operation. An
 *   attempt may be given less (request_timeout_ms, or the request's
 *   timeout_ms): one that runs out of it first ends SBIO_SDK_HTTP_SLOW.
 * - Cancellation: while a request waits, the client polls call->cancelled
 *   every SBIO_SDK_HTTP_POLL_MS and abandons the transfer once it is true
 *   (another thread is killing the sandbox).
 * - Retries, at most max_attempts in all, never past the deadline:
 *   - 429, whatever the method: the provider refused the request before
 *     doing anything, so repeating it cannot do anything twice. (A provider
 *     whose 429 can come after it acted needs SBIO_SDK_RETRY_NEVER.)
 *   - a request that provably never reached the server (DNS failure,
 *     connection refused, connect timeout), whatever the method.
 *   - idempotent requests only (GET, HEAD, PUT, DELETE, OPTIONS, or any the
 *     caller marks SBIO_SDK_RETRY_IDEMPOTENT, e.g. a POST carrying an
 *     idempotency key): any other transport failure, and the answers listed
 *     in retry_statuses (by default 408, 500, 502, 503, 504).
 *   Anything else, in particular a create (POST) that failed once it was
 *   sent, is never repeated behind the caller's back; nor a request whose
 *   sink already received data, nor anything marked SBIO_SDK_RETRY_NEVER.
 *   Before a retry the client waits what the answer's Retry-After asks for
 *   (delay-seconds or an HTTP date), otherwise the jittered exponential
 *   backoff of sbio_sdk_backoff_ms(backoff_initial_ms, backoff_max_ms, n).
 *   A wait that would reach the deadline, or a Retry-After longer than
 *   retry_after_max_ms, is not made: the last answer is returned at once
 *   (a 429 then fails with SBIO_E_RATE_LIMIT in time, not at the deadline).
 *   Each retry is logged at debug level; resp->attempts counts the tries.
 * - Secrets: header values listed as secret and the `secrets` set never
 *   appear in messages made by sbio_sdk_http_fail() or in log lines, and
 *   log lines name a request's path without its query.
 * - Redirects are not followed: a 3xx is an answer like any other, its
 *   target in sbio_sdk_http_header(resp, "Location", ...), so a backend
 *   decides itself whether a new address may receive its credentials.
 * - Nothing is sent but what the request says: no cookies, no .netrc
 *   credentials, and nothing is written (no cookie jar, HSTS or alt-svc
 *   cache). A proxy is used as libcurl's standard variables say
 *   (https_proxy or HTTPS_PROXY, http_proxy, all_proxy, no_proxy).
 *
 * - Transport: TCP, or a unix socket; TLS verified against ca_file or the
 *   system's CAs, with a client certificate for servers that require one
 *   (mutual TLS). A request body may be produced while it is sent (read
 *   callback); <sandboxio/sdk/http_stream.h> adds response bodies pulled
 *   piece by piece and connections upgraded to a raw byte stream.
 * - libcurl's global state: the client calls curl_global_init() once per
 *   process (pthread_once) before its first handle, and nothing in a
 *   backend ever calls curl_global_cleanup(): a plugin cannot know who else
 *   in the process (the core, other backends, the application) still uses
 *   libcurl. Code outside the SDK that uses libcurl follows the same rule
 *   (docs/writing-a-backend.md). Once initialised, libcurl stays loaded
 *   until the process exits (RTLD_NODELETE), after the backend that
 *   brought it is unloaded.
 *
 * One client may be used by many threads at once; it keeps a small pool of
 * connections so keep-alive connections are reused. Several transfers of
 * one operation can run at once with <sandboxio/sdk/http_group.h>. */
#ifndef SANDBOXIO_SDK_HTTP_H
#define SANDBOXIO_SDK_HTTP_H

#include <sandboxio/backend.h>
#include <sandboxio/sdk/error.h>
#include <sandboxio/sdk/retry.h>
#include <sandboxio/sdk/secrets.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SBIO_SDK_HTTP_POLL_MS 50 /* cancellation and deadline polling interval */

typedef struct sbio_sdk_http sbio_sdk_http;

typedef struct sbio_sdk_http_options {
  const char *backend;  /* names the backend in messages ("acme"); required */
  const char *base_url; /* "https://api.acme.example/v1"; request paths are appended; required */
  /* Connect through this unix socket instead of TCP (the URL's host is then
   * only the Host header). NULL: TCP. */
  const char *unix_socket;
  /* "Name: value" lines sent with every request. */
  const char *const *headers;
  size_t n_headers;
  /* "Name: value" lines sent with every request whose values are secret
   * (e.g. "X-API-Key: ..."): they are added to the client's secrets. */
  const char *const *secret_headers;
  size_t n_secret_headers;
  /* The environment variable the credential came from, named in the hint
   * of a 401/403 ("check E2B_API_KEY"). NULL: none. */
  const char *credential_env;
  const sbio_sdk_secrets *secrets; /* more values to keep out of messages; may be NULL */
  const sbio_host_services *host;  /* logging and redaction; may be NULL */
  const char *user_agent;          /* NULL: "sandboxio-backend-<backend>" */
  const char *ca_file;             /* PEM bundle to verify the server with; NULL: the system's */
  long connect_timeout_ms;         /* 0: 10000 */
  int max_attempts;                /* 0: 3; 1: never retry */
  long backoff_initial_ms;         /* 0: 200 */
  long backoff_max_ms;             /* 0: 5000 */
  long retry_after_max_ms;         /* 0: 30000 */
  size_t body_limit;               /* largest buffered response body; 0: 16 MiB */
  /* Mutual TLS: PEM files of this client's certificate and private key,
   * presented when the server asks for one. NULL: none. */
  const char *client_cert;
  const char *client_key;
  /* Non-zero: TLS without checking the server's certificate or name. Only
   * to honour a tool's own documented insecure mode that the user chose
   * (DOCKER_TLS without DOCKER_TLS_VERIFY); never a default. */
  int tls_no_verify;
  /* Non-zero: connect directly, whatever the proxy environment variables
   * say: for a local daemon that is never behind the user's proxy. */
  int no_proxy;
  /* Non-zero: refuse a base_url that is plain http to anything but a
   * loopback host (sbio_sdk_url_check with SBIO_SDK_URL_LOOPBACK_HTTP), for
   * a client that carries a credential. */
  int loopback_http_only;
  /* The longest one attempt may take (the call's deadline still bounds
   * it); 0: no limit but the deadline. A request may say otherwise. */
  long request_timeout_ms;
  /* The answers worth repeating an idempotent request for. NULL: 408, 500,
   * 502, 503, 504. (429 is always retried; see above.) E.g. a provider
   * whose 502 means "this sandbox is gone" leaves 502 out. */
  const long *retry_statuses;
  size_t n_retry_statuses;
} sbio_sdk_http_options;

/* Copies what it needs from `opt`. SBIO_E_CONFIG when base_url is not an
 * http(s) URL, SBIO_E_INTERNAL on out-of-memory. */
int sbio_sdk_http_new(const sbio_sdk_http_options *opt, sbio_sdk_http **out, sbio_bk_error *err);
void sbio_sdk_http_free(sbio_sdk_http *client);

enum {
  SBIO_SDK_RETRY_AUTO = 0,      /* the rules above, by method */
  SBIO_SDK_RETRY_NEVER = 1,     /* never, not even after a 429 */
  SBIO_SDK_RETRY_IDEMPOTENT = 2 /* the caller vouches that repeating the request is harmless */
};

/* One part of a multipart/form-data body. */
typedef struct sbio_sdk_http_part {
  const char *name;         /* the form field; required */
  const char *filename;     /* the part's file name (quotes and line breaks are percent-encoded); NULL: none */
  const char *content_type; /* NULL: application/octet-stream when there is a filename, none otherwise */
  const void *data;
  size_t len;
} sbio_sdk_http_part;

typedef struct sbio_sdk_http_request {
  const char *method;         /* NULL: GET */
  const char *path;           /* appended to base_url; escape segments with sbio_sdk_http_escape() */
  const char *const *headers; /* "Name: value" lines for this request */
  size_t n_headers;
  const void *body; /* sent when non-NULL */
  size_t body_len;
  const char *content_type; /* NULL with a body: application/json */
  int retry;                /* SBIO_SDK_RETRY_* */
  /* Optional: the body of a 2xx answer goes here chunk by chunk instead of
   * into resp->body; return non-zero to stop. A request whose sink got data
   * is never retried. */
  int (*sink)(void *user, const char *data, size_t len);
  void *sink_user;
  /* Optional: a body produced while it is sent, instead of `body` (an
   * upload that is not in memory). read() fills up to `size` bytes at buf
   * and returns how many, 0 at the end, or < 0 to abandon the request
   * (SBIO_SDK_HTTP_STOPPED). read_len is the body's length, or
   * SBIO_SDK_HTTP_UNKNOWN_LENGTH to send it chunked. rewind() goes back to
   * the first byte and is called before every attempt, so a request with
   * one may be retried; without it, a request whose body was read from is
   * never repeated. Return non-zero from rewind() when that is impossible. */
  long (*read)(void *user, char *buf, size_t size);
  int (*rewind)(void *user);
  void *read_user;
  int64_t read_len;
  /* Optional: a multipart/form-data body (RFC 7578) instead of `body`, the
   * parts in order. Sent from the caller's memory, which must stay valid
   * during the call; such a request may be repeated. */
  const sbio_sdk_http_part *parts;
  size_t n_parts;
  /* The longest one attempt may take: 0, the client's request_timeout_ms;
   * SBIO_SDK_HTTP_NO_TIMEOUT, only the call's deadline (a stream, a
   * command that runs as long as its exec may). */
  long timeout_ms;
} sbio_sdk_http_request;

#define SBIO_SDK_HTTP_UNKNOWN_LENGTH ((int64_t)-1)
#define SBIO_SDK_HTTP_NO_TIMEOUT (-1L)

/* How a request ended. */
enum {
  SBIO_SDK_HTTP_ANSWERED = 0, /* an HTTP answer arrived (any status) */
  SBIO_SDK_HTTP_TIMEOUT,      /* the call's deadline passed */
  SBIO_SDK_HTTP_CANCELLED,    /* call->cancelled() turned true */
  SBIO_SDK_HTTP_UNREACHABLE,  /* could not connect (refused, DNS, TLS handshake) */
  SBIO_SDK_HTTP_BROKEN,       /* the connection failed after it was made */
  SBIO_SDK_HTTP_TOO_LARGE,    /* the body exceeded body_limit */
  SBIO_SDK_HTTP_STOPPED,      /* the sink, or the body's read(), asked to stop */
  SBIO_SDK_HTTP_NOMEM,        /* out of memory */
  SBIO_SDK_HTTP_SLOW          /* no complete answer within the attempt's own limit (timeout_ms), before the deadline */
};

/* Where a transport failure happened (resp->failed_at), so a message or
 * hint can say which: a name that does not resolve, a refused connection,
 * a certificate, a proxy. For a timeout, the step that was under way. */
enum {
  SBIO_SDK_HTTP_AT_NONE = 0, /* no transport failure (an answer, or a limit, sink or memory) */
  SBIO_SDK_HTTP_AT_DNS,      /* resolving the host name */
  SBIO_SDK_HTTP_AT_CONNECT,  /* the TCP connection (refused, unreachable network) */
  SBIO_SDK_HTTP_AT_PROXY,    /* reaching the proxy, or the proxy refused the tunnel */
  SBIO_SDK_HTTP_AT_TLS,      /* the TLS handshake, including certificate verification */
  SBIO_SDK_HTTP_AT_TRANSFER  /* sending the request or reading the answer */
};

typedef struct sbio_sdk_http_response {
  int outcome;     /* SBIO_SDK_HTTP_* */
  long status;     /* HTTP status of the last answer, 0 if none */
  int attempts;    /* requests made (1 without retries) */
  char error[256]; /* one line about a transport failure, "" otherwise */
  char *body;      /* NUL-terminated (bodies may also hold NULs: use len); NULL only on out-of-memory */
  size_t len;
  char *headers; /* raw header lines of the last answer (internal; use sbio_sdk_http_header) */
  size_t headers_len;
  int failed_at; /* SBIO_SDK_HTTP_AT_*: where a transport failure or timeout happened */
  /* With UNREACHABLE or BROKEN: SBIO_SDK_TLS_* when TLS was the cause, so
   * a backend can say which certificate to check (the server refusing this
   * client's certificate can come after the handshake: failed_at is then
   * TRANSFER); 0 otherwise. */
  int tls_failure;
  /* Non-zero when the last attempt provably never reached the server (no
   * connection could be made: DNS, refused, connect timeout), so nothing
   * the request asks for can have happened. */
  int not_sent;
} sbio_sdk_http_response;

enum {
  /* The handshake failed on this side: the server's certificate did not
   * verify against ca_file (or the system's CAs), or the CA file, client
   * certificate or key could not be used. */
  SBIO_SDK_TLS_HANDSHAKE = 1,
  /* The server refused this client's certificate, or that none was given
   * (TLS 1.3 reports it as an alert on the first read). */
  SBIO_SDK_TLS_REFUSED = 2
};

/* Sends the request (with retries, see above). Returns 0 when an answer
 * arrived, whatever its status, and -1 otherwise (resp->outcome says why).
 * resp is always initialised; free it with sbio_sdk_http_response_free. */
int sbio_sdk_http_send(sbio_sdk_http *client, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                       sbio_sdk_http_response *resp);
void sbio_sdk_http_response_free(sbio_sdk_http_response *resp);

/* Value of the answer's header `name` (case-insensitive; the last one if
 * repeated), without surrounding blanks, copied into buf. NULL if absent. */
const char *sbio_sdk_http_header(const sbio_sdk_http_response *resp, const char *name, char *buf, size_t size);

/* Fills err for a request that failed: a transport failure or an HTTP
 * status >= 400. The code comes from sbio_sdk_status_code() (a timeout from
 * sbio_sdk_op_timeout_code(); a cancellation, an unreachable provider or
 * one too slow for the attempt's own limit from the family's generic
 * code); the message reads
 *   "acme: <what>: the provider answered HTTP 404: <provider's message>"
 * with the provider's message taken from a JSON body ("message", "error",
 * "detail") or the first line of a text body, and is redacted. Returns the
 * code (SBIO_OK, leaving err alone, when the answer was a success). */
int sbio_sdk_http_fail(const sbio_sdk_http *client, const sbio_sdk_http_response *resp, sbio_sdk_op op,
                       const char *what, sbio_bk_error *err);

/* A call for work outside an operation, such as checking a credential in
 * `open` (which gets no call): its deadline is `seconds` from now on the
 * host's clock (the system's monotonic clock without a host), and it is
 * never cancelled. */
void sbio_sdk_call_init(sbio_bk_call *call, const sbio_host_services *host, double seconds);

/* A call for one step of an operation that must take at most `seconds`
 * (a probe, a status check): its deadline is the earlier of the parent's
 * and `seconds` from now, and it is cancelled (and exec-cancelled, ABI
 * 1.3) when the parent is. Use
 * &sub->call while `parent` and `sub` are alive. */
typedef struct sbio_sdk_subcall {
  sbio_bk_call call;
  const sbio_bk_call *parent;
} sbio_sdk_subcall;
void sbio_sdk_call_narrow(sbio_sdk_subcall *sub, const sbio_bk_call *parent, double seconds);

/* Percent-encodes everything but unreserved characters (A-Z a-z 0-9 - . _ ~),
 * for one path segment or query value. malloc'd; NULL on out-of-memory. */
char *sbio_sdk_http_escape(const char *text);
/* A request path with one escaped value in it: before + escaped value +
 * after ("/sandboxes/" + id + "/timeout", "/files?path=" + path + ""), so
 * an id or a file name cannot add a segment or a query of its own. before
 * and after are taken as they are. malloc'd; NULL on out-of-memory. */
char *sbio_sdk_http_path(const char *before, const char *value, const char *after);

#ifdef __cplusplus
}
#endif
#endif
