# SPDX-License-Identifier: MIT
"""The blocking layer: one Python object per C object, every call a direct
(blocking) call into libsandboxio. The async API runs these off the event
loop; the sync facade calls them directly.

Threading follows the C contract (sandboxio.h): a host serves many threads;
a sandbox is used by one thread at a time (``_Handle._op`` serialises its
calls), except kill, which any thread may call while an exec runs
(``_Handle._ptr_lock`` only keeps it from racing the final close).
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import math
import threading
import weakref
from ctypes import byref, c_char_p, c_size_t, c_void_p
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from . import errors
from ._lib import OUTPUT_FN, LOG_FN, cstr, lib, text
from ._pipe import Pipe
from .models import BackendInfo, Capability, ExecResult, FileInfo, IsolationTier, Mechanism, NetworkPolicy, Resources

logger = logging.getLogger("sandboxio")
logger.addHandler(logging.NullHandler())  # the library never prints; the application decides

Command = Union[str, Sequence[str]]
#: Receives (stream, bytes) for each chunk of a streaming command; stream is 1 (stdout) or 2 (stderr).
OutputSink = Callable[[int, bytes], None]

_LEVELS = {10: logging.DEBUG, 20: logging.INFO, 30: logging.WARNING, 40: logging.ERROR}


def _on_log(level: int, message: Optional[bytes], user: Optional[int]) -> None:
    # The library redacts before it calls; this only forwards.
    try:
        logger.log(_LEVELS.get(level, logging.WARNING), "%s", text(message))
    except Exception:  # a logging failure must never unwind into C
        pass


# One callback object for every host, alive as long as the module.
_LOG_CALLBACK = LOG_FN(_on_log)


class _Error:
    """An sbio_error for one call."""

    def __init__(self) -> None:
        self.ptr = lib().sbio_error_new()
        if not self.ptr:
            raise MemoryError("sbio_error_new")

    def __enter__(self) -> _Error:
        return self

    def __exit__(self, *exc: object) -> None:
        lib().sbio_error_free(self.ptr)

    def raise_for(self, rc: int) -> None:
        if rc == 0:
            return
        L = lib()
        number = L.sbio_error_code(self.ptr) or rc
        message = text(L.sbio_error_message(self.ptr)) or text(L.sbio_code_class(number)) or f"status {number}"
        raise errors.for_number(
            number,
            message,
            text(L.sbio_error_hint(self.ptr)),
            backend=text(L.sbio_error_backend(self.ptr)),
            sandbox_id=text(L.sbio_error_sandbox_id(self.ptr)),
            provider_status=int(L.sbio_error_provider_status(self.ptr)),
        )


def _config_error(message: str, hint: str = "") -> errors.ConfigurationError:
    return errors.ConfigurationError(message, hint)


def _seconds(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _config_error(f"{what} must be a number of seconds, not {type(value).__name__}")
    seconds = float(value)
    if not math.isfinite(seconds) or seconds <= 0:
        raise _config_error(f"{what} must be a positive number of seconds: never unbounded")
    return seconds


def _string_map(value: Optional[Mapping[str, str]], what: str) -> list[tuple[bytes, bytes]]:
    if value is None:
        return []
    if not isinstance(value, Mapping):
        raise _config_error(f"{what} must be a mapping of str to str, not {type(value).__name__}")
    out = []
    for key, item in value.items():
        if not isinstance(key, str) or not isinstance(item, str):
            # Never show the value: it may be a secret.
            raise _config_error(f"{what}: keys and values must be str (key {key!r} is not)")
        out.append((cstr(key, f"{what} key"), cstr(item, f"{what}[{key!r}]")))
    return out


def _tier_from_c(value: int) -> IsolationTier:
    return IsolationTier.from_rank(int(value))


def _info(b: int) -> BackendInfo:
    L = lib()
    mechs = []
    for i in range(L.sbio_backend_info_mechanism_count(b)):
        age = int(L.sbio_mechanism_age_days(b, i))
        mechs.append(
            Mechanism(
                name=text(L.sbio_mechanism_name(b, i)),
                tier=_tier_from_c(L.sbio_mechanism_tier(b, i)),
                claimed_tier=_tier_from_c(L.sbio_mechanism_claimed_tier(b, i)),
                source_url=text(L.sbio_mechanism_source_url(b, i)),
                verified_on=text(L.sbio_mechanism_verified_on(b, i)),
                quote=text(L.sbio_mechanism_quote(b, i)),
                stale=bool(L.sbio_mechanism_stale(b, i)),
                age_days=None if age < 0 else age,
                reason=text(L.sbio_mechanism_reason(b, i)),
            )
        )
    return BackendInfo(
        name=text(L.sbio_backend_info_name(b)),
        path=text(L.sbio_backend_info_path(b)),
        version=text(L.sbio_backend_info_version(b)),
        summary=text(L.sbio_backend_info_summary(b)),
        status=text(L.sbio_backend_status_name(L.sbio_backend_info_status(b))),
        enabled=bool(L.sbio_backend_info_enabled(b)),
        reason=text(L.sbio_backend_info_reason(b)),
        tier=_tier_from_c(L.sbio_backend_info_tier(b)),
        claimed_tier=_tier_from_c(L.sbio_backend_info_claimed_tier(b)),
        capabilities=Capability.from_bits(int(L.sbio_backend_info_capabilities(b))),
        mechanisms=tuple(mechs),
    )


def _describe(fn: Any, ptr: int) -> str:
    size = int(fn(ptr, None, 0)) + 1
    buf = ctypes.create_string_buffer(size)
    fn(ptr, buf, size)
    return text(buf.value)


class Host:
    """One sbio_host: configuration, the backends found, audit sinks.

    Options mirror the C host options; with none, the library reads its
    layered configuration (``SBIO_CONFIG``, ``SBIO_BACKEND_PATH`` as the CLI
    does). Closing a host destroys every sandbox it still owns.
    """

    def __init__(
        self,
        *,
        config_file: Optional[str] = None,
        no_config: bool = False,
        backend_path: Optional[str] = None,
        now: Optional[int] = None,
    ) -> None:
        L = lib()
        self._ptr: Optional[int] = None
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._busy = 0  # calls in flight that use the host pointer
        self._handles: weakref.WeakSet[_Handle] = weakref.WeakSet()
        opts = L.sbio_host_options_new()
        if not opts:
            raise MemoryError("sbio_host_options_new")
        try:
            if config_file is not None:
                L.sbio_host_options_set_config_file(opts, cstr(str(config_file), "config_file"))
            if no_config:
                L.sbio_host_options_set_no_config(opts, 1)
            if backend_path is not None:
                L.sbio_host_options_set_backend_path(opts, cstr(str(backend_path), "backend_path"))
            if now is not None:
                L.sbio_host_options_set_now(opts, int(now))
            L.sbio_host_options_set_log_callback(opts, _LOG_CALLBACK, None)
            out = c_void_p()
            with _Error() as err:
                err.raise_for(L.sbio_host_open(opts, byref(out), err.ptr))
        finally:
            L.sbio_host_options_free(opts)
        self._ptr = out.value

    def _live(self) -> int:
        ptr = self._ptr
        if ptr is None:
            raise errors.ConfigurationError("this sandboxio host is closed")
        return ptr

    def backends(self) -> list[BackendInfo]:
        """Every backend found, in search-path order, shadowed ones included."""
        L = lib()
        with self._lock:
            ptr = self._live()
            return [_info(L.sbio_host_backend_at(ptr, i)) for i in range(L.sbio_host_backend_count(ptr))]

    def __repr__(self) -> str:
        with self._lock:
            if self._ptr is None:
                return "<sandboxio.Host closed>"
            return f"<sandboxio.{_describe(lib().sbio_host_describe, self._ptr)}>"

    def create_handle(
        self,
        target: Optional[str],
        *,
        template: Optional[str],
        env: Optional[Mapping[str, str]],
        secrets: Optional[Mapping[str, str]],
        metadata: Optional[Mapping[str, str]],
        timeout: float,
        require_isolation: Optional[IsolationTier],
        network: Optional[NetworkPolicy],
        resources: Optional[Resources],
    ) -> _Handle:
        """Creates a sandbox (blocking). Every argument is checked before the library is asked."""
        L = lib()
        uri = None if target is None else cstr(target, "target")
        seconds = _seconds(timeout, "timeout")
        env_items = _string_map(env, "env")
        secret_items = _string_map(secrets, "secrets")
        label_items = _string_map(metadata, "metadata")
        if require_isolation is not None and not isinstance(require_isolation, IsolationTier):
            raise _config_error(
                f"require_isolation must be an IsolationTier, not {type(require_isolation).__name__}"
            )
        network = NetworkPolicy() if network is None else network
        if not isinstance(network, NetworkPolicy):
            raise _config_error(f"network must be a NetworkPolicy, not {type(network).__name__}")
        if network.egress not in ("deny", "allow", "learn"):
            raise _config_error(f"network.egress must be 'deny' or 'allow', not {network.egress!r}")
        if network.egress == "learn":
            raise errors.CapabilityNotSupported(
                "egress 'learn' is not supported: it would have to let traffic out to learn it",
                "use egress='deny' with an allow list",
            )
        if network.ingress_ports:
            raise errors.CapabilityNotSupported(
                "ingress ports are not supported by libsandboxio: refusing rather than ignoring them",
                "remove ingress_ports from the NetworkPolicy",
            )
        if resources is not None and not isinstance(resources, Resources):
            raise _config_error(f"resources must be a Resources, not {type(resources).__name__}")

        opts = L.sbio_create_options_new()
        if not opts:
            raise MemoryError("sbio_create_options_new")
        try:
            # Setters remember a refused value; the create below reports it.
            L.sbio_create_options_set_timeout(opts, seconds)
            if template is not None:
                L.sbio_create_options_set_template(opts, cstr(template, "template"))
            for k, v in env_items:
                L.sbio_create_options_set_env(opts, k, v)
            for k, v in secret_items:
                L.sbio_create_options_set_secret(opts, k, v)
            for k, v in label_items:
                L.sbio_create_options_set_label(opts, k, v)
            if require_isolation is not None:
                L.sbio_create_options_require_isolation(opts, require_isolation.rank)
            L.sbio_create_options_set_egress(opts, 1 if network.egress == "allow" else 0)
            for host in network.allow:
                L.sbio_create_options_allow_host(opts, cstr(host, "network.allow entry"))
            if resources is not None:
                if resources.cpu is not None:
                    L.sbio_create_options_set_cpu(opts, float(resources.cpu))
                if resources.memory_mb is not None:
                    L.sbio_create_options_set_memory_mb(opts, int(resources.memory_mb))
                if resources.disk_mb is not None:
                    L.sbio_create_options_set_disk_mb(opts, int(resources.disk_mb))
                if resources.gpu is not None:
                    L.sbio_create_options_set_gpu(opts, cstr(resources.gpu, "resources.gpu"))
            return self._open(
                lambda ptr, out, err: L.sbio_sandbox_create(ptr, uri, opts, out, err), "sbio_sandbox_create"
            )
        finally:
            L.sbio_create_options_free(opts)

    def connect_handle(
        self, target: str, sandbox_id: str, *, require_isolation: Optional[IsolationTier]
    ) -> _Handle:
        """Re-attaches to a live sandbox this project manages (blocking); never
        creates one. It passes the same admission gate as a create."""
        L = lib()
        if not isinstance(target, str) or not target:
            raise _config_error("target must be a backend name or a target URI such as 'docker://'")
        backend = cstr(target.split("://", 1)[0], "target")
        sid = cstr(sandbox_id, "sandbox_id")
        if require_isolation is not None and not isinstance(require_isolation, IsolationTier):
            raise _config_error(
                f"require_isolation must be an IsolationTier, not {type(require_isolation).__name__}"
            )
        opts = L.sbio_connect_options_new()
        if not opts:
            raise MemoryError("sbio_connect_options_new")
        try:
            if require_isolation is not None:
                L.sbio_connect_options_require_isolation(opts, require_isolation.rank)
            return self._open(
                lambda ptr, out, err: L.sbio_sandbox_connect_ex(ptr, backend, sid, opts, out, err),
                "sbio_sandbox_connect_ex",
            )
        finally:
            L.sbio_connect_options_free(opts)

    def _open(self, call: Callable[[int, Any, Any], Any], name: str) -> _Handle:
        """Runs `call(host, &sandbox, error)`, the C call that opens a sandbox
        (create or connect), as a long call close waits for, and keeps the
        sandbox it gives among this host's handles."""
        out = c_void_p()
        ptr = self._enter()
        try:
            with _Error() as err:
                err.raise_for(call(ptr, byref(out), err.ptr))
            if not out.value:
                raise errors.InternalError(f"{name} succeeded without a sandbox")
            handle = _Handle(self, out.value)
            with self._lock:
                self._handles.add(handle)
            return handle
        finally:
            self._leave()

    def _enter(self) -> int:
        """Marks a long call (a create) in flight; close waits for it."""
        with self._lock:
            ptr = self._live()
            self._busy += 1
            return ptr

    def _leave(self) -> None:
        with self._lock:
            self._busy -= 1
            self._idle.notify_all()

    def close(self) -> None:
        """Destroys every sandbox this host still owns, then the host."""
        with self._lock:
            ptr, self._ptr = self._ptr, None
            while self._busy:
                self._idle.wait()
            handles = list(self._handles)
        if ptr is None:
            return
        for h in handles:
            try:
                h.close()
            except errors.SandboxError as exc:
                logger.warning("%s", exc.message)
        lib().sbio_host_close(ptr)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self) -> Host:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Handle:
    """One sbio_sandbox. Holds its host (never the reverse: the host keeps
    only weak references), so no cycle keeps a sandbox alive."""

    def __init__(self, host: Host, ptr: int) -> None:
        L = lib()
        self._host: Optional[Host] = host
        self._ptr: Optional[int] = ptr
        self._op = threading.Lock()
        self._ptr_lock = threading.Lock()
        # Copied now: the C strings live as long as the handle, these longer.
        self.id = text(L.sbio_sandbox_id(ptr))
        self.backend = text(L.sbio_sandbox_backend(ptr))
        self.mechanism = text(L.sbio_sandbox_mechanism(ptr))
        self.isolation = _tier_from_c(L.sbio_sandbox_tier(ptr))
        self.capabilities = Capability.from_bits(int(L.sbio_sandbox_capabilities(ptr)))
        self.cancellable = bool(L.sbio_sandbox_exec_cancellable(ptr))
        self._killed = False
        # The pipes of this sandbox's streaming commands: closing abandons
        # them, so a command blocked on a reader that is gone can end.
        self._pipes: weakref.WeakSet[Pipe] = weakref.WeakSet()

    def track(self, pipe: Pipe) -> None:
        with self._ptr_lock:
            self._pipes.add(pipe)

    @property
    def closed(self) -> bool:
        return self._ptr is None

    def describe(self) -> str:
        with self._ptr_lock:
            if self._ptr is None:
                return f"Sandbox({self.backend}:{self.id} {self.isolation.name}/{self.mechanism} closed)"
            return _describe(lib().sbio_sandbox_describe, self._ptr)

    def _live(self) -> int:
        ptr = self._ptr
        if ptr is None:
            raise errors.SandboxGone(
                f"sandbox {self.id} is closed", "create a new sandbox", backend=self.backend, sandbox_id=self.id
            )
        return ptr

    # -- exec ------------------------------------------------------------
    def exec(
        self,
        cmd: Command,
        *,
        timeout: Optional[float] = None,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None,
        stdin: Union[bytes, str, None] = None,
        cancel: Optional[CancelToken] = None,
        on_output: Optional[OutputSink] = None,
    ) -> ExecResult:
        L = lib()
        seconds = None if timeout is None else _seconds(timeout, "timeout")
        env_items = _string_map(env, "env")
        if isinstance(cmd, str):
            script: Optional[bytes] = cstr(cmd, "cmd")
            argv = None
        elif isinstance(cmd, Sequence) and not isinstance(cmd, (bytes, bytearray)):
            if not cmd:
                raise _config_error("cmd must not be empty")
            script = None
            argv = (c_char_p * (len(cmd) + 1))(*[cstr(a, f"cmd[{i}]") for i, a in enumerate(cmd)], None)
        else:
            raise _config_error(f"cmd must be a str or a list of str, not {type(cmd).__name__}")
        data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
        if data is not None and not isinstance(data, (bytes, bytearray, memoryview)):
            raise _config_error(f"stdin must be bytes or str, not {type(stdin).__name__}")

        opts = L.sbio_exec_options_new()
        if not opts:
            raise MemoryError("sbio_exec_options_new")
        callback = None
        try:
            for k, v in env_items:
                L.sbio_exec_options_set_env(opts, k, v)
            if cwd is not None:
                L.sbio_exec_options_set_cwd(opts, cstr(cwd, "cwd"))
            if data is not None:
                raw = bytes(data)
                L.sbio_exec_options_set_stdin(opts, raw, len(raw))
            if seconds is not None:
                L.sbio_exec_options_set_timeout(opts, seconds)
            if on_output is not None:
                callback = OUTPUT_FN(_output_trampoline(on_output))
                L.sbio_exec_options_set_output_callback(opts, callback, None)
                # Streamed bytes go to the sink only: nothing accumulates here.
                L.sbio_exec_options_set_output_cap(opts, 0)
            if cancel is not None and self.cancellable:
                L.sbio_exec_options_set_cancel(opts, cancel.ptr)
            out = c_void_p()
            with self._op:
                ptr = self._live()
                with _Error() as err:
                    if script is not None:
                        rc = L.sbio_sandbox_exec_shell(ptr, script, opts, byref(out), err.ptr)
                    else:
                        rc = L.sbio_sandbox_exec(ptr, argv, opts, byref(out), err.ptr)
                    try:
                        err.raise_for(rc)
                        return _result(out.value, streamed=on_output is not None)
                    finally:
                        if out.value:
                            L.sbio_exec_result_free(out.value)
        finally:
            L.sbio_exec_options_free(opts)
            # The exec has returned: the library calls the callback no more.
            del callback

    def interrupt(self, cancel: Optional[CancelToken]) -> None:
        """Stops a command in flight from another thread: its token where the
        backend can cancel one exec, else by killing the sandbox."""
        if cancel is not None and self.cancellable:
            cancel.request()
        else:
            try:
                self.kill()
            except errors.SandboxError as exc:
                logger.warning("%s", exc.message)

    def kill(self) -> None:
        """Ends the sandbox (idempotent; any thread, also during an exec)."""
        with self._ptr_lock:
            ptr = self._live()
            with _Error() as err:
                err.raise_for(lib().sbio_sandbox_kill(ptr, err.ptr))
            self._killed = True

    def alive(self) -> bool:
        with self._ptr_lock:
            return self._ptr is not None and bool(lib().sbio_sandbox_alive(self._ptr))

    def close(self) -> None:
        """Destroys the sandbox and frees the handle (idempotent). Waits for
        a call in flight to return first."""
        with self._ptr_lock:
            pipes = list(self._pipes)
        for pipe in pipes:
            pipe.abandon()
        if not self._op.acquire(blocking=False):
            # A call is in flight (a long command): end it, so close does not
            # wait for it to finish by itself.
            try:
                self.kill()
            except errors.SandboxError:
                pass
            self._op.acquire()
        try:
            with self._ptr_lock:
                ptr, self._ptr = self._ptr, None
            if ptr is None:
                return
            host, self._host = self._host, None
            if host is not None:
                with host._lock:
                    host._handles.discard(self)
            with _Error() as err:
                err.raise_for(lib().sbio_sandbox_close(ptr, err.ptr))
        finally:
            self._op.release()

    def __del__(self) -> None:
        # A handle dropped without close: destroy the sandbox now rather than
        # at host close. Never block a finaliser on a call in flight.
        if getattr(self, "_ptr", None) is None or not self._op.acquire(blocking=False):
            return
        self._op.release()
        try:
            self.close()
        except Exception:
            pass

    # -- files -----------------------------------------------------------
    def read(self, path: str, max_bytes: int = 0) -> bytes:
        L = lib()
        p = cstr(path, "path")
        data = c_void_p()
        size = c_size_t()
        with self._op:
            ptr = self._live()
            with _Error() as err:
                err.raise_for(L.sbio_file_read(ptr, p, max_bytes, byref(data), byref(size), err.ptr))
        try:
            return ctypes.string_at(data.value, size.value) if data.value else b""
        finally:
            L.sbio_free(data.value)

    def write(self, path: str, data: Union[bytes, str]) -> None:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        if not isinstance(raw, (bytes, bytearray, memoryview)):
            raise _config_error(f"data must be bytes or str, not {type(data).__name__}")
        raw = bytes(raw)
        p = cstr(path, "path")
        with self._op:
            ptr = self._live()
            with _Error() as err:
                err.raise_for(lib().sbio_file_write(ptr, p, raw, len(raw), err.ptr))

    def list(self, path: str) -> list[FileInfo]:
        L = lib()
        p = cstr(path, "path")
        out = c_void_p()
        with self._op:
            ptr = self._live()
            with _Error() as err:
                err.raise_for(L.sbio_file_list_dir(ptr, p, byref(out), err.ptr))
        try:
            return [
                FileInfo(
                    name=text(L.sbio_file_list_name(out.value, i)),
                    path=text(L.sbio_file_list_path(out.value, i)),
                    size=int(L.sbio_file_list_size(out.value, i)),
                    is_dir=bool(L.sbio_file_list_is_dir(out.value, i)),
                )
                for i in range(L.sbio_file_list_count(out.value))
            ]
        finally:
            L.sbio_file_list_free(out.value)

    def mkdir(self, path: str, parents: bool) -> None:
        p = cstr(path, "path")
        with self._op:
            ptr = self._live()
            with _Error() as err:
                err.raise_for(lib().sbio_file_mkdir(ptr, p, 1 if parents else 0, err.ptr))

    def remove(self, path: str) -> None:
        p = cstr(path, "path")
        with self._op:
            ptr = self._live()
            with _Error() as err:
                err.raise_for(lib().sbio_file_remove(ptr, p, err.ptr))


def _output_trampoline(sink: OutputSink) -> Callable[[int, Optional[int], int, Optional[int]], None]:
    def on_output(stream: int, data: Optional[int], length: int, user: Optional[int]) -> None:
        try:
            sink(stream, ctypes.string_at(data, length) if data and length else b"")
        except BaseException:  # nothing may unwind into C
            logger.exception("sandboxio: output callback failed")

    return on_output


def _result(ptr: Optional[int], *, streamed: bool) -> ExecResult:
    L = lib()
    if not ptr:
        return ExecResult(exit_code=-1, stdout="", stderr="", streamed=streamed)
    n = c_size_t()
    out_p = L.sbio_exec_result_stdout(ptr, byref(n))
    out = ctypes.string_at(out_p, n.value) if out_p and n.value else b""
    err_p = L.sbio_exec_result_stderr(ptr, byref(n))
    err = ctypes.string_at(err_p, n.value) if err_p and n.value else b""
    return ExecResult(
        exit_code=int(L.sbio_exec_result_exit_code(ptr)),
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        stdout_bytes=out,
        stderr_bytes=err,
        # A streamed command buffers nothing (cap 0): "truncated" means nothing there.
        truncated=bool(L.sbio_exec_result_truncated(ptr)) and not streamed,
        duration_ms=int(L.sbio_exec_result_duration_ms(ptr)),
        streamed=streamed,
    )


class CancelToken:
    """An sbio_cancel: requested from any thread, freed once no exec uses it."""

    def __init__(self) -> None:
        self.ptr = lib().sbio_cancel_new()
        if not self.ptr:
            raise MemoryError("sbio_cancel_new")

    def request(self) -> None:
        lib().sbio_cancel_request(self.ptr)

    def __del__(self) -> None:
        # Unreachable means no exec holds it any more (exec keeps a reference).
        ptr, self.ptr = getattr(self, "ptr", None), None
        if ptr:
            lib().sbio_cancel_free(ptr)


_default_lock = threading.Lock()
_default: Optional[Host] = None


def default_host() -> Host:
    """The host the module-level functions use, opened on first use with the
    library's own configuration lookup, closed at interpreter exit."""
    global _default
    with _default_lock:
        if _default is None or _default._ptr is None:
            _default = Host()
        return _default


def set_default_host(host: Optional[Host]) -> Optional[Host]:
    """Replaces the default host (returns the previous one, not closed)."""
    global _default
    with _default_lock:
        old, _default = _default, host
        return old


@atexit.register
def _close_default() -> None:
    with _default_lock:
        host = _default
    if host is not None:
        host.close()

