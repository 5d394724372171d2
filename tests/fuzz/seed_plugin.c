/* SPDX-License-Identifier: MIT */
/* A backend that does nothing, built only so the elfnote fuzz target and
 * unit test have a real linked shared object with a real SBIO_BACKEND note
 * as seed. It is not placed in the backend directory. */
#include <sandboxio/backend.h>

static int seed_open(const sbio_host_services *host, const char *settings_json, void **instance, sbio_bk_error *err) {
  (void)host;
  (void)settings_json;
  *instance = NULL;
  return sbio_bk_error_set(err, SBIO_E_BACKEND_UNAVAILABLE, NULL, "the fuzz seed backend cannot be opened");
}

static void seed_close(void *instance) {
  (void)instance;
}

/* With a credential list (ABI 1.4), so the elfnote and metadata targets
 * start from a note that carries one. */
SBIO_BACKEND_WITH_CREDENTIALS(
    "fuzzseed", "1.0.0", "Fuzzing seed (does nothing)",
    SBIO_CAP("run_command") "," SBIO_CAP("filesystem") "," SBIO_CAP("streaming"),
    SBIO_MECHANISM("runc", "container", "https://example.org/docs/isolation", "2026-01-10",
                   "Sandboxes run as containers on a shared kernel.") "," SBIO_MECHANISM_UNVERIFIED("other",
                                                                                                    "not checked"),
    SBIO_CREDENTIALS(SBIO_CRED("FUZZSEED_API_KEY") "," SBIO_CRED("FUZZSEED_TOKEN"), SBIO_CRED("api_key_env")),
    .open = seed_open, .close = seed_close)
