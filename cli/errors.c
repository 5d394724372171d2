/* SPDX-License-Identifier: MIT */
/* One rendering of an error for each audience; see errors.h. */
#include "errors.h"

#include "exitcode.h"
#include "output.h"
#include "shown_text.h"

#include <stdio.h>

/* Catalogue name for a code, also for a code this build does not know
 * (a newer library): "SBX_E" and its number, so nothing is lost. */
static const char *code_name(sbio_code code, char *buf, size_t size) {
  const char *name = sbio_code_name(code);
  if (name) return name;
  snprintf(buf, size, "SBX_E%04d", (int)code);
  return buf;
}

static const char *code_class(sbio_code code) {
  const char *cls = sbio_code_class(code);
  return cls ? cls : "SandboxError";
}

static int present(const char *s) {
  return s != NULL && s[0] != '\0';
}

/* "  label: value" with the value's control characters spelled out: a
 * message can quote a file name or a provider's text. */
static void print_field(const char *label, const char *value) {
  cli_print_shown_line(stderr, label, value);
}

void cli_error_print_human(const cli_error_view *e, const char *prefix) {
  char buf[32], lead[128];
  snprintf(lead, sizeof lead, "%s: [%s] ", prefix, code_name(e->code, buf, sizeof buf));
  print_field(lead, present(e->message) ? e->message : code_class(e->code));
  if (present(e->hint)) print_field("  hint: ", e->hint);
  if (present(e->backend)) print_field("  backend: ", e->backend);
  if (present(e->sandbox_id)) print_field("  sandbox: ", e->sandbox_id);
}

cJSON *cli_error_json(const cli_error_view *e) {
  char buf[32];
  cJSON *obj = cJSON_CreateObject();
  if (!obj || !cJSON_AddStringToObject(obj, "code", code_name(e->code, buf, sizeof buf)) ||
      !cJSON_AddStringToObject(obj, "class", code_class(e->code)) ||
      !cJSON_AddStringToObject(obj, "message", present(e->message) ? e->message : code_class(e->code)) ||
      !cli_json_add_string_or_null(obj, "hint", e->hint) || !cli_json_add_string_or_null(obj, "backend", e->backend) ||
      !cli_json_add_string_or_null(obj, "sandbox_id", e->sandbox_id) ||
      !cJSON_AddNumberToObject(obj, "exit_code", cli_exit_for_code(e->code))) {
    cJSON_Delete(obj);
    return NULL;
  }
  return obj;
}

static int report_json(const cli_error_view *e, int exit_code) {
  cJSON *doc = cli_json_doc(0);
  cJSON *obj = doc ? cli_error_json(e) : NULL;
  if (!obj || !cJSON_AddItemToObject(doc, "error", obj)) {
    cJSON_Delete(obj);
    cJSON_Delete(doc);
    /* Still say what failed, in the only form left. */
    cli_error_print_human(e, "error");
    return exit_code;
  }
  cli_json_emit(doc);
  return exit_code;
}

int cli_error_report(const cli_error_view *e, int json) {
  int exit_code = cli_exit_for_code(e->code);
  if (json) return report_json(e, exit_code);
  cli_error_print_human(e, "error");
  return exit_code;
}

void cli_error_view_from_sbio(const sbio_error *err, cli_error_view *out) {
  out->code = sbio_error_code(err);
  out->message = sbio_error_message(err);
  out->hint = sbio_error_hint(err);
  out->backend = sbio_error_backend(err);
  out->sandbox_id = sbio_error_sandbox_id(err);
}

int cli_error_report_sbio(const sbio_error *err, int json) {
  cli_error_view v;
  cli_error_view_from_sbio(err, &v);
  return cli_error_report(&v, json);
}

int cli_error_oom(int json) {
  cli_error_view v = {SBIO_E_INTERNAL, "out of memory", NULL, NULL, NULL};
  return cli_error_report(&v, json);
}
