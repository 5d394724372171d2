/* SPDX-License-Identifier: MIT */
/* Image references checked before anything is sent to the engine. */
#include "imageref.h"

#include <sandboxio/sdk/error.h>

#include <string.h>

#define REF_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/:@+"

/* Whether the '@' at `at` begins a digest ("@algorithm:hex" to the end),
 * the only '@' an image reference may hold; any other is userinfo. */
static int digest_follows(const char *at) {
  const char *colon = strchr(at + 1, ':');
  if (!colon || colon == at + 1 ||
      strspn(at + 1, "abcdefghijklmnopqrstuvwxyz0123456789+._-") != (size_t)(colon - at - 1))
    return 0;
  size_t hex = strspn(colon + 1, "0123456789abcdefABCDEF");
  return hex >= 32 && colon[1 + hex] == '\0';
}

/* A refused reference is described, never repeated: it may carry
 * userinfo (user:password@registry/img) from a template or a setting. */
int sbio__dk_image_check(const char *image, sbio_bk_error *err) {
  static const char hint[] = "name an image like python:3.12-slim or registry:5000/team/img:tag";
  size_t n = image ? strlen(image) : 0;
  if (n == 0) return sbio_sdk_error(err, SBIO_E_CONFIG, hint, "docker: the image reference is empty");
  if (n > 255)
    return sbio_sdk_error(err, SBIO_E_CONFIG, hint, "docker: the image reference is %zu bytes long, above 255", n);
  size_t ok = strspn(image, REF_CHARS);
  if (ok != n)
    return sbio_sdk_error(err, SBIO_E_CONFIG, hint,
                          "docker: the image reference has a character outside [A-Za-z0-9._-/:@+] at offset %zu "
                          "(the reference is not repeated here)",
                          ok);
  if (image[0] == '/' || image[0] == ':' || image[0] == '@' || image[0] == '-')
    return sbio_sdk_error(err, SBIO_E_CONFIG, hint, "docker: the image reference begins with '%c'", image[0]);
  const char *at = strchr(image, '@');
  if (at && !digest_follows(at))
    return sbio_sdk_error(err, SBIO_E_CONFIG,
                          "registry credentials never go in an image reference: pull a private image on the "
                          "engine's host first (docker login, docker pull)",
                          "docker: the image reference carries userinfo (a user name or password before '@'), "
                          "which is refused and not repeated here");
  if (strstr(image, ".."))
    return sbio_sdk_error(err, SBIO_E_CONFIG, hint, "docker: the image reference contains \"..\"");
  return SBIO_OK;
}
