/* SPDX-License-Identifier: MIT */
/* Where the engine is: the `host`/`socket` setting, else DOCKER_HOST (with
 * DOCKER_TLS_VERIFY / DOCKER_TLS / DOCKER_CERT_PATH, read as the docker CLI
 * reads them), else unix:///var/run/docker.sock. */
#ifndef SBIO_DOCKER_ENDPOINT_H
#define SBIO_DOCKER_ENDPOINT_H

#include <sandboxio/backend.h>

#define DK_DEFAULT_SOCKET "/var/run/docker.sock"

typedef struct dk_endpoint {
  int is_unix;
  char socket_path[108]; /* sun_path holds 107 bytes and a NUL */
  char base_url[512];    /* "http://localhost" for a socket, else http(s)://host:port */
  int tls, tls_verify;
  char ca[1024], cert[1024], key[1024]; /* "" when not used */
  char display[600];                    /* what messages name, e.g. unix:///var/run/docker.sock */
  const char *source;                   /* "the host setting", "DOCKER_HOST" or "the default" */
} dk_endpoint;

/* `setting` may be NULL. Reads the environment. */
int sbio__dk_endpoint_resolve(const char *setting, dk_endpoint *ep, sbio_bk_error *err);

#endif
