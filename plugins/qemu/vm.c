/* SPDX-License-Identifier: MIT */
/* One VM: its state directory, the QEMU process (leader of a process group
 * of its own, with a watchdog that ends the group at the sandbox's
 * deadline even if this process is gone), and its teardown.
 *
 * State directory <state_dir>/<id>/: meta.json (what `sbio reap` lists),
 * pid, agent.sock (the channel), console.log (the guest's serial console),
 * qemu.log (QEMU's own stderr). */
#include "cmdline.h"
#include "qm.h"
#include "rootfs.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The largest console.log and qemu.log may grow: the guest writes the
 * console, and a guest must not fill the host's disk. */
#define QM_LOG_MAX_BYTES (1 << 20)

/* After the sandbox's deadline: how long the host-side watchdog waits
 * before it kills QEMU outright. The guest powers itself off first: its
 * deadline counts from its kernel's start, which a TCG boot on a loaded
 * machine delays by up to about 10 s after QEMU starts. */
#define QM_WATCHDOG_GRACE_S 30

int sbio__qm_check_request(const qm_instance *inst, const sbio_bk_create_req *req, sbio_bk_error *err) {
  if (req->egress != 0 || req->n_allow)
    return sbio_sdk_error(err, SBIO_E_CAPABILITY, "run without egress: the guest has no network device",
                          "the qemu backend cannot enforce an egress allow-list, so it gives the guest no network "
                          "device and refuses egress");
  if (req->gpu && req->gpu[0])
    return sbio_sdk_error(err, SBIO_E_CAPABILITY, "drop the GPU request", "the qemu backend offers no GPUs");
  if (req->template_name && req->template_name[0]) {
    char dir[4096];
    int rc = sbio__qm_rootfs_resolve(inst->settings.rootfs_dir, req->template_name, dir, sizeof dir, err);
    if (rc != SBIO_OK) return rc;
  }
  int64_t mem = req->memory_mb > 0 ? req->memory_mb : inst->settings.memory_mb;
  if (req->memory_mb < 0 || (req->memory_mb > 0 && (req->memory_mb < 128 || req->memory_mb > 65536)))
    return sbio_sdk_error(err, SBIO_E_CONFIG, "ask for 128 to 65536 MB", "qemu: memory_mb %lld is out of range",
                          (long long)req->memory_mb);
  if (req->cpu < 0 || req->cpu > 64 || isnan(req->cpu))
    return sbio_sdk_error(err, SBIO_E_CONFIG, "ask for up to 64 vCPUs", "qemu: cpu %g is out of range", req->cpu);
  /* The work directory is a tmpfs in guest memory: a disk cap above the
   * memory could not be honoured. */
  if (req->disk_mb < 0 || req->disk_mb > mem)
    return sbio_sdk_error(err, SBIO_E_CAPABILITY, "ask for at most as much disk as memory, or more memory",
                          "qemu: disk_mb %lld cannot be enforced: the work directory is a tmpfs in the guest's %lld "
                          "MB of memory",
                          (long long)req->disk_mb, (long long)mem);
  return SBIO_OK;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

static void remove_tree(const char *dir) {
  nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Is `pid` the QEMU of `dir`? Its command line names dir/agent.sock. */
static int is_our_qemu(pid_t pid, const char *dir) {
  char path[64], buf[16384];
  snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  for (ssize_t i = 0; i < n; i++)
    if (!buf[i]) buf[i] = '\n';
  buf[n] = '\0';
  char want[3200];
  snprintf(want, sizeof want, "path=%s/agent.sock", dir);
  return strstr(buf, want) != NULL;
}

static long read_pid(const char *dir) {
  char path[3200];
  snprintf(path, sizeof path, "%s/pid", dir);
  FILE *f = fopen(path, "re");
  long pid = 0;
  if (f) {
    if (fscanf(f, "%ld", &pid) != 1) pid = 0;
    fclose(f);
  }
  return pid;
}

int sbio__qm_vm_running(const char *dir) {
  long pid = read_pid(dir);
  return pid > 1 && is_our_qemu((pid_t)pid, dir);
}

int sbio__qm_kill_vm_dir(const char *dir, int *killed) {
  long pid = read_pid(dir);
  *killed = 0;
  if (pid > 1 && is_our_qemu((pid_t)pid, dir)) {
    kill(-(pid_t)pid, SIGKILL);
    *killed = 1;
    /* Not our child (another process made it): wait until it is gone. */
    for (int i = 0; i < 200 && kill((pid_t)pid, 0) == 0 && is_our_qemu((pid_t)pid, dir); i++) {
      struct timespec ts = {0, 10 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
  }
  remove_tree(dir);
  return 0;
}

static int find_in_path(const char *name, char *out, size_t size) {
  if (strchr(name, '/')) {
    snprintf(out, size, "%s", name);
    return access(out, X_OK) == 0 ? 0 : -1;
  }
  const char *path = getenv("PATH");
  if (!path || !path[0]) path = "/usr/local/bin:/usr/bin:/bin";
  for (const char *p = path; *p;) {
    const char *e = strchr(p, ':');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n) {
      snprintf(out, size, "%.*s/%s", (int)n, p, name);
      if (access(out, X_OK) == 0) return 0;
    }
    p += n + (e ? 1 : 0);
  }
  return -1;
}

static int write_file(const char *dir, const char *name, const char *text) {
  char path[3200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  size_t len = strlen(text);
  ssize_t n = write(fd, text, len);
  close(fd);
  return n == (ssize_t)len ? 0 : -1;
}

static int write_meta(const char *dir, const sbio_bk_create_req *req, double timeout_s, const char *mechanism) {
  cJSON *m = cJSON_CreateObject();
  cJSON *labels = cJSON_AddObjectToObject(m, "labels");
  cJSON_AddNumberToObject(m, "created_at", (double)time(NULL));
  cJSON_AddNumberToObject(m, "timeout_s", timeout_s);
  cJSON_AddStringToObject(m, "mechanism", mechanism);
  if (req->session_id) cJSON_AddStringToObject(labels, "io.sandboxio.session", req->session_id);
  for (size_t i = 0; i < req->n_labels; i++)
    if (req->labels[i].key && req->labels[i].value)
      cJSON_AddStringToObject(labels, req->labels[i].key, req->labels[i].value);
  char *text = cJSON_PrintUnformatted(m);
  cJSON_Delete(m);
  int rc = text ? write_file(dir, "meta.json", text) : -1;
  free(text);
  return rc;
}

static int merge_env(qm_sandbox *sb, const sbio_bk_create_req *req) {
  size_t n = req->n_env + req->n_secrets;
  sb->env = n ? calloc(n, sizeof *sb->env) : NULL;
  if (n && !sb->env) return -1;
  const sbio_bk_kv *lists[2] = {req->env, req->secrets};
  size_t counts[2] = {req->n_env, req->n_secrets};
  for (int l = 0; l < 2; l++)
    for (size_t i = 0; i < counts[l]; i++) {
      const sbio_bk_kv *kv = &lists[l][i];
      size_t len = strlen(kv->key) + strlen(kv->value ? kv->value : "") + 2;
      char *e = malloc(len);
      if (!e) return -1;
      snprintf(e, len, "%s=%s", kv->key, kv->value ? kv->value : "");
      sb->env[sb->n_env++] = e;
    }
  return 0;
}

static void sandbox_free(qm_sandbox *sb) {
  if (sb->fd >= 0) close(sb->fd);
  for (size_t i = 0; i < sb->n_env; i++) {
    /* Secrets live here: wipe before freeing. */
    explicit_bzero(sb->env[i], strlen(sb->env[i]));
    free(sb->env[i]);
  }
  free(sb->env);
  free(sb->rx);
  free(sb);
}

/* Ends the VM: the whole process group, then waits for QEMU. */
static void stop_vm(qm_sandbox *sb) {
  if (sb->pid > 0 && !sb->reaped) {
    kill(-sb->pid, SIGKILL);
    while (waitpid(sb->pid, NULL, 0) < 0 && errno == EINTR) {
    }
    sb->reaped = 1;
  }
  if (sb->dir[0]) remove_tree(sb->dir);
}

/* The child side of the fork: only async-signal-safe calls from here on. */
static void child(const char *qemu, char *const argv[], int logfd, int status_w, double deadline_s) {
  setsid();
  /* Every file QEMU writes (the guest's console, its own log) stops at
   * QM_LOG_MAX_BYTES: past it writes fail (EFBIG) instead of raising
   * SIGXFSZ, which is ignored across the exec. */
  struct rlimit fsize = {QM_LOG_MAX_BYTES, QM_LOG_MAX_BYTES};
  setrlimit(RLIMIT_FSIZE, &fsize);
  signal(SIGXFSZ, SIG_IGN);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, 0);
  dup2(logfd, 1);
  dup2(logfd, 2);
  /* Nothing of this process's descriptors reaches QEMU but the status
   * pipe, which is close-on-exec. */
  for (int fd = 3; fd < 1024; fd++)
    if (fd != status_w) close(fd);
  pid_t w = fork();
  if (w == 0) {
    /* The watchdog: in QEMU's process group, so that the group's kill
     * ends it too. It ends the group at the deadline whoever is left. */
    close(status_w);
    prctl(PR_SET_NAME, "sbio-qemu-wd", 0, 0, 0); /* what ps shows: not a copy of the caller */
    struct timespec ts = {(time_t)deadline_s, 0};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
    kill(0, SIGKILL);
    _exit(0);
  }
  execv(qemu, argv);
  int e = errno;
  ssize_t ignored = write(status_w, &e, sizeof e);
  (void)ignored;
  _exit(127);
}

static int connect_channel(qm_sandbox *sb, const sbio_bk_call *call, sbio_bk_error *err) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  size_t dl = strlen(sb->dir);
  if (dl + sizeof "/agent.sock" > sizeof sa.sun_path)
    return sbio_sdk_error(err, SBIO_E_CONFIG, "set a shorter state_dir in the qemu settings",
                          "qemu: the state directory is too long for a unix socket path");
  memcpy(sa.sun_path, sb->dir, dl);
  memcpy(sa.sun_path + dl, "/agent.sock", sizeof "/agent.sock");
  for (;;) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return sbio_sdk_error(err, SBIO_E_CREATE, NULL, "qemu: socket: %s", strerror(errno));
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
      sb->fd = fd;
      return SBIO_OK;
    }
    close(fd);
    int status;
    if (waitpid(sb->pid, &status, WNOHANG) == sb->pid) {
      sb->reaped = 1;
      char log[3200], tail[400] = "";
      snprintf(log, sizeof log, "%s/qemu.log", sb->dir);
      FILE *f = fopen(log, "re");
      if (f) {
        size_t n = fread(tail, 1, sizeof tail - 1, f);
        tail[n] = '\0';
        for (char *p = tail; *p; p++)
          if (*p == '\n' || *p == '\r') *p = ' ';
        fclose(f);
      }
      return sbio_sdk_error(err, SBIO_E_CREATE, "check the qemu binary and the guest files in the settings",
                            "qemu exited before its agent channel opened: %s", tail[0] ? tail : "(no output)");
    }
    if (call->cancelled(call)) return sbio_sdk_error(err, SBIO_E_CREATE, NULL, "qemu create: cancelled");
    if (sbio_bk_remaining_ns(call) == 0)
      return sbio_sdk_error(err, SBIO_E_CREATE_TIMEOUT, "give create more time", "qemu: no agent channel in time");
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

static int make_id(char *id, size_t size) {
  unsigned char r[8];
  if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) return -1;
  snprintf(id, size, "qm-%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
  return 0;
}

static int mkdirs(const char *path) {
  char buf[3072];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      if (mkdir(buf, 0700) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  return mkdir(buf, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

static int spawn(qm_sandbox *sb, const sbio_bk_create_req *req, double timeout_s, int rootfs, sbio_bk_error *err) {
  qm_instance *inst = sb->inst;
  char qemu[4096];
  if (find_in_path(inst->settings.qemu, qemu, sizeof qemu) != 0)
    return sbio_sdk_error(err, SBIO_E_CREATE, "install qemu-system-x86 or set 'qemu' in the settings",
                          "qemu: '%.200s' was not found or is not executable", inst->settings.qemu);
  int64_t mem = req->memory_mb > 0 ? req->memory_mb : inst->settings.memory_mb;
  long cpus = req->cpu > 0 ? (long)ceil(req->cpu) : (long)inst->settings.cpus;
  int64_t disk = req->disk_mb > 0 ? req->disk_mb : mem / 2;
  struct sockaddr_un sa;
  if (strlen(sb->dir) + sizeof "/agent.sock" > sizeof sa.sun_path)
    return sbio_sdk_error(err, SBIO_E_CONFIG, "set a shorter state_dir in the qemu settings",
                          "qemu: the state directory %.200s is too long for a unix socket path", sb->dir);
  qm_vm_params p = {.qemu = qemu,
                    .kernel = inst->kernel,
                    .initrd = inst->initrd,
                    .dir = sb->dir,
                    .id = sb->id,
                    .kvm = !strcmp(sb->mechanism, "kvm"),
                    .tsc_khz = inst->tsc_khz,
                    .memory_mb = mem,
                    .cpus = cpus,
                    .disk_mb = disk,
                    .timeout_s = timeout_s,
                    .rootfs = rootfs};
  qm_cmdline *cl = malloc(sizeof *cl);
  if (!cl) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  sbio__qm_cmdline(cl, &p);
  const char **argv = cl->argv;

  char log[3200];
  snprintf(log, sizeof log, "%s/qemu.log", sb->dir);
  int logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int st[2];
  if (logfd < 0 || pipe2(st, O_CLOEXEC) != 0) {
    if (logfd >= 0) close(logfd);
    free(cl);
    return sbio_sdk_error(err, SBIO_E_CREATE, NULL, "qemu: cannot prepare %s: %s", sb->dir, strerror(errno));
  }
  pid_t pid = fork();
  if (pid == 0) child(qemu, (char *const *)argv, logfd, st[1], timeout_s + QM_WATCHDOG_GRACE_S);
  int fork_errno = errno;
  free(cl);
  close(logfd);
  close(st[1]);
  if (pid < 0) {
    close(st[0]);
    return sbio_sdk_error(err, SBIO_E_CREATE, NULL, "qemu: fork: %s", strerror(fork_errno));
  }
  sb->pid = pid;
  int e = 0;
  ssize_t got;
  while ((got = read(st[0], &e, sizeof e)) < 0 && errno == EINTR) {
  }
  close(st[0]);
  char pidtext[32];
  snprintf(pidtext, sizeof pidtext, "%ld\n", (long)pid);
  write_file(sb->dir, "pid", pidtext);
  if (got == (ssize_t)sizeof e)
    return sbio_sdk_error(err, SBIO_E_CREATE, "install qemu-system-x86 or set 'qemu' in the settings",
                          "qemu: cannot run %.200s: %s", qemu, strerror(e));
  return SBIO_OK;
}

int sbio__qm_op_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                       sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  qm_instance *inst = instance;
  if (!inst || !req || !call || !sandbox || !info)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "qemu create: missing argument");
  *sandbox = NULL;
  char mechanism[8];
  /* plan's rules again: a create never runs KVM without observed
   * hardware virtualisation, whoever calls it. */
  int rc = sbio__qm_plan_mechanism(inst, req, mechanism, sizeof mechanism, err);
  if (rc != SBIO_OK) return rc;
  const char *files[] = {inst->kernel, inst->initrd};
  for (size_t i = 0; i < 2; i++)
    if (access(files[i], R_OK) != 0)
      return sbio_sdk_error(err, SBIO_E_CREATE,
                            "build the guest (plugins/qemu/guest/mkguest.sh) or set guest_dir in the qemu settings",
                            "qemu: the guest %s %.300s cannot be read", i ? "initramfs" : "kernel", files[i]);
  qm_sandbox *sb = calloc(1, sizeof *sb);
  if (!sb) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  sb->inst = inst;
  sb->fd = -1;
  snprintf(sb->mechanism, sizeof sb->mechanism, "%s", mechanism);
  double timeout_s = req->timeout_s > 0 ? req->timeout_s : QM_DEFAULT_TIMEOUT_S;
  sb->timeout_s = timeout_s;
  sb->expires_ns = sbio_bk_now_ns(call) + (int64_t)(timeout_s * 1e9);
  if (make_id(sb->id, sizeof sb->id) != 0 || merge_env(sb, req) != 0) {
    sandbox_free(sb);
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "qemu create: out of memory or randomness");
  }
  if (mkdirs(inst->settings.state_dir) != 0) {
    sandbox_free(sb);
    return sbio_sdk_error(err, SBIO_E_CREATE, "set state_dir in the qemu settings to a writable directory",
                          "qemu: cannot create the state directory %.300s: %s", inst->settings.state_dir,
                          strerror(errno));
  }
  snprintf(sb->dir, sizeof sb->dir, "%s/%s", inst->settings.state_dir, sb->id);
  if (mkdir(sb->dir, 0700) != 0 || write_meta(sb->dir, req, timeout_s, mechanism) != 0) {
    rc = sbio_sdk_error(err, SBIO_E_CREATE, NULL, "qemu: cannot write %.300s: %s", sb->dir, strerror(errno));
    sb->dir[0] = '\0';
    sandbox_free(sb);
    return rc;
  }
  int rootfs = req->template_name && req->template_name[0];
  if (rootfs) {
    char src[4096], image[3200], log[3200];
    snprintf(image, sizeof image, "%s/rootfs.img", sb->dir);
    snprintf(log, sizeof log, "%s/mke2fs.log", sb->dir);
    rc = sbio__qm_rootfs_resolve(inst->settings.rootfs_dir, req->template_name, src, sizeof src, err);
    if (rc == SBIO_OK) rc = sbio__qm_rootfs_image(src, image, log, call, err);
    if (rc != SBIO_OK) {
      stop_vm(sb);
      sandbox_free(sb);
      return rc;
    }
  }
  rc = spawn(sb, req, timeout_s, rootfs, err);
  if (rc == SBIO_OK) rc = connect_channel(sb, call, err);
  if (rc == SBIO_OK) rc = sbio__qm_chan_ready(sb, call, err);
  if (rc == SBIO_OK && !strcmp(mechanism, "kvm") && !sb->ready.hypervisor)
    rc = sbio_sdk_error(err, SBIO_E_CREATE, NULL,
                        "qemu: the guest reports no hypervisor flag although QEMU ran with KVM; not a VM to trust");
  if (rc != SBIO_OK) {
    stop_vm(sb);
    sandbox_free(sb);
    return rc;
  }
  char observed[512];
  snprintf(observed, sizeof observed, "accel=%s kernel=%s hypervisor=%s clocksource=%s\n", mechanism, sb->ready.kernel,
           sb->ready.hypervisor ? "yes" : "no", sb->ready.clocksource);
  write_file(sb->dir, "observed", observed);
  observed[strcspn(observed, "\n")] = '\0';
  sbio_sdk_log(inst->host, NULL, SBIO_BK_LOG_INFO, "qemu: %s booted (%s)", sb->id, observed);
  snprintf(info->id, sizeof info->id, "%s", sb->id);
  snprintf(info->mechanism, sizeof info->mechanism, "%s", mechanism);
  *sandbox = sb;
  return SBIO_OK;
}

int sbio__qm_op_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err) {
  (void)call;
  qm_sandbox *sb = sandbox;
  if (!sb) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "qemu kill: no sandbox");
  atomic_store(&sb->killed, 1);
  stop_vm(sb);
  return SBIO_OK;
}

/* Nothing survives the handle: there is no connect, so a VM whose handle
 * is gone could never be reached again. */
void sbio__qm_op_release(void *sandbox) {
  qm_sandbox *sb = sandbox;
  if (!sb) return;
  atomic_store(&sb->killed, 1);
  stop_vm(sb);
  sandbox_free(sb);
}
