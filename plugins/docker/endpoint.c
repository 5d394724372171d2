/* SPDX-License-Identifier: MIT */
#include "endpoint.h"

#include <sandboxio/sdk/error.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HINT "use unix:///path/to/docker.sock or tcp://host:port (see docs/backends/docker.md)"

/* A refused address is named by where it came from, never repeated: a
 * URL setting or variable may carry a password (tcp://u:SECRET@host). */
static int bad(sbio_bk_error *err, const dk_endpoint *ep, const char *url, const char *why) {
  (void)url;
  return sbio_sdk_error(err, SBIO_E_CONFIG, HINT, "the docker host from %s %s (the address is not repeated here)",
                        ep->source, why);
}

static int set_unix(dk_endpoint *ep, const char *path, const char *url, sbio_bk_error *err) {
  if (path[0] != '/') return bad(err, ep, url, "must name an absolute socket path");
  if (strlen(path) >= sizeof ep->socket_path)
    return bad(err, ep, url, "names a socket path longer than the 107 bytes a unix socket allows");
  ep->is_unix = 1;
  snprintf(ep->socket_path, sizeof ep->socket_path, "%s", path);
  snprintf(ep->base_url, sizeof ep->base_url, "http://localhost");
  snprintf(ep->display, sizeof ep->display, "unix://%s", path);
  return SBIO_OK;
}

/* Certificates as the docker CLI finds them: DOCKER_CERT_PATH, else ~/.docker. */
static void set_certs(dk_endpoint *ep) {
  const char *dir = getenv("DOCKER_CERT_PATH");
  char home[800] = "";
  if (!dir || !dir[0]) {
    const char *h = getenv("HOME");
    snprintf(home, sizeof home, "%s/.docker", h ? h : "");
    dir = home;
  }
  char path[1024];
  snprintf(path, sizeof path, "%.900s/ca.pem", dir);
  if (ep->tls_verify || access(path, R_OK) == 0) snprintf(ep->ca, sizeof ep->ca, "%s", path);
  snprintf(path, sizeof path, "%.900s/cert.pem", dir);
  if (access(path, R_OK) == 0) snprintf(ep->cert, sizeof ep->cert, "%s", path);
  snprintf(path, sizeof path, "%.900s/key.pem", dir);
  if (access(path, R_OK) == 0) snprintf(ep->key, sizeof ep->key, "%s", path);
}

static int set_tcp(dk_endpoint *ep, const char *rest, const char *url, sbio_bk_error *err) {
  if (strchr(rest, '@'))
    return bad(err, ep, rest,
               "carries a user name or password (before '@'), which the engine's API does not take; "
               "give tcp://host:port");
  if (!rest[0] || strpbrk(rest, "/?# "))
    return bad(err, ep, url, "must be tcp://host:port with nothing after the port");
  const char *tls_verify = getenv("DOCKER_TLS_VERIFY");
  const char *tls = getenv("DOCKER_TLS");
  ep->tls_verify = tls_verify && tls_verify[0];
  ep->tls = ep->tls_verify || (tls && tls[0]);
  /* The default ports of the docker CLI: 2376 with TLS, 2375 without. */
  const char *colon = strrchr(rest, ':');
  int has_port = colon && (rest[0] != '[' || (colon > strchr(rest, ']')));
  snprintf(ep->base_url, sizeof ep->base_url, "%s://%s%s", ep->tls ? "https" : "http", rest,
           has_port ? "" : (ep->tls ? ":2376" : ":2375"));
  snprintf(ep->display, sizeof ep->display, "tcp://%s%s", rest, has_port ? "" : (ep->tls ? ":2376" : ":2375"));
  if (ep->tls) set_certs(ep);
  return SBIO_OK;
}

int sbio__dk_endpoint_resolve(const char *setting, dk_endpoint *ep, sbio_bk_error *err) {
  memset(ep, 0, sizeof *ep);
  const char *url = setting;
  ep->source = "the host setting";
  if (!url) {
    url = getenv("DOCKER_HOST");
    ep->source = "DOCKER_HOST";
    if (!url || !url[0]) {
      ep->source = "the default";
      return set_unix(ep, DK_DEFAULT_SOCKET, "unix://" DK_DEFAULT_SOCKET, err);
    }
  }
  if (!strncmp(url, "unix://", 7)) return set_unix(ep, url + 7, url, err);
  if (url[0] == '/') return set_unix(ep, url, url, err);
  if (!strncmp(url, "tcp://", 6)) return set_tcp(ep, url + 6, url, err);
  if (!strncmp(url, "ssh://", 6) || !strncmp(url, "npipe://", 8))
    return bad(err, ep, url, "uses a scheme this backend does not speak (only unix:// and tcp://)");
  return bad(err, ep, url, "is not a unix:// or tcp:// address");
}
