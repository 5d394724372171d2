/* SPDX-License-Identifier: MIT */
/* The error object and the catalogue of stable codes. Codes, names and
 * classes mirror the reference catalogue (SBX_E....); the C port adds
 * SBX_E1900 (internal), SBX_E1901 (API misuse) and SBX_E1902 (an exec the
 * caller cancelled). */
#include "error_internal.h"
#include "redact.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sbio_error {
  sbio_code code;
  int provider_status;
  char message[2048];
  char hint[512];
  char backend[64];
  char sandbox_id[128];
};

typedef struct {
  sbio_code code;
  const char *name;
  const char *cls;
  const char *hint;
} catalogue_entry;

static const catalogue_entry catalogue[] = {
    {SBIO_E_CONFIG, "SBX_E1000", "ConfigurationError", "check the request and the configuration"},
    {SBIO_E_BACKEND_NOT_FOUND, "SBX_E1001", "BackendNotFound", "run `sbio backends` to see what is installed"},
    {SBIO_E_BACKEND_UNAVAILABLE, "SBX_E1002", "BackendUnavailable", "run `sbio inspect NAME` to see why"},
    {SBIO_E_CAPABILITY, "SBX_E1101", "CapabilityNotSupported", "use a backend that declares the capability"},
    {SBIO_E_CREATE, "SBX_E1201", "CreationError", ""},
    {SBIO_E_CONNECT, "SBX_E1202", "ConnectError", "`sbio reap --kill` removes sandboxes left behind"},
    {SBIO_E_CREATE_TIMEOUT, "SBX_E1203", "CreateTimeout", "raise the create timeout"},
    {SBIO_E_GONE, "SBX_E1204", "SandboxGone", "raise the sandbox timeout if it expired"},
    {SBIO_E_EXEC, "SBX_E1301", "ExecutionError", ""},
    {SBIO_E_EXEC_TIMEOUT, "SBX_E1302", "ExecutionTimeout", "raise the exec timeout"},
    {SBIO_E_NETWORK_POLICY, "SBX_E1401", "NetworkPolicyViolation", "allow the host in the network policy"},
    {SBIO_E_RESOURCE_LIMIT, "SBX_E1402", "ResourceLimitExceeded", "raise the resource cap"},
    {SBIO_E_AUTH, "SBX_E1501", "AuthError", "set the backend's credential variable"},
    {SBIO_E_RATE_LIMIT, "SBX_E1502", "RateLimitError", "retry later"},
    {SBIO_E_AUDIT_SINK, "SBX_E1601", "AuditSinkError", "fix the audit sink or set audit.on_failure: warn"},
    {SBIO_E_FS, "SBX_E1700", "FileSystemError", ""},
    {SBIO_E_PATH_NOT_FOUND, "SBX_E1701", "PathNotFound", ""},
    {SBIO_E_INTERNAL, "SBX_E1900", "InternalError", "please report this with the message"},
    {SBIO_E_INVALID_ARGUMENT, "SBX_E1901", "InvalidArgument", "check the arguments of the call"},
    {SBIO_E_CANCELLED, "SBX_E1902", "Cancelled", "the caller cancelled it; the sandbox is still usable"},
};

static const catalogue_entry *lookup(sbio_code code) {
  for (size_t i = 0; i < sizeof catalogue / sizeof catalogue[0]; i++)
    if (catalogue[i].code == code) return &catalogue[i];
  return NULL;
}

const char *sbio_code_name(sbio_code code) {
  const catalogue_entry *e = lookup(code);
  return e ? e->name : NULL;
}

const char *sbio_code_class(sbio_code code) {
  const catalogue_entry *e = lookup(code);
  return e ? e->cls : NULL;
}

const char *sbio__code_default_hint(sbio_code code) {
  const catalogue_entry *e = lookup(code);
  return e ? e->hint : "";
}

sbio_error *sbio_error_new(void) {
  return calloc(1, sizeof(sbio_error));
}
void sbio_error_free(sbio_error *err) {
  free(err);
}
void sbio_error_clear(sbio_error *err) {
  if (err) memset(err, 0, sizeof *err);
}
sbio_code sbio_error_code(const sbio_error *err) {
  return err ? err->code : SBIO_OK;
}
const char *sbio_error_message(const sbio_error *err) {
  return err ? err->message : "";
}
const char *sbio_error_hint(const sbio_error *err) {
  return err ? err->hint : "";
}
const char *sbio_error_backend(const sbio_error *err) {
  return err ? err->backend : "";
}
const char *sbio_error_sandbox_id(const sbio_error *err) {
  return err ? err->sandbox_id : "";
}
int sbio_error_provider_status(const sbio_error *err) {
  return err ? err->provider_status : 0;
}

/* After a snprintf into buf that wanted `wanted` bytes: a text that did
 * not fit ends in "..." on a character boundary, never inside a character. */
static void cut(char *buf, size_t size, int wanted) {
  if (wanted < 0 || (size_t)wanted < size || size < 4) return;
  buf[size - 4] = '\0';
  sbio__utf8_trim_tail(buf);
  strcat(buf, "...");
}

/* cut(), then every malformed byte (a provider's message, a name) becomes
 * U+FFFD: every text of an error is valid UTF-8, so it can go into a JSON
 * document as it is. */
static void fit(char *buf, size_t size, int wanted) {
  cut(buf, size, wanted);
  if (sbio__utf8_valid(buf)) return;
  char *valid = sbio__utf8_valid_copy(buf);
  if (valid) {
    cut(buf, size, snprintf(buf, size, "%s", valid));
    free(valid);
    return;
  }
  /* Out of memory: '?' in place of each malformed byte needs no room. */
  size_t n = strlen(buf);
  for (size_t i = 0, len; i < n; i += len)
    if (!(len = sbio__utf8_char_len(buf + i, n - i))) buf[i] = '?', len = 1;
}

sbio_code sbio__error_set(sbio_error *err, sbio_code code, const char *hint, const char *fmt, ...) {
  if (!err) return code;
  memset(err, 0, sizeof *err);
  err->code = code;
  va_list ap;
  va_start(ap, fmt);
  fit(err->message, sizeof err->message, vsnprintf(err->message, sizeof err->message, fmt, ap));
  va_end(ap);
  fit(err->hint, sizeof err->hint,
      snprintf(err->hint, sizeof err->hint, "%s", hint ? hint : sbio__code_default_hint(code)));
  return code;
}

void sbio__error_set_backend(sbio_error *err, const char *backend) {
  if (err && backend)
    fit(err->backend, sizeof err->backend, snprintf(err->backend, sizeof err->backend, "%s", backend));
}

void sbio__error_set_sandbox_id(sbio_error *err, const char *id) {
  if (err && id)
    fit(err->sandbox_id, sizeof err->sandbox_id, snprintf(err->sandbox_id, sizeof err->sandbox_id, "%s", id));
}

void sbio__error_set_provider_status(sbio_error *err, int status) {
  if (err) err->provider_status = status;
}

void sbio__error_prefix(sbio_error *err, const char *fmt, ...) {
  if (!err) return;
  char prefix[512], old[sizeof err->message];
  va_list ap;
  va_start(ap, fmt);
  fit(prefix, sizeof prefix, vsnprintf(prefix, sizeof prefix, fmt, ap));
  va_end(ap);
  memcpy(old, err->message, sizeof old);
  /* A message cut at the buffer's end is acceptable; fit() uses the result,
   * which keeps -Wformat-truncation from flagging the deliberate cut. */
  fit(err->message, sizeof err->message, snprintf(err->message, sizeof err->message, "%s: %s", prefix, old));
}

sbio_code sbio__error_from_backend(sbio_error *err, const sbio_bk_error *bk, const char *backend) {
  sbio_code code = (sbio_code)bk->code;
  char msg[sizeof bk->message + 1], hint[sizeof bk->hint + 1];
  /* The buffers come from plugin code: never trust their termination. */
  memcpy(msg, bk->message, sizeof bk->message);
  msg[sizeof bk->message] = '\0';
  memcpy(hint, bk->hint, sizeof bk->hint);
  hint[sizeof bk->hint] = '\0';
  /* A backend's snprintf into its fixed buffers can end inside a character. */
  sbio__utf8_trim_tail(msg);
  sbio__utf8_trim_tail(hint);
  if (code == SBIO_OK) {
    sbio__error_set(err, SBIO_E_INTERNAL, NULL, "backend %s reported failure without an error code%s%s",
                    backend ? backend : "?", msg[0] ? ": " : "", msg);
  } else if (!lookup(code)) {
    sbio__error_set(err, SBIO_E_INTERNAL, NULL, "backend %s reported unknown error code %d: %s",
                    backend ? backend : "?", bk->code, msg);
  } else {
    sbio__error_set(err, code, hint[0] ? hint : NULL, "%s", msg[0] ? msg : sbio_code_class(code));
  }
  sbio__error_set_backend(err, backend);
  sbio__error_set_provider_status(err, bk->provider_status);
  return err ? err->code : (lookup(code) ? code : SBIO_E_INTERNAL);
}

static void redact_field(char *buf, size_t size, sbio__redactor *r) {
  char *clean = sbio__redact(r, buf);
  /* Out of memory: dropping the text is the only safe redaction. */
  fit(buf, size, snprintf(buf, size, "%s", clean ? clean : SBIO_REDACTED));
  free(clean);
}

void sbio__error_redact(sbio_error *err, sbio__redactor *r) {
  if (!err || !r) return;
  redact_field(err->message, sizeof err->message, r);
  redact_field(err->hint, sizeof err->hint, r);
}

const char *sbio_version(void) {
  return SBIO_VERSION_STRING;
}
unsigned int sbio_version_number(void) {
  return SBIO_VERSION_HEX;
}
void sbio_free(void *ptr) {
  free(ptr);
}
