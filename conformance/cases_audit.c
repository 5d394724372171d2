/* SPDX-License-Identifier: MIT */
/* Audit: one exec, one event, and the event describes that exec. */
#include "cases.h"
#include "probes.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const char *str_field(const cJSON *ev, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int argv_has(const cJSON *ev, const char *word) {
  const cJSON *argv = cJSON_GetObjectItemCaseSensitive(ev, "argv");
  for (const cJSON *it = cJSON_IsArray(argv) ? argv->child : NULL; it; it = it->next)
    if (cJSON_IsString(it) && strcmp(it->valuestring, word) == 0) return 1;
  return 0;
}

static void check_event(kit_case *c, const cJSON *ev, sbio_sandbox *sb, const char *marker) {
  const char *id = str_field(ev, "sandbox_id"), *backend = str_field(ev, "backend"), *tier = str_field(ev, "tier");
  const cJSON *exit_code = cJSON_GetObjectItemCaseSensitive(ev, "exit_code");
  if (!id || strcmp(id, sbio_sandbox_id(sb)) != 0)
    kit_fail(c, "the exec event names sandbox %s, expected %s", id ? id : "(none)", sbio_sandbox_id(sb));
  if (!backend || strcmp(backend, c->ctx->backend) != 0)
    kit_fail(c, "the exec event names backend %s, expected %s", backend ? backend : "(none)", c->ctx->backend);
  if (!tier || strcmp(tier, sbio_tier_name(sbio_sandbox_tier(sb))) != 0)
    kit_fail(c, "the exec event says tier %s, the sandbox %s", tier ? tier : "(none)",
             sbio_tier_name(sbio_sandbox_tier(sb)));
  if (!cJSON_IsNumber(exit_code) || exit_code->valuedouble != 0)
    kit_fail(c, "the exec event does not record exit status 0");
  if (!argv_has(ev, marker)) kit_fail(c, "the exec event's argv does not contain %s", marker);
}

void kit_audit_one_event_per_exec(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  const char *marker = kit_probe_name(c, "one");
  size_t before = kit_capture_audit_count(&c->ctx->capture);
  kit_run *r = kit_exec(c, sb, PROBE_ECHO(marker), NULL, 0);
  if (!kit_run_ok(c, r, "echo")) return;
  size_t after = kit_capture_audit_count(&c->ctx->capture);
  size_t execs = 0;
  for (size_t i = before; i < after; i++) {
    char *line = kit_capture_audit_at(&c->ctx->capture, i);
    cJSON *ev = line ? cJSON_Parse(line) : NULL;
    if (!ev) {
      kit_fail(c, "an audit event is not JSON: %s", kit_quote(c, line ? line : "", line ? strlen(line) : 0));
    } else {
      const char *name = str_field(ev, "event");
      if (name && strcmp(name, "exec") == 0 && ++execs == 1) check_event(c, ev, sb, marker);
    }
    cJSON_Delete(ev);
    free(line);
  }
  if (execs != 1) kit_fail(c, "one exec produced %zu exec audit events (%zu events in all)", execs, after - before);
}
