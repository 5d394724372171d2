/* SPDX-License-Identifier: MIT */
/* Redaction of everything that leaves a backend, and logging through it. */
#include "sdk_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *sbio_sdk_redact(const sbio_host_services *host, const sbio_sdk_secrets *secrets, const char *text) {
  if (!text) text = "";
  char *own = sbio__sdk_secrets_apply(secrets, text);
  if (!own || !host || !host->redact) return own;
  char *hosted = host->redact(host->host_data, own);
  sbio__sdk_wipe(own, strlen(own)); /* it may still hold what the host knows */
  free(own);
  if (!hosted) return NULL;
  /* Hand back memory the caller frees with free(), whatever the host's
   * allocator is. */
  char *copy = strdup(hosted);
  if (host->free_string) host->free_string(host->host_data, hosted);
  return copy;
}

static void redact_field(const sbio_host_services *host, const sbio_sdk_secrets *secrets, char *field, size_t size,
                         const char *fallback) {
  /* The core does not trust the termination of these buffers; neither do we. */
  field[size - 1] = '\0';
  char *clean = sbio_sdk_redact(host, secrets, field);
  snprintf(field, size, "%s", clean ? clean : fallback);
  free(clean);
}

void sbio_sdk_redact_error(const sbio_host_services *host, const sbio_sdk_secrets *secrets, sbio_bk_error *err) {
  if (!err) return;
  redact_field(host, secrets, err->message, sizeof err->message,
               "(message withheld: out of memory while removing secrets from it)");
  redact_field(host, secrets, err->hint, sizeof err->hint, "");
}

void sbio_sdk_log(const sbio_host_services *host, const sbio_sdk_secrets *secrets, int level, const char *fmt, ...) {
  if (!host || !host->log) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  char *clean = sbio__sdk_secrets_apply(secrets, line);
  if (clean) host->log(host->host_data, level, clean);
  free(clean);
}

int sbio_sdk_secret_from_env(sbio_sdk_secrets *secrets, const char *backend, const char *var, char **value,
                             sbio_bk_error *err) {
  char hint[256];
  snprintf(hint, sizeof hint, "export %s=<your credential> in the environment of the program using sandboxio",
           var ? var : "?");
  const char *found = var ? getenv(var) : NULL;
  if (!found || !found[0])
    return sbio_sdk_error(err, SBIO_E_AUTH, hint, "%s: no credential: the environment variable %s is %s",
                          backend ? backend : "backend", var ? var : "?", found ? "empty" : "not set");
  char *copy = strdup(found);
  if (!copy || sbio_sdk_secrets_add(secrets, copy) != 0) {
    if (copy) sbio__sdk_wipe(copy, strlen(copy));
    free(copy);
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "%s: out of memory reading %s", backend ? backend : "backend",
                          var);
  }
  if (*value) sbio__sdk_wipe(*value, strlen(*value));
  free(*value);
  *value = copy;
  return SBIO_OK;
}

int sbio_sdk_secret_from_setting(sbio_sdk_secrets *secrets, const char *backend, const char *setting, const char *var,
                                 const char *default_var, char **value, sbio_bk_error *err) {
  if (!var || (default_var && strcmp(var, default_var) == 0))
    return sbio_sdk_secret_from_env(secrets, backend, var ? var : default_var, value, err);
  const char *found = getenv(var);
  if (found && found[0]) return sbio_sdk_secret_from_env(secrets, backend, var, value, err);
  /* Out of memory here costs only the later redaction; this message
   * never holds the text either way. */
  (void)sbio_sdk_secrets_add(secrets, var);
  return sbio_sdk_error(err, SBIO_E_AUTH,
                        "export the variable the setting names in the environment of the program using sandboxio; "
                        "the setting takes a variable's name, never the credential itself",
                        "%s: no credential: the environment variable that settings.%s names is %s",
                        backend ? backend : "backend", setting ? setting : "?", found ? "empty" : "not set");
}

int sbio_sdk_secret_check_header(const char *backend, const char *var, const char *value, size_t max_len,
                                 sbio_bk_error *err) {
  int control = 0, high = 0, space = 0;
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)(value ? value : ""); *p; p++, n++) {
    control |= *p < 0x20 || *p == 0x7f;
    high |= *p >= 0x80;
    space |= *p == ' ';
  }
  /* The most likely mistake first: a line break copied with the key. */
  char why[80];
  if (control)
    snprintf(why, sizeof why, "it contains a control character (such as a line break)");
  else if (high)
    snprintf(why, sizeof why, "it contains a byte that is not ASCII");
  else if (space)
    snprintf(why, sizeof why, "it contains a space");
  else if (max_len && n > max_len)
    snprintf(why, sizeof why, "it is longer than %zu bytes", max_len);
  else if (!n)
    snprintf(why, sizeof why, "it is empty");
  else
    return SBIO_OK;
  char hint[256];
  snprintf(hint, sizeof hint,
           "export %s=<the credential alone>: nothing around it, no line break (a key read from a file may end "
           "in one)",
           var ? var : "?");
  return sbio_sdk_error(err, SBIO_E_AUTH, hint,
                        "%s: the value of %s cannot be sent in a request header as a credential: %s",
                        backend ? backend : "backend", var ? var : "?", why);
}

#define QUOTE_SCAN_MAX ((size_t)64 << 10)

void sbio_sdk_quote_provider(const sbio_host_services *host, const sbio_sdk_secrets *secrets, const char *text,
                             size_t len, char *buf, size_t size) {
  if (!buf || !size) return;
  buf[0] = '\0';
  if (!text || !len) return;
  char *whole = strndup(text, len < QUOTE_SCAN_MAX ? len : QUOTE_SCAN_MAX);
  char *clean = whole ? sbio_sdk_redact(host, secrets, whole) : NULL;
  if (whole) {
    sbio__sdk_wipe(whole, strlen(whole));
    free(whole);
  }
  if (!clean) return;
  size_t n = strlen(clean);
  if (n >= size) {
    n = size - 1;
    while (n > 0 && ((unsigned char)clean[n] & 0xC0) == 0x80) n--; /* not inside a character */
  }
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)clean[i];
    buf[i] = (ch < 0x20 || ch == 0x7f) ? ' ' : (char)ch;
  }
  buf[n] = '\0';
  sbio__sdk_wipe(clean, strlen(clean));
  free(clean);
}
