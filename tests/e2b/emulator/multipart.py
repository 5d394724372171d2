# SPDX-License-Identifier: MIT
"""A small multipart/form-data reader, enough for envd's upload: the parts'
form names, file names and raw bytes."""

import re


class MultipartError(Exception):
    pass


def boundary_of(content_type):
    m = re.search(r'boundary="?([^";]+)"?', content_type or "")
    if not m:
        raise MultipartError("no multipart boundary is set")
    return m.group(1).encode()


def parse(body, content_type):
    """[(name, filename, data)] in order."""
    delim = b"--" + boundary_of(content_type)
    if not body.startswith(delim):
        idx = body.find(b"\r\n" + delim)
        if idx < 0:
            raise MultipartError("multipart: NextPart: EOF")
        body = body[idx + 2:]
    parts = []
    pos = len(delim)
    while True:
        if body[pos:pos + 2] == b"--":
            return parts
        if body[pos:pos + 2] != b"\r\n":
            raise MultipartError("multipart: boundary is not followed by CRLF")
        pos += 2
        head_end = body.find(b"\r\n\r\n", pos)
        if head_end < 0:
            raise MultipartError("multipart: NextPart: EOF")
        headers = {}
        for line in body[pos:head_end].split(b"\r\n"):
            k, _, v = line.decode("utf-8", "replace").partition(":")
            headers[k.strip().lower()] = v.strip()
        data_start = head_end + 4
        nxt = body.find(b"\r\n" + delim, data_start)
        if nxt < 0:
            raise MultipartError("multipart: NextPart: EOF")
        disp = headers.get("content-disposition", "")
        name = re.search(r'(?:^|;)\s*name="([^"]*)"', disp)
        filename = re.search(r'filename="([^"]*)"', disp)
        parts.append((name.group(1) if name else "", filename.group(1) if filename else None,
                      body[data_start:nxt]))
        pos = nxt + 2 + len(delim)
