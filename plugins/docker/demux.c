/* SPDX-License-Identifier: MIT */
#include "demux.h"

#include <string.h>

void sbio__dk_demux_init(dk_demux *d) {
  memset(d, 0, sizeof *d);
}

int sbio__dk_demux_at_boundary(const dk_demux *d) {
  return d->hdr_len == 0 && d->remaining == 0;
}

int sbio__dk_demux_feed(dk_demux *d, const unsigned char *data, size_t len, dk_demux_out out, void *user) {
  while (len) {
    if (d->remaining) {
      size_t k = len < d->remaining ? len : d->remaining;
      out(user, d->stream, (const char *)data, k);
      d->remaining -= (uint32_t)k;
      data += k;
      len -= k;
      continue;
    }
    size_t k = sizeof d->hdr - d->hdr_len;
    if (k > len) k = len;
    memcpy(d->hdr + d->hdr_len, data, k);
    d->hdr_len += k;
    data += k;
    len -= k;
    if (d->hdr_len < sizeof d->hdr) break;
    d->hdr_len = 0;
    switch (d->hdr[0]) {
    case 0:
    case 1:
      d->stream = 1;
      break;
    case 2:
      d->stream = 2;
      break;
    case 3:
      d->stream = 2;
      d->saw_system_error = 1;
      break;
    default:
      return -1;
    }
    d->remaining = (uint32_t)d->hdr[4] << 24 | (uint32_t)d->hdr[5] << 16 | (uint32_t)d->hdr[6] << 8 | d->hdr[7];
  }
  return 0;
}
