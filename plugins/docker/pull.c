/* SPDX-License-Identifier: MIT */
#include "pull.h"

#include "api.h"
#include "errmap.h"
#include "pull_progress.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

int sbio__dk_image_present(dk_instance *inst, const char *image, const sbio_bk_call *call, int *present,
                           sbio_bk_error *err) {
  char path[512];
  snprintf(path, sizeof path, "/images/%s/json", image);
  sbio_sdk_http_response resp;
  int rc = sbio__dk_send(inst, "GET", path, NULL, call, &resp);
  if (rc == 0 && (resp.status == 200 || resp.status == 404)) {
    *present = resp.status == 200;
    rc = SBIO_OK;
  } else {
    rc = sbio__dk_fail(inst, &resp, SBIO_E_CREATE, SBIO_E_CREATE_TIMEOUT, "look up the image", err);
  }
  sbio_sdk_http_response_free(&resp);
  return rc;
}

/* "repo[:tag]" or "repo@digest" -> repo and tag (never empty: an empty tag
 * would pull every tag of the repository). */
static void split_ref(const char *image, char *repo, size_t rsize, char *tag, size_t tsize) {
  const char *at = strchr(image, '@');
  const char *slash = strrchr(image, '/');
  const char *colon = strrchr(image, ':');
  const char *cut = at ? at : (colon && (!slash || colon > slash) ? colon : NULL);
  if (!cut) {
    snprintf(repo, rsize, "%s", image);
    snprintf(tag, tsize, "latest");
    return;
  }
  snprintf(repo, rsize, "%.*s", (int)(cut - image), image);
  snprintf(tag, tsize, "%s", cut + 1);
}

typedef struct progress {
  dk_instance *inst;
  const char *image;
  char what[300]; /* "pull IMAGE": the step's name for the host */
  char line[8192];
  size_t len;
  int overflow;
  char error[400];
  int64_t last_log;
  dk_pull_progress bytes; /* the layers summed for the host */
} progress;

/* To the host's progress service (ABI 1.2), if this host has one. */
static void to_host(void *user, int64_t done, int64_t total) {
  const progress *p = user;
  const sbio_host_services *host = p->inst->host;
  if (SBIO_HOST_HAS(host, progress)) host->progress(host->host_data, p->what, done, total);
}

/* The engine's (or the registry's) words go into a one-line message. */
static void one_line(char *text) {
  for (unsigned char *c = (unsigned char *)text; *c; c++)
    if (*c < 0x20 || *c == 0x7f) *c = ' ';
}

static void progress_line(progress *p, const char *line) {
  cJSON *root = cJSON_Parse(line);
  if (!root) return;
  const cJSON *detail = cJSON_GetObjectItemCaseSensitive(root, "errorDetail");
  const cJSON *msg = detail ? cJSON_GetObjectItemCaseSensitive(detail, "message") : NULL;
  const cJSON *old = cJSON_GetObjectItemCaseSensitive(root, "error");
  if (!p->error[0] && cJSON_IsString(msg) && msg->valuestring)
    snprintf(p->error, sizeof p->error, "%s", msg->valuestring);
  else if (!p->error[0] && cJSON_IsString(old) && old->valuestring)
    snprintf(p->error, sizeof p->error, "%s", old->valuestring);
  one_line(p->error);
  const cJSON *status = cJSON_GetObjectItemCaseSensitive(root, "status");
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
  const cJSON *pd = cJSON_GetObjectItemCaseSensitive(root, "progressDetail");
  const cJSON *cur = pd ? cJSON_GetObjectItemCaseSensitive(pd, "current") : NULL;
  const cJSON *tot = pd ? cJSON_GetObjectItemCaseSensitive(pd, "total") : NULL;
  if (cJSON_IsString(status) && status->valuestring)
    sbio__dk_pull_progress_line(&p->bytes, status->valuestring,
                                cJSON_IsString(id) && id->valuestring ? id->valuestring : "", cur, tot);
  if (cJSON_IsString(status) && status->valuestring) {
    int64_t now = sbio__dk_now(p->inst);
    int is_bytes = cJSON_IsNumber(cur) && cJSON_IsNumber(tot) && tot->valuedouble > 0;
    /* Byte counters arrive many times a second: at most one line a second. */
    if (!is_bytes || now - p->last_log >= 1000000000LL) {
      p->last_log = is_bytes ? now : p->last_log;
      const char *layer = cJSON_IsString(id) && id->valuestring ? id->valuestring : "";
      if (is_bytes)
        sbio_sdk_log(p->inst->host, NULL, SBIO_BK_LOG_INFO, "pull %s: %s%s%s %.0f/%.0f bytes", p->image, layer,
                     layer[0] ? " " : "", status->valuestring, cur->valuedouble, tot->valuedouble);
      else
        sbio_sdk_log(p->inst->host, NULL, SBIO_BK_LOG_INFO, "pull %s: %s%s%s", p->image, layer, layer[0] ? " " : "",
                     status->valuestring);
    }
  }
  cJSON_Delete(root);
}

/* The stream is JSON objects each ended by \r\n, split anywhere across
 * chunks: collect to the newline. */
static int on_progress(void *user, const char *data, size_t len) {
  progress *p = user;
  for (size_t i = 0; i < len; i++) {
    char c = data[i];
    if (c == '\n') {
      p->line[p->len] = '\0';
      if (!p->overflow) progress_line(p, p->line);
      p->len = 0;
      p->overflow = 0;
    } else if (p->len + 1 < sizeof p->line) {
      p->line[p->len++] = c;
    } else {
      p->overflow = 1; /* an oversized line is skipped, not split */
    }
  }
  return 0;
}

int sbio__dk_image_pull(dk_instance *inst, const char *image, const sbio_bk_call *call, sbio_bk_error *err) {
  char repo[300], tag[300], path[1024];
  split_ref(image, repo, sizeof repo, tag, sizeof tag);
  char *r = sbio_sdk_http_escape(repo);
  char *t = sbio_sdk_http_escape(tag);
  if (r && t) snprintf(path, sizeof path, "/images/create?fromImage=%s&tag=%s", r, t);
  free(r);
  free(t);
  if (!r || !t) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  progress *p = calloc(1, sizeof *p);
  if (!p) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  p->inst = inst;
  p->image = image;
  snprintf(p->what, sizeof p->what, "pull %.280s", image);
  sbio__dk_pull_progress_init(&p->bytes, to_host, p);
  sbio_sdk_log(inst->host, NULL, SBIO_BK_LOG_INFO, "pull %s: pulling from its registry", image);
  sbio_sdk_http_request req = {
      .method = "POST", .path = path, .body = "", .body_len = 0, .sink = on_progress, .sink_user = p};
  sbio_sdk_http_response resp;
  int rc = sbio__dk_request(inst, &req, call, &resp);
  /* A last line without its newline (the engine's last write) still
   * counts: it is where an error line is. */
  if (rc == 0 && p->len && !p->overflow) {
    p->line[p->len] = '\0';
    progress_line(p, p->line);
  }
  char what[400];
  snprintf(what, sizeof what, "pull image %.300s", image);
  if (rc != 0 || resp.status != 200) {
    rc = sbio__dk_fail(inst, &resp, SBIO_E_CREATE, SBIO_E_CREATE_TIMEOUT, what, err);
  } else if (p->error[0]) {
    /* Failures after the 200 arrive as an error line in the stream. */
    rc = sbio_sdk_error(err, SBIO_E_CREATE, "check the image name and that the registry is reachable",
                        "docker: %s failed: %s", what, p->error);
  } else {
    sbio_sdk_log(inst->host, NULL, SBIO_BK_LOG_INFO, "pull %s: done", image);
    sbio__dk_pull_progress_finish(&p->bytes);
    rc = SBIO_OK;
  }
  sbio_sdk_http_response_free(&resp);
  free(p);
  return rc;
}
