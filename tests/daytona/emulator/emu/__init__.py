# SPDX-License-Identifier: MIT
"""A Daytona emulator for sandboxio's tests.

It speaks the REST API of libs/api-client-go/api/openapi.yaml and the toolbox
API of libs/toolbox-api-client-go/api/openapi.yaml (daytonaio/daytona
v0.190.0, copied under ../shared/specs/daytona/), validates every request,
runs commands for real in a temporary directory per sandbox, and injects the
faults a test asks for. Python 3 standard library only.
"""
