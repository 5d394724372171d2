/* SPDX-License-Identifier: MIT */
/* sbio-qemu-agent: PID 1 of the guest (see agent.h). Sets the guest up
 * (mounts, modules, lo), greets the host with READY and the facts it
 * observes, then serves requests on the virtio-serial port "sbio.agent"
 * until the host asks it to power off or the deadline passes. */
#include "agent.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STDIN_PENDING_MAX (64u << 20) /* stdin queued for a command that does not read */
#define DRAIN_AFTER_EXIT_MS 200       /* output of background children after the command exits */

static int port = -1;
static long long deadline_ms = 0; /* CLOCK_BOOTTIME; 0: none */
static long long disk_mb = 0;
static int want_rootfs = 0; /* sbio.rootfs=1: /dev/vda holds the root filesystem */

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void poweroff(void) {
  kill(-1, SIGKILL);
  sync();
  reboot(RB_POWER_OFF);
  for (;;) pause();
}

static void say(const char *msg) {
  int fd = open("/dev/console", O_WRONLY | O_NOCTTY);
  if (fd >= 0) {
    ssize_t ignored = write(fd, msg, strlen(msg));
    (void)ignored;
    close(fd);
  }
}

void ag_send(qm_wr *w) {
  if (sbio__qm_wr_finish(w) != 0) return;
  for (size_t off = 0; off < w->len;) {
    ssize_t n = write(port, w->buf + off, w->len - off);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
      if (errno == EAGAIN) poll(&(struct pollfd){.fd = port, .events = POLLOUT}, 1, 100);
      continue;
    }
    if (n <= 0) {
      say("sbio-agent: the channel failed; powering off\n");
      poweroff();
    }
    off += (size_t)n;
  }
}

uint32_t ag_errno_code(int e) {
  return e == ENOENT || e == ENOTDIR ? QM_E_NOENT : e == EACCES || e == EPERM ? QM_E_PERM : QM_E_IO;
}

void ag_send_err(uint32_t id, uint32_t code, const char *fmt, ...) {
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  qm_wr w = {0};
  sbio__qm_wr_begin(&w, QM_ERR, id);
  sbio__qm_put_u32(&w, code);
  sbio__qm_put_str(&w, text);
  ag_send(&w);
  sbio__qm_wr_free(&w);
}

void ag_send_done(uint32_t id) {
  qm_wr w = {0};
  sbio__qm_wr_begin(&w, QM_DONE, id);
  ag_send(&w);
  sbio__qm_wr_free(&w);
}

/* ------------------------------------------------------------ setup */

static void read_cmdline(void) {
  char buf[4096] = "";
  int fd = open("/proc/cmdline", O_RDONLY);
  if (fd >= 0) {
    ssize_t n = read(fd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    close(fd);
  }
  for (char *tok = strtok(buf, " \n"); tok; tok = strtok(NULL, " \n")) {
    if (!strncmp(tok, "sbio.deadline_ms=", 17)) deadline_ms = atoll(tok + 17);
    if (!strncmp(tok, "sbio.disk_mb=", 13)) disk_mb = atoll(tok + 13);
    if (!strcmp(tok, "sbio.rootfs=1")) want_rootfs = 1;
  }
}

static void load_modules(void) {
  FILE *f = fopen("/lib/modules/order", "r");
  char name[128];
  while (f && fgets(name, sizeof name, f)) {
    name[strcspn(name, "\n")] = '\0';
    if (!name[0]) continue;
    char path[256];
    snprintf(path, sizeof path, "/lib/modules/%s.ko", name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || (syscall(SYS_finit_module, fd, "", 0) != 0 && errno != EEXIST)) {
      char msg[300];
      snprintf(msg, sizeof msg, "sbio-agent: module %s: %s\n", name, strerror(errno));
      say(msg);
    }
    if (fd >= 0) close(fd);
  }
  if (f) fclose(f);
}

static void lo_up(void) {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return;
  struct ifreq ifr = {0};
  snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
  if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
    ifr.ifr_flags |= IFF_UP;
    ioctl(s, SIOCSIFFLAGS, &ifr);
  }
  close(s);
}

static void mount_basics(const char *root) {
  char p[64];
  static const char *const dirs[] = {"proc", "sys", "dev", "tmp", "work", NULL};
  for (size_t i = 0; dirs[i]; i++) {
    snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
    mkdir(p, 0755);
  }
  snprintf(p, sizeof p, "%s/proc", root);
  if (root[0]) mount("proc", p, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL); /* the first one reads the cmdline */
  snprintf(p, sizeof p, "%s/sys", root);
  mount("sysfs", p, "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
  snprintf(p, sizeof p, "%s/dev", root);
  mount("devtmpfs", p, "devtmpfs", MS_NOSUID, NULL);
  snprintf(p, sizeof p, "%s/dev/pts", root);
  mkdir(p, 0755);
  mount("devpts", p, "devpts", MS_NOSUID | MS_NOEXEC, NULL);
  snprintf(p, sizeof p, "%s/tmp", root);
  mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
  char opts[64];
  if (disk_mb > 0)
    snprintf(opts, sizeof opts, "size=%lldm,mode=0755", disk_mb);
  else
    snprintf(opts, sizeof opts, "mode=0755");
  snprintf(p, sizeof p, "%s" AG_WORK_DIR, root);
  mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, opts);
}

/* The root filesystem disk, read-only, under a tmpfs overlay; the agent
 * then serves from inside it. Without it the guest must not come up: a
 * sandbox on the wrong root would be worse than none. */
static void enter_rootfs(void) {
  int found = 0;
  for (int i = 0; i < 200 && !found; i++) {
    struct stat st;
    found = stat("/dev/vda", &st) == 0;
    if (!found) usleep(25000);
  }
  mkdir("/ro", 0755);
  mkdir("/rw", 0755);
  mkdir("/newroot", 0755);
  if (!found || mount("/dev/vda", "/ro", "ext4", MS_RDONLY | MS_NODEV, "noload") != 0) {
    say("sbio-agent: the root filesystem disk cannot be mounted; powering off\n");
    poweroff();
  }
  mount("tmpfs", "/rw", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755");
  mkdir("/rw/upper", 0755);
  mkdir("/rw/work", 0755);
  if (mount("overlay", "/newroot", "overlay", 0, "lowerdir=/ro,upperdir=/rw/upper,workdir=/rw/work") != 0) {
    say("sbio-agent: the root filesystem overlay failed; powering off\n");
    poweroff();
  }
  mount_basics("/newroot");
  if (chroot("/newroot") != 0 || chdir(AG_WORK_DIR) != 0) {
    say("sbio-agent: cannot enter the root filesystem; powering off\n");
    poweroff();
  }
}

static void setup(void) {
  mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
  read_cmdline();
  mount_basics("");
  load_modules();
  if (want_rootfs) enter_rootfs();
  lo_up();
  sethostname("sandbox", 7);
  setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
  setenv("HOME", AG_WORK_DIR, 1);
  if (chdir(AG_WORK_DIR) != 0) say("sbio-agent: no work directory\n");
}

static int open_port(void) {
  for (int tries = 0; tries < 400; tries++) {
    DIR *d = opendir("/sys/class/virtio-ports");
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
      if (de->d_name[0] == '.') continue;
      char path[300], name[64] = "";
      snprintf(path, sizeof path, "/sys/class/virtio-ports/%s/name", de->d_name);
      FILE *f = fopen(path, "r");
      if (f) {
        if (!fgets(name, sizeof name, f)) name[0] = '\0';
        fclose(f);
      }
      name[strcspn(name, "\n")] = '\0';
      if (!strcmp(name, "sbio.agent")) {
        snprintf(path, sizeof path, "/dev/%s", de->d_name);
        int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
        if (fd >= 0) {
          closedir(d);
          return fd;
        }
      }
    }
    if (d) closedir(d);
    usleep(25000);
  }
  return -1;
}

static void read_small(const char *path, char *out, size_t size) {
  out[0] = '\0';
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t n = read(fd, out, size - 1);
  close(fd);
  out[n > 0 ? n : 0] = '\0';
  out[strcspn(out, "\n")] = '\0';
}

/* The facts of the observed tier: kernel, hypervisor flag, clock source. */
static void send_ready(void) {
  struct utsname u;
  uname(&u);
  int hv = 0;
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[4096];
  while (f && !hv && fgets(line, sizeof line, f))
    if (!strncmp(line, "flags", 5) && (strstr(line, " hypervisor ") || strstr(line, " hypervisor\n"))) hv = 1;
  if (f) fclose(f);
  char cs[64];
  read_small("/sys/devices/system/clocksource/clocksource0/current_clocksource", cs, sizeof cs);
  qm_wr w = {0};
  sbio__qm_wr_begin(&w, QM_READY, 0);
  sbio__qm_put_u32(&w, QM_PROTO_VERSION);
  sbio__qm_put_str(&w, u.release);
  sbio__qm_put_u8(&w, (uint8_t)hv);
  sbio__qm_put_str(&w, cs);
  ag_send(&w);
  sbio__qm_wr_free(&w);
}

/* ------------------------------------------------------------- exec */

typedef struct job {
  int active;
  uint32_t id;
  pid_t pid;
  int out, err, in; /* pipes, -1 when closed */
  int exited, status;
  long long exit_at;
  uint8_t *pending; /* stdin not yet written */
  size_t pending_len, pending_off;
  int eof; /* the host sent STDIN_EOF */
} job;

static job cur = {.out = -1, .err = -1, .in = -1};

static void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

static void job_finish(void) {
  qm_wr w = {0};
  sbio__qm_wr_begin(&w, QM_EXIT, cur.id);
  int sig = WIFSIGNALED(cur.status);
  sbio__qm_put_u8(&w, (uint8_t)sig);
  sbio__qm_put_i32(&w, sig ? WTERMSIG(cur.status) : WEXITSTATUS(cur.status));
  ag_send(&w);
  sbio__qm_wr_free(&w);
  close_fd(&cur.out);
  close_fd(&cur.err);
  close_fd(&cur.in);
  free(cur.pending);
  cur = (job){.out = -1, .err = -1, .in = -1};
}

static void exec_child(int shell, char **argv, char **envp, int in, int out, int err) {
  setpgid(0, 0);
  dup2(in, 0);
  dup2(out, 1);
  dup2(err, 2);
  for (int fd = 3; fd < 1024; fd++) close(fd);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  clearenv();
  int has_path = 0;
  for (char **e = envp; *e; e++) {
    putenv(*e);
    has_path |= !strncmp(*e, "PATH=", 5);
  }
  if (!has_path) setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
  if (!getenv("HOME")) setenv("HOME", AG_WORK_DIR, 1);
  if (shell) {
    char *sh[] = {"/bin/sh", "-c", argv[0], NULL};
    execv("/bin/sh", sh);
  } else {
    execvp(argv[0], argv);
  }
  int e = errno;
  dprintf(2, "%s: %s\n", argv[0], e == ENOENT ? "command not found" : strerror(e));
  _exit(e == ENOENT ? 127 : 126);
}

static void start_exec(const qm_header *h, const uint8_t *payload) {
  if (cur.active) {
    ag_send_err(h->id, QM_E_BUSY, "a command is already running");
    return;
  }
  qm_rd r;
  sbio__qm_rd_init(&r, payload, h->len);
  uint8_t shell = 0, has_stdin = 0;
  uint32_t argc = 0, envc = 0;
  sbio__qm_get_u8(&r, &shell);
  sbio__qm_get_u32(&r, &argc);
  if (r.bad || argc == 0 || argc > QM_ARGC_MAX || (shell && argc != 1)) {
    ag_send_err(h->id, QM_E_INVAL, "malformed exec request");
    return;
  }
  char **argv = calloc(argc + 1, sizeof *argv);
  char **envp = NULL;
  const uint8_t *d;
  uint32_t n;
  for (uint32_t i = 0; argv && i < argc && !sbio__qm_get_bytes(&r, QM_ARG_MAX, &d, &n); i++)
    if ((argv[i] = strndup((const char *)d, n)) == NULL || memchr(d, 0, n)) r.bad = 1;
  sbio__qm_get_u32(&r, &envc);
  if (!r.bad && envc <= QM_ARGC_MAX) envp = calloc(envc + 1, sizeof *envp);
  for (uint32_t i = 0; envp && i < envc && !sbio__qm_get_bytes(&r, QM_ARG_MAX, &d, &n); i++)
    if ((envp[i] = strndup((const char *)d, n)) == NULL || memchr(d, 0, n) || !memchr(d, '=', n)) r.bad = 1;
  char cwd[QM_STR_MAX];
  sbio__qm_get_str(&r, cwd, sizeof cwd);
  sbio__qm_get_u8(&r, &has_stdin);
  struct stat st;
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (!argv || !envp || sbio__qm_rd_end(&r)) {
    ag_send_err(h->id, QM_E_INVAL, "malformed exec request");
  } else if (cwd[0] && ((errno = 0), stat(cwd, &st) != 0 || !S_ISDIR(st.st_mode))) {
    ag_send_err(h->id, QM_E_NOENT, "working directory %s: %s", cwd, errno ? strerror(errno) : "not a directory");
  } else if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) ||
             (has_stdin ? pipe2(in, O_CLOEXEC) : (in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)) {
    ag_send_err(h->id, QM_E_IO, "pipe: %s", strerror(errno));
  } else {
    pid_t pid = fork();
    if (pid == 0) {
      if (cwd[0] && chdir(cwd) != 0) _exit(126);
      exec_child(shell, argv, envp, in[0], out[1], err[1]);
    }
    if (pid < 0) {
      ag_send_err(h->id, QM_E_IO, "fork: %s", strerror(errno));
    } else {
      setpgid(pid, pid);
      cur = (job){.active = 1, .id = h->id, .pid = pid, .out = out[0], .err = err[0], .in = in[1]};
      out[0] = err[0] = in[1] = -1;
      if (cur.in >= 0) fcntl(cur.in, F_SETFL, O_NONBLOCK);
    }
  }
  for (int *fd = in; fd < in + 2; fd++) close_fd(fd);
  for (int *fd = out; fd < out + 2; fd++) close_fd(fd);
  for (int *fd = err; fd < err + 2; fd++) close_fd(fd);
  for (uint32_t i = 0; argv && i < argc; i++) free(argv[i]);
  for (uint32_t i = 0; envp && i < envc; i++) free(envp[i]);
  free(argv);
  free(envp);
}

static void job_stdin(const qm_header *h, const uint8_t *payload) {
  if (!cur.active || h->id != cur.id) return;
  if (h->type == QM_STDIN_EOF) {
    cur.eof = 1;
    return;
  }
  qm_rd r;
  const uint8_t *d;
  uint32_t n;
  sbio__qm_rd_init(&r, payload, h->len);
  if (sbio__qm_get_bytes(&r, QM_CHUNK, &d, &n) || sbio__qm_rd_end(&r) || cur.in < 0) return;
  if (cur.pending_len - cur.pending_off + n > STDIN_PENDING_MAX) {
    kill(-cur.pid, SIGKILL);
    return;
  }
  if (cur.pending_off) {
    memmove(cur.pending, cur.pending + cur.pending_off, cur.pending_len - cur.pending_off);
    cur.pending_len -= cur.pending_off;
    cur.pending_off = 0;
  }
  uint8_t *p = realloc(cur.pending, cur.pending_len + n);
  if (!p) {
    kill(-cur.pid, SIGKILL);
    return;
  }
  memcpy(p + cur.pending_len, d, n);
  cur.pending = p;
  cur.pending_len += n;
}

static void pump_stdin(void) {
  while (cur.in >= 0 && cur.pending_off < cur.pending_len) {
    ssize_t n = write(cur.in, cur.pending + cur.pending_off, cur.pending_len - cur.pending_off);
    if (n > 0) {
      cur.pending_off += (size_t)n;
      continue;
    }
    if (n < 0 && errno == EAGAIN) return;
    close_fd(&cur.in); /* EPIPE: the command stopped reading */
  }
  if (cur.in >= 0 && cur.eof && cur.pending_off == cur.pending_len) close_fd(&cur.in);
}

static void pump_output(int *fd, uint8_t stream) {
  static uint8_t buf[QM_CHUNK];
  ssize_t n = read(*fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    close_fd(fd);
    return;
  }
  qm_wr w = {0};
  sbio__qm_wr_begin(&w, QM_OUT, cur.id);
  sbio__qm_put_u8(&w, stream);
  sbio__qm_put_bytes(&w, buf, (size_t)n);
  ag_send(&w);
  sbio__qm_wr_free(&w);
}

static void reap(void) {
  int status;
  pid_t p;
  while ((p = waitpid(-1, &status, WNOHANG)) > 0)
    if (cur.active && p == cur.pid && !cur.exited) {
      cur.exited = 1;
      cur.status = status;
      cur.exit_at = now_ms();
    }
}

/* ------------------------------------------------------------ serve */

static uint8_t rx[QM_HEADER_SIZE + QM_PAYLOAD_MAX];
static size_t rx_len;

static void dispatch(const qm_header *h, const uint8_t *payload) {
  switch (h->type) {
  case QM_EXEC:
    start_exec(h, payload);
    break;
  case QM_STDIN:
  case QM_STDIN_EOF:
    job_stdin(h, payload);
    break;
  case QM_KILL:
    if (cur.active && h->id == cur.id) kill(-cur.pid, SIGKILL);
    break;
  case QM_POWEROFF:
    poweroff();
    break;
  default:
    ag_file_request(h, payload);
    break;
  }
}

static void read_port(void) {
  ssize_t n = read(port, rx + rx_len, sizeof rx - rx_len);
  if (n <= 0) {
    /* No host on the other end (it went away): wait for one, or for the
     * deadline; never spin. */
    usleep(100000);
    return;
  }
  rx_len += (size_t)n;
  for (;;) {
    qm_header h;
    int p = sbio__qm_header_parse(rx, rx_len, &h);
    if (p < 0) {
      rx_len = 0; /* not our protocol: drop what is buffered */
      return;
    }
    if (p == 0) return;
    size_t whole = QM_HEADER_SIZE + h.len;
    dispatch(&h, rx + QM_HEADER_SIZE);
    memmove(rx, rx + whole, rx_len - whole);
    rx_len -= whole;
  }
}

/* Only there so that a child's exit interrupts poll at once. */
static void on_sigchld(int sig) {
  (void)sig;
}

int main(void) {
  if (getpid() != 1) {
    fprintf(stderr, "sbio-qemu-agent: this is a guest's /init, not a program to run\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  struct sigaction sa = {.sa_handler = on_sigchld, .sa_flags = SA_NOCLDSTOP};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, NULL);
  setup();
  port = open_port();
  if (port < 0) {
    say("sbio-agent: no virtio-serial port named sbio.agent; powering off\n");
    poweroff();
  }
  send_ready();
  for (;;) {
    reap();
    long long now = now_ms();
    if (deadline_ms > 0 && now >= deadline_ms) {
      say("sbio-agent: the sandbox's deadline passed; powering off\n");
      poweroff();
    }
    if (cur.active && cur.exited && ((cur.out < 0 && cur.err < 0) || now - cur.exit_at >= DRAIN_AFTER_EXIT_MS))
      job_finish();
    if (cur.active) pump_stdin();
    struct pollfd p[4];
    int np = 0;
    p[np++] = (struct pollfd){.fd = port, .events = POLLIN};
    int io = np;
    if (cur.active && cur.out >= 0) p[np++] = (struct pollfd){.fd = cur.out, .events = POLLIN};
    if (cur.active && cur.err >= 0) p[np++] = (struct pollfd){.fd = cur.err, .events = POLLIN};
    if (cur.active && cur.in >= 0 && cur.pending_off < cur.pending_len)
      p[np++] = (struct pollfd){.fd = cur.in, .events = POLLOUT};
    long long wait = 100; /* also how often children are reaped */
    if (deadline_ms > 0 && deadline_ms - now < wait) wait = deadline_ms - now;
    if (cur.exited) wait = 10;
    int r = poll(p, (nfds_t)np, (int)(wait < 0 ? 0 : wait));
    if (r <= 0) continue;
    for (int i = io; i < np; i++) {
      if (!p[i].revents) continue;
      if (p[i].fd == cur.out)
        pump_output(&cur.out, 1);
      else if (p[i].fd == cur.err)
        pump_output(&cur.err, 2);
    }
    if (p[0].revents & POLLIN)
      read_port();
    else if (p[0].revents & (POLLHUP | POLLERR))
      usleep(100000);
  }
}
