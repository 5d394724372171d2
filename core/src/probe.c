/* SPDX-License-Identifier: MIT */
/* sbio_backend_probe: can a backend's provider be reached now? Used by
 * `sbio doctor`. It runs the backend's code (load, open, probe) but
 * provisions nothing. */
#include "clock.h"
#include "error_internal.h"
#include "host_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Long enough for a slow daemon or a cloud API's cheapest request, short
 * enough that a doctor run over several backends stays interactive. */
#define PROBE_TIMEOUT_S 10.0

sbio_code sbio_backend_probe(sbio_host *host, const char *name, char *detail, size_t detail_size, sbio_error *err) {
  if (detail && detail_size) detail[0] = '\0';
  if (!host || !name || (!detail && detail_size))
    return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "host and name are required");
  struct sbio_backend_info *b = NULL;
  sbio_code rc = sbio__host_resolve_backend(host, name, &b, err);
  if (rc != SBIO_OK) return rc;
  rc = sbio__host_check_usable(b, err);
  if (rc != SBIO_OK) return rc;
  rc = sbio__host_backend_instance(host, b, err);
  if (rc != SBIO_OK) return rc;
  if (!SBIO_OPS_HAS(b->ops, probe)) {
    sbio__error_set(err, SBIO_E_CAPABILITY, "nothing to fix: this backend cannot be asked; a create will tell",
                    "backend %s has no probe operation (built against backend ABI 1.%u)", b->name,
                    (unsigned)b->ops->abi_minor);
    sbio__error_set_backend(err, b->name);
    return SBIO_E_CAPABILITY;
  }
  sbio__call c;
  sbio__call_init(&c, host, NULL, sbio__deadline_after(PROBE_TIMEOUT_S));
  sbio_bk_error bk = {.size = sizeof bk};
  char line[512] = "";
  if (b->ops->probe(b->instance, &c.call, line, sizeof line, &bk) != 0) {
    rc = sbio__error_from_backend(err, &bk, b->name);
    sbio__error_set_backend(err, b->name);
    sbio__host_redact_error(host, err);
    return rc;
  }
  line[sizeof line - 1] = '\0';
  if (detail && detail_size) {
    char *clean = sbio__redact(&host->redactor, line);
    snprintf(detail, detail_size, "%s", clean ? clean : SBIO_REDACTED);
    free(clean);
    for (char *p = detail; *p; p++) /* one line: a backend's text is not trusted */
      if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = ' ';
  }
  return SBIO_OK;
}
