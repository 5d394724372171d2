/* SPDX-License-Identifier: MIT */
/* Starts tests/docker/hostile_engine.py (a fake Docker Engine that
 * misbehaves in the named mode) for the hostile tests, both the library's
 * (test_docker_hostile.c) and the CLI's (test_docker_hostile_cli.c). */
#ifndef SBIO_TEST_HOSTILE_START_H
#define SBIO_TEST_HOSTILE_START_H

#include <sys/types.h>

/* Runs the engine on unix socket `sock`, logging requests to `log`, and
 * returns its pid once it accepts a connection; fails the test when it
 * exits first or does not listen within 10 s. */
pid_t dx_hostile_start(const char *sock, const char *log, const char *mode);

#endif
