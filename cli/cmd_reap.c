/* SPDX-License-Identifier: MIT */
/* sbio reap [--backend NAME]... [--label K=V]... [--kill] [--json]
 *
 * Lists the sandboxes sandboxio created that a provider still holds and,
 * with --kill, removes them: the operator's backstop for a process that
 * died before its teardown. A dry run unless --kill is given.
 *
 * The result is built once as the JSON document and the human form is
 * rendered from it, so the two can never disagree. Exit: 0 when every
 * backend asked was listed and every kill succeeded; otherwise the exit
 * code of the first failure. A backend that cannot be listed is a failure
 * even on a dry run: "nothing found" must mean nothing is there. */
#include "args.h"
#include "cli.h"
#include "errors.h"
#include "exitcode.h"
#include "host_open.h"
#include "output.h"
#include "shown_text.h"

#include <sandboxio/sandboxio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { OPT_BACKEND = 1, OPT_LABEL, OPT_KILL, OPT_JSON };

typedef struct reap_request {
  const char **backends; /* explicit --backend names; NULL-terminated */
  size_t n_backends;
  const char **labels; /* "k=v" as given; NULL-terminated */
  size_t n_labels;
  int kill;
  int json;
} reap_request;

typedef struct reap_state {
  cJSON *doc;
  cJSON *backends;
  cJSON *sandboxes;
  int exit_code; /* first failure's, 0 while none */
  int oom;
} reap_state;

static void note_failure(reap_state *st, int exit_code) {
  if (st->exit_code == 0) st->exit_code = exit_code;
}

static int push(const char ***arr, size_t *n, const char *v) {
  const char **bigger = realloc(*arr, (*n + 2) * sizeof **arr);
  if (!bigger) return -1;
  bigger[(*n)++] = v;
  bigger[*n] = NULL;
  *arr = bigger;
  return 0;
}

static void iso_time(int64_t t, char *buf, size_t size) {
  time_t tt = (time_t)t;
  struct tm tm;
  if (t < 0 || !gmtime_r(&tt, &tm) || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) buf[0] = '\0';
}

static cJSON *error_object(const sbio_error *err) {
  cli_error_view v;
  cli_error_view_from_sbio(err, &v);
  return cli_error_json(&v);
}

/* Adds `error` (or null) under "error" and takes ownership of it either way. */
static int attach_error(cJSON *o, cJSON *error) {
  if (!error) return cJSON_AddNullToObject(o, "error") != NULL;
  if (cJSON_AddItemToObject(o, "error", error)) return 1;
  cJSON_Delete(error);
  return 0;
}

static void add_backend_status(reap_state *st, const char *name, const char *status, int found, cJSON *error) {
  cJSON *o = cJSON_CreateObject();
  int ok = o && cJSON_AddStringToObject(o, "name", name) && cJSON_AddStringToObject(o, "status", status) &&
           cJSON_AddNumberToObject(o, "found", found);
  if (o)
    ok = attach_error(o, error) && ok;
  else
    cJSON_Delete(error);
  ok = ok && cJSON_AddItemToArray(st->backends, o);
  if (!ok) {
    cJSON_Delete(o);
    st->oom = 1;
  }
}

/* One sandbox found; kills it when asked. */
static void add_sandbox(reap_state *st, sbio_host *host, const char *backend, const sbio_managed_list *l, size_t i,
                        const reap_request *req) {
  char created[32];
  const char *id = sbio_managed_list_id(l, i);
  iso_time(sbio_managed_list_created_at(l, i), created, sizeof created);
  cJSON *o = cJSON_CreateObject();
  cJSON *labels = NULL;
  int ok = o && cJSON_AddStringToObject(o, "backend", backend) && cJSON_AddStringToObject(o, "id", id) &&
           cli_json_add_string_or_null(o, "state", sbio_managed_list_state(l, i)) &&
           cli_json_add_string_or_null(o, "created_at", created) &&
           (labels = cJSON_AddObjectToObject(o, "labels")) != NULL;
  for (size_t j = 0; ok && j < sbio_managed_list_label_count(l, i); j++) {
    ok = cJSON_AddStringToObject(labels, sbio_managed_list_label_key(l, i, j),
                                 sbio_managed_list_label_value(l, i, j)) != NULL;
  }
  const char *result = "found";
  cJSON *error = NULL;
  if (ok && req->kill) {
    sbio_error *err = sbio_error_new();
    int killed = 0;
    if (!err) {
      ok = 0;
    } else if (sbio_managed_kill(host, backend, id, &killed, err) != SBIO_OK) {
      result = "kill_failed";
      error = error_object(err);
      ok = error != NULL;
      note_failure(st, cli_exit_for_code(sbio_error_code(err)));
    } else {
      result = killed ? "killed" : "already_gone";
    }
    sbio_error_free(err);
  }
  ok = ok && cJSON_AddStringToObject(o, "result", result);
  if (o)
    ok = attach_error(o, error) && ok;
  else
    cJSON_Delete(error);
  ok = ok && cJSON_AddItemToArray(st->sandboxes, o);
  if (!ok) {
    cJSON_Delete(o);
    st->oom = 1;
  }
}

static void reap_backend(reap_state *st, sbio_host *host, const char *name, const reap_request *req) {
  if (!sbio_host_backend_find(host, name)) {
    char message[256];
    snprintf(message, sizeof message, "no backend named '%s'", name);
    cli_error_view v = {SBIO_E_BACKEND_NOT_FOUND, message, "see `sbio backends` for the names available", NULL, NULL};
    add_backend_status(st, name, "not_found", 0, cli_error_json(&v));
    note_failure(st, cli_exit_for_code(SBIO_E_BACKEND_NOT_FOUND));
    return;
  }
  sbio_error *err = sbio_error_new();
  sbio_managed_list *list = NULL;
  if (!err) {
    st->oom = 1;
    return;
  }
  if (sbio_managed_list_get(host, name, req->n_labels ? req->labels : NULL, &list, err) != SBIO_OK) {
    add_backend_status(st, name, "list_failed", 0, error_object(err));
    note_failure(st, cli_exit_for_code(sbio_error_code(err)));
  } else {
    size_t n = sbio_managed_list_count(list);
    add_backend_status(st, name, "listed", (int)n, NULL);
    for (size_t i = 0; i < n; i++) add_sandbox(st, host, name, list, i, req);
  }
  sbio_managed_list_free(list);
  sbio_error_free(err);
}

/* Without --backend: every usable backend that declares it can list its
 * managed sandboxes. Refused and disabled ones are not asked (their code
 * does not run); `sbio backends` shows why. */
static void reap_default(reap_state *st, sbio_host *host, const reap_request *req) {
  for (size_t i = 0; i < sbio_host_backend_count(host); i++) {
    const sbio_backend_info *b = sbio_host_backend_at(host, i);
    sbio_backend_status s = sbio_backend_info_status(b);
    if (s != SBIO_BACKEND_AVAILABLE && s != SBIO_BACKEND_LOADED) continue;
    if (!(sbio_backend_info_capabilities(b) & SBIO_CAP_MANAGED)) continue;
    reap_backend(st, host, sbio_backend_info_name(b), req);
  }
}

static const char *str_or_dash(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : "-";
}

static void print_error_line(const char *lead, const cJSON *error) {
  /* The lead names a backend the caller typed; the message can quote a
   * provider's text. */
  cli_fputs_shown(lead, stdout);
  printf(" [%s] ", str_or_dash(error, "code"));
  cli_fputs_shown(str_or_dash(error, "message"), stdout);
  putchar('\n');
}

static int print_human(const reap_state *st, const reap_request *req) {
  const cJSON *b, *s;
  size_t found = 0;
  if (cJSON_GetArraySize(st->backends) == 0) {
    printf("no backend that can list managed sandboxes is available (see `sbio backends`)\n");
    return 0;
  }
  cJSON_ArrayForEach(b, st->backends) {
    const char *status = str_or_dash(b, "status");
    char lead[160];
    if (strcmp(status, "listed") == 0) {
      printf("%s: %d found\n", str_or_dash(b, "name"), cJSON_GetObjectItemCaseSensitive(b, "found")->valueint);
    } else {
      snprintf(lead, sizeof lead, "%s: %s:", str_or_dash(b, "name"),
               strcmp(status, "not_found") == 0 ? "not found" : "list failed");
      print_error_line(lead, cJSON_GetObjectItemCaseSensitive(b, "error"));
    }
  }
  static const char *const headers[] = {"BACKEND", "ID", "STATE", "CREATED", "LABELS", "RESULT"};
  cli_table *t = cli_table_new(req->kill ? 6 : 5, headers);
  if (!t) return -1;
  cJSON_ArrayForEach(s, st->sandboxes) {
    char labels[512] = "", result[600];
    size_t used = 0;
    const cJSON *kv;
    cJSON_ArrayForEach(kv, cJSON_GetObjectItemCaseSensitive(s, "labels")) {
      int n = snprintf(labels + used, sizeof labels - used, "%s%s=%s", used ? "," : "", kv->string,
                       cJSON_IsString(kv) ? kv->valuestring : "");
      if (n < 0 || (size_t)n >= sizeof labels - used) break;
      used += (size_t)n;
    }
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(s, "error");
    if (cJSON_IsObject(error)) {
      snprintf(result, sizeof result, "NOT killed [%s] %s", str_or_dash(error, "code"), str_or_dash(error, "message"));
    } else {
      snprintf(result, sizeof result, "%s",
               strcmp(str_or_dash(s, "result"), "already_gone") == 0 ? "already gone" : str_or_dash(s, "result"));
    }
    const char *cells[6] = {str_or_dash(s, "backend"),    str_or_dash(s, "id"),     str_or_dash(s, "state"),
                            str_or_dash(s, "created_at"), labels[0] ? labels : "-", result};
    if (cli_table_add(t, cells, NULL) != 0) {
      cli_table_free(t);
      return -1;
    }
    found++;
  }
  if (found) {
    putchar('\n');
    cli_table_print(t, stdout);
    if (!req->kill) printf("\ndry run: re-run with --kill to remove them\n");
  }
  cli_table_free(t);
  return 0;
}

static int parse(reap_request *req, cli_globals *g, int argc, char **argv, int *done) {
  static const cli_opt opts[] = {{"backend", 0, 1, OPT_BACKEND},
                                 {"label", 'l', 1, OPT_LABEL},
                                 {"kill", 0, 0, OPT_KILL},
                                 {"json", 0, 0, OPT_JSON},
                                 {NULL, 0, 0, 0}};
  cli_args a;
  const char *value;
  *done = 0;
  cli_args_init(&a, g, "reap", argc, argv);
  for (int r; (r = cli_args_next(&a, opts, &value)) != CLI_ARG_END;) {
    switch (r) {
    case OPT_BACKEND:
      if (!value[0]) return cli_usage_error("reap", "--backend needs a NAME");
      if (push(&req->backends, &req->n_backends, value) != 0) return cli_error_oom(0);
      break;
    case OPT_LABEL: {
      const char *eq = strchr(value, '=');
      if (!eq || eq == value) return cli_usage_error("reap", "--label needs K=V with a non-empty K (got '%s')", value);
      if (push(&req->labels, &req->n_labels, value) != 0) return cli_error_oom(0);
      break;
    }
    case OPT_KILL:
      req->kill = 1;
      break;
    case OPT_JSON:
      req->json = 1;
      break;
    case CLI_ARG_HELP:
      cli_help_print("reap", stdout);
      *done = 1;
      return CLI_EXIT_OK;
    case CLI_ARG_ERROR:
      return CLI_EXIT_USAGE;
    default:
      return cli_usage_error("reap", "unexpected argument '%s'", r == CLI_ARG_POSITIONAL ? value : "--");
    }
  }
  return 0;
}

static int build_doc(reap_state *st, const reap_request *req) {
  st->doc = cli_json_doc(1);
  cJSON *labels = NULL;
  if (!st->doc || !cJSON_AddBoolToObject(st->doc, "kill", req->kill) ||
      !(labels = cJSON_AddObjectToObject(st->doc, "labels")) ||
      !(st->backends = cJSON_AddArrayToObject(st->doc, "backends")) ||
      !(st->sandboxes = cJSON_AddArrayToObject(st->doc, "sandboxes")))
    return -1;
  for (size_t i = 0; i < req->n_labels; i++) {
    const char *eq = strchr(req->labels[i], '=');
    char *key = strndup(req->labels[i], (size_t)(eq - req->labels[i]));
    int ok = key && cJSON_AddStringToObject(labels, key, eq + 1);
    free(key);
    if (!ok) return -1;
  }
  return 0;
}

int cli_cmd_reap(cli_globals *g, int argc, char **argv) {
  reap_request req = {NULL, 0, NULL, 0, 0, 0};
  reap_state st = {NULL, NULL, NULL, 0, 0};
  int done = 0;
  int exit_code = parse(&req, g, argc, argv, &done);
  sbio_host *host = NULL;
  if (exit_code == 0 && !done) exit_code = cli_host_open(g, NULL, req.json, &host);
  if (exit_code == 0 && !done) {
    if (build_doc(&st, &req) != 0) {
      st.oom = 1;
    } else if (req.n_backends) {
      for (size_t i = 0; i < req.n_backends; i++) reap_backend(&st, host, req.backends[i], &req);
    } else {
      reap_default(&st, host, &req);
    }
    if (st.oom) {
      exit_code = cli_error_oom(req.json);
    } else {
      cJSON_ReplaceItemInObjectCaseSensitive(st.doc, "ok", cJSON_CreateBool(st.exit_code == 0));
      if (req.json) {
        exit_code = cli_json_emit(st.doc);
        st.doc = NULL;
      } else if (print_human(&st, &req) != 0) {
        exit_code = cli_error_oom(0);
      }
      if (exit_code == 0) exit_code = st.exit_code;
    }
  }
  cJSON_Delete(st.doc);
  if (host) sbio_host_close(host);
  free(req.backends);
  free(req.labels);
  return exit_code;
}
