/* SPDX-License-Identifier: MIT */
/* Declared credentials (metadata "credentials", ABI 1.4): the environment
 * variables a backend reads its credentials from, named in its note or by
 * one of its settings (api_key_env). The core reads their values into the
 * host's redactor, so a backend that forgets to redact what a provider
 * echoes back is still safe: no value ever reaches the caller, a log, an
 * audit event or a span. Only names are kept and shown, never values. */
#ifndef SBIO_CREDENTIALS_H
#define SBIO_CREDENTIALS_H

struct sbio_host;
struct sbio_backend_info;

/* Resolves the backend's credential variable names once (its note's list,
 * then the text its configured credential settings hold); every call
 * re-reads the values, which may have changed, into the host's redactor.
 * A setting's text counts as a variable's name only while that variable
 * is set; until then it is redacted itself, as it may be the credential
 * pasted into the wrong setting.
 * Never fails: a name it cannot keep for lack of memory is the only loss,
 * and the values already learnt stay. */
void sbio__credentials_learn(struct sbio_host *host, struct sbio_backend_info *b);

#endif
