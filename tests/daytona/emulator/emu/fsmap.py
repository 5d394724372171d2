# SPDX-License-Identifier: MIT
"""Sandbox paths onto the sandbox's directory on the host.

A sandbox sees an ordinary tree (/home/daytona is its home and work
directory); the emulator keeps it under <state>/sandboxes/<id>/. Relative
paths resolve against the work directory, as the daemon resolves them
against its own; ".." stops at the sandbox's root, as it does at a real "/"."""

import datetime
import os
import posixpath
import stat

from .store import HOME


def resolve(sb, path):
    """(sandbox path, host path) for a path given by a client."""
    if path is None or path == "":
        path = HOME
    if not path.startswith("/"):
        path = posixpath.join(HOME, path)
    clean = posixpath.normpath(path)
    if clean.startswith("//"):
        clean = clean[1:]
    host = os.path.join(sb.root, clean.lstrip("/")) if clean != "/" else sb.root
    return clean, host


def contained(sb, host):
    """False when a symlink made inside the sandbox leads out of it: the
    emulator must not hand out the host's files."""
    root = os.path.realpath(sb.root)
    real = os.path.realpath(host)
    return real == root or real.startswith(root + os.sep)


def _go_mode(st):
    """Go's fs.FileMode.String(): "drwxr-xr-x", "-rw-r--r--"."""
    kind = "d" if stat.S_ISDIR(st.st_mode) else ("L" if stat.S_ISLNK(st.st_mode) else "-")
    return kind + stat.filemode(st.st_mode)[1:]


def _go_time(ts):
    t = datetime.datetime.fromtimestamp(ts, datetime.timezone.utc)
    return t.strftime("%Y-%m-%d %H:%M:%S.%f000 +0000 UTC")


def file_info(name, host_path):
    st = os.lstat(host_path)
    is_dir = stat.S_ISDIR(st.st_mode)
    return {
        "name": name,
        "isDir": is_dir,
        "size": st.st_size,
        "mode": _go_mode(st),
        "permissions": "%04o" % stat.S_IMODE(st.st_mode),
        "owner": "daytona",
        "group": "daytona",
        "modifiedAt": datetime.datetime.fromtimestamp(st.st_mtime, datetime.timezone.utc)
        .isoformat(timespec="seconds")
        .replace("+00:00", "Z"),
        "modTime": _go_time(st.st_mtime),
    }
