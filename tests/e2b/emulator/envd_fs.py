# SPDX-License-Identifier: MIT
"""envd's filesystem service (filesystem.Filesystem, unary calls) and the
EntryInfo messages it returns, in proto3 JSON (int64 as strings, zero values
omitted, enum names)."""

import datetime
import grp
import os
import pwd
import shutil
import stat as st

import connectwire as cw
from connectwire import ConnectError


def _owner(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def _group(gid):
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def entry_info(sb, host, name=None):
    s = os.lstat(host)
    if st.S_ISLNK(s.st_mode):
        ftype = "FILE_TYPE_SYMLINK"
    elif st.S_ISDIR(s.st_mode):
        ftype = "FILE_TYPE_DIRECTORY"
    else:
        ftype = "FILE_TYPE_FILE"
    mtime = datetime.datetime.fromtimestamp(s.st_mtime, datetime.timezone.utc)
    path = sb.to_sandbox(host)
    out = {
        "name": name if name is not None else os.path.basename(path.rstrip("/")) or "/",
        "type": ftype,
        "path": path,
        "permissions": st.filemode(s.st_mode),
        "owner": _owner(s.st_uid),
        "group": _group(s.st_gid),
        "modifiedTime": mtime.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
    }
    if s.st_size:
        out["size"] = str(s.st_size)  # int64 -> JSON string
    perm = st.S_IMODE(s.st_mode) & 0o777
    if perm:
        out["mode"] = perm
    if ftype == "FILE_TYPE_SYMLINK":
        out["symlinkTarget"] = os.readlink(host)
    return out


def _path(msg, key="path"):
    return cw.opt(msg, key, str, key, "")


def stat(h, sb, msg):
    host = sb.host_path(_path(msg))
    if not os.path.lexists(host):
        raise ConnectError("not_found", "file not found: stat %s: no such file or directory" %
                           sb.sandbox_path(_path(msg)))
    return {"entry": entry_info(sb, host)}


def list_dir(h, sb, msg):
    path = _path(msg)
    depth = cw.opt(msg, "depth", int, "depth", 0) or 1
    host = sb.host_path(path)
    if not os.path.lexists(host):
        raise ConnectError("not_found", "path not found: lstat %s: no such file or directory" % sb.sandbox_path(path))
    real = os.path.realpath(host)
    if not os.path.isdir(real):
        raise ConnectError("invalid_argument", "path is not a directory: %s" % sb.sandbox_path(path))
    entries = []
    base_depth = real.rstrip("/").count("/")
    for dirpath, dirnames, filenames in os.walk(real):
        dirnames.sort()
        level = dirpath.rstrip("/").count("/") - base_depth + 1
        for name in sorted(dirnames + filenames):
            full = os.path.join(dirpath, name)
            entries.append(entry_info(sb, host + full[len(real):], name))
        if level >= depth:
            dirnames[:] = []
    return {"entries": entries} if entries else {}


def make_dir(h, sb, msg):
    path = _path(msg)
    host = sb.host_path(path)
    if os.path.isdir(host):
        raise ConnectError("already_exists", "directory already exists: %s" % sb.sandbox_path(path))
    if os.path.lexists(host):
        raise ConnectError("invalid_argument", "path already exists but it is not a directory: %s" %
                           sb.sandbox_path(path))
    try:
        os.makedirs(host)
    except OSError as e:
        raise ConnectError("internal", "error creating directory: %s" % e.strerror)
    return {"entry": entry_info(sb, host)}


def remove(h, sb, msg):
    # os.RemoveAll: a missing path is not an error.
    host = sb.host_path(_path(msg))
    if host == sb.root:
        shutil.rmtree(host, ignore_errors=True)
        os.makedirs(host, exist_ok=True)
    elif os.path.isdir(host) and not os.path.islink(host):
        shutil.rmtree(host, ignore_errors=True)
    elif os.path.lexists(host):
        os.unlink(host)
    return {}


def move(h, sb, msg):
    src = sb.host_path(_path(msg, "source"))
    dst = sb.host_path(_path(msg, "destination"))
    if not os.path.lexists(src):
        raise ConnectError("not_found", "source file not found: %s" % sb.to_sandbox(src))
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    os.rename(src, dst)
    return {"entry": entry_info(sb, dst)}


UNARY = {
    "/filesystem.Filesystem/Stat": stat,
    "/filesystem.Filesystem/ListDir": list_dir,
    "/filesystem.Filesystem/MakeDir": make_dir,
    "/filesystem.Filesystem/Remove": remove,
    "/filesystem.Filesystem/Move": move,
}
