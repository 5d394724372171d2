/* SPDX-License-Identifier: MIT */
/* File read and write through the archive endpoints, as tar (libarchive).
 * Reads stream: libarchive pulls the response through a bounded window and
 * each block goes straight to the caller's sink. Writes stream the caller's
 * buffer between a tar header and the end blocks. */
#include "files.h"

#include "archive_load.h"
#include "engine.h"
#include "errmap.h"
#include "tarhdr.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINKS 8

static int b64val(int c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

/* Standard or URL-safe base64, padding optional. */
static size_t b64decode(const char *in, char *out, size_t size) {
  size_t o = 0;
  unsigned acc = 0;
  int bits = 0;
  for (; *in && *in != '='; in++) {
    int v = b64val((unsigned char)*in);
    if (v < 0) continue;
    acc = (acc << 6) | (unsigned)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (o + 1 < size) out[o++] = (char)((acc >> bits) & 0xff);
    }
  }
  out[o] = '\0';
  return o;
}

int sbio__dk_archive_fail(dk_sandbox *sb, const sbio_sdk_http_response *resp, const char *abs, const char *what,
                          sbio_bk_error *err) {
  if (sbio__dk_no_such_container(resp))
    return sbio_sdk_error(err, SBIO_E_GONE, "create a new sandbox", "docker: sandbox %s no longer exists",
                          sb->short_id);
  if (!sbio__dk_no_answer(resp) && resp->status == 404)
    return sbio_sdk_error(err, SBIO_E_PATH_NOT_FOUND, NULL, "docker: %s: no such file or directory: %.400s", what, abs);
  return sbio__dk_fail(sb->inst, resp, SBIO_E_FS, SBIO_E_FS, what, err);
}

int sbio__dk_stat(dk_sandbox *sb, const char *abs, const sbio_bk_call *call, dk_stat *st, sbio_bk_error *err) {
  memset(st, 0, sizeof *st);
  char path[DK_PATH_MAX * 3 + 200];
  if (sbio__dk_archive_url(sb->id, abs, NULL, path, sizeof path) != 0)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker: path is too long");
  sbio_sdk_http_response resp;
  int rc = sbio__dk_send(sb->inst, "HEAD", path, NULL, call, &resp);
  if (rc == 0 && resp.status == 404) {
    sbio_sdk_http_response_free(&resp);
    /* HEAD has no body to tell a missing path from a missing container. */
    int state = sbio__dk_container_exists(sb, call);
    if (state == 0)
      return sbio_sdk_error(err, SBIO_E_GONE, "create a new sandbox", "docker: sandbox %s no longer exists",
                            sb->short_id);
    return SBIO_OK;
  }
  if (rc != 0 || resp.status != 200) {
    rc = sbio__dk_archive_fail(sb, &resp, abs, "stat", err);
    sbio_sdk_http_response_free(&resp);
    return rc;
  }
  /* Room for a link target of PATH_MAX bytes: a cut header would not parse. */
  char stat64[8192] = "", json[6144];
  sbio_sdk_http_header(&resp, "X-Docker-Container-Path-Stat", stat64, sizeof stat64);
  b64decode(stat64, json, sizeof json);
  sbio_sdk_http_response_free(&resp);
  cJSON *root = cJSON_Parse(json);
  const cJSON *mode = root ? cJSON_GetObjectItemCaseSensitive(root, "mode") : NULL;
  const cJSON *size = root ? cJSON_GetObjectItemCaseSensitive(root, "size") : NULL;
  const cJSON *link = root ? cJSON_GetObjectItemCaseSensitive(root, "linkTarget") : NULL;
  /* A Go os.FileMode is a uint32. Without one the answer says nothing of
   * what is there: taking it as "a regular file" would make list say "not
   * a directory" and mkdir "it already exists", blaming the path. Checked
   * before the conversion, which is undefined for a double out of range. */
  if (!cJSON_IsNumber(mode) || !(mode->valuedouble >= 0) || mode->valuedouble > 4294967295.0) {
    cJSON_Delete(root);
    return sbio_sdk_error(err, SBIO_E_FS, NULL,
                          "docker: stat %.400s: the engine's X-Docker-Container-Path-Stat header is not base64 "
                          "of JSON with a file mode",
                          abs);
  }
  st->exists = 1;
  /* Bit 31 directory, bit 27 symlink. */
  unsigned long bits = (unsigned long)mode->valuedouble;
  st->is_dir = (bits >> 31) & 1;
  st->is_link = (bits >> 27) & 1;
  /* Informative only: a size out of int64_t's range is unknown (0). */
  st->size =
      cJSON_IsNumber(size) && size->valuedouble >= 0 && size->valuedouble < 9.2e18 ? (int64_t)size->valuedouble : 0;
  if (cJSON_IsString(link) && link->valuestring)
    snprintf(st->link_target, sizeof st->link_target, "%s", link->valuestring);
  cJSON_Delete(root);
  return SBIO_OK;
}

/* ------------------------------------------------------------------ read */
typedef struct reader {
  sbio_sdk_http_stream *stream;
  const dk_archive_api *ar;
} reader;

int sbio__dk_archive_ready(sbio_bk_error *err) {
  char why[256];
  if (sbio__dk_archive(why, sizeof why)) return SBIO_OK;
  return sbio_sdk_error(err, SBIO_E_FS, "install libarchive (Debian: libarchive13)",
                        "docker: file operations need libarchive: %s", why);
}

static la_ssize_t on_read(struct archive *a, void *user, const void **buf) {
  reader *r = user;
  long n = sbio_sdk_http_stream_read(r->stream, buf);
  if (n < 0) {
    r->ar->archive_set_error(a, EIO, "the engine's archive stream failed");
    return -1;
  }
  return n;
}

/* The engine names the one entry of its tar after the last component of
 * the path asked for (docker rebases it so, whatever the path resolves
 * to). Another name ("../../etc/x", "/etc/x", "other") is not the file:
 * its bytes must not be handed over as if they were. */
static int entry_is(const char *name, const char *base) {
  if (!name) return 0;
  if (!strncmp(name, "./", 2)) name += 2;
  return !strcmp(name, base);
}

/* Streams the first entry of the tar at `abs`. *link gets a symlink's
 * target instead (the archive endpoint returns links, not what they name). */
static int read_entry(dk_sandbox *sb, const char *abs, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                      char *link, size_t link_size, sbio_bk_error *err) {
  char path[DK_PATH_MAX * 3 + 200];
  if (sbio__dk_archive_url(sb->id, abs, NULL, path, sizeof path) != 0)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker: path is too long");
  char versioned[DK_API_PATH_MAX];
  sbio_sdk_http_request req = {.method = "GET", .path = sbio__dk_api_path(sb->inst, path, versioned, sizeof versioned)};
  if (!req.path) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker: path is too long");
  const dk_archive_api *ar = sbio__dk_archive(NULL, 0);
  if (!ar) return sbio__dk_archive_ready(err);
  sbio_sdk_http_response resp;
  reader r = {.ar = ar};
  if (sbio_sdk_http_stream_open(sb->inst->http, &req, call, &r.stream, &resp) != 0 || !r.stream) {
    int rc = sbio__dk_archive_fail(sb, &resp, abs, "read", err);
    sbio_sdk_http_response_free(&resp);
    return rc;
  }
  struct archive *a = ar->archive_read_new();
  struct archive_entry *e = NULL;
  int rc = SBIO_OK;
  if (!a || ar->archive_read_support_format_tar(a) != ARCHIVE_OK ||
      ar->archive_read_open(a, &r, NULL, on_read, NULL) != ARCHIVE_OK ||
      ar->archive_read_next_header(a, &e) != ARCHIVE_OK) {
    rc = resp.outcome == SBIO_SDK_HTTP_ANSWERED ? sbio_sdk_error(err, SBIO_E_FS, NULL,
                                                                 "docker: read %.400s: the engine's archive is not a "
                                                                 "readable tar (%s)",
                                                                 abs, a ? ar->archive_error_string(a) : "out of memory")
                                                : sbio__dk_archive_fail(sb, &resp, abs, "read", err);
  } else if (strcmp(abs, "/") != 0 && !entry_is(ar->archive_entry_pathname(e), strrchr(abs, '/') + 1)) {
    rc = sbio_sdk_error(err, SBIO_E_FS, NULL,
                        "docker: read %.400s: the engine's archive entry is not named %.200s (it is not this "
                        "file's)",
                        abs, strrchr(abs, '/') + 1);
  } else if (ar->archive_entry_filetype(e) == AE_IFLNK) {
    snprintf(link, link_size, "%s", ar->archive_entry_symlink(e) ? ar->archive_entry_symlink(e) : "");
  } else if (ar->archive_entry_filetype(e) != AE_IFREG) {
    rc = sbio_sdk_error(err, SBIO_E_FS, "list it instead, or read a file inside it",
                        "docker: read %.400s: not a regular file", abs);
  } else {
    const void *block;
    size_t size;
    la_int64_t offset;
    int r2;
    while ((r2 = ar->archive_read_data_block(a, &block, &size, &offset)) == ARCHIVE_OK) {
      if (size && sink(user, block, size) != 0) break; /* the caller stopped: its limit, its error */
    }
    if (r2 != ARCHIVE_OK && r2 != ARCHIVE_EOF)
      rc = resp.outcome == SBIO_SDK_HTTP_TIMEOUT
               ? sbio_sdk_error(err, SBIO_E_FS, "raise the timeout", "docker: read %.400s timed out", abs)
               : sbio_sdk_error(err, SBIO_E_FS, NULL, "docker: read %.400s failed midway: %s", abs,
                                resp.error[0] ? resp.error : ar->archive_error_string(a));
  }
  if (a) ar->archive_read_free(a);
  sbio_sdk_http_stream_close(r.stream);
  sbio_sdk_http_response_free(&resp);
  return rc;
}

int sbio__dk_op_file_read(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                          sbio_bk_error *err) {
  dk_sandbox *sb = sandbox;
  if (!sb || !call || !sink) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker read: missing argument");
  char abs[DK_PATH_MAX], dir[DK_PATH_MAX], base[DK_PATH_MAX];
  int rc = sbio__dk_path_resolve(path, abs, sizeof abs, err);
  if (rc == SBIO_OK) rc = sbio__dk_engine_ready(sb->inst, call, SBIO_E_FS, err);
  if (rc == SBIO_OK && sbio__dk_files_via_exec(sb)) return sbio__dk_xfile_read(sb, abs, call, sink, user, err);
  for (int hops = 0; rc == SBIO_OK; hops++) {
    char link[DK_PATH_MAX] = "";
    rc = read_entry(sb, abs, call, sink, user, link, sizeof link, err);
    if (rc != SBIO_OK || !link[0]) break;
    if (hops == MAX_LINKS)
      return sbio_sdk_error(err, SBIO_E_FS, NULL, "docker: read %.400s: too many symbolic links", path);
    char next[DK_PATH_MAX * 2 + 2];
    sbio__dk_path_split(abs, dir, sizeof dir, base, sizeof base);
    if (link[0] == '/')
      snprintf(next, sizeof next, "%s", link);
    else
      snprintf(next, sizeof next, "%s/%s", dir, link);
    rc = sbio__dk_path_resolve(next, abs, sizeof abs, err);
  }
  return rc;
}

/* ----------------------------------------------------------------- write */
typedef struct upload {
  const unsigned char *parts[3];
  size_t lens[3];
  size_t part, off;
} upload;

static long on_upload(void *user, char *buf, size_t room) {
  upload *u = user;
  size_t done = 0;
  while (done < room && u->part < 3) {
    size_t left = u->lens[u->part] - u->off;
    if (!left) {
      u->part++;
      u->off = 0;
      continue;
    }
    size_t k = left < room - done ? left : room - done;
    memcpy(buf + done, u->parts[u->part] + u->off, k);
    u->off += k;
    done += k;
  }
  return (long)done;
}

static int upload_rewind(void *user) {
  upload *u = user;
  u->part = 0;
  u->off = 0;
  return 0;
}

int sbio__dk_op_file_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                           sbio_bk_error *err) {
  dk_sandbox *sb = sandbox;
  if (!sb || !call || (len && !data))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker write: missing argument");
  char abs[DK_PATH_MAX], dir[DK_PATH_MAX], base[DK_PATH_MAX];
  int rc = sbio__dk_path_resolve(path, abs, sizeof abs, err);
  if (rc != SBIO_OK) return rc;
  sbio__dk_path_split(abs, dir, sizeof dir, base, sizeof base);
  if (!base[0]) return sbio_sdk_error(err, SBIO_E_FS, NULL, "docker: cannot write to %s: it is a directory", abs);
  rc = sbio__dk_engine_ready(sb->inst, call, SBIO_E_FS, err);
  if (rc != SBIO_OK) return rc;
  if (sbio__dk_files_via_exec(sb)) return sbio__dk_xfile_write(sb, abs, data, len, call, err);
  unsigned char *header = NULL;
  size_t header_len = 0;
  static const unsigned char zeros[1536];
  if ((rc = sbio__dk_archive_ready(err)) != SBIO_OK) return rc;
  if (sbio__dk_tar_file_header(base, (int64_t)len, &header, &header_len) != 0)
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "docker: could not build the tar header for %.400s", abs);
  upload u = {.parts = {header, data, zeros}, .lens = {header_len, len, sbio__dk_tar_trailer_len((int64_t)len)}};
  char url[DK_PATH_MAX * 3 + 200];
  rc = sbio__dk_archive_url(sb->id, dir, "noOverwriteDirNonDir=true", url, sizeof url);
  sbio_sdk_http_request req = {.method = "PUT",
                               .path = url,
                               .content_type = "application/x-tar",
                               .read = on_upload,
                               .rewind = upload_rewind,
                               .read_user = &u,
                               .read_len = (int64_t)(header_len + len + u.lens[2])};
  sbio_sdk_http_response resp = {0};
  if (rc != 0)
    rc = sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker: path is too long");
  else if (sbio__dk_request(sb->inst, &req, call, &resp) == 0 && resp.status == 200)
    rc = SBIO_OK;
  else if (!sbio__dk_no_answer(&resp) && resp.status == 404 && !sbio__dk_no_such_container(&resp))
    rc = sbio_sdk_error(err, SBIO_E_PATH_NOT_FOUND, "create the directory first (mkdir with parents)",
                        "docker: write %.400s: the directory %.400s does not exist", abs, dir);
  else {
    char what[DK_PATH_MAX + 16];
    snprintf(what, sizeof what, "write %.400s", abs);
    rc = sbio__dk_archive_fail(sb, &resp, abs, what, err);
  }
  sbio_sdk_http_response_free(&resp);
  free(header);
  return rc;
}
