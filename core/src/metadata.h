/* SPDX-License-Identifier: MIT */
/* The backend metadata document (the JSON in the ELF note): parsing and
 * schema validation. Evaluation of the sources lives in trust.c. */
#ifndef SBIO_METADATA_H
#define SBIO_METADATA_H

#include <sandboxio/types.h>
#include <stddef.h>

typedef struct sbio__mechanism {
  char *name;
  sbio_tier claimed; /* as declared ("unknown" when unverified) */
  char *url;         /* source fields; NULL when absent */
  char *verified_on;
  char *quote;
  char *unverified; /* the backend's own reason it declares no tier, or NULL */
  /* Filled by sbio__trust_evaluate: */
  sbio_tier effective;
  int stale;
  int age_days; /* -1 when the date is unusable */
  char reason[256];
} sbio__mechanism;

typedef struct sbio__metadata {
  int abi;
  char *name;
  char *version;
  char *summary;
  sbio_caps caps;
  sbio__mechanism *mechs;
  size_t n_mechs;
  /* "credentials" (optional, ABI 1.4): the environment variables holding
   * the backend's credentials, and the settings whose value names another
   * such variable (as daytona's api_key_env). The core redacts their
   * values from everything it passes on. */
  char **cred_env;
  size_t n_cred_env;
  char **cred_settings;
  size_t n_cred_settings;
} sbio__metadata;

/* Backend names: [a-z][a-z0-9_]{0,30}. */
int sbio__backend_name_valid(const char *name);

/* Parses and validates the document against the schema: an object with
 * integer "abi", string "name" (valid backend name), "version", "summary",
 * array "capabilities" of known capability names, array "mechanisms" (at
 * most 16) of objects with string "name" and "tier" ("container", "gvisor",
 * "microvm" or "unknown") and either an object "source" {url, verified_on,
 * quote} (fields may be missing or malformed: that makes the mechanism
 * UNKNOWN later, not the document invalid) or a string "unverified", and
 * optionally an object "credentials" {"env": [...], "settings": [...]} (each
 * optional: at most 16 environment variable names [A-Za-z_][A-Za-z0-9_]*,
 * and 16 setting keys [a-z][a-z0-9_]*, each at most 64 bytes). Unknown
 * top-level keys are refused. Returns 0, or -1 with a reason naming the
 * offending field ("metadata: \"capabilities\"[2]: unknown capability
 * \"telepathy\""). `out` is always safe to sbio__metadata_free. */
int sbio__metadata_parse(const char *json, size_t len, sbio__metadata *out, char *reason, size_t reason_size);
void sbio__metadata_free(sbio__metadata *m);

#endif
