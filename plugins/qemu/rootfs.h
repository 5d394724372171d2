/* SPDX-License-Identifier: MIT */
/* Root filesystem directories for qemu://NAME (rootfs.c). */
#ifndef SBIO_QEMU_ROOTFS_H
#define SBIO_QEMU_ROOTFS_H

#include <pthread.h>
#include <sandboxio/backend.h>
#include <sandboxio/sdk.h>
#include <stddef.h>

/* Letters, digits, '.', '_', '-'; not starting with '.'. */
int sbio__qm_rootfs_name_ok(const char *name);
/* <rootfs_dir>/<name> into out, which must be a directory. SBIO_E_CONFIG otherwise. */
int sbio__qm_rootfs_resolve(const char *rootfs_dir, const char *name, char *out, size_t size, sbio_bk_error *err);
/* Copies the directory `src` into the ext4 image `image` (mke2fs -d), its
 * output into `log`, bounded by the call. */
int sbio__qm_rootfs_image(const char *src, const char *image, const char *log, const sbio_bk_call *call,
                          sbio_bk_error *err);

#endif
