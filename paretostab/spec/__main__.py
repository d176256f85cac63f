"""``python -m paretostab.spec [--check] [--reference FILE]``: write the package's
``spec.schema.json`` from the declarations (with ``--check``, fail when the committed file
differs from them); with ``--reference FILE``, write the spec reference page
(:func:`~paretostab.spec._reference.reference_page`) to ``FILE`` instead."""

import json
import sys
from pathlib import Path

from paretostab.spec._reference import reference_page
from paretostab.spec._schema import SCHEMA_FILE, json_schema, write_json_schema

USAGE = "usage: python -m paretostab.spec [--check] [--reference FILE]"


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        current = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
        if current != json_schema():
            print(f"{SCHEMA_FILE.name} is out of date: run python -m paretostab.spec",
                  file=sys.stderr)
            return 1
        return 0
    if len(argv) == 2 and argv[0] == "--reference":
        Path(argv[1]).write_text(reference_page(), encoding="utf-8")
        print(argv[1])
        return 0
    if argv:
        print(USAGE, file=sys.stderr)
        return 2
    print(write_json_schema())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
