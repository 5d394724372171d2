# SPDX-License-Identifier: MIT
"""Install a pure-Python wheel into an RPM build root, as Fedora's
%pyproject_install does, for build systems without pyproject-rpm-macros
(Debian's rpm, used by this project's CI). Debian's own python3 would put
it under /usr/local/lib/python3.X/dist-packages, Debian's scheme; Fedora's
is /usr/lib/python3.X/site-packages, given here as SITELIB.

usage: install-wheel.py BUILDROOT SITELIB PREFIX WHEEL
Used only by the fallback block of packaging/rpm/sandboxio.spec.
"""
import sys

from installer import install
from installer.destinations import SchemeDictionaryDestination
from installer.sources import WheelFile


def main() -> int:
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 64
    buildroot, sitelib, prefix, wheel = sys.argv[1:]
    scheme = {
        "purelib": sitelib,
        "platlib": sitelib,
        "scripts": prefix + "/bin",
        "data": prefix,
        "headers": prefix + "/include/python",
    }
    destination = SchemeDictionaryDestination(
        scheme, interpreter="/usr/bin/python3", script_kind="posix", destdir=buildroot
    )
    with WheelFile.open(wheel) as source:
        install(source, destination, {"INSTALLER": b"rpm\n"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
