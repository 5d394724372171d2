/* SPDX-License-Identifier: MIT */
/* multipart/form-data bodies (RFC 7578) through libcurl's mime API, each
 * part read from the caller's memory. Reading through a callback rather
 * than curl_mime_data() avoids copying an upload, and the seek callback
 * lets libcurl (and a retry) send it again from the start. libcurl writes
 * the boundary, the Content-Disposition lines, and percent-encodes quotes
 * and line breaks in names and file names. */
#include "http_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct part_reader {
  const char *data;
  size_t len, pos;
} part_reader;

struct http_mime {
  curl_mime *mime;
  part_reader *readers;
};

static size_t part_read(char *buf, size_t size, size_t n, void *arg) {
  part_reader *r = arg;
  size_t want = size * n, left = r->len - r->pos;
  if (want > left) want = left;
  if (want) memcpy(buf, r->data + r->pos, want);
  r->pos += want;
  return want;
}

static int part_seek(void *arg, curl_off_t offset, int origin) {
  part_reader *r = arg;
  if (origin != SEEK_SET || offset < 0 || (size_t)offset > r->len) return CURL_SEEKFUNC_CANTSEEK;
  r->pos = (size_t)offset;
  return CURL_SEEKFUNC_OK;
}

static int add_part(curl_mime *mime, const sbio_sdk_http_part *p, part_reader *r) {
  curl_mimepart *part = curl_mime_addpart(mime);
  if (!part || !p->name || curl_mime_name(part, p->name) != CURLE_OK) return -1;
  if (p->filename && curl_mime_filename(part, p->filename) != CURLE_OK) return -1;
  const char *type = p->content_type ? p->content_type : p->filename ? "application/octet-stream" : NULL;
  if (type && curl_mime_type(part, type) != CURLE_OK) return -1;
  r->data = p->data ? p->data : "";
  r->len = p->data ? p->len : 0;
  return curl_mime_data_cb(part, (curl_off_t)r->len, part_read, part_seek, NULL, r) == CURLE_OK ? 0 : -1;
}

http_mime *sbio__http_mime_new(CURL *easy, const sbio_sdk_http_request *req) {
  http_mime *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->readers = calloc(req->n_parts ? req->n_parts : 1, sizeof *m->readers);
  m->mime = curl_mime_init(easy);
  int ok = m->readers && m->mime && req->parts;
  for (size_t i = 0; ok && i < req->n_parts; i++) ok = add_part(m->mime, &req->parts[i], &m->readers[i]) == 0;
  if (!ok) {
    sbio__http_mime_free(m);
    return NULL;
  }
  return m;
}

curl_mime *sbio__http_mime_handle(http_mime *m) {
  return m ? m->mime : NULL;
}

void sbio__http_mime_free(http_mime *m) {
  if (!m) return;
  curl_mime_free(m->mime);
  free(m->readers);
  free(m);
}
