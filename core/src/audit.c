#include "audit.h"

#include "clock.h"
#include "error_internal.h"
#include "host_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sbio__event_begin(sbio__event *ev, sbio_host *host, const char *name) {
  char ts[40];
  ev->obj = cJSON_CreateObject();
  ev->started_ns = sbio__monotonic_ns();
  ev->redactor = &host->redactor;
  sbio__utc_timestamp(ts, sizeof ts);
  sbio__event_str(ev, "ts", ts);
  sbio__event_str(ev, "event", name);
  sbio__event_str(ev, "session", host->session_id);
}

void sbio__event_str(sbio__event *ev, const char *key, const char *value) {
  if (!ev->obj) return;
  cJSON_DeleteItemFromObjectCaseSensitive(ev->obj, key);
  if (!value) {
    cJSON_AddNullToObject(ev->obj, key);
    return;
  }
  char *clean = sbio__redact(ev->redactor, value);
  cJSON_AddStringToObject(ev->obj, key, clean ? clean : SBIO_REDACTED);
  free(clean);
}

void sbio__event_int(sbio__event *ev, const char *key, long long value) {
  if (!ev->obj) return;
  cJSON_DeleteItemFromObjectCaseSensitive(ev->obj, key);
  cJSON_AddNumberToObject(ev->obj, key, (double)value);
}

void sbio__event_argv(sbio__event *ev, const char *const *argv, size_t argc) {
  if (!ev->obj) return;
  cJSON *arr = cJSON_AddArrayToObject(ev->obj, "argv");
  for (size_t i = 0; arr && i < argc; i++) {
    char *clean = sbio__redact(ev->redactor, argv[i]);
    cJSON_AddItemToArray(arr, cJSON_CreateString(clean ? clean : SBIO_REDACTED));
    free(clean);
  }
}

void sbio__event_backend(sbio__event *ev, const struct sbio_backend_info *b, const sbio__mechanism *m) {
  sbio__event_str(ev, "backend", b->name);
  sbio__event_str(ev, "mechanism", m ? m->name : NULL);
  sbio__event_str(ev, "tier", sbio_tier_name(m ? m->effective : b->tier));
  sbio__event_str(ev, "claimed_tier", sbio_tier_name(m ? m->claimed : b->claimed_tier));
  sbio__event_str(ev, "source_url", m ? m->url : NULL);
  sbio__event_str(ev, "verified_on", m ? m->verified_on : NULL);
}

void sbio__event_sandbox(sbio__event *ev, const struct sbio_sandbox *sb) {
  sbio__event_str(ev, "sandbox_id", sb->id);
  sbio__event_backend(ev, sb->backend, sb->mech);
  sbio__event_str(ev, "mechanism", sb->mechanism);
  sbio__event_str(ev, "tier", sbio_tier_name(sb->tier));
  sbio__event_str(ev, "tenant_id", sbio__kvlist_get(&sb->labels, "tenant_id"));
  sbio__event_str(ev, "session_id", sbio__kvlist_get(&sb->labels, "session_id"));
}

void sbio__event_outcome(sbio__event *ev, sbio_code code, const sbio_error *err) {
  sbio__event_str(ev, "outcome", code == SBIO_OK ? "ok" : "error");
  if (code != SBIO_OK) {
    sbio__event_str(ev, "error_code", sbio_code_name(code));
    sbio__event_str(ev, "error", err ? sbio_error_message(err) : NULL);
  }
}

/* One write(2) per line on an O_APPEND descriptor: the kernel appends it
 * whole, so concurrent writers (threads or processes) never interleave. */
static int write_file_line(const char *path, const char *line, char *why, size_t why_size) {
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    snprintf(why, why_size, "cannot open audit file %s: %s", path, strerror(errno));
    return -1;
  }
  size_t len = strlen(line);
  ssize_t n;
  do n = write(fd, line, len);
  while (n < 0 && errno == EINTR);
  int saved = errno;
  int rc = close(fd);
  if (n < 0 || (size_t)n != len || rc != 0) {
    snprintf(why, why_size, "cannot append to audit file %s: %s", path,
             n < 0 ? strerror(saved) : (rc != 0 ? strerror(errno) : "short write"));
    return -1;
  }
  return 0;
}

static sbio_code sink_failed(sbio_host *host, const char *why, int op_failed, sbio_error *err) {
  if (host->audit.on_failure == SBIO__ON_FAILURE_FAIL && !op_failed)
    return sbio__error_set(err, SBIO_E_AUDIT_SINK, NULL, "audit sink failed: %s", why);
  sbio__log(host, SBIO_LOG_WARN, "audit sink failed: %s", why);
  return SBIO_OK;
}

sbio_code sbio__audit_emit(sbio_host *host, sbio__event *ev, int op_failed, sbio_error *err) {
  sbio_code rc = SBIO_OK;
  if (!ev->obj) return sink_failed(host, "out of memory building an event", op_failed, err);
  sbio__event_int(ev, "duration_ms", (sbio__monotonic_ns() - ev->started_ns) / 1000000);
  char *raw = cJSON_PrintUnformatted(ev->obj);
  cJSON_Delete(ev->obj);
  ev->obj = NULL;
  /* Every field was redacted when set; this pass catches secrets split
   * across fields' formatting or added to the redactor meanwhile. */
  char *line = raw ? sbio__redact(&host->redactor, raw) : NULL;
  free(raw);
  if (!line) return sink_failed(host, "out of memory serialising an event", op_failed, err);

  pthread_mutex_lock(&host->audit.lock);
  if (host->audit.path) {
    size_t len = strlen(line);
    char *with_nl = malloc(len + 2);
    char why[512];
    if (!with_nl) {
      rc = sink_failed(host, "out of memory", op_failed, err);
    } else {
      memcpy(with_nl, line, len);
      memcpy(with_nl + len, "\n", 2);
      if (write_file_line(host->audit.path, with_nl, why, sizeof why) != 0) rc = sink_failed(host, why, op_failed, err);
      free(with_nl);
    }
  }
  for (size_t i = 0; i < host->audit.n_cbs && rc == SBIO_OK; i++) {
    if (host->audit.cbs[i].fn(line, host->audit.cbs[i].user) != 0)
      rc = sink_failed(host, "audit callback returned an error", op_failed, err);
  }
  pthread_mutex_unlock(&host->audit.lock);
  free(line);
  return rc;
}
