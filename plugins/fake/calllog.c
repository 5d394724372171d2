/* SPDX-License-Identifier: MIT */
#include "calllog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Appends `s` to buf at *len, escaping control bytes; buf has room for
 * 4 bytes per input byte. */
static void append_escaped(char *buf, size_t *len, const char *s) {
  static const char hex[] = "0123456789abcdef";
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '\n') {
      buf[(*len)++] = '\\';
      buf[(*len)++] = 'n';
    } else if (*p == '\t') {
      buf[(*len)++] = '\\';
      buf[(*len)++] = 't';
    } else if (*p < 0x20 || *p == 0x7f) {
      buf[(*len)++] = '\\';
      buf[(*len)++] = 'x';
      buf[(*len)++] = hex[*p >> 4];
      buf[(*len)++] = hex[*p & 15];
    } else {
      buf[(*len)++] = (char)*p;
    }
  }
}

void sbio__fake_calllog(const char *path, const sbio_host_services *host, const char *op, const char *id,
                        const char *detail) {
  if (!path) return;
  size_t cap = 4 * (strlen(op) + (id ? strlen(id) : 0) + (detail ? strlen(detail) : 0)) + 4;
  char *line = malloc(cap);
  if (!line) return;
  size_t len = 0;
  append_escaped(line, &len, op);
  if (id) {
    line[len++] = ' ';
    append_escaped(line, &len, id);
  }
  if (detail) {
    line[len++] = ' ';
    append_escaped(line, &len, detail);
  }
  line[len] = '\0';
  char *redacted = NULL;
  int can_redact = host && host->size >= offsetof(sbio_host_services, free_string) + sizeof host->free_string &&
                   host->redact && host->free_string;
  if (can_redact) {
    redacted = host->redact(host->host_data, line);
    if (!redacted) { /* never write what could not be redacted */
      free(line);
      return;
    }
  }
  const char *text = redacted ? redacted : line;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd >= 0) {
    size_t tlen = strlen(text);
    char *out = malloc(tlen + 1);
    if (out) {
      memcpy(out, text, tlen);
      out[tlen] = '\n';
      ssize_t w = write(fd, out, tlen + 1);
      (void)w; /* best effort: the log is a test aid, not an audit trail */
      free(out);
    }
    close(fd);
  } else if (host && host->size >= offsetof(sbio_host_services, log) + sizeof host->log && host->log) {
    /* Best effort, but say so: a test relying on the log should learn why it is empty. */
    char msg[512];
    snprintf(msg, sizeof msg, "fake backend: cannot append to call log %.300s: %s", path, strerror(errno));
    host->log(host->host_data, SBIO_BK_LOG_WARN, msg);
  }
  if (redacted) host->free_string(host->host_data, redacted);
  free(line);
}
