/* SPDX-License-Identifier: MIT */
/* probe (ABI 1.1, for `sbio doctor`): can E2B be reached with this key
 * now? One authenticated read of the control plane; nothing is created. */
#include "api.h"
#include "createreq.h"

#include <stdio.h>
#include <stdlib.h>

int sbio__e2b_op_probe(void *instance, const sbio_bk_call *call, char *detail, size_t detail_size, sbio_bk_error *err) {
  e2b_instance *inst = instance;
  if (!inst || !detail || !detail_size || !sbio__e2b_call_ok(call))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b probe: missing argument");
  char *query = sbio__e2b_metadata_query(NULL, 0);
  if (!query) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  cJSON *items = NULL;
  char next[1024];
  int rc = sbio__e2b_api_list_page(inst, call, query, NULL, &items, next, sizeof next, err);
  free(query);
  if (rc != SBIO_OK) return rc;
  snprintf(detail, detail_size, "E2B API %s: the key in %s is accepted; %d%s managed sandbox(es)",
           inst->settings.api_url, inst->settings.api_key_env, cJSON_GetArraySize(items), next[0] ? "+" : "");
  cJSON_Delete(items);
  return SBIO_OK;
}
