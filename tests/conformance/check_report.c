/* SPDX-License-Identifier: MIT */
/* Runs sbio-conformance and checks its verdicts against what a test
 * expects, through the JSON report and the exit status:
 *
 *   conformance_check --report FILE [--expect-fail A,B] [--expect STATUS=A,B]
 *                     [--min-pass N] [--abandoned] -- KIT ARGS...
 *
 * Every case named by --expect-fail must have failed, and no other case may
 * have failed; the exit status must be 1 exactly when something failed.
 * --expect STATUS=... pins other verdicts (pass, warn, skip, not_run).
 * --abandoned: the kit is expected to give up after the expected failure,
 * so every later case is not_run. The report itself must be consistent:
 * known statuses, a reason for every verdict but pass, a summary that adds
 * up. The kit's own output passes through, so a failing test shows it. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_EXPECT 64
#define N_STATUS 5

static const char *const statuses[N_STATUS] = {"pass", "warn", "skip", "fail", "not_run"};

typedef struct expect {
  char *names[MAX_EXPECT];
  const char *status[MAX_EXPECT];
  size_t n;
  int abandoned;
  int min_pass;
} expect;

static int problems;

static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void problem(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("conformance_check: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  problems++;
}

static int status_index(const char *status) {
  for (int k = 0; k < N_STATUS; k++)
    if (strcmp(statuses[k], status) == 0) return k;
  return -1;
}

static int add_names(expect *e, const char *status, const char *list) {
  if (status_index(status) < 0) return -1;
  char *copy = strdup(list), *save = NULL;
  if (!copy) return -1;
  for (char *p = strtok_r(copy, ",", &save); p && e->n < MAX_EXPECT; p = strtok_r(NULL, ",", &save)) {
    e->names[e->n] = strdup(p);
    e->status[e->n++] = statuses[status_index(status)];
  }
  free(copy);
  return 0;
}

static int run_kit(char **argv) {
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
  if (rc != 0) {
    fprintf(stderr, "conformance_check: cannot run %s: %s\n", argv[0], strerror(rc));
    exit(2);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) {
      perror("conformance_check: waitpid");
      exit(2);
    }
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return WEXITSTATUS(st);
}

static cJSON *read_report(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    problem("no report at %s: %s", path, strerror(errno));
    return NULL;
  }
  char *text = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      cap = (len + 4096 + 1) * 2;
      char *p = realloc(text, cap);
      if (!p) break;
      text = p;
    }
    size_t got = fread(text + len, 1, 4096, f);
    len += got;
    if (got < 4096) break;
  }
  fclose(f);
  if (text) text[len] = '\0';
  cJSON *root = text ? cJSON_Parse(text) : NULL;
  free(text);
  if (!root) problem("the report %s is not JSON", path);
  return root;
}

static const char *str(const cJSON *obj, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *expected_status(const expect *e, const char *name, int *seen) {
  const char *want = NULL;
  for (size_t i = 0; i < e->n; i++)
    if (strcmp(e->names[i], name) == 0) {
      want = e->status[i];
      seen[i] = 1;
    }
  return want;
}

static void check(const cJSON *root, const expect *e, int exit_status) {
  if (!str(root, "schema") || strcmp(str(root, "schema"), "sandboxio-conformance/1") != 0)
    problem("the report's schema is not sandboxio-conformance/1");
  int counts[N_STATUS] = {0}, seen[MAX_EXPECT] = {0}, total = 0;
  const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
  for (const cJSON *c = cJSON_IsArray(cases) ? cases->child : NULL; c; c = c->next, total++) {
    const char *name = str(c, "name"), *status = str(c, "status"), *reason = str(c, "reason");
    if (!name || !status || !reason) {
      problem("case %d lacks name, status or reason", total);
      continue;
    }
    int k = status_index(status);
    if (k < 0) {
      problem("%s has the unknown status %s", name, status);
      continue;
    }
    counts[k]++;
    if (k != 0 && !reason[0]) problem("%s is %s without a reason", name, status);
    const char *want = expected_status(e, name, seen);
    if (!want && e->abandoned && k == 4) continue;
    if (want && strcmp(want, status) != 0)
      problem("%s: expected %s, got %s (%s)", name, want, status, reason);
    else if (!want && k >= 3)
      problem("%s: unexpected %s: %s", name, status, reason);
  }
  for (size_t i = 0; i < e->n; i++)
    if (!seen[i]) problem("%s: expected %s, but the report has no such case", e->names[i], e->status[i]);
  const cJSON *summary = cJSON_GetObjectItemCaseSensitive(root, "summary");
  for (int k = 0; k < N_STATUS; k++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(summary, statuses[k]);
    if (!cJSON_IsNumber(v) || (int)v->valuedouble != counts[k])
      problem("summary.%s does not match the cases (%d)", statuses[k], counts[k]);
  }
  int failed = counts[3] + counts[4];
  const cJSON *ok = cJSON_GetObjectItemCaseSensitive(root, "ok");
  if (!cJSON_IsBool(ok) || cJSON_IsTrue(ok) != !failed) problem("\"ok\" does not match the verdicts");
  if (exit_status != (failed ? 1 : 0))
    problem("the kit exited %d with %d failure(s); expected %d", exit_status, failed, failed ? 1 : 0);
  if (e->abandoned && !counts[4]) problem("the kit was expected to give up, but every case ran");
  if (counts[0] + counts[1] < e->min_pass)
    problem("only %d case(s) passed; at least %d expected", counts[0] + counts[1], e->min_pass);
}

static int usage(void) {
  fputs("usage: conformance_check --report FILE [--expect-fail A,B] [--expect STATUS=A,B] [--min-pass N] "
        "[--abandoned] -- KIT ARGS...\n",
        stderr);
  return 2;
}

int main(int argc, char **argv) {
  const char *report = NULL;
  expect e = {0};
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (strcmp(argv[i], "--report") == 0 && i + 1 < argc) {
      report = argv[++i];
    } else if (strcmp(argv[i], "--expect-fail") == 0 && i + 1 < argc) {
      if (add_names(&e, "fail", argv[++i]) != 0) return usage();
    } else if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc) {
      char *eq = strchr(argv[++i], '=');
      if (!eq) return usage();
      *eq = '\0';
      if (add_names(&e, argv[i], eq + 1) != 0) return usage();
    } else if (strcmp(argv[i], "--min-pass") == 0 && i + 1 < argc) {
      e.min_pass = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--abandoned") == 0) {
      e.abandoned = 1;
    } else {
      return usage();
    }
  }
  if (!report || i >= argc - 1) return usage();
  /* KIT --report FILE ARGS...: options must come before the URI. */
  size_t n = (size_t)(argc - i - 1);
  char **kit = calloc(n + 3, sizeof *kit);
  if (!kit) return 2;
  kit[0] = argv[i + 1];
  kit[1] = (char *)"--report";
  kit[2] = (char *)report;
  for (size_t k = 1; k < n; k++) kit[k + 2] = argv[i + 1 + k];
  unlink(report);
  fflush(stdout);
  int status = run_kit(kit);
  free(kit);
  cJSON *root = read_report(report);
  if (root) check(root, &e, status);
  cJSON_Delete(root);
  for (size_t k = 0; k < e.n; k++) free(e.names[k]);
  if (problems) fprintf(stderr, "conformance_check: %d problem(s)\n", problems);
  return problems ? 1 : 0;
}
