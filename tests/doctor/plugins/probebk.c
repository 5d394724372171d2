/* SPDX-License-Identifier: MIT */
/* A backend for the doctor tests, compiled under several names. Its probe
 * answers as the environment says: PROBEBK_<NAME>=fail makes it fail
 * (SBIO_E_CONNECT with a hint), anything else succeeds. It leaves marker
 * files NAME.opened and NAME.probed in $PROBEBK_DIR so the tests can tell
 * which backends doctor touched. PROBEBK_NO_PROBE builds it without a
 * probe operation (like a backend built against ABI 1.0). */
#include <sandboxio/backend.h>

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void mark(const char *what) {
  const char *dir = getenv("PROBEBK_DIR");
  if (!dir) return;
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.%s", dir, PROBEBK_NAME, what);
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) close(fd);
}

static int p_open(const sbio_host_services *host, const char *settings, void **instance, sbio_bk_error *err) {
  (void)host, (void)settings, (void)err;
  mark("opened");
  *instance = NULL;
  return 0;
}

static void p_close(void *instance) {
  (void)instance;
}

#ifndef PROBEBK_NO_PROBE
static int p_probe(void *instance, const sbio_bk_call *call, char *detail, size_t size, sbio_bk_error *err) {
  (void)instance, (void)call;
  mark("probed");
  char var[64] = "PROBEBK_";
  for (size_t i = 0; PROBEBK_NAME[i] && i < 40; i++) var[8 + i] = (char)toupper((unsigned char)PROBEBK_NAME[i]);
  const char *mode = getenv(var);
  if (mode && !strcmp(mode, "fail"))
    return sbio_bk_error_set(err, 1202, "start the daemon, or point the backend at a running one",
                             "cannot reach the daemon at unix:///nowhere.sock");
  snprintf(detail, size, "probe ok (%s)\nsecond line", PROBEBK_NAME);
  return 0;
}
#define PROBE_OP , .probe = p_probe
#else
#define PROBE_OP
#endif

#ifdef PROBEBK_API_KEY_ENV
/* Credentials declared as the real e2b declares them: its key variable,
 * and the setting that may name another. */
SBIO_BACKEND_WITH_CREDENTIALS(PROBEBK_NAME, "0.0.1", "doctor test backend", SBIO_CAP("network_policy"),
                              PROBEBK_MECHANISMS,
                              SBIO_CREDENTIALS(SBIO_CRED(PROBEBK_API_KEY_ENV), SBIO_CRED("api_key_env")),
                              .open = p_open, .close = p_close PROBE_OP)
#else
SBIO_BACKEND(PROBEBK_NAME, "0.0.1", "doctor test backend", SBIO_CAP("network_policy"), PROBEBK_MECHANISMS,
             .open = p_open, .close = p_close PROBE_OP)
#endif
