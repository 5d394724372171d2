/* SPDX-License-Identifier: MIT */
/* curl and wget: never touch the network. The sandbox's egress policy
 * decides between a canned "OK\n" and a canned connection failure, so tests
 * can check that deny-by-default and allow-lists are honoured. */
#include "vcmds.h"

#include "netpolicy.h"

#include <stdlib.h>
#include <string.h>

/* Long options of curl and wget that take the next word as their value. */
static const char *const long_with_value[] = {"--max-time",
                                              "--connect-timeout",
                                              "--output",
                                              "--header",
                                              "--request",
                                              "--data",
                                              "--data-raw",
                                              "--data-binary",
                                              "--user",
                                              "--user-agent",
                                              "--referer",
                                              "--retry",
                                              "--retry-delay",
                                              "--retry-max-time",
                                              "--write-out",
                                              "--upload-file",
                                              "--proxy",
                                              "--cookie",
                                              "--cookie-jar",
                                              "--form",
                                              "--config",
                                              "--range",
                                              "--resolve",
                                              "--cacert",
                                              "--cert",
                                              "--key",
                                              "--output-document",
                                              "--timeout",
                                              "--tries",
                                              "--wait",
                                              "--directory-prefix",
                                              "--execute",
                                              "--append-output",
                                              "--output-file",
                                              "--input-file",
                                              "--limit-rate",
                                              "--dns-timeout",
                                              "--read-timeout",
                                              "--max-redirect",
                                              "--post-data",
                                              "--method",
                                              "--body-data",
                                              "--url",
                                              NULL};
/* Short options that take a value, attached or as the next word. */
static const char curl_short_with_value[] = "oHXduAewTxbcFKrYyzECmtQU";
static const char wget_short_with_value[] = "OoTtwUPeaiBQlD";

/* "5" or "2.5" (an option value such as a timeout), but not "10.1.2.3". */
static int is_number(const char *s) {
  int dots = 0, digits = 0;
  for (; *s; s++) {
    if (*s == '.')
      dots++;
    else if (*s >= '0' && *s <= '9')
      digits++;
    else
      return 0;
  }
  return digits > 0 && dots <= 1;
}

/* The first operand that is neither an option, an option's value, nor a
 * bare number; NULL when there is none. */
static const char *find_url(size_t argc, const char *const *argv, const char *short_with_value) {
  for (size_t i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] == '-' && a[1] == '-' && a[2]) {
      if (strcmp(a, "--url") == 0 && i + 1 < argc) return argv[i + 1];
      if (strchr(a, '=')) continue;
      for (size_t k = 0; long_with_value[k]; k++) {
        if (strcmp(a, long_with_value[k]) == 0) {
          i++;
          break;
        }
      }
      continue;
    }
    if (a[0] == '-' && a[1]) {
      /* A cluster like -sSLo: a value-taking letter swallows the rest of the
       * word, or the next word when it is last. */
      for (const char *f = a + 1; *f; f++) {
        if (strchr(short_with_value, *f)) {
          if (!f[1]) i++;
          break;
        }
      }
      continue;
    }
    if (is_number(a)) continue;
    return a;
  }
  return NULL;
}

int sbio__fake_cmd_fetch(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  const char *slash = strrchr(argv[0], '/');
  const char *prog = slash ? slash + 1 : argv[0];
  const char *url = find_url(argc, argv, strcmp(prog, "wget") == 0 ? wget_short_with_value : curl_short_with_value);
  if (!url) {
    sbio__fake_io_printf(&sh->out, io, 2, "%s: no URL specified\n", prog);
    return 2;
  }
  char *host = sbio__fake_url_host(url);
  if (!host) {
    sbio__fake_io_printf(&sh->out, io, 2, "%s: (3) URL rejected: No host part in the URL\n", prog);
    return 3;
  }
  fake_box *box = sh->box;
  int status = 0;
  if (sbio__fake_egress_allows(box->egress_allow, box->allow, box->n_allow, host)) {
    status = sbio__fake_vcmd_write(sh, io, 1, prog, "OK\n", 3);
  } else {
    sbio__fake_io_printf(&sh->out, io, 2, "%s: (7) Failed to connect to %s: egress denied by policy\n", prog, host);
    status = 7;
  }
  free(host);
  return status;
}
