"""Checks bundled/libs against bundled-requirements.txt: every distribution in the bundle is
pinned, and every requirement of every bundled distribution is met, on every Python the server
supports and every platform. (pip evaluates environment markers for the Python that runs it, so
a backport needed only on Python 3.10 would otherwise go missing unnoticed.)

usage: python check_bundle.py LIBS REQUIREMENTS
"""

from __future__ import annotations

import sys
from importlib.metadata import Distribution, distributions
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")
PLATFORMS = (
    {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix"},
    {"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix"},
    {"sys_platform": "win32", "platform_system": "Windows", "os_name": "nt"},
)


def environments():
    for python in PYTHONS:
        for platform in PLATFORMS:
            yield {"python_version": python, "python_full_version": f"{python}.0", "implementation_name": "cpython",
                   "platform_python_implementation": "CPython", "extra": "", **platform}


def main(libs: Path, requirements: Path) -> int:
    pinned = {
        canonicalize_name(line.split("==")[0])
        for line in requirements.read_text().splitlines()
        if "==" in line and not line.lstrip().startswith("#")
    }
    bundled: dict[str, Distribution] = {canonicalize_name(d.metadata["Name"]): d for d in distributions(path=[str(libs)])}
    problems = [f"{name} is bundled but not pinned" for name in sorted(set(bundled) - pinned - {"abl-tools"})]
    for name, dist in sorted(bundled.items()):
        for text in dist.requires or []:
            requirement = Requirement(text)
            applies = [env for env in environments() if requirement.marker is None or requirement.marker.evaluate(env)]
            if not applies:
                continue
            needed = canonicalize_name(requirement.name)
            found = bundled.get(needed)
            where = f"(needed by {name} on Python {applies[0]['python_version']}, {applies[0]['sys_platform']})"
            if found is None:
                problems.append(f"{requirement.name} is missing {where}: pin it in {requirements.name}")
            elif not requirement.specifier.contains(found.version, prereleases=True):
                problems.append(f"{requirement.name} {found.version} does not satisfy {requirement} {where}")
    for problem in problems:
        print(f"bundle-python: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
