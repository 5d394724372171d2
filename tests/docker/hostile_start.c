/* SPDX-License-Identifier: MIT */
/* See hostile_start.h. */
#include "hostile_start.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

pid_t dx_hostile_start(const char *sock, const char *log, const char *mode) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    execl("/usr/bin/python3", "python3", DX_HOSTILE_ENGINE, sock, log, mode, (char *)NULL);
    _exit(127);
  }
  /* Ready once it accepts a connection. */
  for (int i = 0; i < 400; i++) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%.100s", sock);
    int ok = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    if (fd >= 0) close(fd);
    if (ok) return pid;
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) fail_msg("hostile_engine.py %s exited before listening", mode);
    struct timespec ts = {0, 25 * 1000000L};
    nanosleep(&ts, NULL);
  }
  fail_msg("hostile_engine.py %s did not listen on %s", mode, sock);
  return -1;
}
