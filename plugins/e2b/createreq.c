/* SPDX-License-Identifier: MIT */
/* What a create asks of E2B: the checks that refuse a request before
 * anything exists (plan), and the NewSandbox body of POST /sandboxes. */
#include "createreq.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_MANAGED "sandboxio_managed"
#define LABEL_SESSION "sandboxio_session"

/* E2B's allowOut takes a CIDR block, a bare IP or a domain name (with an
 * optional "*." wildcard). Anything else (a URL, a port, spaces) would be
 * refused by E2B or, worse, mean something else. */
static int allow_entry_ok(const char *e) {
  size_t n = strlen(e);
  if (n == 0 || n > 253) return 0;
  int ip_like = 1;
  for (const char *p = e; *p; p++)
    if (!(isxdigit((unsigned char)*p) || *p == '.' || *p == ':' || *p == '/')) ip_like = 0;
  if (ip_like && (strchr(e, '.') || strchr(e, ':'))) {
    const char *slash = strchr(e, '/');
    if (slash) {
      if (!slash[1] || strchr(slash + 1, '/')) return 0;
      for (const char *p = slash + 1; *p; p++)
        if (!isdigit((unsigned char)*p)) return 0;
    }
    return 1;
  }
  const char *h = strncmp(e, "*.", 2) == 0 ? e + 2 : e;
  size_t label = 0;
  for (const char *p = h; *p; p++) {
    unsigned char ch = (unsigned char)*p;
    if (ch == '.') {
      if (!label) return 0;
      label = 0;
    } else if (isalnum(ch) || ch == '-') {
      label++;
    } else {
      return 0;
    }
  }
  return label > 0;
}

int sbio__e2b_check_request(const e2b_instance *inst, const sbio_bk_create_req *req, sbio_bk_error *err) {
  const char *tmpl = req->template_name ? req->template_name : inst->settings.template_name;
  const char *cap = req->cpu != 0 ? "cpu" : req->memory_mb != 0 ? "memory_mb" : req->disk_mb != 0 ? "disk_mb" : NULL;
  if (cap) {
    char hint[256];
    snprintf(hint, sizeof hint,
             "drop the %s setting, or build an E2B template with the resources you need and use e2b://<template>", cap);
    return sbio_sdk_error(err, SBIO_E_CONFIG, hint,
                          "e2b: resources come from the template: the template '%.100s' owns the CPU, memory and "
                          "disk caps, so an explicit %s cannot be applied",
                          tmpl, cap);
  }
  if (req->gpu && req->gpu[0])
    return sbio_sdk_error(err, SBIO_E_CAPABILITY, "use a backend that offers GPUs", "e2b: no GPU sandboxes");
  for (size_t i = 0; i < req->n_allow; i++)
    if (!req->allow[i] || !allow_entry_ok(req->allow[i]))
      return sbio_sdk_error(err, SBIO_E_CONFIG, "give host names (example.com, *.example.com), IPs or CIDRs",
                            "e2b: allow-list entry %zu ('%.100s') is not a host name, an IP address or a CIDR "
                            "block",
                            i, req->allow[i] ? req->allow[i] : "(null)");
  for (size_t i = 0; i < req->n_labels; i++)
    if (req->labels[i].key &&
        (strcmp(req->labels[i].key, LABEL_MANAGED) == 0 || strcmp(req->labels[i].key, LABEL_SESSION) == 0))
      return sbio_sdk_error(err, SBIO_E_CONFIG, "choose another label name",
                            "e2b: the label '%s' is reserved for sandboxio's own bookkeeping", req->labels[i].key);
  if (!isfinite(req->timeout_s) || req->timeout_s <= 0)
    return sbio_sdk_error(err, SBIO_E_CONFIG, NULL, "e2b: the sandbox timeout must be a positive number");
  /* The lifetime is E2B's backstop: one it cannot hold is refused, never
   * shortened or stretched. The core never sends more; this keeps the
   * rule for any caller of the backend. */
  if (req->timeout_s > SBIO_MAX_TIMEOUT_S)
    return sbio_sdk_error(err, SBIO_E_CONFIG, "give a timeout of at most 86400 seconds",
                          "e2b: the sandbox timeout %.0f s is above the maximum of 86400 s (24 hours)", req->timeout_s);
  return SBIO_OK;
}

static int add_kv(cJSON *obj, const sbio_bk_kv *kv, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!kv[i].key || !kv[i].value) continue;
    cJSON_DeleteItemFromObjectCaseSensitive(obj, kv[i].key); /* later wins */
    if (!cJSON_AddStringToObject(obj, kv[i].key, kv[i].value)) return -1;
  }
  return 0;
}

/* Whole seconds, rounded up: the lifetime is never shorter than asked.
 * sbio__e2b_check_request has bounded it to (0, SBIO_MAX_TIMEOUT_S]. */
int sbio__e2b_lifetime_s(double timeout_s) {
  return (int)ceil(timeout_s);
}

char *sbio__e2b_create_body(const e2b_instance *inst, const sbio_bk_create_req *req) {
  cJSON *root = cJSON_CreateObject();
  cJSON *meta = cJSON_AddObjectToObject(root, "metadata");
  cJSON *env = cJSON_AddObjectToObject(root, "envVars");
  int ok = root && meta && env;
  const char *tmpl = req->template_name ? req->template_name : inst->settings.template_name;
  ok = ok && cJSON_AddStringToObject(root, "templateID", tmpl);
  /* The provider-side lifetime: E2B ends the sandbox then, whatever
   * becomes of this process. */
  ok = ok && cJSON_AddNumberToObject(root, "timeout", sbio__e2b_lifetime_s(req->timeout_s));
  ok = ok && cJSON_AddBoolToObject(root, "secure", 1);
  ok = ok && add_kv(meta, req->labels, req->n_labels) == 0;
  ok = ok && cJSON_AddStringToObject(meta, LABEL_MANAGED, "true");
  if (req->session_id) ok = ok && cJSON_AddStringToObject(meta, LABEL_SESSION, req->session_id);
  ok = ok && add_kv(env, req->env, req->n_env) == 0 && add_kv(env, req->secrets, req->n_secrets) == 0;
  if (req->egress == 1) {
    ok = ok && cJSON_AddBoolToObject(root, "allow_internet_access", 1);
  } else if (req->n_allow == 0) {
    ok = ok && cJSON_AddBoolToObject(root, "allow_internet_access", 0);
  } else {
    /* Deny everything but the allow-list: E2B's allowOut entries take
     * precedence over denyOut. */
    cJSON *net = cJSON_AddObjectToObject(root, "network");
    cJSON *deny = net ? cJSON_AddArrayToObject(net, "denyOut") : NULL;
    cJSON *allow = net ? cJSON_AddArrayToObject(net, "allowOut") : NULL;
    ok = ok && deny && allow;
    ok = ok && cJSON_AddItemToArray(deny, cJSON_CreateString("0.0.0.0/0"));
    for (size_t i = 0; ok && i < req->n_allow; i++) ok = cJSON_AddItemToArray(allow, cJSON_CreateString(req->allow[i]));
  }
  char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  return text;
}

char *sbio__e2b_metadata_query(const sbio_bk_kv *labels, size_t n_labels) {
  /* Every listing is limited to sandboxes sandboxio manages. */
  size_t cap = 64;
  for (size_t i = 0; i < n_labels; i++)
    cap += (labels[i].key ? strlen(labels[i].key) : 0) * 3 + (labels[i].value ? strlen(labels[i].value) : 0) * 3 + 2;
  char *out = malloc(cap);
  if (!out) return NULL;
  snprintf(out, cap, "%s=true", LABEL_MANAGED);
  for (size_t i = 0; i < n_labels; i++) {
    if (!labels[i].key || !labels[i].value) continue;
    char *k = sbio_sdk_http_escape(labels[i].key), *v = sbio_sdk_http_escape(labels[i].value);
    if (!k || !v) {
      free(k);
      free(v);
      free(out);
      return NULL;
    }
    size_t used = strlen(out);
    snprintf(out + used, cap - used, "&%s=%s", k, v);
    free(k);
    free(v);
  }
  return out;
}

const char *sbio__e2b_label_managed(void) {
  return LABEL_MANAGED;
}
const char *sbio__e2b_label_session(void) {
  return LABEL_SESSION;
}
