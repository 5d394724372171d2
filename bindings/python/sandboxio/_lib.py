# SPDX-License-Identifier: MIT
"""Finding and loading libsandboxio, and the C prototypes this package uses.

The library is looked up, in order: the path in ``SBIO_LIBRARY``; a
``libsandboxio.so.0`` next to this package (a vendored copy); the system's
library path (``libsandboxio.so.0``, the SONAME). A library older than the
binding needs is refused with the version it reported, never half-used.
"""

from __future__ import annotations

import ctypes
import os
import threading
from ctypes import (
    CFUNCTYPE,
    POINTER,
    c_char_p,
    c_double,
    c_int,
    c_int64,
    c_size_t,
    c_uint,
    c_uint64,
    c_void_p,
)
from pathlib import Path
from typing import Any, Optional

#: The oldest library this binding can drive: 0.1.0 (0xMMmmpp).
MIN_VERSION = 0x000100
SONAME = "libsandboxio.so.0"


class LibraryNotFound(ImportError):
    """libsandboxio could not be loaded, or is older than this binding needs."""


LOG_FN = CFUNCTYPE(None, c_int, c_char_p, c_void_p)
AUDIT_FN = CFUNCTYPE(c_int, c_char_p, c_void_p)
# data is a c_void_p, not c_char_p: chunks may hold NUL bytes and have a length.
OUTPUT_FN = CFUNCTYPE(None, c_int, c_void_p, c_size_t, c_void_p)

_P = c_void_p  # every opaque object
_CODE = c_int

# name: (restype, argtypes)
_PROTOTYPES: dict[str, tuple[Any, list[Any]]] = {
    "sbio_version": (c_char_p, []),
    "sbio_version_number": (c_uint, []),
    "sbio_free": (None, [c_void_p]),
    # errors
    "sbio_error_new": (_P, []),
    "sbio_error_free": (None, [_P]),
    "sbio_error_clear": (None, [_P]),
    "sbio_error_code": (_CODE, [_P]),
    "sbio_error_message": (c_char_p, [_P]),
    "sbio_error_hint": (c_char_p, [_P]),
    "sbio_error_backend": (c_char_p, [_P]),
    "sbio_error_sandbox_id": (c_char_p, [_P]),
    "sbio_error_provider_status": (c_int, [_P]),
    "sbio_code_name": (c_char_p, [_CODE]),
    "sbio_code_class": (c_char_p, [_CODE]),
    # tiers and capabilities
    "sbio_tier_name": (c_char_p, [c_int]),
    "sbio_tier_rank": (c_int, [c_int]),
    "sbio_tier_satisfies": (c_int, [c_int, c_int]),
    "sbio_capability_name": (c_char_p, [c_uint64]),
    # host
    "sbio_host_options_new": (_P, []),
    "sbio_host_options_free": (None, [_P]),
    "sbio_host_options_set_config_file": (_CODE, [_P, c_char_p]),
    "sbio_host_options_set_no_config": (_CODE, [_P, c_int]),
    "sbio_host_options_set_backend_path": (_CODE, [_P, c_char_p]),
    "sbio_host_options_set_log_callback": (_CODE, [_P, LOG_FN, c_void_p]),
    "sbio_host_options_set_now": (_CODE, [_P, c_int64]),
    "sbio_host_open": (_CODE, [_P, POINTER(_P), _P]),
    "sbio_host_close": (None, [_P]),
    "sbio_host_default_backend": (c_char_p, [_P]),
    "sbio_host_isolation_floor": (c_int, [_P]),
    "sbio_host_describe": (c_size_t, [_P, c_char_p, c_size_t]),
    "sbio_host_backend_count": (c_size_t, [_P]),
    "sbio_host_backend_at": (_P, [_P, c_size_t]),
    # backend info
    "sbio_backend_info_name": (c_char_p, [_P]),
    "sbio_backend_info_path": (c_char_p, [_P]),
    "sbio_backend_info_version": (c_char_p, [_P]),
    "sbio_backend_info_summary": (c_char_p, [_P]),
    "sbio_backend_info_status": (c_int, [_P]),
    "sbio_backend_status_name": (c_char_p, [c_int]),
    "sbio_backend_info_reason": (c_char_p, [_P]),
    "sbio_backend_info_enabled": (c_int, [_P]),
    "sbio_backend_info_capabilities": (c_uint64, [_P]),
    "sbio_backend_info_tier": (c_int, [_P]),
    "sbio_backend_info_claimed_tier": (c_int, [_P]),
    "sbio_backend_info_mechanism_count": (c_size_t, [_P]),
    "sbio_mechanism_name": (c_char_p, [_P, c_size_t]),
    "sbio_mechanism_claimed_tier": (c_int, [_P, c_size_t]),
    "sbio_mechanism_tier": (c_int, [_P, c_size_t]),
    "sbio_mechanism_source_url": (c_char_p, [_P, c_size_t]),
    "sbio_mechanism_verified_on": (c_char_p, [_P, c_size_t]),
    "sbio_mechanism_quote": (c_char_p, [_P, c_size_t]),
    "sbio_mechanism_stale": (c_int, [_P, c_size_t]),
    "sbio_mechanism_age_days": (c_int, [_P, c_size_t]),
    "sbio_mechanism_reason": (c_char_p, [_P, c_size_t]),
    # create options
    "sbio_create_options_new": (_P, []),
    "sbio_create_options_free": (None, [_P]),
    "sbio_create_options_require_isolation": (_CODE, [_P, c_int]),
    "sbio_create_options_require_capabilities": (_CODE, [_P, c_uint64]),
    "sbio_create_options_set_template": (_CODE, [_P, c_char_p]),
    "sbio_create_options_set_env": (_CODE, [_P, c_char_p, c_char_p]),
    "sbio_create_options_set_secret": (_CODE, [_P, c_char_p, c_char_p]),
    "sbio_create_options_set_label": (_CODE, [_P, c_char_p, c_char_p]),
    "sbio_create_options_set_cpu": (_CODE, [_P, c_double]),
    "sbio_create_options_set_memory_mb": (_CODE, [_P, c_int64]),
    "sbio_create_options_set_disk_mb": (_CODE, [_P, c_int64]),
    "sbio_create_options_set_gpu": (_CODE, [_P, c_char_p]),
    "sbio_create_options_set_egress": (_CODE, [_P, c_int]),
    "sbio_create_options_allow_host": (_CODE, [_P, c_char_p]),
    "sbio_create_options_set_timeout": (_CODE, [_P, c_double]),
    # sandbox
    "sbio_sandbox_create": (_CODE, [_P, c_char_p, _P, POINTER(_P), _P]),
    "sbio_connect_options_new": (_P, []),
    "sbio_connect_options_free": (None, [_P]),
    "sbio_connect_options_require_isolation": (_CODE, [_P, c_int]),
    "sbio_sandbox_connect_ex": (_CODE, [_P, c_char_p, c_char_p, _P, POINTER(_P), _P]),
    "sbio_sandbox_kill": (_CODE, [_P, _P]),
    "sbio_sandbox_close": (_CODE, [_P, _P]),
    "sbio_sandbox_id": (c_char_p, [_P]),
    "sbio_sandbox_backend": (c_char_p, [_P]),
    "sbio_sandbox_mechanism": (c_char_p, [_P]),
    "sbio_sandbox_tier": (c_int, [_P]),
    "sbio_sandbox_capabilities": (c_uint64, [_P]),
    "sbio_sandbox_alive": (c_int, [_P]),
    "sbio_sandbox_describe": (c_size_t, [_P, c_char_p, c_size_t]),
    "sbio_sandbox_exec_cancellable": (c_int, [_P]),
    # exec
    "sbio_exec_options_new": (_P, []),
    "sbio_exec_options_free": (None, [_P]),
    "sbio_exec_options_set_env": (_CODE, [_P, c_char_p, c_char_p]),
    "sbio_exec_options_set_cwd": (_CODE, [_P, c_char_p]),
    "sbio_exec_options_set_stdin": (_CODE, [_P, c_char_p, c_size_t]),
    "sbio_exec_options_set_timeout": (_CODE, [_P, c_double]),
    "sbio_exec_options_set_output_callback": (_CODE, [_P, OUTPUT_FN, c_void_p]),
    "sbio_exec_options_set_output_cap": (_CODE, [_P, c_size_t]),
    "sbio_exec_options_set_cancel": (_CODE, [_P, _P]),
    "sbio_sandbox_exec": (_CODE, [_P, POINTER(c_char_p), _P, POINTER(_P), _P]),
    "sbio_sandbox_exec_shell": (_CODE, [_P, c_char_p, _P, POINTER(_P), _P]),
    "sbio_exec_result_exit_code": (c_int, [_P]),
    "sbio_exec_result_stdout": (c_void_p, [_P, POINTER(c_size_t)]),
    "sbio_exec_result_stderr": (c_void_p, [_P, POINTER(c_size_t)]),
    "sbio_exec_result_truncated": (c_int, [_P]),
    "sbio_exec_result_duration_ms": (c_int64, [_P]),
    "sbio_exec_result_free": (None, [_P]),
    "sbio_cancel_new": (_P, []),
    "sbio_cancel_free": (None, [_P]),
    "sbio_cancel_request": (None, [_P]),
    "sbio_cancel_requested": (c_int, [_P]),
    # files
    "sbio_file_read": (_CODE, [_P, c_char_p, c_size_t, POINTER(c_void_p), POINTER(c_size_t), _P]),
    "sbio_file_write": (_CODE, [_P, c_char_p, c_char_p, c_size_t, _P]),
    "sbio_file_list_dir": (_CODE, [_P, c_char_p, POINTER(_P), _P]),
    "sbio_file_mkdir": (_CODE, [_P, c_char_p, c_int, _P]),
    "sbio_file_remove": (_CODE, [_P, c_char_p, _P]),
    "sbio_file_list_count": (c_size_t, [_P]),
    "sbio_file_list_name": (c_char_p, [_P, c_size_t]),
    "sbio_file_list_path": (c_char_p, [_P, c_size_t]),
    "sbio_file_list_size": (c_int64, [_P, c_size_t]),
    "sbio_file_list_is_dir": (c_int, [_P, c_size_t]),
    "sbio_file_list_free": (None, [_P]),
}


def _candidates() -> list[tuple[str, str]]:
    """(where, path) pairs, in lookup order."""
    out: list[tuple[str, str]] = []
    env = os.environ.get("SBIO_LIBRARY")
    if env:
        out.append(("SBIO_LIBRARY", env))
        return out  # explicit: nothing else is tried
    here = Path(__file__).resolve().parent
    for name in (SONAME, "libsandboxio.so"):
        p = here / name
        if p.exists():
            out.append(("next to the package", str(p)))
    out.append(("the system library path", SONAME))
    return out


def version_text(number: int) -> str:
    return f"{(number >> 16) & 0xFF}.{(number >> 8) & 0xFF}.{number & 0xFF}"


def _load() -> ctypes.CDLL:
    tried: list[str] = []
    for where, path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            tried.append(f"{path} ({where}): {exc}")
            continue
        try:
            number = int(lib.sbio_version_number())
        except AttributeError:
            raise LibraryNotFound(
                f"{path} ({where}) is not libsandboxio: it has no sbio_version_number()"
            ) from None
        if number < MIN_VERSION:
            raise LibraryNotFound(
                f"{path} ({where}) is libsandboxio {version_text(number)}; this binding needs "
                f"{version_text(MIN_VERSION)} or newer"
            )
        missing = [name for name in _PROTOTYPES if not hasattr(lib, name)]
        if missing:
            raise LibraryNotFound(
                f"{path} ({where}) is libsandboxio {version_text(number)} but lacks "
                f"{', '.join(missing[:5])}: install a newer libsandboxio"
            )
        for name, (restype, argtypes) in _PROTOTYPES.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
        return lib
    raise LibraryNotFound(
        "libsandboxio could not be loaded; tried: "
        + "; ".join(tried)
        + ". Install libsandboxio0 (Debian), or set SBIO_LIBRARY to the path of libsandboxio.so.0"
    )


_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None


def lib() -> Any:
    """The loaded library (loaded on first use, so importing opens nothing)."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                _lib = _load()
    return _lib


def text(value: Optional[bytes]) -> str:
    """A C string from the library as text ("" for NULL)."""
    return value.decode("utf-8", "replace") if value else ""


def cstr(value: str, what: str) -> bytes:
    """Text for the library: UTF-8 without NUL bytes (C would cut it short)."""
    from .errors import ConfigurationError

    # The value is never shown: it may be a secret.
    if not isinstance(value, str):
        raise ConfigurationError(f"{what} must be a str, not {type(value).__name__}")
    if "\0" in value:
        raise ConfigurationError(f"{what} contains a NUL character")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigurationError(f"{what} is not valid Unicode (a lone surrogate)") from None
