"""``python -m paretostab.spec [--check]``: write the package's ``spec.schema.json`` from the
declarations (or, with ``--check``, fail when the committed file differs from them)."""

import json
import sys

from paretostab.spec.schema import SCHEMA_FILE, json_schema, write_json_schema


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        current = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
        if current != json_schema():
            print(f"{SCHEMA_FILE.name} is out of date: run python -m paretostab.spec",
                  file=sys.stderr)
            return 1
        return 0
    if argv:
        print("usage: python -m paretostab.spec [--check]", file=sys.stderr)
        return 2
    print(write_json_schema())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
