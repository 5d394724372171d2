/* SPDX-License-Identifier: MIT */
/* sandboxio backend SDK: helpers a backend author would otherwise rewrite.
 *
 * The ABI itself is <sandboxio/backend.h> and needs nothing else. These
 * helpers come from the static library libsandboxio-backend-sdk.a, which is
 * linked INTO the backend (CMake: SandboxIO::sdk, which
 * sandboxio_add_backend() links for you; pkg-config: sandboxio-backend).
 * Nothing here crosses the plugin boundary, so using them changes neither
 * the backend's ABI nor what it exports.
 *
 *   <sandboxio/sdk/error.h>     catalogue codes, provider status -> code
 *   <sandboxio/sdk/secrets.h>   credentials from the environment, redaction, logging
 *   <sandboxio/sdk/settings.h>  typed access to the backend's JSON settings
 *   <sandboxio/sdk/http.h>      libcurl client with deadlines, cancellation, retries
 *   <sandboxio/sdk/http_group.h> several transfers of one operation at once (a stream and its side requests)
 *   <sandboxio/sdk/http_stream.h> bodies read piece by piece, upgraded connections
 *   <sandboxio/sdk/retry.h>     Retry-After and jittered backoff
 *   <sandboxio/sdk/url.h>       which URLs may carry a credential
 *   <sandboxio/sdk/call.h>      calls for clean-up after an operation's deadline
 *
 * Stability: source-compatible within a major version of the SDK
 * (SBIO_SDK_VERSION_MAJOR); the static library has no ABI of its own to
 * keep, since each backend carries the copy it was built with. */
#ifndef SANDBOXIO_SDK_H
#define SANDBOXIO_SDK_H

#define SBIO_SDK_VERSION_MAJOR 1
#define SBIO_SDK_VERSION_MINOR 2

#include <sandboxio/backend.h>
#include <sandboxio/sdk/call.h>
#include <sandboxio/sdk/error.h>
#include <sandboxio/sdk/http.h>
#include <sandboxio/sdk/http_group.h>
#include <sandboxio/sdk/http_stream.h>
#include <sandboxio/sdk/retry.h>
#include <sandboxio/sdk/secrets.h>
#include <sandboxio/sdk/settings.h>
#include <sandboxio/sdk/url.h>

#endif
