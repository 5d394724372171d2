/* SPDX-License-Identifier: MIT */
/* SDK: credentials, redaction and logging.
 *
 * The host redacts the secrets it knows (a sandbox's `secrets`,
 * credential-looking environment values of a create request) from every
 * message it handles. It does not know the backend's own credentials, such
 * as an API key read from the environment, and a provider may echo one back
 * in an error body. A backend therefore keeps its own set of secrets and
 * passes every text that leaves it (error messages, hints, log lines)
 * through sbio_sdk_redact(), which applies both. */
#ifndef SANDBOXIO_SDK_SECRETS_H
#define SANDBOXIO_SDK_SECRETS_H

#include <sandboxio/backend.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SBIO_SDK_REDACTED "***"

/* A thread-safe set of values that must never appear in any output. */
typedef struct sbio_sdk_secrets sbio_sdk_secrets;

/* NULL on out-of-memory. */
sbio_sdk_secrets *sbio_sdk_secrets_new(void);
void sbio_sdk_secrets_free(sbio_sdk_secrets *secrets);
/* Remembers `value` (empty values and duplicates are ignored). 0, or -1 on
 * out-of-memory. */
int sbio_sdk_secrets_add(sbio_sdk_secrets *secrets, const char *value);

/* Reads a credential from the environment variable `var` into *value
 * (malloc'd; *value must be NULL or malloc'd, and is freed first) and adds
 * it to `secrets` (which may be NULL). A missing or empty variable is
 * SBIO_E_AUTH, named in the message and in the hint ("export VAR=..."); the
 * value is never part of any message. `backend` prefixes the message
 * ("acme: ..."). */
int sbio_sdk_secret_from_env(sbio_sdk_secrets *secrets, const char *backend, const char *var, char **value,
                             sbio_bk_error *err);

/* The same for a variable whose name a setting gives (`setting`, such as
 * "api_key_env"; `default_var` when the setting is absent). A name other
 * than the default is never shown while its variable is unset or empty:
 * the setting may hold the credential itself, pasted where its name
 * belongs (E2B's and Daytona's keys are valid variable names too). The
 * message then names the setting instead, and the name joins `secrets`,
 * so nothing the backend says later shows it either. Declare the setting
 * in the backend's credentials (SBIO_CRED) too: the host then redacts it
 * the same way. */
int sbio_sdk_secret_from_setting(sbio_sdk_secrets *secrets, const char *backend, const char *setting, const char *var,
                                 const char *default_var, char **value, sbio_bk_error *err);

/* Checks that `value`, a credential read from the environment variable
 * `var`, can be sent as it is in an HTTP header (an API key, a bearer
 * token): visible ASCII only, so no control character (a line break, a
 * CR, a tab), no space and no byte above 0x7e, and at most `max_len`
 * bytes when `max_len` is not 0. Otherwise SBIO_E_AUTH, so the backend
 * can refuse before it creates anything or sends any request: the message
 * names `var` and says what is wrong ("contains a control character"),
 * never the value nor where in it. Unchecked, such a value makes libcurl
 * refuse the header, a failure that looks like a network problem, or
 * sends a header the value was never meant to produce. Call it with the
 * variable sbio_sdk_secret_from_env() or sbio_sdk_secret_from_setting()
 * just read successfully: that one is set, so its name is not a secret. */
int sbio_sdk_secret_check_header(const char *backend, const char *var, const char *value, size_t max_len,
                                 sbio_bk_error *err);

/* A malloc'd copy of `text` with every value of `secrets` (longest first,
 * so a secret containing another goes whole) and then every secret the
 * host knows replaced by "***". `host` and `secrets` may be NULL. NULL on
 * out-of-memory: the caller must then show nothing rather than the text. */
char *sbio_sdk_redact(const sbio_host_services *host, const sbio_sdk_secrets *secrets, const char *text);

/* Copies `len` bytes of a provider's text (it may hold anything the
 * provider chose to echo back, such as the key it was sent) into `buf` for
 * a message: every secret of `secrets` and of the host replaced first,
 * over the whole text (at most its first 64 KiB), and only then control
 * characters made spaces and the result cut to fit `size` (on a UTF-8
 * boundary). Cutting first would leave the first part of a secret the cut
 * falls inside, which no later redaction recognises. On out-of-memory
 * `buf` is "". */
void sbio_sdk_quote_provider(const sbio_host_services *host, const sbio_sdk_secrets *secrets, const char *text,
                             size_t len, char *buf, size_t size);

/* Redacts err->message and err->hint in place. If that cannot be done
 * (out of memory), they are replaced by a fixed text: an unredacted message
 * must never leave the backend. */
void sbio_sdk_redact_error(const sbio_host_services *host, const sbio_sdk_secrets *secrets, sbio_bk_error *err);

/* Formats a line, redacts it with `secrets` and hands it to the host's log
 * (which redacts again with what the host knows). No-op without a host.
 * Lines are cut at 1 KiB. */
void sbio_sdk_log(const sbio_host_services *host, const sbio_sdk_secrets *secrets, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
